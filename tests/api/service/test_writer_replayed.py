"""The writer keeps each game's record replayed (writer.Replayed) and applies each new entry to it:
a commit on a game of any length reads no log and replays nothing, and yet checks every entry
against the record as the store holds it: after another writer's entries, after a correction that
rewrites history, after a transaction that failed."""
from __future__ import annotations

import pytest

import tilecam.api.service.writer as writer
from servicekit import new_game, service  # noqa: F401  (fixture)
from tilecam.api.bus import Bus
from tilecam.api.errors import Conflict
from tilecam.api.service import GameService
from tilecam.api.store import open_store
from tilecam.scoring.events import Pass
from tilecam.scoring.game import GameError
from tilecam.scoring.gcg.notation import placement_from_gcg


def shadow(service, gid):
    """The record as a fresh read replays it: where a test builds the entries it commits."""
    return service.load(gid).game_at()


def test_commits_read_no_log_and_replay_nothing_once_the_record_is_kept(service, monkeypatch):  # noqa: F811
    gid = new_game(service)
    service.play(gid, "8H", "CAT")
    g = shadow(service, gid)
    entries = [g.pass_turn(1), g.play(0, placement_from_gcg(g, "9H", "AT")), g.pass_turn(1), g.pass_turn(0)]
    loads, games = [], []
    ctx = service.parts.context
    real_load, real_game = ctx.load, writer.Game
    monkeypatch.setattr(ctx, "load", lambda game_id: loads.append(game_id) or real_load(game_id))
    monkeypatch.setattr(writer, "Game", lambda *a, **k: games.append(a) or real_game(*a, **k))
    for i, entry in enumerate(entries):
        assert service.commit(gid, [entry], expect=1 + i, publish=False) == [1 + i]
    assert loads == [gid] and len(games) == 1        # the first commit read and replayed the log once
    kept = service.parts.writer.kept(gid, service.count(gid))
    assert kept.events == real_load(gid).events and kept.state().state.scores == g.state.scores


def test_another_writers_entries_are_read_before_the_next_commit(service, tmp_path):  # noqa: F811
    gid = new_game(service)
    service.pass_turn(gid)
    service.commit(gid, [Pass(1, 0)], expect=1)
    desk = GameService(open_store(tmp_path / "games.sqlite3"), Bus())  # a second process on the file
    try:
        desk.play(gid, "8H", "CAT", player=0)
        scored = shadow(service, gid).state.scores[0]
        with pytest.raises(Conflict, match="3 log entries, not 2"):
            service.commit(gid, [Pass(1, 0)], expect=2)
        # checked against the record with the desk's play in it: player 0's running total is its score
        with pytest.raises(GameError, match="cumulative 0"):
            service.commit(gid, [Pass(0, 0)], expect=3)
        assert service.commit(gid, [Pass(1, 0), Pass(0, scored)], expect=3) == [3, 4]
    finally:
        desk.store.close()


def test_a_correction_rewrites_history_and_the_next_entry_follows_the_amended_record(service):  # noqa: F811
    gid = new_game(service)
    service.play(gid, "8H", "CAT")
    service.commit(gid, [Pass(1, 0)], expect=1)
    from tilecam.api import schemas as s
    service.correct(gid, 0, s.ScoreFix(kind="score", agreed=100, reason="director's ruling"), by="desk")
    with pytest.raises(GameError, match="cumulative"):
        service.commit(gid, [Pass(0, shadow(service, gid).state.scores[0] - 1)], expect=3)
    assert service.commit(gid, [Pass(0, 100), Pass(1, 0)], expect=3) == [3, 4]
    kept = service.parts.writer.kept(gid, service.count(gid))          # a log with a correction: each new event rebuilt as a replay would
    assert kept.rebuilder is not None and kept.events == service.load(gid).events
    assert kept.state().state.scores == shadow(service, gid).state.scores == [100, 0]


def test_a_transaction_that_fails_leaves_no_entry_in_the_kept_record(service, tmp_path):  # noqa: F811
    gid = new_game(service)
    service.play(gid, "8H", "CAT")
    service.commit(gid, [Pass(1, 0)], expect=1)
    with pytest.raises(RuntimeError):
        with service.parts.context.lock(gid), service.parts.writer.writing(gid):   # as the end of a game wraps its commit
            service.commit(gid, [Pass(0, shadow(service, gid).state.scores[0])], expect=2, publish=False)
            raise RuntimeError("the clock's overtime could not be entered")
    assert service.count(gid) == 2 and gid not in service.parts.writer._replays
    desk = GameService(open_store(tmp_path / "games.sqlite3"), Bus())
    try:
        desk.play(gid, "9H", "AT", player=0)   # as many entries as the failed commit would have left
    finally:
        desk.store.close()
    g = shadow(service, gid)   # player 0's running total: CAT and the desk's AT, not the failed pass
    assert service.commit(gid, [g.pass_turn(0)], expect=3) == [3]
