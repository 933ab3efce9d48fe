"""Plays decoded against the bag and the lexicon, squares that fit no play kept as doubts, and the
certainty every play carries (issue 21, items 4 and 5)."""
from __future__ import annotations

import pytest

from tilecam.scoring.board import Square
from tilecam.scoring.decode import DecodeConfig, ProposedPlay, decode_move
from tilecam.scoring.game import Game
from tilecam.scoring.lexicon import Lexicon
from tilecam.scoring.rules import get_profile
from tilecam.scoring.scorekeeper import Scorekeeper
from tilecam.scoring.snapshot import Snapshot

from test_decode import CLASSES, EN, board_from, rows_with


@pytest.fixture(scope="module")
def enable(enable_path):
    return Lexicon.from_file(enable_path)


def _with(rows, *phantoms):
    grid = [list(r) for r in rows]
    for (r, c), ch in phantoms:
        grid[r][c] = ch
    return ["".join(g) for g in grid]


def test_phantom_tiles_far_from_the_play_do_not_stop_the_next_plays():
    # Printed labels read as letters, one more as the light changes: each is a doubt, never a blocker.
    keeper = Scorekeeper(Game(get_profile("naspa"), EN))
    p1, p2, p3 = ((0, 0), "X"), ((0, 14), "Q"), ((14, 0), "J")
    boards = [
        _with(rows_with(((7, 6), "CAT", "a")), p1),
        _with(rows_with(((7, 6), "CATS", "a")), p1, p2),
        _with(rows_with(((7, 6), "CATS", "a"), ((8, 8), "O", "a")), p1, p2, p3),
        _with(rows_with(((7, 6), "CATS", "a"), ((8, 8), "ON", "a")), p1, p2, p3),
    ]
    statuses = [keeper.observe(Snapshot.from_board(b, CLASSES, 0.95), pressed=True).status for b in boards]
    assert statuses == ["play", "play", "play", "play"]
    plays = [[(t.square, t.letter) for t in e.placement.tiles] for e in keeper.game.events]
    assert plays == [[(Square(7, 6), "C"), (Square(7, 7), "A"), (Square(7, 8), "T")], [(Square(7, 9), "S")],
                     [(Square(8, 8), "O")], [(Square(8, 9), "N")]]
    assert keeper.deciding.doubts == {Square(0, 0), Square(0, 14), Square(14, 0)}
    # nothing new but the phantoms at a clock press: a pass, not a game held up
    assert keeper.observe(Snapshot.from_board(boards[-1], CLASSES, 0.95), pressed=True).status == "pass"


def test_a_letter_the_pool_can_no_longer_supply_loses_to_the_runner_up():
    board = board_from(rows_with(((7, 6), "ZA", "a")))  # the English set's only Z is on the board
    snap = Snapshot.from_board(rows_with(((7, 6), "ZA", "a"), ((8, 7), "S", "d"), ((9, 7), "T", "d")), CLASSES, 0.95)
    probs = snap.probs.copy()
    probs[8, 7, :] = 0.1 / (len(CLASSES) - 2)
    probs[8, 7, CLASSES.index("Z")] = 0.6
    probs[8, 7, CLASSES.index("S")] = 0.3
    d = decode_move(board, Snapshot(CLASSES, probs), EN)
    assert isinstance(d.change, ProposedPlay)
    assert [t.letter for t in d.change.placement.tiles] == ["S", "T"]
    # renormalised over the readings the pool allows: P(S T) / (1 - P(Z T)), times P(a tile) per square
    c = d.change.certainty
    assert 0.6 < c < 0.75
    assert d.change.runner_ups and all(r.probability < c for r in d.change.runner_ups)
    # with a Z still in the bag the reader's best stands
    d2 = decode_move(board_from(rows_with(((7, 6), "SA", "a"))), Snapshot(CLASSES, probs), EN)
    assert [t.letter for t in d2.change.placement.tiles] == ["Z", "T"]


def test_the_lexicon_picks_between_readings_and_the_certainty_follows(enable):
    board = board_from(rows_with(((7, 6), "CAT", "a")))
    snap = Snapshot.from_board(rows_with(((7, 6), "CAT", "a"), ((8, 6), "O", "a"), ((9, 6), "W", "a")), CLASSES, 0.9)
    probs = snap.probs.copy()
    probs[8, 6, :] = 0.05 / (len(CLASSES) - 2)
    probs[8, 6, CLASSES.index("Q")] = 0.55
    probs[8, 6, CLASSES.index("O")] = 0.40
    plain = decode_move(board, Snapshot(CLASSES, probs), EN).change
    with_words = decode_move(board, Snapshot(CLASSES, probs), EN, lexicon=enable).change
    assert [t.letter for t in plain.placement.tiles] == ["Q", "W"]
    assert [t.letter for t in with_words.placement.tiles] == ["O", "W"]
    # CQW is no word: its mass goes, so COW is surer than its raw 0.40 x 0.9
    assert with_words.certainty > 0.40 * 0.9 and plain.certainty < 0.55
    assert plain.runner_ups[0].placement.tiles[0].letter == "O"


def test_every_camera_play_carries_its_certainty_and_review_below_the_threshold():
    keeper = Scorekeeper(Game(get_profile("naspa"), EN), cfg=DecodeConfig(review_below=0.5, learn_table=False))
    keeper.observe(Snapshot.from_board(rows_with(((7, 6), "CAT", "a")), CLASSES, 0.99), pressed=True)
    snap = Snapshot.from_board(rows_with(((7, 6), "CAT", "a"), ((8, 6), "O", "a"), ((9, 6), "W", "a")), CLASSES, 0.99)
    probs = snap.probs.copy()
    probs[8, 6, :] = 0.01 / (len(CLASSES) - 2)
    probs[8, 6, CLASSES.index("Q")] = 0.49
    probs[8, 6, CLASSES.index("O")] = 0.50
    keeper.observe(Snapshot(CLASSES, probs), pressed=True)
    first, second = keeper.game.events
    assert first.certainty > 0.95 and not first.review
    assert second.certainty < 0.5 and second.review
    assert second.runner_ups[0][:2] == ("G8", ".QW")   # GCG position and word, for a play correction
    from tilecam.scoring.events import from_json, to_json
    assert from_json(to_json(second)) == second


def test_many_labels_read_as_blanks_beside_the_first_play_do_not_stop_it():
    # A vintage board: its premium squares' print read as blanks, two of them beside the first play
    # (more than max_stray_squares, none touching another): the play is decoded, the rest are doubts.
    keeper = Scorekeeper(Game(get_profile("naspa"), EN))
    labels = [((1, 5), "?"), ((5, 5), "?"), ((6, 6), "?"), ((8, 2), "?")]
    first = _with(rows_with(((7, 2), "NAUPLII", "a")), *labels)
    obs = keeper.observe(Snapshot.from_board(first, CLASSES, 0.95), pressed=True)
    assert obs.status == "play" and keeper.game.events[0].words == ("NAUPLII",)
    assert keeper.deciding.doubts == {sq for (sq_r, sq_c), _ in labels for sq in [Square(sq_r, sq_c)]}
    # three squares side by side beyond the few a misread explains: a hand or a second play, not print
    keeper = Scorekeeper(Game(get_profile("naspa"), EN))
    blob = _with(rows_with(((7, 2), "NAUPLII", "a")), ((1, 5), "?"), ((1, 6), "E"), ((1, 7), "?"))
    assert keeper.observe(Snapshot.from_board(blob, CLASSES, 0.95), pressed=True).status == "unclear"
