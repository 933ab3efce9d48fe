"""api/service/writer.py on a real SQLite store, without HTTP: the closed-game rule on both ways in
(a raw entry, a builder), a director's close as a log entry (and as the meta of a game closed before
it was one), a stale expect writing nothing, and the clock stopping at the end of a game."""
from __future__ import annotations

import pytest

from servicekit import new_game, service  # noqa: F401  (fixture)
from tilecam.api.errors import Conflict
from tilecam.api.service import GameService
from tilecam.scoring.events import Close, Pass, TimePenalty, Void
from tilecam.scoring.game import GameError


def test_a_closed_game_takes_no_turn_by_any_way_in_but_corrections_and_penalties(service):
    gid = new_game(service)
    service.play(gid, "8H", "CAT")
    service.end(gid, None, "forfeit", by="desk")
    n = service.count(gid)
    refusals = [lambda: service.pass_turn(gid),                        # the operator's builder
                lambda: service.play(gid, "7H", "AT"),
                lambda: service.exchange(gid, 3),
                lambda: service.append(gid, Pass(1, 0))]               # a raw entry (the recorder's way)
    for write in refusals:
        with pytest.raises(GameError, match=f"game {gid} was ended by desk; only corrections and penalties"):
            write()
    assert service.count(gid) == n
    service.time_penalty(gid, 1, 2)
    service.void(gid, 0, by="desk", reason="misread")
    kinds = [type(e.entry) for e in service.entries(gid)[n:]]
    assert kinds == [TimePenalty, Void]


def test_an_open_game_takes_the_same_turns(service):
    gid = new_game(service)
    service.play(gid, "8H", "CAT")
    service.pass_turn(gid)
    assert service.append(gid, Pass(0, service.load(gid).game_at().state.scores[0])) == 2


def test_a_stale_expect_is_a_conflict_and_nothing_is_written(service):
    gid = new_game(service)
    service.pass_turn(gid)
    with pytest.raises(Conflict, match="1 log entries, not 0"):
        service.commit(gid, [Pass(1, 0), Pass(0, 0)], expect=0)
    assert service.count(gid) == 1
    assert service.commit(gid, [Pass(1, 0), Pass(0, 0)], expect=1) == [1, 2]


def press_and_pass(service: GameService, gid: int, turns: int) -> None:
    """Each player passes and presses, 10 s a turn; the operator enters the pass 5 s after the press."""
    service.clock_press(gid, None, 0.0)
    for i in range(turns):
        service.clock_press(gid, i % 2, 10.0 * (i + 1))
        service.now[0] = 10.0 * (i + 1) + 5
        service.pass_turn(gid)


def test_the_rules_ending_a_game_stop_its_clock_at_the_last_turns_press(service):
    gid = new_game(service)
    service.start_clock(gid)
    press_and_pass(service, gid, 6)  # six scoreless turns end the game
    assert service.live(gid).ended
    st = service.game_clock(gid).state(999.0)
    # stopped at Ben's last press (60 s), not when the pass was entered (65 s): 30 s each
    assert st.finished and st.remaining_s == (25 * 60 - 30, 25 * 60 - 30)


def test_a_director_ending_a_game_stops_its_clock_at_the_call(service):
    gid = new_game(service)
    service.start_clock(gid)
    press_and_pass(service, gid, 1)  # Ann passed and pressed at 10 s: Ben's clock runs
    service.now[0] = 100.0
    service.end(gid, None, "forfeit", by="desk")
    st = service.game_clock(gid).state(999.0)
    assert st.finished and st.remaining_s == (25 * 60 - 10, 25 * 60 - 90)


def test_a_directors_close_is_an_entry_of_the_log_not_meta(service):
    gid = new_game(service)
    service.play(gid, "8H", "CAT")
    seqs = service.end(gid, ["QZ", ""], "forfeit", by="desk")   # closed, then Ann's rack comes off
    entries = service.entries(gid)
    assert [entries[s].entry.kind for s in seqs] == ["close", "end_rack_penalty"]
    assert entries[seqs[0]].entry == Close("desk", "forfeit")
    meta = service.game(gid).meta
    assert "closed_by" not in meta and "closed_reason" not in meta
    view = service.load(gid)
    assert view.closed_by == "desk" and view.over() and view.end_reason() == "forfeit"
    assert len(view.events) == 2 and service.summary(view)["closed_by"] == "desk"
    with pytest.raises(GameError, match="already been ended"):
        service.end(gid, None, "again", by="desk")
    with pytest.raises(GameError, match="ended by desk"):   # a second close by any way in
        service.append(gid, Close("head judge"))


def test_a_game_the_rules_ended_is_not_closed(service):
    gid = new_game(service)
    for _ in range(6):
        service.pass_turn(gid)   # six scoreless turns
    with pytest.raises(GameError, match=f"game {gid} has already ended \\(zeros\\)"):
        service.append(gid, Close("desk"))
    seqs = service.end(gid, ["QZ", "AEI"], "forfeit", by="desk")
    assert [service.entries(gid)[s].entry.kind for s in seqs] == ["end_rack_penalty"] * 2
    view = service.load(gid)
    assert view.closed_by is None and view.over() and view.end_reason() == "zeros"


def test_a_game_closed_in_its_meta_before_closes_were_logged_is_still_closed(service):
    """Stores from before issue 37 kept a director's close in the game's meta; it is read as the
    same close, and the stored game is not rewritten."""
    gid = new_game(service)
    service.play(gid, "8H", "CAT")
    service.store.update_game(gid, meta={"closed_by": "desk", "closed_reason": "forfeit"})  # as tilecam wrote it
    n = service.count(gid)
    view = service.load(gid)
    assert view.close == Close("desk", "forfeit") and view.over() and view.end_reason() == "forfeit"
    summary, live = service.summary(view), service.live(gid)
    assert summary["ended"] and summary["closed_by"] == "desk" and summary["end_reason"] == "forfeit"
    assert live.ended and live.fields["on_turn"] == "" and live.fields["winner"] == "Ann"
    with pytest.raises(GameError, match=f"game {gid} was ended by desk"):
        service.pass_turn(gid)
    with pytest.raises(GameError, match="already been ended"):
        service.end(gid, None, "again", by="desk")
    with pytest.raises(GameError, match="is over: it needs no clock"):
        service.start_clock(gid)
    assert service.count(gid) == n and service.game(gid).meta["closed_by"] == "desk"


def test_every_way_a_game_ends_stops_its_clock_once_with_its_overtime(service):
    gid = new_game(service)
    service.start_clock(gid, 1)
    service.clock_press(gid, None, 0.0)   # Ann's minute runs
    service.now[0] = 90.0                 # 30 s over: one minute started
    seqs = service.end(gid, None, "time", by="desk")
    entries = service.entries(gid)
    assert [entries[s].entry.kind for s in seqs] == ["close", "time_penalty"] and entries[-1].entry.agreed == -10
    service.now[0] = 300.0
    assert service.end_clock(gid) == [] and service.clock_finish(gid) == []   # stopped once, entered once
    assert service.game_clock(gid).state(300.0).remaining_s[0] == -30
    assert service.end_clock(new_game(service)) == []   # no clock: nothing to stop
