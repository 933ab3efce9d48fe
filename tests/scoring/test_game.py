"""scoring.game: the end of a game (Game.final_racks), the one rack-size rule of an exchange and what a closed
game still takes (check_open)."""
from __future__ import annotations

import dataclasses

import pytest

from tilecam.scoring.board import Direction, Square
from tilecam.scoring.events import (ChallengeBonus, Correction, EndRackPenalty, Exchange, Pass, PhonyWithdrawn, TimePenalty,
                                    TurnLost, Void)
from tilecam.scoring.game import Game, GameError, TurnDetailsError, check_exchange, check_open
from tilecam.scoring.placement import PlacedTile, Placement
from tilecam.scoring.rules import PROFILES
from tilecam.scoring.tiles import DISTRIBUTIONS

EN = DISTRIBUTIONS["en"]


def across(row, col, word) -> Placement:
    return Placement(tuple(PlacedTile(Square(row, col + i), ch, False) for i, ch in enumerate(word)),
                     Direction.ACROSS)


def test_check_exchange_as_asked_and_against_the_rack():
    check_exchange(7, EN)
    with pytest.raises(TurnDetailsError, match="cannot exchange 8 tiles from a rack of 7"):
        check_exchange(8, EN)
    with pytest.raises(GameError, match="cannot exchange 4 tiles from a rack of 3"):
        check_exchange(4, EN, rack=3)
    with pytest.raises(GameError):
        check_exchange(0, EN, rack=7)


def test_a_director_ends_a_game_in_progress_with_the_racks_given():
    g = Game(PROFILES["naspa"], EN)
    g.play(0, across(7, 6, "CAT"))
    assert g.final_racks(None) == []  # nothing to enter: the director just ends it
    added = g.final_racks(["QI", ""])
    assert [(type(e), e.player, e.agreed) for e in added] == [(EndRackPenalty, 0, -11)]
    with pytest.raises(GameError, match="already been ended"):
        g.final_racks(["QI", ""])


@pytest.mark.parametrize("racks, message", [
    (["QI"], r"give one rack per player \(2\)"),
    (["Q1", ""], "rack"),
])
def test_final_racks_that_do_not_fit_are_refused(racks, message):
    g = Game(PROFILES["naspa"], EN)
    with pytest.raises((TurnDetailsError, ValueError), match=message):
        g.final_racks(racks)


@pytest.mark.parametrize("takes_racks", [True, False])
def test_after_six_zeros_each_rack_comes_off_when_the_rules_take_it(takes_racks):
    g = Game(PROFILES["naspa"].with_(zeros_end_penalty=takes_racks), EN)
    while not g.state.ended:
        g.pass_turn(g.state.on_turn)
    if takes_racks:
        with pytest.raises(TurnDetailsError, match="give each player's rack"):
            g.final_racks(None)
        assert [e.agreed for e in g.final_racks(["AB", "C"])] == [-4, -3]
    else:
        assert g.final_racks(None) == [] and g.final_racks(["AB", "C"]) == []


def test_admit_takes_an_event_only_as_the_rules_give_it():
    g = Game(PROFILES["naspa"], EN)
    made = Game(PROFILES["naspa"], EN).play(0, across(7, 6, "CAT"))
    with pytest.raises(GameError, match="engine score 99 is not what the rules give"):
        Game(PROFILES["naspa"], EN).admit(dataclasses.replace(made, engine=99))
    with pytest.raises(GameError, match="cumulative 99 is not what the record gives"):
        Game(PROFILES["naspa"], EN).admit(dataclasses.replace(made, cumulative=99))
    assert g.admit(made) == made and g.events == [made]


def test_a_closed_game_takes_only_corrections_and_penalties():
    g = Game(PROFILES["naspa"], EN)
    play = g.play(0, across(7, 6, "CAT"))
    turns = [play, Pass(1, 0), Exchange(1, 3, None, 0)]
    others = [Correction(0, play, by="desk"), Void(0, by="desk"), PhonyWithdrawn(0, None, -10, -10, 0),
              TurnLost(1, 0), ChallengeBonus(0, 1, None, 5, 5, 15), EndRackPenalty(1, "QI", None, -11, -11, -11),
              TimePenalty(0, 1, None, -10, -10, 0)]
    for entry in turns + others:
        check_open(entry, None)  # an open game: the rules of the record decide, not this one
    for entry in turns:
        with pytest.raises(GameError, match="game 7 was ended by desk; only corrections and penalties"):
            check_open(entry, "desk", "game 7")
    for entry in others:
        check_open(entry, "desk", "game 7")
