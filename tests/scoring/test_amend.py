"""scoring.amend: what a correction may change in a play, which moves may be voided, and each change said in words."""
from __future__ import annotations

import pytest

from tilecam.scoring.board import Direction, Square
from tilecam.scoring.amend import CorrectionError, changes, retile
from tilecam.scoring.errors import ScoringError
from tilecam.scoring.events import Correction, Void
from tilecam.scoring.game import Game
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
    with pytest.raises(CorrectionError, match=r"^8G holds F, not a blank") as err:
        retile(play, Square(7, 6), "E", EN, blank=True)
    assert isinstance(err.value, ScoringError)
    named = retile(play, Square(7, 7), "o", EN, blank=True)
    assert [(t.letter, t.blank) for t in named.placement.tiles] == [("F", False), ("O", True), ("E", False)]
    misread = retile(play, Square(7, 6), "t", EN, blank=False)
    assert misread.placement.tiles[0] == PlacedTile(Square(7, 6), "T", False)
    with pytest.raises(CorrectionError, match="placed no tile on 9G"):
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
        ("correction", "op", "blank at 8H named A"), ("correction", "td", "score 8 → 9"),
        ("void", "op", "move 3 voided")]
