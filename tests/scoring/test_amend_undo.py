"""scoring.amend.undo_correction: taking a correction back is one more correction putting the move
back as it stood before it (the log stays append-only); only a move's latest correction; never on a
voided move; and the recount's words for it."""
from __future__ import annotations

import pytest

from tilecam.scoring.amend import CorrectionError, Retile, RuleScore, changes, correct, undo_correction, void
from tilecam.scoring.board import Direction, Square
from tilecam.scoring.game import Game, effective_events
from tilecam.scoring.placement import PlacedTile, Placement
from tilecam.scoring.rules import PROFILES
from tilecam.scoring.tiles import BLANK, DISTRIBUTIONS

EN = DISTRIBUTIONS["en"]
NASPA = PROFILES["naspa"]


def across(row, col, tiles) -> Placement:
    return Placement(tuple(PlacedTile(Square(row, col + i), t.upper(), t != t.upper() or t == BLANK)
                           for i, t in enumerate(tiles)), Direction.ACROSS)


def logged() -> list:
    g = Game(NASPA, EN)
    g.play(0, across(7, 6, "C?T"))  # the blank read as '?': nobody named it
    return list(g.events)


def test_undoing_a_blank_named_puts_it_back_undecided_and_says_so():
    log = logged()
    log.append(correct(log, 0, Retile(Square(7, 7), "A", blank=True), NASPA, EN, by="desk"))
    assert effective_events(log, NASPA, EN)[0].placement.tiles[1].letter == "A"
    log.append(undo_correction(log, 1, NASPA, EN, by="desk", reason="wrong letter"))
    assert effective_events(log, NASPA, EN)[0].placement.tiles[1].letter == BLANK
    assert [c.change for c in changes(log, NASPA, EN)] == ["blank at H8 named A", "blank at H8 named ?"]
    # the undo is the latest correction: undoing it names the blank again
    log.append(undo_correction(log, 2, NASPA, EN, by="desk"))
    assert effective_events(log, NASPA, EN)[0].placement.tiles[1].letter == "A"


def test_a_ruling_under_a_later_fix_is_kept_and_only_the_latest_is_undone():
    log = logged()
    log.append(correct(log, 0, RuleScore(9), NASPA, EN, by="td"))
    log.append(correct(log, 0, Retile(Square(7, 7), "O", blank=True), NASPA, EN, by="desk"))
    with pytest.raises(CorrectionError, match="a later correction of the same move stands on it"):
        undo_correction(log, 1, NASPA, EN, by="td")
    log.append(undo_correction(log, 2, NASPA, EN, by="desk"))
    ev = effective_events(log, NASPA, EN)[0]
    assert ev.placement.tiles[1].letter == BLANK and ev.agreed == 9  # the ruling before it stands
    log.append(undo_correction(log, 3, NASPA, EN, by="desk"))  # the undo undone: O again, 9 still
    assert effective_events(log, NASPA, EN)[0].placement.tiles[1].letter == "O"


def test_nothing_to_undo_on_a_voided_move_or_on_what_is_no_correction():
    log = logged()
    log.append(correct(log, 0, Retile(Square(7, 7), "A", blank=True), NASPA, EN, by="desk"))
    with pytest.raises(CorrectionError, match="not a correction"):
        undo_correction(log, 0, NASPA, EN, by="desk")
    log.append(void(log, 0, NASPA, EN, by="desk"))
    with pytest.raises(CorrectionError, match="was voided"):
        undo_correction(log, 1, NASPA, EN, by="desk")
