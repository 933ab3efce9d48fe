"""A director's close is an entry of the append-only log (scoring.events.Close, issue 37): no move and
no points, so the record's moves, their indexes and the scores stand as they were; once it is in,
the game is over (scoring.game.is_over), takes no turn and no second close (check_open), and the
scorekeeper that synced it decides no more turns."""
from __future__ import annotations

import pytest

from tilecam.scoring.amend import MakeExchange, correct, standing, void
from tilecam.scoring.events import NOT_EVENTS, Close, Correction, Pass, TimePenalty, closing, from_json, to_json
from tilecam.scoring.game import Game, GameError, check_open, effective_events, is_over
from tilecam.scoring.gcg import placement_from_gcg
from tilecam.scoring.rules import get_profile
from tilecam.scoring.scorekeeper import Scorekeeper
from tilecam.scoring.snapshot import Snapshot, classes_for
from tilecam.scoring.tiles import DISTRIBUTIONS

NASPA, EN = get_profile("naspa"), DISTRIBUTIONS["en"]
EMPTY = ["." * 15] * 15
CAT = EMPTY[:7] + ["......CAT......"] + EMPTY[8:]
COW = CAT[:8] + ["......O........", "......W........"] + CAT[10:]


def _played() -> Game:
    g = Game(NASPA, EN)
    g.play(0, placement_from_gcg(g, "8G", "CAT"), None)
    g.pass_turn(1)
    return g


def test_a_close_roundtrips_through_json_and_is_no_event():
    close = Close("desk", "forfeit")
    assert to_json(close) == {"kind": "close", "by": "desk", "reason": "forfeit"}
    assert from_json(to_json(close)) == close
    with pytest.raises(ValueError, match="bad close"):
        from_json({"kind": "close", "reason": "forfeit"})  # who closed it is part of it
    assert isinstance(close, NOT_EVENTS)


def test_the_record_stands_as_it_was_with_a_close_in_the_log():
    g = _played()
    log = [*g.events, Close("desk", "forfeit")]
    assert effective_events(log, NASPA, EN) == g.events            # the plain log
    log.append(correct(log, 1, MakeExchange(3, None), NASPA, EN, by="desk"))  # amended with a close in the log
    assert standing(log) == [0, 1]                                 # the moves: the close is none
    assert [e.kind for e in effective_events(log, NASPA, EN)] == ["play", "exchange"]
    log.append(void(log, 1, NASPA, EN, by="desk"))
    assert [e.kind for e in effective_events(log, NASPA, EN)] == ["play"]
    assert closing(log) == Close("desk", "forfeit") and closing(g.events) is None
    with pytest.raises(GameError, match="names no earlier event"):  # a close is nothing to amend
        effective_events([*g.events, Close("desk"), Correction(2, Pass(1, 0), by="desk")], NASPA, EN)


def test_a_closed_game_is_over_and_takes_no_turn_nor_a_second_close():
    g = _played()
    assert not is_over(g.state, None) and is_over(g.state, "desk")
    for entry in (Pass(0, 10), Close("head judge")):
        with pytest.raises(GameError, match="game 7 was ended by desk; only corrections and penalties"):
            check_open(entry, "desk", "game 7")
    check_open(TimePenalty(0, 1, None, -10, -10, 0), "desk")   # overtime still goes in
    check_open(Close("desk"), None)                           # an open game may be closed


def test_the_scorekeeper_that_synced_a_close_decides_no_more_turns():
    classes = classes_for(EN.letters)
    keeper = Scorekeeper(Game(NASPA, EN))
    assert keeper.observe(Snapshot.from_board(CAT, classes, 0.97), pressed=True).status == "play"
    assert not keeper.over and keeper.closed_by is None
    keeper.sync([*keeper.entries, Close("desk", "forfeit")])
    assert keeper.over and keeper.closed_by == "desk" and not keeper.game.state.ended
    obs = keeper.observe(Snapshot.from_board(COW, classes, 0.97), pressed=True)
    assert (obs.status, obs.entries) == ("ended", ()) and len(keeper.game.events) == 1
