"""OpenCV VideoCapture as a frame source: USB camera by index, network stream, or video file."""
from __future__ import annotations

import logging
import os
import time
from pathlib import Path

import cv2

from .frame import Frame
from .source import (STREAM_SCHEMES, BaseSource, CaptureConfig, CaptureError, SourceEnded,
                     StatusCallback, redact)

log = logging.getLogger(__name__)


def _is_url(target: int | str) -> bool:
    return isinstance(target, str) and target.split("://", 1)[0].lower() in STREAM_SCHEMES


class OpenCVSource(BaseSource):
    """cv2.VideoCapture behind the FrameSource interface.

    A video file is stamped with its own presentation times (CAP_PROP_POS_MSEC) and has
    `total_frames`; a camera or stream is live, stamped with seconds since open, and a
    failed read raises CaptureError so that ReconnectingSource can reopen it.
    """

    def __init__(self, target: int | str, cfg: CaptureConfig | None = None, *,
                 live: bool | None = None, on_status: StatusCallback | None = None) -> None:
        name = f"camera {target}" if isinstance(target, int) else redact(str(target))
        super().__init__(name, on_status)
        self.target = target
        self.cfg = cfg or CaptureConfig()
        self.live = live if live is not None else (isinstance(target, int) or _is_url(target))
        self._cap: cv2.VideoCapture | None = None
        self._index = 0
        self._t0 = 0.0
        self._total: int | None = None
        self._file_fps = 0.0

    @property
    def total_frames(self) -> int | None:
        return self._total

    @property
    def fps(self) -> float:
        """The file's frame rate, or the rate asked of a camera."""
        return self._file_fps or self.cfg.fps

    def _open(self) -> None:
        cfg = self.cfg
        if not self.live and not Path(str(self.target)).is_file():
            raise CaptureError(f"no such video file: {self.target}")
        params: list[int] = []
        if _is_url(self.target):
            # Without these a dead stream blocks a read for the backend's default (30 s).
            params = [cv2.CAP_PROP_OPEN_TIMEOUT_MSEC, int(cfg.open_timeout_s * 1000),
                      cv2.CAP_PROP_READ_TIMEOUT_MSEC, int(cfg.read_timeout_s * 1000)]
        # A stable name (/dev/v4l/by-id/..., by-path/...) is looked up at each open: a camera plugged in
        # again may come back as another /dev/videoN.
        target = os.path.realpath(self.target) if str(self.target).startswith("/dev/v4l/") else self.target
        cap = cv2.VideoCapture(target, cv2.CAP_ANY, params)
        if not cap.isOpened():
            cap.release()
            raise CaptureError(f"cannot open {self.name}")
        if isinstance(target, int) or str(target).startswith("/dev/video"):
            # FOURCC first: many UVC cameras only offer 1080p at full rate as MJPG.
            if cfg.usb_fourcc:
                cap.set(cv2.CAP_PROP_FOURCC, cv2.VideoWriter_fourcc(*cfg.usb_fourcc.ljust(4)))
            if cfg.width_px and cfg.height_px:
                cap.set(cv2.CAP_PROP_FRAME_WIDTH, cfg.width_px)
                cap.set(cv2.CAP_PROP_FRAME_HEIGHT, cfg.height_px)
            cap.set(cv2.CAP_PROP_FPS, cfg.fps)
        if self.live and cfg.buffer_frames:
            cap.set(cv2.CAP_PROP_BUFFERSIZE, cfg.buffer_frames)
        if not self.live:
            count = int(cap.get(cv2.CAP_PROP_FRAME_COUNT))
            self._total = count if count > 0 else None
            self._file_fps = float(cap.get(cv2.CAP_PROP_FPS) or 0.0)
        self._cap = cap
        self._index = 0
        self._t0 = time.monotonic()

    def _read(self) -> Frame:
        assert self._cap is not None
        ok, image = self._cap.read()
        if not ok or image is None:
            if self.live:
                raise CaptureError(f"{self.name}: read failed after {self._index} frames")
            if self._total is not None and self._index < self._total - 1:
                log.warning("%s: ended at frame %d of %d", self.name, self._index, self._total)
            raise SourceEnded(f"{self._index} frames read")
        if image.ndim == 2:
            image = cv2.cvtColor(image, cv2.COLOR_GRAY2BGR)
        elif image.shape[2] == 4:
            image = cv2.cvtColor(image, cv2.COLOR_BGRA2BGR)
        if self.live:
            t = time.monotonic() - self._t0
        else:
            # After a read, POS_MSEC is the presentation time of the frame just decoded;
            # some containers report 0 throughout, so fall back to index / fps.
            msec = self._cap.get(cv2.CAP_PROP_POS_MSEC)
            t = msec / 1000.0 if msec > 0 or self._index == 0 else self._index / self.fps
        frame = Frame(image, t, self._index, self.name)
        self._index += 1
        return frame

    def _close(self) -> None:
        if self._cap is not None:
            self._cap.release()
            self._cap = None
