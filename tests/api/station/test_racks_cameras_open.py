"""The rack cameras' wiring (api/station/racks.py:open_rack_cameras): checked against the game's
players and the board's camera before a game is made, opened on real files, none without a rack
source; and an unpaced board file kept in step with the rack files (InStep)."""
from __future__ import annotations

import re
from pathlib import Path

import cv2
import numpy as np
import pytest

from tilecam.api.settings import Settings
from tilecam.api.station import SetupError
from tilecam.api.station.racks import InStep, open_rack_cameras
from tilecam.capture.frame import Frame


class Watch:
    """Never settles: these tests are about opening and pacing, not reading."""

    def feed(self, image, t):
        return None


def folder(path: Path, n: int = 4) -> Path:
    path.mkdir()
    for i in range(n):
        cv2.imwrite(str(path / f"rack-{i}.png"), np.full((60, 160, 3), 40 * i, np.uint8))
    return path


def open_racks(sources, *, board="board.avi", players=2, said=None):
    return open_rack_cameras(Settings(), sources, lambda player: Watch(), board=board, players=players,
                             on_rack=lambda *a: None, say=(said if said is not None else []).append)


def test_no_rack_source_no_rack_cameras():
    assert open_racks({}) is None


def test_a_rack_source_the_game_cannot_have_is_refused(tmp_path):
    rack = str(folder(tmp_path / "rack"))
    with pytest.raises(SetupError, match=re.escape("a rack source for player 3, but the game has 2 players")):
        open_racks({1: rack, 3: rack})
    with pytest.raises(SetupError, match=re.escape("a rack source for player 0, but the game has 2 players")):
        open_racks({0: rack})
    with pytest.raises(SetupError, match=re.escape("the rack source of player 2 (/dev/video0) is the board's camera")):
        open_racks({2: "/dev/video0"}, board="0")    # one camera, named two ways
    with pytest.raises(SetupError, match=re.escape("cannot open the rack source of player 1")):
        open_racks({1: str(tmp_path / "missing.avi")})


def test_rack_files_open_and_an_unpaced_board_frame_waits_for_them(tmp_path):
    said: list[str] = []
    racks = open_racks({1: str(folder(tmp_path / "one")), 2: str(folder(tmp_path / "two", 6))}, players=2, said=said)
    try:
        assert [cam.player for cam in racks.cameras] == [1, 2] and all(cam.state == "connected" for cam in racks.cameras)
        seen = []
        board = InStep(type("Recorder", (), {"process": lambda self, frame: seen.append(frame.index) or "done"})(),
                       racks)
        racks.start(pace=False)
        # a board frame later than every rack frame: the rack files are read to their end first
        assert board.process(Frame(np.zeros((4, 4, 3), np.uint8), 1e6, 0, "board")) == "done" and seen == [0]
        assert [cam.frames for cam in racks.cameras] == [4, 6]
    finally:
        racks.stop()
    assert [cam.state for cam in racks.cameras] == ["ended", "ended"] and len(said) == 2
