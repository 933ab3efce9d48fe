"""`open_source(uri)`: the one place that maps a source name to its implementation."""
from __future__ import annotations

import re
from pathlib import Path

from .folder import FolderSource, is_image_name
from .opencv import OpenCVSource
from .picam import PicameraSource
from .reconnect import ReconnectingSource
from .source import STREAM_SCHEMES, BaseSource, CaptureConfig, CaptureError, FrameSource, StatusCallback, redact

__all__ = ["open_source"]

_PICAM = re.compile(r"(?:picam|picamera2?)(?::(\d+))?")


def open_source(uri: str, cfg: CaptureConfig | None = None, *,
                on_status: StatusCallback | None = None) -> FrameSource:
    """Open the source that `uri` names and return it, ready to read.

    "0", "1" ...        USB camera by index (/dev/videoN also works)
    rtsp://, http(s)://  network stream
    picam, picamera[:N]  Raspberry Pi camera through picamera2
    a directory          folder of images in natural order
    an image file        a folder of one (.png, .jpg ... as in cfg.folder_extensions)
    another file         video file
    Cameras and streams are wrapped in ReconnectingSource unless cfg.reconnect is off.
    """
    cfg = cfg or CaptureConfig()
    text = uri.strip()
    scheme = text.split("://", 1)[0].lower() if "://" in text else ""
    picam = _PICAM.fullmatch(text.lower())
    source: BaseSource
    if text.isdigit():
        source = OpenCVSource(int(text), cfg)
    elif scheme in STREAM_SCHEMES or text.startswith("/dev/video"):
        source = OpenCVSource(text, cfg, live=True)
    elif picam:
        source = PicameraSource(cfg, camera_num=int(picam.group(1) or 0))
    elif Path(text).is_dir() or (Path(text).is_file() and is_image_name(Path(text), cfg.folder_extensions)):
        # A still image plays as a folder of one: read with a pixel cap, not as a video.
        source = FolderSource(text, cfg)
    elif Path(text).is_file():
        source = OpenCVSource(text, cfg, live=False)
    elif scheme:
        raise CaptureError(f"unsupported stream scheme {scheme!r} in {redact(text)!r}; "
                           f"use one of {', '.join(STREAM_SCHEMES)}")
    else:
        raise CaptureError(f"no such file, folder or camera: {text!r} "
                           "(use a camera index like 0, a URL, a video file, a folder or 'picam')")
    if source.live and cfg.reconnect:
        source = ReconnectingSource(source, cfg)
    source.on_status = on_status
    source.open()
    return source
