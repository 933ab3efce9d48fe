"""capture/source.py: what every frame source shares (BaseSource): open once, the status it moves
through and reports, iteration to the end; a URI's password kept out of logs; the config's checks."""
from __future__ import annotations

import numpy as np
import pytest

from tilecam.capture.frame import Frame
from tilecam.capture.source import BaseSource, CaptureConfig, CaptureError, SourceEnded, redact


class Listed(BaseSource):
    """Frames from a list; `fail` makes the next read (or open) a CaptureError."""

    def __init__(self, n: int, fail_open: bool = False) -> None:
        self.seen: list[tuple[str, str]] = []
        super().__init__("listed", on_status=lambda s: self.seen.append((s.state, s.message)))
        self.n, self.fail_open, self.fail = n, fail_open, False
        self.opens = self.closes = self.i = 0

    def _open(self) -> None:
        if self.fail_open:
            raise CaptureError("no such camera")
        self.opens += 1

    def _read(self) -> Frame:
        if self.fail:
            raise CaptureError("cable pulled")
        if self.i >= self.n:
            raise SourceEnded()
        self.i += 1
        return Frame(np.zeros((2, 2, 3), np.uint8), t=float(self.i), index=self.i - 1)

    def _close(self) -> None:
        self.closes += 1


def test_a_source_opens_once_reads_to_its_end_and_says_so():
    source = Listed(3)
    with pytest.raises(CaptureError, match="before open"):
        source.read()
    with source:
        source.open()  # idempotent
        assert [f.index for f in source] == [0, 1, 2] and source.opens == 1
        assert source.status.state == "ended" and not source.status.ok
    assert source.closes == 1 and source.status.state == "ended"  # closing keeps the end
    assert source.seen == [("connected", ""), ("ended", "no more frames")]


def test_a_failure_is_a_status_and_the_error():
    source = Listed(3, fail_open=True)
    with pytest.raises(CaptureError):
        source.open()
    assert source.seen == [("failed", "no such camera")]
    live = Listed(3)
    live.open()
    live.fail = True
    for _ in range(2):  # the same status twice is reported once
        with pytest.raises(CaptureError):
            live.read()
    live.close()
    assert live.seen == [("connected", ""), ("failed", "cable pulled"), ("closed", "")] and live.closes == 1


@pytest.mark.parametrize("uri, shown", [
    ("rtsp://admin:s3cret@10.0.0.5:554/stream", "rtsp://admin:***@10.0.0.5:554/stream"),
    ("http://cam.local/mjpg", "http://cam.local/mjpg"),
    ("/dev/video0", "/dev/video0")])
def test_a_uri_s_password_never_reaches_a_log(uri, shown):
    assert redact(uri) == shown


def test_the_reconnect_back_off_cannot_end_below_its_start():
    with pytest.raises(ValueError, match="reconnect_max_s"):
        CaptureConfig(reconnect_initial_s=10, reconnect_max_s=5)
    with pytest.raises(ValueError, match="unknown_key"):
        CaptureConfig(unknown_key=1)
