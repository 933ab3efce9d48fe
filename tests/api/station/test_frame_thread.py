"""The station's frame thread (api/station/frame_thread.py): each game's frames until the source
ends, fails or the station stops; a source's end handed on; with a next game, again; a camera that
gave up, and any other error, end it with the reason (the thread never dies silently)."""
from __future__ import annotations

import threading

import numpy as np
import pytest

from tilecam.api.station.frame_thread import FrameThread
from tilecam.api.station.frames import run_frames
from tilecam.capture import CaptureError
from tilecam.capture.frame import Frame


class Counting:
    """A recorder that counts the frames it is given."""

    def __init__(self) -> None:
        self.frames: list[int] = []

    def process(self, frame):
        self.frames.append(frame.index)
        return None


def frames(n: int) -> list[Frame]:
    return [Frame(np.zeros((4, 4, 3), np.uint8), i * 0.1, i, "test") for i in range(n)]


def test_a_source_that_ends_is_handed_on_and_the_next_game_records_until_there_is_none():
    recorder, log = Counting(), []
    games = iter([True, True, False])   # the demo's loop: two more games, then done

    def next_game() -> bool:
        log.append("next")
        return next(games)
    thread = FrameThread(lambda: run_frames(frames(3), recorder), source_ended=lambda: log.append("ended"),
                         next_game=next_game, after=lambda: log.append("after"))
    assert thread.run() == "ended" and thread.ended == "ended" and not thread.failed
    assert recorder.frames == [0, 1, 2] * 3
    assert log == ["after", "ended", "next"] * 2 + ["after", "ended", "next"]


def test_a_stopped_station_records_no_next_game():
    stop, asked = threading.Event(), []
    stop.set()
    thread = FrameThread(lambda: run_frames(frames(3), Counting(), stop=stop), stop=stop,
                         next_game=lambda: asked.append(1) or True)
    assert thread.run() == "stopped" and asked == []
    ended = FrameThread(lambda: "ended", stop=stop, next_game=lambda: asked.append(1) or True)
    assert ended.run() == "ended" and asked == []   # the source ended as the station stopped


def test_a_camera_that_gave_up_ends_the_thread_said_and_without_a_source_end():
    said, log = [], []

    def play() -> str:
        raise CaptureError("camera 0 gave up after 3 reconnects")
    thread = FrameThread(play, source_ended=lambda: log.append("ended"), next_game=lambda: True,
                         after=lambda: log.append("after"), say=said.append)
    assert thread.run() == "failed: camera 0 gave up after 3 reconnects" and thread.failed
    assert log == ["after"] and len(said) == 1 and "camera 0 gave up" in said[0]


def test_any_other_error_ends_it_with_its_reason_and_reaches_the_caller():
    log = []

    def play() -> str:
        raise ZeroDivisionError("a bug")
    thread = FrameThread(play, source_ended=lambda: log.append("ended"), after=lambda: log.append("after"))
    with pytest.raises(ZeroDivisionError):
        thread.run()
    assert thread.ended == "failed: ZeroDivisionError('a bug')" and thread.failed and log == ["after"]


def test_on_a_thread_of_its_own_it_is_waited_for():
    go, names = threading.Event(), []

    def play() -> str:
        names.append(threading.current_thread().name)
        go.wait(5)
        return "ended"
    thread = FrameThread(play)
    assert thread.wait(0) and thread.ended is None   # never started: nothing to wait for
    thread.start()
    assert not thread.wait(0.05) and thread.ended is None   # running
    go.set()
    assert thread.wait(5) and thread.ended == "ended" and names == ["tilecam-recorder"]
