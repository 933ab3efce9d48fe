"""The recorder's shape (issue 20): a loop of stage calls that knows no pixels, decides a snapshot's
move once however often the commit is retried, and one orientation rule for the station and `read`."""
from __future__ import annotations

import ast
from pathlib import Path

import numpy as np

from tilecam.api.errors import Conflict
from tilecam.api.station.link import MemoryLink
from tilecam.api.station.recorder import Recorder, RecorderConfig
from tilecam.capture.frame import Frame
from tilecam.scoring.game import Game
from tilecam.scoring.rules import get_profile
from tilecam.scoring.scorekeeper import Scorekeeper
from tilecam.scoring.snapshot import Snapshot, classes_for
from tilecam.scoring.tiles import DISTRIBUTIONS
from tilecam.vision.locator import Located
from tilecam.vision.reader import BoardView

REPO = Path(__file__).resolve().parents[3]
CLASSES = classes_for(DISTRIBUTIONS["en"].letters)
CAT = ["." * 15] * 7 + ["......CAT......"] + ["." * 15] * 7


def test_the_recorder_imports_no_cv2():
    tree = ast.parse((REPO / "api" / "station" / "recorder.py").read_text(encoding="utf-8"))
    names = {a.name.split(".")[0] for n in ast.walk(tree) if isinstance(n, ast.Import) for a in n.names}
    names |= {(n.module or "").split(".")[0] for n in ast.walk(tree) if isinstance(n, ast.ImportFrom)}
    assert "cv2" not in names


class Still:
    """A locator and a reader over a given board: the recorder's stages without pixels."""

    square_px = 40

    def __init__(self, rows):
        self.rows = rows

    def update(self, image):
        return Located("tracked", np.eye(3), 1.0, self.square_px)

    def read(self, image, located, board, t=0.0, frame_index=-1):
        snap = Snapshot.from_board(self.rows, CLASSES, 0.9, t=t, frame_index=frame_index)
        return BoardView(snap, 0, np.ones((15, 15), bool), False, [[0, 0], [1, 0], [1, 1], [0, 1]])

    def learn(self, board, corrected=(), *, committed, unclear=False, finished=False):
        pass


def test_a_retry_after_a_conflict_does_not_count_the_snapshot_twice():
    class Busy(MemoryLink):
        """Another writer (an operator's pass for player 0) gets in before the first commit."""
        tries = 0

        def commit(self, entries, frame, expect, sidecar=None):
            Busy.tries += 1
            if Busy.tries == 1:
                self.log.append(Game(get_profile("naspa"), DISTRIBUTIONS["en"]).pass_turn(0))
                raise Conflict("another writer got in first")
            return super().commit(entries, frame, expect, sidecar)

    keeper = Scorekeeper(Game(get_profile("naspa"), DISTRIBUTIONS["en"]))
    still = Still(CAT)
    link = Busy()
    rec = Recorder(keeper, still, still, link, RecorderConfig(every_frame_is_a_press=True))
    out = rec.process(Frame(np.zeros((8, 8, 3), np.uint8), 0.0, 0, None))
    assert Busy.tries == 2 and out.observation.status == "play"
    assert [e.kind for e in link.log] == ["pass", "play"] and link.log[1].player == 1  # decided again
    assert keeper.belief.frames.max() == 1  # one snapshot, fused once


def test_the_station_and_read_turn_a_board_by_the_one_orientation_rule(monkeypatch):
    """TableReader (the station) and TileReader/to_game (`tilecam read`) both ask
    scoring.snapshot.board_turns, with ReadConfig.min_orientation_share."""
    import tilecam.scoring.snapshot as snapshot
    import tilecam.vision.classify as classify
    import tilecam.vision.reader as reader
    assert reader.board_turns is snapshot.board_turns and classify.board_turns is snapshot.board_turns
    asked = []

    def spy(snap, board=None, current=None, min_share=0.5, min_lead=2.0):
        asked.append(min_share)
        return 1

    monkeypatch.setattr(reader, "board_turns", spy)

    class Tiles:
        classes = CLASSES
        tileset = None
        empty_ref = None
        lang = "en"   # the game's tile set (vision.gameset counts it)
        cfg = classify.ReadConfig(min_orientation_share=0.6)

        def read(self, warped, **_):  # source, turn_rule: for fused readers
            rot = np.zeros((15, 15, 4), np.float32)
            rot[..., 1] = 1.0
            snap = Snapshot.from_board(CAT, CLASSES, 0.9)
            return classify.BoardRead(Snapshot(CLASSES, snap.probs, rotations=rot), np.full((15, 15), 1), 90, 0.0)

    from tilecam.scoring.board import LAYOUTS, Board
    table = reader.TableReader(Tiles(), reader.ReaderConfig(self_enroll=False))
    view = table.read(np.zeros((600, 600, 3), np.uint8), Located("tracked", np.eye(3), 1.0, 40),
                      Board(LAYOUTS["standard"]))
    assert asked == [0.6] and view.turns == 1
    assert classify.game_orientation(Tiles().read(None), 0.6) == 90  # read's rule, the same function


class Stray(Still):
    """A reader that reads `queue`'s boards first, one a read (a stray tile in one frame), then `rows`."""

    def __init__(self, rows):
        super().__init__(rows)
        self.queue = []

    def read(self, image, located, board, t=0.0, frame_index=-1):
        rows, self.rows = self.rows, (self.queue.pop(0) if self.queue else self.rows)
        try:
            return super().read(image, located, board, t, frame_index)
        finally:
            self.rows = rows


STILL_IMAGE = np.full((600, 600, 3), 120, np.uint8)
HAND_IMAGE = STILL_IMAGE.copy()
HAND_IMAGE[100:500, 200:400] = (60, 90, 160)
STRAY = [r if i != 1 else ".E" + "." * 13 for i, r in enumerate(CAT)]   # CAT and a tile that touches nothing


def _run(rec, image, start, n, dt=0.1):
    return [rec.process(Frame(image, (start + i) * dt, start + i, None)) for i in range(n)]


def test_a_press_whose_snapshot_is_unclear_stays_with_the_retry_on_the_still_board():
    """A pass whose press came at a frame with a stray tile read on it (train-b of bench_rack_game:
    a board look read with stray squares): the press is kept for the retake of the still board,
    which the gate takes although nothing changed since the snapshot before the press."""
    keeper = Scorekeeper(Game(get_profile("naspa"), DISTRIBUTIONS["en"]))
    table = Stray(["." * 15] * 15)
    rec = Recorder(keeper, table, table, MemoryLink(), RecorderConfig())
    _run(rec, STILL_IMAGE, 0, 10)
    table.rows = CAT
    rec.press(0)
    _run(rec, STILL_IMAGE, 10, 10)
    assert [(e.kind, e.player) for e in keeper.game.events] == [("play", 0)]
    table.queue = [STRAY]
    rec.press(1)   # nothing new on the board: a pass, read with a stray tile at the press
    out = _run(rec, STILL_IMAGE, 20, 20)
    decided = [o.observation.status for o in out if o.observation]
    assert decided[0] == "unclear" and "pass" in decided
    assert [(e.kind, e.player) for e in keeper.game.events] == [("play", 0), ("pass", 1)]


def test_a_kept_press_goes_when_the_board_moves_and_a_new_press_stays():
    keeper = Scorekeeper(Game(get_profile("naspa"), DISTRIBUTIONS["en"]))
    table = Stray(["." * 15] * 15)
    rec = Recorder(keeper, table, table, MemoryLink(), RecorderConfig())
    _run(rec, STILL_IMAGE, 0, 10)
    table.rows = CAT
    rec.press(0)
    _run(rec, STILL_IMAGE, 10, 10)
    table.queue = [STRAY]
    rec.press(1)
    out = _run(rec, STILL_IMAGE, 20, 1)
    assert out[0].observation.status == "unclear" and rec._press == (True, 1)   # kept for the retake
    _run(rec, HAND_IMAGE, 21, 1)   # the next player's hand: the kept press is not theirs
    assert rec._press == (False, None)
    rec.press(0)                    # a press while the hand is over the board waits for a clear frame
    _run(rec, STILL_IMAGE, 22, 1)
    assert rec._press == (True, 0)
