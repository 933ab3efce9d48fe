"""Still images from a file or from bytes, checked before they are decoded.

A header can promise 20000x20000 pixels in a few hundred bytes, and decoding that takes
gigabytes; so the size is read from the header first (Pillow parses only the header until
asked for pixels) and refused above a pixel cap. A JPEG cut short is refused as well: some
OpenCV builds decode it with a grey bottom half instead of failing.
"""
from __future__ import annotations

import io
import re
import warnings
from pathlib import Path

import cv2
import numpy as np
from PIL import Image, UnidentifiedImageError

from .source import CaptureError

MAX_PIXELS = 50_000_000         # a 48 MP phone photo (8000x6000) fits; 20000x20000 does not
MAX_BYTES = 200 * 1024 * 1024   # read into memory whole, so bounded as well

# In JPEG entropy-coded data 0xFF is followed by 0x00 (a stuffed byte) or a restart marker;
# anything else starts the next marker segment. 0xFF 0xFF is fill before a marker.
_NEXT_MARKER = re.compile(rb"\xff[^\x00\xd0-\xd7\xff]")


class ImageError(CaptureError):
    """An image that cannot be used (missing, not an image, truncated, too large); names it and why."""


def read_image(path: str | Path, max_pixels: int = MAX_PIXELS, max_bytes: int = MAX_BYTES) -> np.ndarray:
    """The image at ``path`` as 8-bit BGR, or ImageError naming the file."""
    path = Path(path)
    try:
        if path.is_dir():
            raise ImageError(f"{path} is a folder, not an image")
        size = path.stat().st_size
        if size > max_bytes:
            raise ImageError(f"{path}: {size / 2**20:.0f} MB is over the {max_bytes / 2**20:.0f} MB image cap")
        data = path.read_bytes()
    except OSError as exc:
        raise ImageError(f"cannot read image {path}: {exc.strerror or exc}") from None
    return decode_image(data, str(path), max_pixels)


def decode_image(data: bytes, name: str = "image", max_pixels: int = MAX_PIXELS) -> np.ndarray:
    """Encoded image bytes as 8-bit BGR (EXIF orientation applied, as cv2.imread does)."""
    if not data:
        raise ImageError(f"{name}: empty file, not an image")
    width, height, fmt = image_size(data, name)
    if width * height > max_pixels:
        raise ImageError(f"{name}: {width}x{height} is {width * height / 1e6:.0f} megapixels, over the "
                         f"cap of {max_pixels / 1e6:g} megapixels")
    if fmt == "JPEG" and not jpeg_complete(data):
        raise ImageError(f"{name}: truncated JPEG (the file ends before its end-of-image marker)")
    try:
        # IMREAD_COLOR turns grey, 16-bit and alpha images into 8-bit BGR.
        image = cv2.imdecode(np.frombuffer(data, np.uint8), cv2.IMREAD_COLOR)
    except cv2.error as exc:
        raise ImageError(f"{name}: cannot decode the {fmt} image ({exc.err})") from None
    if image is None:
        raise ImageError(f"{name}: corrupt {fmt} image (it cannot be decoded)")
    return image


def image_size(data: bytes, name: str = "image") -> tuple[int, int, str]:
    """(width, height, format) from the header alone; no pixel is decoded."""
    with warnings.catch_warnings():
        # Pillow's own bomb warning and error are for its decoder; we decode with OpenCV
        # and apply our own cap, so only the header is wanted here.
        warnings.simplefilter("ignore", Image.DecompressionBombWarning)
        try:
            with Image.open(io.BytesIO(data)) as im:
                return im.size[0], im.size[1], im.format or "unknown"
        except Image.DecompressionBombError:
            # Pillow will not even give the size past twice its own limit (179 megapixels)
            raise ImageError(f"{name}: over {Image.MAX_IMAGE_PIXELS * 2 / 1e6:.0f} megapixels, "
                             "far too large to decode") from None
        except UnidentifiedImageError:
            raise ImageError(f"{name}: not an image (or not a format tilecam reads)") from None
        except Exception as exc:  # Pillow's header parsers raise many types on hostile bytes
            raise ImageError(f"{name}: unreadable image header ({exc})") from None


def jpeg_complete(data: bytes) -> bool:
    """Whether the JPEG's marker segments run from its start to an end-of-image marker.

    Segments are walked by their lengths (so a thumbnail inside EXIF does not count), and
    each scan's entropy-coded data is skipped up to the next marker; bytes after the end
    marker (a phone's appended video) are allowed.
    """
    pos, n = 2, len(data)
    while pos + 2 <= n:
        if data[pos] != 0xFF:
            return False
        marker = data[pos + 1]
        if marker == 0xFF:          # fill byte
            pos += 1
            continue
        if marker == 0xD9:          # end of image
            return True
        if 0xD0 <= marker <= 0xD7 or marker == 0x01:  # markers without a length
            pos += 2
            continue
        if pos + 4 > n:
            return False
        pos += 2 + int.from_bytes(data[pos + 2:pos + 4], "big")
        if marker == 0xDA:          # start of scan: entropy-coded data up to the next marker
            m = _NEXT_MARKER.search(data, pos)
            if m is None:
                return False
            pos = m.start()
    return False
