"""capture.still: the same pixels as cv2.imread on every real photo; refusals before decoding."""
from __future__ import annotations

import io

import cv2
import numpy as np
import pytest
from PIL import Image

from tilecam.capture.still import ImageError, decode_image, jpeg_complete, read_image
from conftest import shared_data_dir

REAL = sorted(p for p in shared_data_dir().rglob("*") if p.suffix.lower() in (".jpg", ".jpeg", ".png"))


def test_there_are_real_images():
    assert len(REAL) > 100, f"shared data images not found under {shared_data_dir()}"


@pytest.mark.parametrize("path", REAL, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_same_pixels_as_imread(path):
    # imread applies EXIF orientation; so must we, or phone photos turn sideways
    assert np.array_equal(read_image(path), cv2.imread(str(path), cv2.IMREAD_COLOR))


def jpeg(**options) -> bytes:
    buf = io.BytesIO()
    rgb = np.random.default_rng(3).integers(0, 256, (96, 128, 3), dtype=np.uint8)
    Image.fromarray(rgb).save(buf, "JPEG", **options)
    return buf.getvalue()


@pytest.mark.parametrize("options", [{}, {"progressive": True}, {"restart_marker_blocks": 2}], ids=str)
def test_jpeg_complete_only_up_to_its_end_marker(options):
    data = jpeg(**options)
    assert jpeg_complete(data) and jpeg_complete(data + b"\x00appended video")
    assert not any(jpeg_complete(data[:cut]) for cut in range(2, len(data) - 1, 97))
    assert not jpeg_complete(data[:-2])
    with pytest.raises(ImageError, match="truncated JPEG"):
        decode_image(data[: len(data) * 2 // 3], "cut.jpg")


def test_the_pixel_cap_is_a_parameter():
    data = jpeg()
    assert decode_image(data, "x.jpg", max_pixels=128 * 96).shape == (96, 128, 3)
    with pytest.raises(ImageError, match=r"x.jpg: 128x96 is 0 megapixels, over the cap of 0.01 megapixels"):
        decode_image(data, "x.jpg", max_pixels=10_000)


def test_read_image_caps_the_file_size(tmp_path):
    f = tmp_path / "big.jpg"
    f.write_bytes(jpeg())
    with pytest.raises(ImageError, match="MB image cap"):
        read_image(f, max_bytes=1000)
