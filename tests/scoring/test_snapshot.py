"""scoring.snapshot: what a stable board read is (per-square class probabilities, checked at the
source), the one test of an occupied square, and the one orientation rule (`board_turns`: the
letters' upright turn before the first play, the committed tiles' turn after it)."""
from __future__ import annotations

import numpy as np
import pytest

from tilecam.scoring.board import LAYOUTS, Board, Square, Tile
from tilecam.scoring.snapshot import (BLANK_TILE, EMPTY, Snapshot, board_turns, classes_for, occupied,
                                      turns_to_fit, upright_turns)
from tilecam.scoring.tiles import DISTRIBUTIONS

EN = DISTRIBUTIONS["en"]
CLASSES = classes_for(EN.letters)


def test_classes_are_empty_blank_then_the_letters():
    assert classes_for("AB") == (EMPTY, BLANK_TILE, "A", "B")
    assert CLASSES[2:] == tuple(EN.letters)


def test_a_read_whose_shape_does_not_match_its_classes_is_refused_where_it_is_made():
    with pytest.raises(ValueError, match="classes"):
        Snapshot(CLASSES, np.zeros((15, 15, len(CLASSES) - 1), np.float32))
    with pytest.raises(ValueError, match="classes"):
        Snapshot(CLASSES, np.zeros((15, len(CLASSES)), np.float32))   # not a board
    with pytest.raises(ValueError, match="rotations"):
        Snapshot(CLASSES, np.zeros((15, 15, len(CLASSES)), np.float32), rotations=np.zeros((15, 15, 3)))


def test_from_board_reads_the_rows_and_a_played_blank_as_a_blank_tile():
    rows = ["." * 15] * 7 + ["......CaT......"] + ["." * 15] * 7
    snap = Snapshot.from_board(rows, CLASSES, 0.9)
    assert snap.size == 15
    assert snap.board()[7] == "......C?T......"      # a blank shows no letter on the board
    assert np.allclose(snap.probs.sum(axis=2), 1.0, atol=1e-5)
    assert snap.confidence()[7, 6] == pytest.approx(0.9)
    assert CLASSES[snap.best()[7, 8]] == "T"


def test_occupied_is_the_probability_of_any_tile_against_its_threshold():
    rows = ["." * 15] * 7 + ["......CAT......"] + ["." * 15] * 7
    snap = Snapshot.from_board(rows, CLASSES, 0.6)
    probs = snap.probs.copy()
    probs[0, 0] = 0.0
    probs[0, 0, CLASSES.index(EMPTY)] = 0.3        # 0.7 of a tile, spread over the letters: no one letter sure
    probs[0, 0, 2:] = 0.7 / (len(CLASSES) - 2)
    snap = Snapshot(CLASSES, probs)
    got = occupied(snap)
    assert got[7, 6:9].all() and got[0, 0] and got.sum() == 4
    assert not occupied(snap, min_prob=0.75)[0, 0] and occupied(snap, min_prob=0.5)[7, 6]


def test_a_turned_snapshot_moves_its_squares_and_its_letters_rotations_and_keeps_the_total_turn():
    rows = ["." * 15] * 7 + ["......CAT......"] + ["." * 15] * 7
    rot = np.zeros((15, 15, 4), np.float32)
    rot[7, 6:9] = np.eye(4, dtype=np.float32)[1]    # each letter read turned one quarter clockwise
    snap = Snapshot.from_board(rows, CLASSES, 0.9, rotations=rot, t=3.5, frame_index=12)
    once = snap.turned(1)
    # np.rot90's k=1, counter-clockwise: the row CAT becomes column H read upwards
    assert "".join(r[7] for r in once.board()[6:9]) == "TAC" and once.board()[7] == "." * 7 + "A" + "." * 7
    assert np.argmax(once.rotations[8, 7]) == 0     # turned back one quarter: upright
    assert once.meta["quarter_turns"] == 1 and once.turned(2).meta["quarter_turns"] == 3
    assert (once.t, once.frame_index) == (3.5, 12)
    assert snap.turned(0) is snap and snap.turned(-4) is snap


def test_board_turns_before_the_first_play_follows_the_letters_and_after_it_the_committed_tiles():
    rows = ["." * 15] * 7 + ["......CAT......"] + ["." * 15] * 7
    rot = np.zeros((15, 15, 4), np.float32)
    rot[7, 6:9] = np.eye(4, dtype=np.float32)[2]    # the letters read upside down
    snap = Snapshot.from_board(rows, CLASSES, 0.9, rotations=rot)
    empty = Board(LAYOUTS["standard"])
    assert board_turns(snap) == 2 and board_turns(snap, empty) == 2
    assert board_turns(Snapshot.from_board(rows, CLASSES, 0.9)) is None        # nothing to go by yet
    assert board_turns(Snapshot.from_board(rows, CLASSES, 0.9), current=3) == 3  # the turn known so far
    committed = Board(LAYOUTS["standard"])
    for i, ch in enumerate("CAT"):
        committed.put(Square(7, 6 + i), Tile(ch))
    # CAT lies where it was committed unturned: the squares outweigh the letters' rotation
    assert board_turns(snap, committed, current=2) == 0


def test_a_board_turned_on_its_turntable_is_read_back_onto_the_committed_tiles():
    board = Board(LAYOUTS["standard"])
    for i, ch in enumerate("CAT"):
        board.put(Square(7, 6 + i), Tile(ch))
    board.put(Square(8, 8), Tile("O"))
    rows = ["." * 15] * 7 + ["......CAT......", "........O......"] + ["." * 15] * 6
    snap = Snapshot.from_board(rows, CLASSES, 0.9)
    assert turns_to_fit(snap, board) == 0
    for k in range(4):
        # The camera sees the board turned: reading it back needs the opposite turn.
        seen = Snapshot(CLASSES, np.ascontiguousarray(np.rot90(snap.probs, k=-k, axes=(0, 1))))
        assert turns_to_fit(seen, board, current=(k + 1) % 4) == k % 4


def test_a_palindrome_turned_half_round_is_told_by_its_letters_upright_turn():
    board = Board(LAYOUTS["standard"])
    for i, ch in enumerate("TOT"):
        board.put(Square(7, 6 + i), Tile(ch))
    rows = ["." * 15] * 7 + ["......TOT......"] + ["." * 15] * 7
    snap = Snapshot.from_board(rows, CLASSES, 0.9)
    turned = Snapshot(CLASSES, np.ascontiguousarray(np.rot90(snap.probs, k=-2, axes=(0, 1))))
    # TOT reads the same either way round: only the letters' own rotation tells the turn.
    assert turns_to_fit(turned, board, current=0) == 0
    assert turns_to_fit(turned, board, current=0, upright=2) == 2
    # Where the committed tiles disagree, the letters on the squares outweigh the reader's rotation.
    board.put(Square(8, 6), Tile("A"))
    rows2 = rows[:8] + ["......A........"] + rows[9:]
    seen = Snapshot(CLASSES, np.ascontiguousarray(np.rot90(Snapshot.from_board(rows2, CLASSES, 0.9).probs,
                                                             k=-2, axes=(0, 1))))
    assert turns_to_fit(seen, board, current=0, upright=0) == 2


# ---- a snapshot's orientation (scoring.snapshot): the rule that turns a read into game orientation

GAME_ROWS = ["." * 15] * 7 + ["......CAT......", "........O?....."] + ["." * 15] * 6


def _seen_turned(k: int, blank_rotation: int | None = None) -> Snapshot:
    """GAME_ROWS as a camera sees the board when its print lies k quarter turns clockwise: squares
    moved and every letter turned k clockwise."""
    snap = Snapshot.from_board(GAME_ROWS, CLASSES, 0.9)
    lettered = np.array([[ch != "." for ch in row] for row in GAME_ROWS])
    rot = np.zeros((15, 15, 4), np.float32)
    rot[lettered] = np.eye(4, dtype=np.float32)[k] * 0.85 + 0.05
    if blank_rotation is not None:  # a blank has no letter: whatever its rotation, it cannot vote
        rot[8, 9] = np.eye(4, dtype=np.float32)[blank_rotation]
    return Snapshot(CLASSES, np.ascontiguousarray(np.rot90(snap.probs, -k, axes=(0, 1))),
                    rotations=np.ascontiguousarray(np.rot90(rot, -k, axes=(0, 1))))


@pytest.mark.parametrize("k", range(4))
def test_a_snapshot_turned_by_its_letters_upright_turn_reads_in_game_orientation(k):
    seen = _seen_turned(k)
    assert upright_turns(seen) == k
    game = seen.turned(upright_turns(seen))
    assert game.board() == GAME_ROWS
    assert upright_turns(game) == 0  # the letters stand upright now
    assert game.meta.get("quarter_turns", 0) == k
    assert seen.turned(4) is seen and seen.turned(k).turned(4 - k).board() == seen.board()


def test_upright_turns_needs_a_clear_majority_of_lettered_tiles():
    assert upright_turns(_seen_turned(1, blank_rotation=3)) == 1
    assert upright_turns(Snapshot.from_board(GAME_ROWS, CLASSES, 0.9)) is None  # no rotations read
    empty = Snapshot.from_board(["." * 15] * 15, CLASSES, 0.9, rotations=np.full((15, 15, 4), 0.25, np.float32))
    assert upright_turns(empty) is None
    split = _seen_turned(0)
    rot = split.rotations.copy()
    rot[7, 6:8] = np.eye(4, dtype=np.float32)[2]  # C and A one way, T and O the other: no orientation
    split = Snapshot(CLASSES, split.probs, rotations=rot)
    assert upright_turns(split) is None
    assert upright_turns(split, min_share=0.4, min_lead=1.0) in (0, 2)
