"""Snapshot -> proposed event, using snapshots with exact or noisy truth."""
from __future__ import annotations

import numpy as np
import pytest
from hypothesis import assume, given, settings, strategies as st

from tilecam.scoring.board import Board, Direction, LAYOUTS, Square, Tile
from tilecam.scoring.decode import Decoded, NoChange, ProposedPlay, ProposedWithdrawal, Unclear, decode_move
from tilecam.scoring.belief import BoardBelief
from tilecam.scoring.lexicon import Lexicon
from tilecam.scoring.snapshot import Snapshot, classes_for
from tilecam.scoring.tiles import DISTRIBUTIONS

EN = DISTRIBUTIONS["en"]
CLASSES = classes_for(EN.letters)
EMPTY_ROWS = ["." * 15] * 15


def rows_with(*items):
    grid = [list(r) for r in EMPTY_ROWS]
    for (r, c), word, direction in items:
        for i, ch in enumerate(word):
            rr, cc = (r, c + i) if direction == "a" else (r + i, c)
            grid[rr][cc] = ch
    return ["".join(g) for g in grid]


def board_from(rows):
    b = Board(LAYOUTS["standard"])
    for r, row in enumerate(rows):
        for c, ch in enumerate(row):
            if ch != ".":
                b.put(Square(r, c), Tile(ch.upper(), ch.islower() or ch == "?"))
    return b


@pytest.fixture(scope="module")
def enable(enable_path):
    return Lexicon.from_file(enable_path)


def test_new_tiles_in_one_line_are_a_play():
    board = board_from(rows_with(((7, 6), "CAT", "a")))
    snap = Snapshot.from_board(rows_with(((7, 6), "CAT", "a"), ((8, 6), "O", "a"), ((9, 6), "W", "a")), CLASSES, 0.95)
    d = decode_move(board, snap, EN)
    assert isinstance(d.change, ProposedPlay)
    assert d.change.placement.direction is Direction.DOWN
    assert [(t.square, t.letter) for t in d.change.placement.tiles] == [(Square(8, 6), "O"), (Square(9, 6), "W")]


def test_nothing_new_is_no_change_and_the_last_play_gone_is_a_withdrawal():
    rows = rows_with(((7, 6), "CAT", "a"))
    board = board_from(rows)
    assert isinstance(decode_move(board, Snapshot.from_board(rows, CLASSES, 0.95), EN).change, NoChange)
    from tilecam.scoring.placement import PlacedTile, Placement
    play = Placement(tuple(PlacedTile(Square(7, 6 + i), ch) for i, ch in enumerate("CAT")), Direction.ACROSS)
    d = decode_move(board, Snapshot.from_board(EMPTY_ROWS, CLASSES, 0.95), EN, last_play=play)
    assert isinstance(d.change, ProposedWithdrawal)
    d2 = decode_move(board, Snapshot.from_board(EMPTY_ROWS, CLASSES, 0.95), EN, last_play=None)
    assert isinstance(d2.change, Unclear)


def test_scattered_tiles_are_unclear_not_a_move():
    board = board_from(rows_with(((7, 6), "CAT", "a")))
    snap = Snapshot.from_board(rows_with(((7, 6), "CAT", "a"), ((2, 1), "O", "a"), ((12, 3), "W", "a"),
                                         ((0, 14), "E", "a")), CLASSES)
    assert isinstance(decode_move(board, snap, EN).change, Unclear)


def test_a_different_letter_under_a_committed_tile_is_a_misread_not_a_move():
    board = board_from(rows_with(((7, 6), "CAT", "a")))
    snap = Snapshot.from_board(rows_with(((7, 6), "COT", "a")), CLASSES, 0.97)
    d = decode_move(board, snap, EN)
    assert isinstance(d.change, NoChange)
    assert [(m.square, m.was, m.now) for m in d.misreads] == [(Square(7, 7), "A", "O")]


def test_lexicon_prefers_the_runner_up_that_makes_a_word(enable):
    board = board_from(rows_with(((7, 6), "CAT", "a")))
    snap = Snapshot.from_board(rows_with(((7, 6), "CAT", "a"), ((8, 6), "O", "a"), ((9, 6), "W", "a")), CLASSES, 0.9)
    probs = snap.probs.copy()
    # The reader thinks the O is a Q (0.55) with O the runner-up (0.40): CQW is no word, COW is.
    probs[8, 6, :] = 0.05 / (len(CLASSES) - 2)
    probs[8, 6, CLASSES.index("Q")] = 0.55
    probs[8, 6, CLASSES.index("O")] = 0.40
    d = decode_move(board, Snapshot(CLASSES, probs), EN, lexicon=enable)
    assert [t.letter for t in d.change.placement.tiles] == ["O", "W"]
    assert d.change.lexicon_changed
    # Without a lexicon the best reading stands: phonies are not filtered.
    d2 = decode_move(board, Snapshot(CLASSES, probs), EN)
    assert [t.letter for t in d2.change.placement.tiles] == ["Q", "W"]


def test_blank_letter_inferred_only_when_the_lexicon_leaves_one_choice(enable):
    board = Board(LAYOUTS["standard"])
    one = decode_move(board, Snapshot.from_board(rows_with(((7, 7), "J?", "a")), CLASSES), EN, lexicon=enable)
    assert one.change.placement.tiles[1].letter == "O" and one.change.undesignated_blanks == ()
    many = decode_move(board, Snapshot.from_board(rows_with(((7, 6), "?AT", "a")), CLASSES), EN, lexicon=enable)
    assert many.change.undesignated_blanks == (Square(7, 6),)
    # Scores never depend on the blank's letter.
    from tilecam.scoring.placement import score_placement
    assert score_placement(board, many.change.placement, EN).score == (0 + 1 + 1) * 2


def test_the_belief_accumulates_over_frames():
    ev = BoardBelief(CLASSES)
    rows = rows_with(((7, 6), "CAT", "a"))
    for _ in range(5):
        ev.add(Snapshot.from_board(rows, CLASSES, 0.8))
    # One confident misread frame does not overturn five agreeing ones.
    ev.add(Snapshot.from_board(rows_with(((7, 6), "COT", "a")), CLASSES, 0.99))
    assert ev.posterior().board()[7][6:9] == "CAT"
    # A hidden square keeps its history.
    hidden = np.zeros((15, 15), bool)
    ev.add(Snapshot.from_board(EMPTY_ROWS, CLASSES, 0.99), visible=hidden)
    assert ev.posterior().board()[7][6:9] == "CAT"
    # A square whose occupancy flips (the tile taken back) starts its history afresh.
    ev.add(Snapshot.from_board(EMPTY_ROWS, CLASSES, 0.99))
    assert ev.frames[7, 6] == 1 and ev.posterior().board()[7][6:9] == "..."


def test_two_plays_seen_at_once_are_split_in_the_one_legal_order():
    from tilecam.scoring.decode import ProposedSequence
    board = board_from(rows_with(((7, 6), "CAT", "a")))
    # SOS down the column after CAT (making CATS), then ON across from its top S.
    after = rows_with(((7, 6), "CAT", "a"), ((5, 9), "SOS", "d"), ((5, 10), "ON", "a"))
    d = decode_move(board, Snapshot.from_board(after, CLASSES, 0.95), EN)
    assert isinstance(d.change, ProposedSequence)
    first, second = d.change.plays
    assert [t.square for t in first.placement.tiles] == [Square(5, 9), Square(6, 9), Square(7, 9)]
    assert [t.square for t in second.placement.tiles] == [Square(5, 10), Square(5, 11)]


def test_two_plays_in_either_order_commit_the_longer_line_first():
    board = board_from(rows_with(((7, 6), "CAT", "a")))
    after = rows_with(((7, 6), "CAT", "a"), ((8, 6), "OW", "d"), ((9, 7), "E", "a"))
    d = decode_move(board, Snapshot.from_board(after, CLASSES, 0.95), EN)
    # Either order is legal, so nothing says which came first: the longer line is taken and the
    # stray E is still new at the next snapshot.
    assert [t.letter for t in d.change.placement.tiles] == ["O", "W"]


def test_a_stray_square_off_the_line_does_not_hold_up_the_play():
    board = board_from(rows_with(((7, 6), "CAT", "a")))
    after = rows_with(((7, 6), "CAT", "a"), ((8, 6), "OWL", "d"), ((2, 12), "?", "a"))
    d = decode_move(board, Snapshot.from_board(after, CLASSES, 0.95), EN, cfg=__import__(
        "tilecam.scoring.decode", fromlist=["DecodeConfig"]).DecodeConfig(split_two_plays=False))
    assert isinstance(d.change, ProposedPlay)
    assert [t.letter for t in d.change.placement.tiles] == ["O", "W", "L"]


def test_a_committed_tile_read_empty_does_not_block_a_new_play():
    board = board_from(rows_with(((7, 6), "CAT", "a")))
    after = rows_with(((7, 6), "C.T", "a"), ((8, 8), "O", "a"), ((9, 8), "E", "a"))
    d = decode_move(board, Snapshot.from_board(after, CLASSES, 0.95), EN)
    assert isinstance(d.change, ProposedPlay)


def test_a_blank_read_as_empty_inside_a_play_is_taken_as_a_tile():
    board = board_from(rows_with(((7, 6), "CAT", "a")))
    snap = Snapshot.from_board(rows_with(((7, 6), "CAT", "a"), ((8, 6), "O.L", "d")), CLASSES, 0.95)
    d = decode_move(board, snap, EN)
    assert isinstance(d.change, ProposedPlay)
    assert [t.square for t in d.change.placement.tiles] == [Square(8, 6), Square(9, 6), Square(10, 6)]


def test_several_missed_plays_are_peeled_off_one_line_at_a_time():
    from tilecam.scoring.decode import ProposedSequence
    board = board_from(rows_with(((7, 6), "CAT", "a")))
    after = rows_with(((7, 6), "CAT", "a"), ((8, 6), "OWL", "d"), ((10, 7), "AD", "a"), ((3, 8), "DOGS", "d"))
    d = decode_move(board, Snapshot.from_board(after, CLASSES, 0.95), EN)
    # Three plays at once is more than missed snapshots explain: a hand or the bag lies on the board.
    assert isinstance(d.change, Unclear)
    two = rows_with(((7, 6), "CAT", "a"), ((8, 6), "OWL", "d"), ((3, 8), "DOGS", "d"))
    d = decode_move(board, Snapshot.from_board(two, CLASSES, 0.95), EN)
    assert isinstance(d.change, ProposedSequence)
    assert sorted(len(p.placement.tiles) for p in d.change.plays) == [3, 4]


def test_a_phony_taken_back_and_the_next_play_in_one_snapshot():
    from tilecam.scoring.placement import PlacedTile, Placement
    board = board_from(rows_with(((7, 6), "CAT", "a"), ((8, 8), "ZZ", "d")))
    phony = Placement((PlacedTile(Square(8, 8), "Z"), PlacedTile(Square(9, 8), "Z")), Direction.DOWN)
    after = rows_with(((7, 6), "CAT", "a"), ((8, 6), "OW", "d"))
    d = decode_move(board, Snapshot.from_board(after, CLASSES, 0.95), EN, last_play=phony)
    assert d.withdraw_first and isinstance(d.change, ProposedPlay)
    assert [t.letter for t in d.change.placement.tiles] == ["O", "W"]



@given(st.sets(st.tuples(st.integers(0, 14), st.integers(0, 14)), min_size=1, max_size=4))
@settings(max_examples=200, deadline=None)
def test_a_phony_whose_tiles_all_left_is_withdrawn_whatever_else_reads_new(strays):
    """held-out-b (docs/racks.md): the phony came off and a glare elsewhere read as a tile at the
    same snapshot; the new squares made no play, so the withdrawal waited for them, and the next
    play covered a square of the phony first: never withdrawn, every later play read against it.
    The tiles that left are no guess, whatever the new squares are: the withdrawal is seen, alone
    (the new squares in doubt) or before the play they make."""
    from tilecam.scoring.placement import PlacedTile, Placement
    board = board_from(rows_with(((7, 6), "CAT", "a"), ((8, 8), "ZZ", "d")))
    phony = Placement((PlacedTile(Square(8, 8), "Z"), PlacedTile(Square(9, 8), "Z")), Direction.DOWN)
    assume(not any((r, c) in ((7, 6), (7, 7), (7, 8), (8, 8), (9, 8)) for r, c in strays))
    grid = [list(r) for r in rows_with(((7, 6), "CAT", "a"))]
    for r, c in strays:
        grid[r][c] = "E"
    d = decode_move(board, Snapshot.from_board(["".join(g) for g in grid], CLASSES, 0.95), EN, last_play=phony)
    # withdraw_first is the withdrawal only before a play (an unclear change commits nothing)
    assert isinstance(d.change, ProposedWithdrawal) or (d.withdraw_first and not isinstance(d.change, (Unclear, NoChange))), d
    if isinstance(d.change, ProposedWithdrawal):
        assert d.change.squares == (Square(8, 8), Square(9, 8))
        assert set(d.doubtful) == {Square(r, c) for r, c in strays}

def test_two_plays_in_either_order_follow_what_a_covered_snapshot_saw_first():
    from tilecam.scoring.decode import ProposedSequence
    board = board_from(rows_with(((7, 6), "CAT", "a")))
    # COW and TON: each legal before or after the other, so only an earlier glimpse can order them.
    after = Snapshot.from_board(rows_with(((7, 6), "CAT", "a"), ((8, 6), "OW", "d"), ((8, 8), "ON", "d")),
                                CLASSES, 0.95)
    for seen, first_col in (({Square(8, 8), Square(9, 8)}, 8), ({Square(8, 6), Square(9, 6)}, 6)):
        d = decode_move(board, after, EN, seen_first=frozenset(seen))
        assert isinstance(d.change, ProposedSequence)
        first, second = d.change.plays
        assert {t.square.col for t in first.placement.tiles} == {first_col}
        assert {t.square.col for t in second.placement.tiles} == {14 - first_col}


def test_a_stray_square_beyond_a_gap_in_the_plays_own_line_does_not_hold_it_up():
    board = board_from(rows_with(((7, 6), "CAT", "a")))
    # OWL down from the C, and a shadow three squares below it read as a tile.
    after = rows_with(((7, 6), "CAT", "a"), ((8, 6), "OWL", "d"), ((14, 6), "E", "a"))
    d = decode_move(board, Snapshot.from_board(after, CLASSES, 0.95), EN)
    assert isinstance(d.change, ProposedPlay)
    assert [t.letter for t in d.change.placement.tiles] == ["O", "W", "L"]


def test_a_blank_read_as_an_empty_square_inside_the_play_is_no_guess():
    """Issue 44: a white tile set's blank, read as an empty square (P(empty) 1 - 1e-16 over the frames)
    between tiles read surely: a play has no gaps, so the square holds a tile, and the reader cannot
    tell a plain blank from an empty square. The play's certainty weighed P(empty) there (0.00: held
    as a guess, and the game's last plays with it); it is the blank, as sure as the tiles around it."""
    from tilecam.scoring.decode import DecodeConfig

    board = board_from(rows_with(((7, 6), "CAT", "a")))
    after = rows_with(((7, 6), "CAT", "a"), ((8, 6), "O.L", "d"))   # OWL down from the C, its W a blank
    snap = Snapshot.from_board(after, CLASSES, 0.99)
    probs = snap.probs.copy()
    probs[9, 6] = 0.0
    probs[9, 6, CLASSES.index(".")] = 1.0 - 1e-16
    probs[9, 6, CLASSES.index("?")] = 1e-16
    d = decode_move(board, Snapshot(CLASSES, probs), EN)
    assert isinstance(d.change, ProposedPlay)
    assert [(t.letter, t.blank) for t in d.change.placement.tiles] == [("O", False), ("?", True), ("L", False)]
    assert d.change.certainty >= DecodeConfig().hold_below
    assert d.change.certainty > 0.9
