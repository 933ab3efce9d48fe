"""`open_source(uri)`: the one place that maps a source name to its implementation."""
from __future__ import annotations

import re
from pathlib import Path

from .folder import FolderSource, is_image_name
from .opencv import OpenCVSource
from .picam import PicameraSource
from .reconnect import ReconnectingSource
from .source import STREAM_SCHEMES, BaseSource, CaptureConfig, CaptureError, FrameSource, StatusCallback, redact

__all__ = ["device_key", "names_live", "open_source"]

_PICAM = re.compile(r"(?:picam|picamera2?)(?::(\d+))?")


def open_source(uri: str, cfg: CaptureConfig | None = None, *,
                on_status: StatusCallback | None = None) -> FrameSource:
    """Open the source that `uri` names and return it, ready to read.

    "0", "1" ...        USB camera by index (/dev/videoN also works, and a stable name under
                         /dev/v4l/by-id/ or by-path/, looked up at each open)
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
    elif scheme in STREAM_SCHEMES or text.startswith(("/dev/video", "/dev/v4l/")):
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


def names_live(uri: str) -> bool:
    """Whether `uri` names a camera or a stream (frames keep coming, and it can be absent for a
    while) rather than a file or a folder; decided from the name alone, as `open_source` decides."""
    text = uri.strip()
    scheme = text.split("://", 1)[0].lower() if "://" in text else ""
    return (text.isdigit() or scheme in STREAM_SCHEMES or text.startswith(("/dev/video", "/dev/v4l/"))
            or _PICAM.fullmatch(text.lower()) is not None)


def device_key(uri: str) -> str:
    """One name per device, so that two sources naming the same camera are told apart from two
    cameras: 'picam', 'picamera:0' -> 'picam:0'; '2', '/dev/video2' -> '/dev/video2'; a path (and a
    /dev/v4l/by-id/ name of a camera that is plugged in), its resolved form; a URL as given."""
    text = uri.strip()
    if picam := _PICAM.fullmatch(text.lower()):
        return f"picam:{int(picam.group(1) or 0)}"
    if text.isdigit():
        return f"/dev/video{int(text)}"
    if "://" in text or text.startswith("/dev/video"):
        return text
    return str(Path(text).expanduser().resolve())
