"""scoring.amend: what a correction may change in a play, which moves may be voided, and each change said in words."""
from __future__ import annotations

import re

import pytest

from tilecam.scoring.amend import (CorrectionError, MakeExchange, MakePass, ReenterPlay, Retile, RuleScore,
                                   VoidRefused, changes, correct, retile, standing, void)
from tilecam.scoring.board import Direction, Square
from tilecam.scoring.errors import ScoringError
from tilecam.scoring.events import Correction, Exchange, Void
from tilecam.scoring.game import Game, GameError, TurnDetailsError
from tilecam.scoring.placement import PlacedTile, Placement
from tilecam.scoring.rules import PROFILES
from tilecam.scoring.tiles import BLANK, DISTRIBUTIONS

EN = DISTRIBUTIONS["en"]
NASPA = PROFILES["naspa"]


def across(row, col, tiles) -> Placement:
    return Placement(tuple(PlacedTile(Square(row, col + i), t.upper(), t != t.upper() or t == BLANK)
                           for i, t in enumerate(tiles)), Direction.ACROSS)


def test_a_blank_is_named_only_where_a_blank_lies():
    g = Game(NASPA, EN)
    play = g.play(0, across(7, 6, "F?E"))
    with pytest.raises(CorrectionError, match=r"^G8 holds F, not a blank") as err:
        retile(play, Square(7, 6), "E", EN, blank=True)
    assert isinstance(err.value, ScoringError)
    named = retile(play, Square(7, 7), "o", EN, blank=True)
    assert [(t.letter, t.blank) for t in named.placement.tiles] == [("F", False), ("O", True), ("E", False)]
    misread = retile(play, Square(7, 6), "t", EN, blank=False)
    assert misread.placement.tiles[0] == PlacedTile(Square(7, 6), "T", False)
    with pytest.raises(CorrectionError, match="placed no tile on G9"):
        retile(play, Square(8, 6), "E", EN, blank=True)
    with pytest.raises(CorrectionError, match="not a letter"):
        retile(play, Square(7, 6), "7", EN, blank=False)


def test_each_correction_and_void_is_said_in_words():
    g = Game(NASPA, EN)
    g.play(0, across(7, 6, "C?T"))
    g.pass_turn(1)
    g.play(0, across(8, 6, "AX"))
    log = list(g.events)
    log.append(Correction(0, retile(log[0], Square(7, 7), "A", EN, blank=True), by="op"))
    log.append(Correction(0, log[-1].replacement, by="td", agreed=9))
    log.append(Void(2, by="op"))
    assert [(c.kind, c.by, c.change) for c in changes(log, NASPA, EN)] == [
        ("correction", "op", "blank at H8 named A"), ("correction", "td", "score 8 → 9"),
        ("void", "op", "move 3 voided")]


# ---- correct and void: pure functions on the log, as the service calls them ----------------

def _log() -> list:
    g = Game(NASPA, EN)
    g.play(0, across(7, 6, "C?T"))     # move 1
    g.pass_turn(1)                      # move 2
    g.play(0, across(8, 6, "AX"))       # move 3: 9G-9H, under the C and the blank
    return list(g.events)


def test_standing_numbers_the_moves_as_they_stand():
    log = _log() + [Correction(0, _log()[0], by="op"), Void(1, by="op")]
    assert standing(log) == [0, 2]


def test_correct_names_a_blank_and_a_ruling_stands_through_later_fixes():
    log = _log()
    ruled = correct(log, 0, RuleScore(20), NASPA, EN, by="td", reason="ruling")
    assert (ruled.target, ruled.agreed, ruled.by, ruled.reason) == (0, 20, "td", "ruling")
    log.append(ruled)
    named = correct(log, 0, Retile(Square(7, 7), "a", blank=True), NASPA, EN, by="op")
    assert named.agreed == 20 and named.replacement.placement.tiles[1] == PlacedTile(Square(7, 7), "A", True)
    with pytest.raises(CorrectionError, match=r"^G8 holds C, not a blank"):
        correct(log, 0, Retile(Square(7, 6), "E", blank=True), NASPA, EN, by="op")


@pytest.mark.parametrize("index, fix, message", [
    (1, Retile(Square(7, 6), "E", blank=False), "move 2 is a pass, not a play: it placed no tiles"),
    (1, ReenterPlay("8G", "CAT"), "move 2 is a pass, not a play"),
    (0, MakeExchange(3), "move 1 is a play; only a pass becomes an exchange"),
    (0, MakePass(), "move 1 is a play; only an exchange becomes a pass"),
    (1, RuleScore(5), "move 2 is a pass, which scores nothing"),
    (1, MakeExchange(3, "AB"), "'AB' is not 3 tiles"),
    (3, MakePass(), "there is no move 4"),
])
def test_a_correction_that_does_not_fit_the_move_says_which_move_counting_from_1(index, fix, message):
    with pytest.raises(CorrectionError, match=f"^{re.escape(message)}"):
        correct(_log(), index, fix, NASPA, EN, by="op")


def test_a_pass_becomes_an_exchange_of_no_more_than_a_rack():
    log = _log()
    made = correct(log, 1, MakeExchange(2, "ab"), NASPA, EN, by="op")
    assert made.replacement == Exchange(1, 2, "ab", 0)
    with pytest.raises(TurnDetailsError, match="cannot exchange 8 tiles from a rack of 7"):
        correct(log, 1, MakeExchange(8), NASPA, EN, by="op")


def test_a_correction_a_later_play_cannot_follow_is_refused():
    # Re-entered down through 8H, CAT takes 9H, where move 3 put its X: the record no longer replays.
    with pytest.raises(ScoringError, match="already occupied"):
        correct(_log(), 0, ReenterPlay("H7", "CAT"), NASPA, EN, by="op")


def test_the_last_move_can_always_be_voided():
    log = _log()
    assert void(log, 2, NASPA, EN, by="op", reason="double click") == Void(2, "op", "double click")


def test_void_refused_when_a_later_move_depends_on_it():
    log = _log()
    # Without the pass, the second play is no longer player 0's turn: it depends on the pass.
    with pytest.raises(VoidRefused, match=r"^move 2 cannot be voided: move 3 \(Ann's play\) depends on it; "
                                          "void the later moves first, the last first$") as err:
        void(log, 1, NASPA, EN, by="op", names=["Ann", "Bo"])
    assert isinstance(err.value, GameError)  # a 409 over HTTP
    # Without the first play, the second has nothing to join.
    with pytest.raises(VoidRefused, match=r"^move 1 cannot be voided: a later move no longer follows"):
        void(log, 0, NASPA, EN, by="op")
    log.append(void(log, 2, NASPA, EN, by="op"))  # from the last backwards: then the pass can go
    log.append(void(log, 1, NASPA, EN, by="op"))
    assert standing(log) == [0]


def test_void_of_a_challenged_play_is_refused():
    g = Game(NASPA, EN)
    g.play(0, across(7, 6, "ZQX"))
    g.challenge("phony")
    with pytest.raises(VoidRefused, match="^move 1 cannot be voided: a later move no longer follows"):
        void(g.events, 0, NASPA, EN, by="op")
    assert void(g.events, 1, NASPA, EN, by="op").target == 1  # the withdrawal itself can go


def test_a_ruling_keeps_the_sign_of_what_the_move_is():
    """A penalty takes points and rack points give them: a ruled score of the other sign is refused
    (the model-based test's hunt ruled an end-rack penalty +29, a GCG line macondo cannot read)."""
    g = Game(NASPA, EN)
    g.play(0, across(7, 6, "CAT"))
    g.time_penalty(1, 1)
    log = list(g.events)
    with pytest.raises(CorrectionError, match=r"^move 2 is a .*: it takes points, so it cannot stand at \+29"):
        correct(log, 1, RuleScore(29), NASPA, EN, by="td")
    assert correct(log, 1, RuleScore(-20), NASPA, EN, by="td").agreed == -20
