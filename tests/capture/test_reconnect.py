"""ReconnectingSource and LatestFrameReader against a scripted fake camera.

The fake is a real FrameSource whose device fails on cue: reads fail at given frame
numbers, and the next opens fail a given number of times. Backoff values are short so
the tests take milliseconds; waits poll with timeouts instead of sleeping.
"""
from __future__ import annotations

import re
import threading
import time

import numpy as np
import pytest

from tilecam.capture import CaptureConfig, CaptureError, LatestFrameReader, ReconnectingSource, SourceEnded
from tilecam.capture.frame import Frame
from tilecam.capture.source import BaseSource

FAST = CaptureConfig(reconnect_initial_s=0.01, reconnect_max_s=0.04)


class FlakyCamera(BaseSource):
    """Produces frames whose pixel value is the camera's own frame counter."""

    live = True

    def __init__(self, total: int, drop_at: tuple[int, ...] = (), failed_opens: int = 0,
                 period_s: float = 0.0, live: bool = True) -> None:
        super().__init__("flaky")
        self.live = live
        self.total = total
        self.drop_at = set(drop_at)
        self.failed_opens_after_drop = failed_opens
        self.period_s = period_s
        self.produced = 0           # frames the camera handed out successfully
        self.open_times: list[float] = []
        self._failing_opens = 0
        self._first = True

    def _open(self) -> None:
        self.open_times.append(time.monotonic())
        if self._failing_opens:
            self._failing_opens -= 1
            raise CaptureError("device not found")

    def _read(self) -> Frame:
        if self.period_s:
            time.sleep(self.period_s)
        if self.produced in self.drop_at:
            self.drop_at.discard(self.produced)
            self._failing_opens = self.failed_opens_after_drop
            raise CaptureError("read failed")
        if self.produced >= self.total:
            raise SourceEnded("done")
        image = np.full((4, 4, 3), self.produced, np.uint8)
        frame = Frame(image, 0.0, self.produced, self.name)
        self.produced += 1
        return frame


def states(statuses) -> list[str]:
    out: list[str] = []
    for s in statuses:
        if not out or out[-1] != s.state:
            out.append(s.state)
    return out


def test_camera_failing_then_recovering_keeps_every_index():
    camera = FlakyCamera(total=10, drop_at=(4,), failed_opens=3)
    seen = []
    source = ReconnectingSource(camera, FAST, on_status=seen.append)
    with source:
        frames = list(source)
    assert [f.index for f in frames] == list(range(10))
    assert [int(f.image[0, 0, 0]) for f in frames] == list(range(10))   # no camera frame lost
    assert states(seen) == ["connected", "reconnecting", "connected", "ended"]
    assert source.reconnects == 1
    # One open at start, three failed reopens, one that works; waits grow up to the cap.
    gaps = np.diff(camera.open_times)
    assert len(camera.open_times) == 5
    assert gaps[0] >= 0.01 and gaps[1] >= 0.02 and gaps[2] >= 0.04 and gaps[3] >= 0.04
    times = [f.t for f in frames]
    assert times == sorted(times)


def waits(statuses) -> list[float]:
    """The waits the source announced ('retrying in X s'), in order."""
    return [float(m.group(1)) for s in statuses
            if (m := re.search(r"retrying in ([0-9.]+) s", s.message))]


def test_backoff_is_capped_and_resets_after_a_reconnect():
    # Two outages: the first long enough to reach the cap, the second right after the
    # first reconnect. The second must start from reconnect_initial_s again.
    camera = FlakyCamera(total=12, drop_at=(3, 5), failed_opens=6)
    cfg = CaptureConfig(reconnect_initial_s=0.01, reconnect_max_s=0.03, reconnect_factor=2.0)
    seen = []
    with ReconnectingSource(camera, cfg, on_status=seen.append) as source:
        values = [int(f.image[0, 0, 0]) for f in source]
        assert source.reconnects == 2
    assert values == list(range(12))
    announced = waits(seen)
    assert max(announced) == pytest.approx(0.03)          # never beyond reconnect_max_s
    # Announced per outage: the read failure, then each failed reopen (repeats at the
    # cap are one status, since the message does not change).
    first, second = announced[:announced.index(0.01, 1)], announced[announced.index(0.01, 1):]
    assert first == pytest.approx([0.01, 0.02, 0.03])
    assert second == pytest.approx([0.01, 0.02, 0.03])
    assert states(seen) == ["connected", "reconnecting", "connected", "reconnecting", "connected", "ended"]


def test_reconnect_knobs_come_from_the_config():
    with pytest.raises(ValueError, match="reconnect_max_s"):
        CaptureConfig(reconnect_max_s=30)                  # a 30 s wait would miss whole moves
    cfg = CaptureConfig(open_timeout_s=2, read_timeout_s=3)
    camera = FlakyCamera(total=1)
    camera.cfg = cfg
    source = ReconnectingSource(camera, cfg)
    assert LatestFrameReader(source).cfg is cfg
    assert LatestFrameReader(source, cfg=FAST).cfg is FAST


def test_status_is_visible_while_reconnecting():
    camera = FlakyCamera(total=3, drop_at=(1,), failed_opens=1000)
    source = ReconnectingSource(camera, CaptureConfig(reconnect_initial_s=0.01, reconnect_max_s=0.02))
    source.open()
    assert source.read().index == 0
    reader = LatestFrameReader(source, drop=False).start()
    try:
        deadline = time.monotonic() + 5
        while source.status.state != "reconnecting" and time.monotonic() < deadline:
            time.sleep(0.005)
        assert source.status.state == "reconnecting"
        assert "device not found" in source.status.message or "read failed" in source.status.message
        camera._failing_opens = 0      # the camera is plugged back in
        frame = reader.get(timeout=5)
        assert frame is not None and frame.index == 1 and int(frame.image[0, 0, 0]) == 1
        assert reader.get(timeout=5).index == 2
        assert source.status.state in ("connected", "ended")
    finally:
        reader.close()
    assert source.status.state in ("closed", "ended")


def test_drop_mid_sequence_through_the_reader_loses_no_delivered_frame():
    camera = FlakyCamera(total=30, drop_at=(7, 19), failed_opens=2)
    source = ReconnectingSource(camera, FAST)
    # drop=False: every frame grabbed reaches the consumer, so the count is exact.
    with LatestFrameReader(source, drop=False) as reader:
        values = [int(f.image[0, 0, 0]) for f in reader]
        indices_ok = reader.stats.delivered == 30
    assert values == list(range(30)) and indices_ok
    assert source.reconnects == 2


def test_reader_keeps_only_the_newest_frame_and_counts_drops():
    camera = FlakyCamera(total=10_000, period_s=0.001)
    with LatestFrameReader(ReconnectingSource(camera, FAST)) as reader:
        assert reader.drop is True
        deadline = time.monotonic() + 5
        while reader.stats.grabbed < 30 and time.monotonic() < deadline:
            time.sleep(0.005)
        frame = reader.get(timeout=1)
        stats = reader.stats
    assert frame is not None and frame.index >= 29
    assert stats.dropped >= 28 and stats.delivered == 1
    assert 0 < stats.dropped_ratio < 1


def test_first_open_failure_is_raised_not_retried():
    camera = FlakyCamera(total=1)
    camera._failing_opens = 1
    source = ReconnectingSource(camera, FAST)
    with pytest.raises(CaptureError, match="device not found"):
        source.open()
    assert source.status.state == "failed" and len(camera.open_times) == 1


def test_gives_up_after_reconnect_give_up_s():
    camera = FlakyCamera(total=5, drop_at=(2,), failed_opens=10_000)
    cfg = CaptureConfig(reconnect_initial_s=0.01, reconnect_max_s=0.02, reconnect_give_up_s=0.1)
    with ReconnectingSource(camera, cfg) as source:
        assert [source.read().index for _ in range(2)] == [0, 1]
        with pytest.raises(CaptureError, match="giving up"):
            source.read()
        assert source.status.state == "failed"


def test_non_live_failure_is_raised_at_once():
    camera = FlakyCamera(total=5, drop_at=(1,), live=False)
    with ReconnectingSource(camera, FAST) as source:
        source.read()
        with pytest.raises(CaptureError, match="read failed"):
            source.read()
        assert source.status.state == "failed" and len(camera.open_times) == 1


def test_close_interrupts_a_long_backoff():
    camera = FlakyCamera(total=5, drop_at=(0,), failed_opens=10_000)
    source = ReconnectingSource(camera, CaptureConfig(reconnect_initial_s=10, reconnect_max_s=10))
    reader = LatestFrameReader(source).start()
    deadline = time.monotonic() + 5
    while source.status.state != "reconnecting" and time.monotonic() < deadline:
        time.sleep(0.005)
    started = time.monotonic()
    reader.close()
    assert time.monotonic() - started < 2
    assert source.status.state == "closed"
    with pytest.raises(CaptureError):
        reader.get(timeout=0)


def test_reader_reraises_a_source_failure():
    camera = FlakyCamera(total=5, drop_at=(2,), failed_opens=10_000)
    cfg = CaptureConfig(reconnect_initial_s=0.01, reconnect_max_s=0.01, reconnect_give_up_s=0.05)
    with LatestFrameReader(ReconnectingSource(camera, cfg), drop=False) as reader:
        got = []
        with pytest.raises(CaptureError, match="giving up"):
            for frame in reader:
                got.append(frame.index)
    assert got == [0, 1]
    assert threading.active_count() < 50
