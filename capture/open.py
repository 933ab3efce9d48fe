"""`open_source(uri)`: the one place that maps a source name to its implementation."""
from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from .folder import FolderSource, is_image_name
from .opencv import OpenCVSource
from .picam import PicameraSource
from .reconnect import ReconnectingSource
from .source import STREAM_SCHEMES, BaseSource, CaptureConfig, CaptureError, FrameSource, StatusCallback, redact

__all__ = ["SourceName", "device_key", "names_live", "open_source", "source_name"]

_PICAM = re.compile(r"(?:picam|picamera2?)(?::(\d+))?")

# What a source name can be (SourceName.kind); the first four are live (frames keep coming).
LIVE_KINDS = ("index", "device", "stream", "picam")


@dataclass(frozen=True)
class SourceName:
    """What kind of source a name is, parsed once (`source_name`): "index" (a USB camera by number),
    "device" (/dev/videoN, /dev/v4l/...), "stream" (rtsp://, http(s)://), "picam" (a Pi camera,
    `number` its port), "folder", "image" (a folder of one), "video" (another file), "scheme" (a URL
    of a scheme no source reads) or "missing" (nothing of that name)."""

    kind: str
    text: str           # the name as given, stripped
    number: int = 0     # the camera index, or the Pi camera's number
    scheme: str = ""    # a URL's scheme, lower case

    @property
    def live(self) -> bool:
        return self.kind in LIVE_KINDS


def source_name(uri: str, extensions: tuple[str, ...] | None = None) -> SourceName:
    """The one parse of a source name (`extensions`: the still images a folder holds, as
    CaptureConfig.folder_extensions; default its default). Cameras and streams are told from the name
    alone; a folder or a file only by looking on disk."""
    text = uri.strip()
    scheme = text.split("://", 1)[0].lower() if "://" in text else ""
    if text.isdigit():
        return SourceName("index", text, int(text))
    if scheme in STREAM_SCHEMES:
        return SourceName("stream", text, scheme=scheme)
    if text.startswith(("/dev/video", "/dev/v4l/")):
        return SourceName("device", text)
    if picam := _PICAM.fullmatch(text.lower()):
        return SourceName("picam", text, int(picam.group(1) or 0))
    path = Path(text)
    if path.is_dir():
        return SourceName("folder", text)
    if path.is_file():
        exts = CaptureConfig().folder_extensions if extensions is None else extensions
        return SourceName("image" if is_image_name(path, exts) else "video", text)
    return SourceName("scheme" if scheme else "missing", text, scheme=scheme)


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
    name = source_name(uri, cfg.folder_extensions)
    source: BaseSource
    match name.kind:
        case "index":
            source = OpenCVSource(name.number, cfg)
        case "stream" | "device":
            source = OpenCVSource(name.text, cfg, live=True)
        case "picam":
            source = PicameraSource(cfg, camera_num=name.number)
        case "folder" | "image":
            # A still image plays as a folder of one: read with a pixel cap, not as a video.
            source = FolderSource(name.text, cfg)
        case "video":
            source = OpenCVSource(name.text, cfg, live=False)
        case "scheme":
            raise CaptureError(f"unsupported stream scheme {name.scheme!r} in {redact(name.text)!r}; "
                               f"use one of {', '.join(STREAM_SCHEMES)}")
        case _:
            raise CaptureError(f"no such file, folder or camera: {name.text!r} "
                               "(use a camera index like 0, a URL, a video file, a folder or 'picam')")
    if source.live and cfg.reconnect:
        source = ReconnectingSource(source, cfg)
    source.on_status = on_status
    source.open()
    return source


def names_live(uri: str) -> bool:
    """Whether `uri` names a camera or a stream (frames keep coming, and it can be absent for a
    while) rather than a file or a folder; decided from the name alone, as `open_source` decides."""
    return source_name(uri).live


def device_key(uri: str) -> str:
    """One name per device, so that two sources naming the same camera are told apart from two
    cameras: 'picam', 'picamera:0' -> 'picam:0'; '2', '/dev/video2' -> '/dev/video2'; a path (and a
    /dev/v4l/by-id/ name of a camera that is plugged in), its resolved form; a URL as given."""
    name = source_name(uri)
    if name.kind == "picam":
        return f"picam:{name.number}"
    if name.kind == "index":
        return f"/dev/video{name.number}"
    if "://" in name.text or name.text.startswith("/dev/video"):
        return name.text
    return str(Path(name.text).expanduser().resolve())
