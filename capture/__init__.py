"""Frame sources: cameras, streams, video files and image folders behind one interface.

Imports nothing of tilecam. `open_source(uri, cfg)` picks the implementation.
"""
from .frame import Frame
from .reconnect import CaptureStats, LatestFrameReader, ReconnectingSource
from .open import device_key, names_live, open_source
from .source import (CaptureConfig, CaptureError, FrameSource, SourceEnded, SourceState,
                     SourceStatus)
from .still import ImageError, decode_image, read_image

__all__ = [
    "CaptureConfig", "CaptureError", "CaptureStats", "Frame", "FrameSource", "ImageError", "LatestFrameReader",
    "ReconnectingSource", "SourceEnded", "SourceState", "SourceStatus", "decode_image", "device_key", "names_live",
    "open_source", "read_image",
]
