"""The game's tile set re-reads committed tiles (issue 28): the reader's learn says which (the counts
contradicted a reading), the scorekeeper amends their plays with camera corrections on the review
queue, the recorder commits them and says so; and a letter read on a blank is corrected once, not at
every snapshot."""
from __future__ import annotations

import numpy as np

from tilecam.api.station.link import MemoryLink
from tilecam.api.station.recorder import Recorder, RecorderConfig
from tilecam.capture.frame import Frame
from tilecam.scoring.board import Square
from tilecam.scoring.events import Correction
from tilecam.scoring.game import Game
from tilecam.scoring.rules import get_profile
from tilecam.scoring.scorekeeper import Scorekeeper
from tilecam.scoring.snapshot import Snapshot, classes_for
from tilecam.scoring.tiles import DISTRIBUTIONS
from tilecam.vision.locator import Located
from tilecam.vision.reader import BoardView

DIST = DISTRIBUTIONS["en"]
CLASSES = classes_for(DIST.letters)
EMPTY = ["." * 15] * 15


def board(*words: tuple[int, int, str]) -> list[str]:
    rows = [list(r) for r in EMPTY]
    for r, c, word in words:
        for i, ch in enumerate(word):
            rows[r][c + i] = ch
    return ["".join(r) for r in rows]


def keeper() -> Scorekeeper:
    return Scorekeeper(Game(get_profile("naspa"), DIST))


def test_retile_amends_the_play_with_a_camera_correction_for_review():
    k = keeper()
    assert k.observe(Snapshot.from_board(board((7, 6, "ZAX")), CLASSES), pressed=True).status == "play"
    entries = k.retile({Square(7, 8): "S"})
    assert len(entries) == 1 and isinstance(entries[0], Correction) and entries[0].by == "camera"
    assert entries[0].replacement.review and "tile counts" in entries[0].reason
    assert k.game.state.board.rows()[7][6:9] == "ZAS" and k.game.events[0].review
    # the square's frames are forgotten: its next reading decides it afresh
    assert k.belief.frames[7, 8] == 0 and k.belief.frames[7, 7] > 0
    assert k.retile({}) == [] and k.retile({Square(0, 0): "A"}) == []   # nothing there: nothing amended


def test_a_letter_read_on_a_blank_is_corrected_once():
    """The blank of BL?T read as an E over more frames: its play amended to the E tile (not a blank),
    once; the same reading at the next snapshots amends nothing more."""
    k = keeper()
    assert k.observe(Snapshot.from_board(board((7, 6, "BL?T")), CLASSES), pressed=True).status == "play"
    seen = Snapshot.from_board(board((7, 6, "BLET")), CLASSES)
    fixes = [len(k.observe(seen).entries) for _ in range(5)]
    assert sum(fixes) == 1 and fixes[-1] == 0   # kept a blank, it showed '?' and came again every time
    tile = k.game.state.board[Square(7, 8)]
    assert tile.letter == "E" and not tile.blank


class Stub:
    """A located board and a reader that reads the board it is given; its learn reports a re-read
    tile once (as vision.reader.TableReader does when the game's tile set re-reads one), and reads
    that square so from then on (TableReader's settled squares)."""

    def __init__(self, rows, changed):
        self.rows, self.changed, self.learnt = rows, changed, 0

    def update(self, image):
        return Located("tracked", np.eye(3), 1.0, 40)

    def read(self, image, located, board, t=0.0, frame_index=-1):
        snap = Snapshot.from_board(self.rows, CLASSES, t=t, frame_index=frame_index)
        return BoardView(snap, 0, np.ones((15, 15), bool), False, [[0, 0], [1, 0], [1, 1], [0, 1]])

    def learn(self, board, corrected, *, committed, unclear, finished=False):
        self.learnt += 1
        if self.learnt == 1:
            for sq, letter in self.changed.items():
                row = list(self.rows[sq.row])
                row[sq.col] = letter
                self.rows[sq.row] = "".join(row)
            return dict(self.changed)
        return {}


def test_the_recorder_commits_the_re_read_plays_and_says_so():
    k, link = keeper(), MemoryLink()
    stub = Stub(board((7, 6, "ZAX")), {Square(7, 8): "S"})
    rec = Recorder(k, stub, stub, link, RecorderConfig(every_frame_is_a_press=True))
    frames = [Frame(np.full((8, 8, 3), i, np.uint8), float(i), i, None) for i in range(3)]
    outcomes = [rec.process(f) for f in frames]
    assert [e.kind for e in link.log] == ["play", "correction", "pass", "pass"]
    assert outcomes[0].seqs == (0, 1)   # the play and, after learn, its correction
    fix = link.log[1]
    assert fix.by == "camera" and fix.replacement.review and "".join(
        t.letter for t in fix.replacement.placement.tiles) == "ZAS"
    assert any("I8 as S" in n and "review" in n for n in rec.notices)
