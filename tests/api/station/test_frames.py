"""api/station/frames.py: the recorder pipeline as settings build it, and the one frame loop every
source runs through (every frame to the recorder in order, each outcome to the caller; why it ended
as a typed word; a file paced at its own rate, a camera never; the source closed in every case). The
loop runs a real folder source; the recorder beside it only keeps what it is given."""
from __future__ import annotations

import threading
import time

import cv2
import numpy as np
import pytest

from tilecam.api.settings import load_settings
from tilecam.api.station.frames import build_recorder, recorder_config, run_frames
from tilecam.api.station.link import MemoryLink
from tilecam.capture import CaptureError, SourceEnded, open_source
from tilecam.capture.frame import Frame
from tilecam.scoring.game import Game
from tilecam.scoring.rules import get_profile
from tilecam.scoring.scorekeeper import Scorekeeper
from tilecam.scoring.tiles import DISTRIBUTIONS
from tilecam.vision.locator import FixedBoard, PrewarpedBoard, TrackedBoard


class Kept:
    """A recorder that keeps the frames it is given and answers with their index."""

    def __init__(self) -> None:
        self.frames: list[Frame] = []

    def process(self, frame: Frame) -> int:
        self.frames.append(frame)
        return frame.index


class Source:
    """Frames at the times given, then SourceEnded (or `fail`); whether it was closed."""

    def __init__(self, times, live: bool = False, fail: Exception | None = None) -> None:
        self.times, self.live, self.fail, self.closed = list(times), live, fail, False

    def __iter__(self):
        for i, t in enumerate(self.times):
            yield Frame(np.zeros((8, 8, 3), np.uint8), t, i)
        raise self.fail or SourceEnded("no more frames")

    def close(self) -> None:
        self.closed = True


def test_every_frame_of_a_folder_reaches_the_recorder_in_order_and_the_loop_says_it_ended(tmp_path):
    for i in range(3):
        cv2.imwrite(str(tmp_path / f"move-{i}.png"), np.full((40, 40, 3), 60 * i, np.uint8))
    recorder, seen = Kept(), []
    why = run_frames(open_source(str(tmp_path)), recorder, lambda f, o: seen.append((f.path, o)))
    assert why == "ended"
    assert [f.index for f in recorder.frames] == [0, 1, 2]
    assert [(p.rsplit("/", 1)[-1], o) for p, o in seen] == [("move-0.png", 0), ("move-1.png", 1), ("move-2.png", 2)]


def test_a_stop_ends_the_loop_before_the_next_frame_and_closes_the_source():
    stop, recorder = threading.Event(), Kept()
    source = Source([0.0, 0.1, 0.2, 0.3])
    why = run_frames(source, recorder, lambda f, o: f.index == 1 and stop.set(), stop=stop)
    assert why == "stopped" and [f.index for f in recorder.frames] == [0, 1] and source.closed


def test_a_camera_that_gives_up_propagates_and_its_source_is_closed():
    source = Source([0.0], fail=CaptureError("device gone"))
    with pytest.raises(CaptureError, match="device gone"):
        run_frames(source, Kept())
    assert source.closed


def test_a_file_is_paced_at_its_own_frame_rate_and_a_camera_never_is():
    file = Source([10.0, 10.2, 10.4])
    start = time.monotonic()
    assert run_frames(file, Kept(), pace=True) == "ended"
    assert time.monotonic() - start >= 0.38
    camera = Source([10.0, 12.0, 14.0], live=True)   # a live source's times are its own clock's
    start = time.monotonic()
    run_frames(camera, Kept(), pace=True)
    assert time.monotonic() - start < 1.0


def test_a_paced_file_stops_while_it_waits():
    stop = threading.Event()
    threading.Timer(0.2, stop.set).start()
    start = time.monotonic()
    recorder = Kept()
    assert run_frames(Source([0.0, 30.0]), recorder, pace=True, stop=stop) == "stopped"
    assert time.monotonic() - start < 5 and len(recorder.frames) == 1


def test_photos_make_every_frame_a_press_without_changing_the_settings():
    settings = load_settings(None)
    assert not settings.recorder.every_frame_is_a_press
    assert recorder_config(settings, photos=True).every_frame_is_a_press
    assert recorder_config(settings) is settings.recorder and not settings.recorder.every_frame_is_a_press


@pytest.mark.parametrize("kw,locator", [({"corners": [[0, 0], [600, 0], [600, 600], [0, 600]]}, FixedBoard),
                                        ({"prewarped": True}, PrewarpedBoard), ({"photos": True}, TrackedBoard),
                                        ({}, TrackedBoard)])
def test_the_pipeline_is_built_from_the_settings_and_commits_through_the_link_it_is_given(kw, locator):
    settings = load_settings(None)
    link, reader = MemoryLink(), object()
    keeper = Scorekeeper(Game(get_profile("naspa"), DISTRIBUTIONS["en"]))
    rec = build_recorder(settings, keeper, link, reader=reader, **kw)
    assert isinstance(rec.locator, locator) and rec.locator.square_px == settings.reader.square_px
    assert rec.link is link and rec.reader is reader and rec.scorekeeper is keeper
    assert rec.cfg.every_frame_is_a_press == bool(kw.get("photos"))
    if locator is TrackedBoard:   # photos are each a new scene: re-detected at once; a video waits for arms
        assert rec.locator.guard.tracker.track.wait_until_still is (not kw.get("photos"))
