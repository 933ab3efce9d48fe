"""Calibrating the reader to the table during a game: exemplars from committed tiles and from
operator corrections (vision.enroll.TableEnrollment), and the board reader (vision.reader.TableReader)
keeping an empty-board reference and a growing tile set."""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from tilecam.models.synth import SceneConfig, render_topdown
from tilecam.vision.classify import TileReader
from tilecam.vision.enroll import TableEnrollment
from tilecam.vision.locator import Located
from tilecam.vision.reader import ReaderConfig, TableReader
from tilecam.vision.tileset import EnrollError
from tilecam.vision.rectify import homography_from_corners, warp_board

REPO = Path(__file__).resolve().parents[2]
MODEL, CARD = REPO / "models" / "tiles.onnx", REPO / "models" / "tiles.card.json"
EMPTY = ["." * 15] * 15
PLAYED = ["." * 15] * 5 + ["...QUARTZ......", "....N..........", "....TAXING.....", "....I..........",
                           "....E..........", "....D.........."] + ["." * 15] * 4
LOOK = SceneConfig(design="hasbro", labels="full", style="wood", font="dejavu-sans", square_px=48,
                   quarter_turn_prob=0.0)


@pytest.fixture(scope="module")
def reader():
    return TileReader(MODEL, CARD, lang="en")


def warped(board, px):
    td = render_topdown(board, 5, LOOK)
    return warp_board(td.image, homography_from_corners(td.corners, px), px)


def test_committed_tiles_read_as_themselves_become_exemplars(reader):
    px = int(reader.card["square_px"])
    image = warped(PLAYED, px)
    probs = reader.read(image).snapshot.probs.reshape(225, -1)
    labels = "".join(PLAYED)
    table = TableEnrollment(reader, min_prob=0.5)
    assert table.tileset() is None  # nothing learnt yet
    n = table.add(image, labels, probs)
    best = probs.argmax(axis=1)
    agree = [i for i, ch in enumerate(labels) if reader.classes[best[i]] == ch and probs[i, best[i]] >= 0.5]
    assert n == len(agree) > 0
    ts = table.tileset(min_tiles=1)
    assert ts is not None and set(ts["labels"]) <= set(labels)
    # what the table taught cannot make the board it learnt from read worse
    def errors(r):
        return sum(a != b for x, y in zip(r.read(image).board(), PLAYED) for a, b in zip(x, y))
    assert errors(reader.with_tileset(ts)) <= errors(reader)


def test_an_operator_correction_is_taken_whatever_the_reading(reader):
    px = int(reader.card["square_px"])
    image = warped(PLAYED, px)
    probs = np.zeros((225, len(reader.classes)), np.float32)
    probs[:, 0] = 1.0  # as if the reader had seen nothing at all
    table = TableEnrollment(reader)
    labels = "".join(PLAYED)
    empties = labels.count(".")
    assert table.add(image, labels, probs) == empties  # only the empty squares agree
    q = labels.index("Q")
    assert table.add(image, labels, probs, forced=[q]) == empties + 1
    ts = table.tileset(min_tiles=1)
    assert "Q" in ts["labels"] and ts["meta"]["tiles_per_class"]["Q"] == 1
    with pytest.raises(EnrollError):
        table.add(image, labels[:-1], probs)


def empty_board():
    from tilecam.scoring.board import LAYOUTS, Board
    return Board(LAYOUTS["standard"])


def test_the_board_reader_takes_the_clear_board_as_reference_and_learns_plays(reader):
    px = 40
    table = TableReader(reader, ReaderConfig(enroll_min_prob=0.5))
    here = Located("tracked", np.eye(3), 1.0, px)  # the images below are the canonical grid image already
    table.read(warped(EMPTY, px), here, empty_board())
    table.learn(empty_board(), (), committed=False)  # nothing committed, the centre read empty: the clear board
    assert table.tile_reader.empty_ref is not None and table.base.empty_ref is table.tile_reader.empty_ref
    before = table.tile_reader.empty_ref.frames
    snap = table.read(warped(PLAYED, px), here, empty_board()).snapshot
    assert table.turns == 0  # the rendered letters stand upright
    table.calibrate("".join(PLAYED), learn=True)
    # squares still empty keep the reference up to date; confident tiles became exemplars
    assert table.tile_reader.empty_ref.frames == before + 1
    assert table.enrollment.tiles == sum(
        1 for i, ch in enumerate("".join(PLAYED)) if ch != "." and snap.board()[i // 15][i % 15] == ch
        and snap.confidence().ravel()[i] >= 0.5)


def test_a_reader_given_a_tile_set_keeps_it(reader):
    px = int(reader.card["square_px"])
    table = TableEnrollment(reader, min_prob=0.0)
    image = warped(PLAYED, px)
    table.add(image, "".join(PLAYED), reader.read(image).snapshot.probs.reshape(225, -1))
    enrolled = reader.with_tileset(table.tileset(min_tiles=1))
    assert TableReader(enrolled, ReaderConfig(self_enroll=True)).enrollment is None


def test_an_operator_correction_reaches_the_reader_once_in_image_squares():
    """A board turned a quarter turn in the image: the committed letters and the corrected
    squares reach the reader's calibration in the grid image's orientation, and a correction only once."""
    from tilecam.scoring.board import Direction, Square
    from tilecam.scoring.events import Correction, Play
    from tilecam.scoring.game import Game
    from tilecam.scoring.placement import PlacedTile, Placement
    from tilecam.scoring.rules import get_profile
    from tilecam.scoring.scorekeeper import Scorekeeper
    from tilecam.scoring.snapshot import Snapshot, classes_for
    from tilecam.scoring.tiles import DISTRIBUTIONS

    def across(row, col, word):
        return Placement(tuple(PlacedTile(Square(row, col + i), ch, False) for i, ch in enumerate(word)),
                         Direction.ACROSS)

    class Spy(TableReader):
        def __init__(self):
            self.calls = []
            self.cfg = ReaderConfig()
            self.game_tiles, self.settled, self._proposed = None, {}, set()   # no tile set kept: no pixels here

        def calibrate(self, labels, operator_squares=(), board_clear=False, learn=True, last=None):
            self.calls.append((labels, list(operator_squares), board_clear, learn))

    game = Game(get_profile("naspa"), DISTRIBUTIONS["en"])
    game.play(0, across(7, 6, "CAT"))
    keeper = Scorekeeper(Game(get_profile("naspa"), DISTRIBUTIONS["en"]))
    keeper.sync(list(game.events) + [Correction(0, Play(0, across(7, 6, "COT"), (), None, 0, 0, 0), by="op")])
    spy = Spy()
    snap = Snapshot.from_board(["." * 15] * 15, classes_for(DISTRIBUTIONS["en"].letters))
    k = 1
    spy._last = (None, snap.probs.reshape(225, -1), snap, k)
    board = keeper.game.state.board
    spy.learn(board, keeper.operator_squares(), committed=False)
    labels, squares, clear, learn = spy.calls[-1]
    image = np.array(list(labels)).reshape(15, 15)
    assert "".join(np.rot90(image, k).ravel()) == "".join(board.rows())  # back to the game
    assert sorted(squares) == sorted(np.flatnonzero(image.ravel() != ".").tolist()) and learn and not clear
    spy.learn(board, keeper.operator_squares(), committed=False)
    assert spy.calls[-1][1] == [] and not spy.calls[-1][3]  # the correction was handed over once


def quartz_axing(lying: str):
    """A game of QUARTZ (row 8) then AXING (column H), and the board as it lies with `lying` in
    AXING's place."""
    from tilecam.scoring.board import Direction, Square
    from tilecam.scoring.game import Game
    from tilecam.scoring.placement import PlacedTile, Placement
    from tilecam.scoring.rules import get_profile
    from tilecam.scoring.tiles import DISTRIBUTIONS

    game = Game(get_profile("naspa"), DISTRIBUTIONS["en"])
    game.play(0, Placement(tuple(PlacedTile(Square(7, 3 + i), ch, False) for i, ch in enumerate("QUARTZ")),
                           Direction.ACROSS))
    game.play(1, Placement(tuple(PlacedTile(Square(8 + i, 7), ch, False) for i, ch in enumerate("AXING")),
                           Direction.DOWN))
    rows = [list("." * 15) for _ in range(15)]
    rows[7][3:9] = "QUARTZ"
    for i, ch in enumerate(lying):
        rows[8 + i][7] = ch
    return game, rows


def test_the_finished_board_teaches_every_tile_as_the_record_has_it(reader):
    """The game over: each tile of its finished board becomes an exemplar whatever the reading (the
    record is the label), and the reader reads with the table's tile set from then on: the
    station's next game at this table starts with it (issue 21, 3e)."""
    px = 40
    game, rows = quartz_axing("AXING")
    table = TableReader(reader, ReaderConfig(enroll_min_prob=0.999))
    here = Located("tracked", np.eye(3), 1.0, px)
    table.read(warped(["".join(r) for r in rows], px), here, game.state.board)
    table.learn(game.state.board, (), committed=True)   # mid-game: only tiles read as themselves teach
    during = table.enrollment.tiles
    table.learn(game.state.board, (), committed=True, finished=True)
    assert table.enrollment.tiles == 11 >= during          # every tile of the finished board
    assert table.tile_reader.tileset is not None and set("QUARTZAXING") <= set(table.tile_reader.tileset["labels"])


def test_a_tile_the_counts_put_in_doubt_is_never_taught(reader):
    """Issue 28: the board shows two Z tiles (the bag has one), the record holds QUARTZ and AXING
    (it keeps within the set). Both squares read Z are in doubt: neither teaches the table, mid-game
    or at the finished board, while the tiles out of doubt do; what the game's assignment re-read is
    returned for the recorder, and read so from then on."""
    from tilecam.scoring.board import Square

    px = 40
    game, rows = quartz_axing("AZING")   # what lies there: a Z where the record has the X
    # each read keeps within the counts too (ReadConfig.cap_counts); over a game's snapshots the
    # readings of one square can still add up past them, which one read without the caps stands for
    from tilecam.vision.classify import ReadConfig
    uncapped = TileReader(MODEL, CARD, lang="en", cfg=ReadConfig(cap_counts=False))
    table = TableReader(uncapped, ReaderConfig(enroll_min_prob=0.5))
    here = Located("tracked", np.eye(3), 1.0, px)
    view = table.read(warped(["".join(r) for r in rows], px), here, game.state.board)
    assert view.snapshot.board()[9][7] == "Z" and view.snapshot.board()[7][8] == "Z"   # read as it lies
    changed = table.learn(game.state.board, (), committed=True)
    assert table.game_tiles.doubtful({7 * 15 + 8: "Z", 9 * 15 + 7: "X"}) == {7 * 15 + 8, 9 * 15 + 7}
    assert changed and set(changed) <= {Square(7, 8), Square(9, 7)}
    after = {Square(7, 8): "Z", Square(9, 7): "X", **changed}
    assert list(after.values()).count("Z") == 1   # two tiles look like the one Z: one of them is not it
    assert "Z" not in table.enrollment._items and "X" not in table.enrollment._items
    assert {"Q", "U", "R", "T", "I", "N", "G"} <= set(table.enrollment._items)
    again = table.read(warped(["".join(r) for r in rows], px), here, game.state.board).snapshot.board()
    assert all(again[sq.row][sq.col] == letter for sq, letter in changed.items())   # read as re-assigned
    table.learn(game.state.board, (), committed=True, finished=True)
    assert "Z" not in table.enrollment._items and "X" not in table.enrollment._items
    assert not table.settled   # the record never took the change (no recorder here): read as it looks again
