"""Keep a live camera going: reopen it with backoff when it drops, and never block the pipeline.

ReconnectingSource wraps a live source; a failed read closes it and reopens it after
reconnect_initial_s, growing by reconnect_factor up to reconnect_max_s, while `status`
says 'reconnecting'. Frames keep one index sequence across reconnects, so nothing
downstream sees a gap.

Why the cap is short and the wait resets: the wait is not told when the camera returns, so
the camera can be back for up to one whole wait before the next attempt. With an uncapped
doubling (0.5, 1, 2, 4 s ...) a 4 s outage kept the recorder blind for 7.5 s and a move was
missed. Capping the wait at reconnect_max_s (1 s by default, 10 s at most) bounds the time
from "camera back" to "frames flowing" by reconnect_max_s plus one open and one read, and
resetting it on every good frame makes each new outage start again at reconnect_initial_s.

LatestFrameReader reads a source on its own thread and keeps only the newest frame: a
slow pipeline stage sees fresh frames, and the frames it had no time for are counted as
dropped (Frigate's skipped_fps) instead of piling up in a queue.
"""
from __future__ import annotations

import logging
import threading
import time
from dataclasses import dataclass
from typing import Iterator

from .frame import Frame
from .source import (BaseSource, CaptureConfig, CaptureError, FrameSource, SourceEnded,
                     SourceStatus, StatusCallback)

log = logging.getLogger(__name__)


class ReconnectingSource(BaseSource):
    """Reopens `inner` with capped exponential backoff whenever a read fails.

    The first open is not retried, so a wrong camera index or URL fails at once. The end
    of a video file is 'ended'; a failure of a non-live source is 'failed' and raised.
    Frame indices are renumbered by the wrapper and stay contiguous; live frames are
    stamped with seconds since the wrapper opened, so time runs on across reconnects.
    """

    def __init__(self, inner: BaseSource, cfg: CaptureConfig | None = None,
                 on_status: StatusCallback | None = None) -> None:
        super().__init__(inner.name, on_status)
        self.inner = inner
        self.live = inner.live
        self.cfg = cfg or CaptureConfig()
        self.reconnects = 0              # successful reopenings since open
        self._cancel = threading.Event()
        self._inner_open = False
        self._index = 0
        self._t0 = 0.0
        self._last_frame_at = 0.0
        self._delay = self.cfg.reconnect_initial_s

    @property
    def total_frames(self) -> int | None:
        return self.inner.total_frames

    def cancel(self) -> None:
        """Abort a backoff wait from another thread; the pending read raises CaptureError."""
        self._cancel.set()

    def _open(self) -> None:
        self._cancel.clear()
        self.inner.open()
        self._inner_open = True
        self._index = 0
        self._t0 = self._last_frame_at = time.monotonic()
        self._delay = self.cfg.reconnect_initial_s

    def _read(self) -> Frame:
        while True:
            if self._cancel.is_set():
                raise CaptureError(f"{self.name}: closed")
            if not self._inner_open:
                self._reopen()
                continue
            try:
                frame = self.inner.read()
            except SourceEnded:
                raise
            except CaptureError as exc:
                if not self.inner.live:
                    raise
                self._drop(str(exc))
                continue
            return self._restamp(frame)

    def _drop(self, reason: str) -> None:
        self._close_inner()
        self._set_status("reconnecting", f"{reason}; retrying in {self._delay:.3g} s")

    def _reopen(self) -> None:
        give_up = self.cfg.reconnect_give_up_s
        if give_up and time.monotonic() - self._last_frame_at > give_up:
            raise CaptureError(f"{self.name}: no frame for {give_up:.0f} s, giving up")
        if self._cancel.wait(self._delay):
            raise CaptureError(f"{self.name}: closed while reconnecting")
        # The wait grows until a frame arrives, not merely until open succeeds: a camera
        # that opens and then fails its first read is retried on the growing schedule, not
        # at the shortest wait forever. The cap keeps the wait short enough that a camera
        # that comes back mid-wait is picked up within reconnect_max_s.
        wait = self._delay
        self._delay = min(self._delay * self.cfg.reconnect_factor, self.cfg.reconnect_max_s)
        try:
            self.inner.open()
        except CaptureError as exc:
            self._set_status("reconnecting", f"{exc}; retrying in {self._delay:.3g} s")
            return
        self._inner_open = True
        log.info("%s: reopened after waiting %.1f s", self.name, wait)

    def _restamp(self, frame: Frame) -> Frame:
        """Renumber and restamp a good frame; a good frame also resets the backoff.

        The reset is what makes a reconnect count as successful: the next outage, however
        soon, starts again at reconnect_initial_s instead of where this one left off.
        """
        now = time.monotonic()
        if self._status.state != "connected":
            self.reconnects += 1
            self._set_status("connected", f"reconnected after {now - self._last_frame_at:.1f} s")
        self._last_frame_at = now
        self._delay = self.cfg.reconnect_initial_s
        t = now - self._t0 if self.live else frame.t
        out = Frame(frame.image, t, self._index, self.name, frame.path)
        self._index += 1
        return out

    def _close_inner(self) -> None:
        if self._inner_open:
            self._inner_open = False
            try:
                self.inner.close()
            except Exception as exc:   # a dead device may fail to close; it is being replaced anyway
                log.warning("%s: close failed: %s", self.name, exc)

    def _close(self) -> None:
        self._cancel.set()
        self._close_inner()


@dataclass(frozen=True, slots=True)
class CaptureStats:
    grabbed: int     # frames read from the source
    delivered: int   # frames handed to the pipeline
    dropped: int     # frames replaced by a newer one before the pipeline took them

    @property
    def dropped_ratio(self) -> float:
        return self.dropped / self.grabbed if self.grabbed else 0.0


class LatestFrameReader:
    """Reads `source` on a daemon thread; `get()` returns the newest frame not yet taken.

    With drop=True (the default for live sources) an untaken frame is replaced by a newer
    one and counted in `dropped`. With drop=False the thread waits until the frame is
    taken, which suits a video file that must be read whole. The reader owns the source:
    close() stops the thread and closes the source.
    """

    def __init__(self, source: FrameSource, *, drop: bool | None = None,
                 cfg: CaptureConfig | None = None) -> None:
        self.source = source
        self.drop = source.live if drop is None else drop
        # The sources open_source builds carry the config they were opened with.
        self.cfg = cfg or getattr(source, "cfg", None) or CaptureConfig()
        self._cond = threading.Condition()
        self._pending: Frame | None = None
        self._finished = False
        self._stopping = False
        self._error: BaseException | None = None
        self._thread: threading.Thread | None = None
        self._grabbed = self._delivered = self._dropped = 0

    @property
    def status(self) -> SourceStatus:
        return self.source.status

    @property
    def stats(self) -> CaptureStats:
        with self._cond:
            return CaptureStats(self._grabbed, self._delivered, self._dropped)

    def start(self) -> "LatestFrameReader":
        if self._thread is None:
            self.source.open()
            self._thread = threading.Thread(target=self._run, name=f"capture {self.source.name}",
                                            daemon=True)
            self._thread.start()
        return self

    def _run(self) -> None:
        error: BaseException | None = None
        while not self._stopping:
            try:
                frame = self.source.read()
            except BaseException as exc:   # SourceEnded, CaptureError or a bug: get() re-raises it
                error = None if self._stopping else exc
                break
            with self._cond:
                if not self.drop:
                    self._cond.wait_for(lambda: self._pending is None or self._stopping)
                if self._pending is not None:
                    self._dropped += 1
                self._pending = frame
                self._grabbed += 1
                self._cond.notify_all()
        with self._cond:
            self._finished = True
            self._error = error
            self._cond.notify_all()

    def get(self, timeout: float | None = None) -> Frame | None:
        """The newest frame not yet taken, waiting up to `timeout` s; None if none came.

        Raises SourceEnded once a file is finished and CaptureError once the source failed.
        """
        with self._cond:
            self._cond.wait_for(lambda: self._pending is not None or self._finished, timeout)
            if self._pending is not None:
                frame, self._pending = self._pending, None
                self._delivered += 1
                self._cond.notify_all()
                return frame
            if self._finished:
                if self._error is not None:
                    raise self._error
                raise CaptureError(f"{self.source.name}: reader closed")
            return None

    def __iter__(self) -> Iterator[Frame]:
        """Frames until the source ends; a failed source raises CaptureError."""
        while True:
            try:
                frame = self.get()
            except SourceEnded:
                return
            if frame is not None:
                yield frame

    def close(self, timeout_s: float | None = None) -> None:
        """Stop the thread and close the source.

        The thread may be inside a read or a reopen, which return within the stream's read
        or open timeout; by default close waits that long (plus a second) before giving up.
        """
        if timeout_s is None:
            timeout_s = max(self.cfg.open_timeout_s, self.cfg.read_timeout_s) + 1.0
        with self._cond:
            self._stopping = True
            self._cond.notify_all()
        cancel = getattr(self.source, "cancel", None)
        if cancel is not None:
            cancel()
        if self._thread is not None:
            self._thread.join(timeout_s)
            if self._thread.is_alive():
                # Releasing a device under a read can crash the driver; the daemon thread dies with us.
                log.warning("%s: capture thread still in a read after %.0f s; not closing it",
                            self.source.name, timeout_s)
                return
        self.source.close()

    def __enter__(self) -> "LatestFrameReader":
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.close()
