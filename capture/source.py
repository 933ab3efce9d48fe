"""The frame-source interface and its config section (`capture/open.py` picks an implementation).

A source is opened, read frame by frame and closed; it is also a context manager and an
iterator that stops at the end of a file or folder. `status` tells the service what the
camera is doing ('connected', 'reconnecting', 'ended', 'failed', or 'closed' before open
and after close) with a human message.
"""
from __future__ import annotations

import logging
from abc import ABC, abstractmethod
import re
import time
from dataclasses import dataclass
from typing import Callable, Iterator, Literal, Protocol, runtime_checkable

from pydantic import BaseModel, ConfigDict, Field, model_validator

from .frame import Frame

log = logging.getLogger(__name__)

SourceState = Literal["connected", "reconnecting", "ended", "failed", "closed"]

IMAGE_EXTENSIONS = (".png", ".jpg", ".jpeg", ".bmp", ".tif", ".tiff", ".webp")
STREAM_SCHEMES = ("rtsp", "rtsps", "rtmp", "http", "https", "udp", "tcp", "srt")


class CaptureError(Exception):
    """A source cannot be opened or read (device gone, URL unreachable, picamera2 missing)."""


class SourceEnded(Exception):
    """A finite source (video file, image folder) has no more frames. Not a failure."""


@dataclass(frozen=True, slots=True)
class SourceStatus:
    state: SourceState
    message: str = ""
    since: float = 0.0          # time.monotonic() when the state was entered

    @property
    def ok(self) -> bool:
        return self.state == "connected"


StatusCallback = Callable[[SourceStatus], None]


class CaptureConfig(BaseModel):
    """How frames are captured: the source, the requested camera mode, the Pi camera's exposure
    lock, stream timeouts and reconnect backoff."""

    model_config = ConfigDict(extra="forbid")

    source: str = Field("picam", min_length=1, max_length=1000, description=(
        "What `tilecam run` records from when --source is not given: 'picam' (or picam:1), a USB "
        "camera index like 0, an rtsp:// or http(s):// URL, a video file or a folder of images."))
    fps: float = Field(10.0, gt=0, le=120, description=(
        "Frames per second requested from a camera. A folder of images is timestamped at "
        "index / fps; a video file keeps its own timestamps."))
    width_px: int = Field(1920, ge=0, le=10000, description=(
        "Image width requested from a camera; the camera picks its nearest mode. "
        "0 keeps the camera's default. Files are never resized."))
    height_px: int = Field(1080, ge=0, le=10000,
                           description="Image height requested from a camera; 0 keeps the default.")
    usb_fourcc: str = Field("MJPG", max_length=4, description=(
        "Pixel format asked of a USB camera. MJPG gets 1080p at full rate over USB 2; "
        "an empty string keeps the driver's choice."))
    buffer_frames: int = Field(1, ge=0, le=64, description=(
        "Frames an OpenCV camera may queue inside the driver; 1 keeps every read fresh. "
        "0 keeps the backend's default."))
    open_timeout_s: float = Field(10.0, gt=0, le=300, description="How long opening a network stream may take.")
    read_timeout_s: float = Field(5.0, gt=0, le=300, description=(
        "How long a camera or network stream may go without a frame before a read fails."))
    reconnect: bool = Field(True, description=(
        "Wrap cameras and streams so that a dropped camera is reopened with backoff "
        "instead of ending the recording."))
    reconnect_initial_s: float = Field(0.25, gt=0, le=10.0, description=(
        "Wait before the first reconnect attempt after a camera drops. A good frame resets "
        "the wait to this, so every outage starts with a quick retry."))
    reconnect_max_s: float = Field(1.0, gt=0, le=10.0, description=(
        "Longest wait between reconnect attempts. A camera that comes back mid-wait is "
        "only noticed at the next attempt, so this is also the longest the recorder stays "
        "blind after the camera returns (plus one open and one read); at most 10 s, "
        "because a move can be over in less."))
    reconnect_factor: float = Field(2.0, ge=1.0, le=10.0, description=(
        "Each failed attempt multiplies the wait by this, up to reconnect_max_s."))
    reconnect_give_up_s: float = Field(0.0, ge=0, le=86400.0, description=(
        "Give up (status 'failed') after this long without a frame; 0 retries forever."))
    folder_extensions: tuple[str, ...] = Field(IMAGE_EXTENSIONS, min_length=1, max_length=32, description=(
        "File name endings read from an image folder, case-insensitive."))
    picam_lens_position_dioptre: float | None = Field(None, ge=0, le=32, description=(
        "Camera Module 3 only: fixed lens position in dioptres (1 / distance in m), e.g. 1.4 "
        "for a board 0.7 m below. Unset: one autofocus cycle runs when the camera opens."))
    # A board under changing exposure changes grey levels between snapshots; locked, only the
    # tiles change. Settling first keeps the lock from freezing a start-up exposure.
    picam_lock_exposure: bool = Field(True, description=(
        "Pi camera: let auto exposure and auto white balance settle when the camera opens (and "
        "when a game starts), then fix exposure time, gain and colour gains for the game; "
        "they go back to automatic between games. Off: automatic throughout."))
    picam_settle_frames: int = Field(8, ge=1, le=300, description=(
        "Exposure and white balance count as settled once this many frames in a row agree "
        "within picam_settle_tolerance (and the camera reports its exposure converged, where it "
        "reports that)."))
    picam_settle_tolerance: float = Field(0.03, gt=0, lt=1, description=(
        "Largest relative change of exposure (time x gain) and of each colour gain between those "
        "frames that still counts as settled."))
    picam_settle_max_s: float = Field(5.0, gt=0, le=60, description=(
        "Longest wait for settling; after it the values of the last frame are locked anyway "
        "and a warning is logged (a flickering light or a hand moving over the board)."))
    picam_flicker_hz: Literal[0, 50, 60] = Field(0, description=(
        "Mains frequency for the Pi camera's anti-flicker mode: 50 (Europe, most of Asia and "
        "Africa) or 60 (the Americas, Japan's west) keep exposure times at whole periods of the "
        "lights' flicker, which removes banding under LED and fluorescent lamps; 0 leaves the "
        "camera's default (off)."))

    @model_validator(mode="after")
    def _backoff_order(self) -> "CaptureConfig":
        if self.reconnect_max_s < self.reconnect_initial_s:
            raise ValueError("reconnect_max_s must be at least reconnect_initial_s")
        return self


@runtime_checkable
class FrameSource(Protocol):
    name: str
    live: bool                  # a camera or stream: frames keep coming and it can drop

    @property
    def status(self) -> SourceStatus: ...

    @property
    def total_frames(self) -> int | None: ...   # for a progress bar; None when live or unknown

    def open(self) -> None: ...

    def read(self) -> Frame: ...                  # raises SourceEnded or CaptureError

    def close(self) -> None: ...

    def __enter__(self) -> "FrameSource": ...

    def __exit__(self, *exc: object) -> None: ...

    def __iter__(self) -> Iterator[Frame]: ...


class BaseSource(ABC):
    """Status bookkeeping, context manager and iteration shared by the implementations.

    Subclasses implement `_open`, `_read` and `_close`; `open` is idempotent.
    """

    live = False

    def __init__(self, name: str, on_status: StatusCallback | None = None) -> None:
        self.name = name
        self.on_status = on_status
        self._status = SourceStatus("closed", "not opened", time.monotonic())
        self._opened = False

    @property
    def status(self) -> SourceStatus:
        return self._status

    @property
    def total_frames(self) -> int | None:
        return None

    def _set_status(self, state: SourceState, message: str = "") -> None:
        if state == self._status.state and message == self._status.message:
            return
        self._status = SourceStatus(state, message, time.monotonic())
        if state in ("failed", "reconnecting"):
            log.warning("%s: %s %s", self.name, state, message)
        else:
            log.info("%s: %s %s", self.name, state, message)
        if self.on_status is not None:
            self.on_status(self._status)

    def open(self) -> None:
        if self._opened:
            return
        try:
            self._open()
        except CaptureError as exc:
            self._set_status("failed", str(exc))
            raise
        self._opened = True
        self._set_status("connected", "")

    def read(self) -> Frame:
        if not self._opened:
            raise CaptureError(f"{self.name}: read before open")
        try:
            return self._read()
        except SourceEnded as exc:
            self._set_status("ended", str(exc) or "no more frames")
            raise
        except CaptureError as exc:
            self._set_status("failed", str(exc))
            raise

    def close(self) -> None:
        if self._opened:
            self._opened = False
            self._close()
        if self._status.state != "ended":
            self._set_status("closed", "")

    @abstractmethod
    def _open(self) -> None: ...

    @abstractmethod
    def _read(self) -> Frame: ...

    def _close(self) -> None:
        return None

    def __enter__(self):
        self.open()
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __iter__(self) -> Iterator[Frame]:
        while True:
            try:
                yield self.read()
            except SourceEnded:
                return

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.name!r}, {self._status.state})"


def redact(uri: str) -> str:
    """The URI with any password replaced, fit for logs and the status page."""
    return re.sub(r"(://[^:/@]+):[^@/]*@", r"\1:***@", uri)
