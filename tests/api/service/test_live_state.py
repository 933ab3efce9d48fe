"""The live state is kept up entry by entry (live.LiveFold): after the recorder's commit it takes the
new entries from the writer's kept record, reads no log and replays nothing, and yet says what a
fresh read of the whole log says, for every kind of move, a director's close, an operator's entry
and a correction that rewrites history."""
from __future__ import annotations

import dataclasses

import tilecam.api.service.live as live_module
from servicekit import new_game, service  # noqa: F401  (fixture)
from tilecam.api.bus import Bus
from tilecam.api.service import GameService, load_view
from tilecam.api.store import open_store
from tilecam.scoring.events import Close
from tilecam.scoring.gcg.notation import placement_from_gcg


def fresh_live(service, gid, tmp_path):
    """The live state as a service that never saw the game computes it: the log read and replayed."""
    other = GameService(open_store(tmp_path / "games.sqlite3"), Bus())
    try:
        return other.live(gid).model_dump()
    finally:
        other.store.close()


def shadow(service, gid):
    """The record as a fresh read replays it (past the service's parts): where a test builds its entries."""
    return load_view(service.store, gid).game_at()


def watch_replays(service, monkeypatch):
    """The live part's reads of the log (Context.load) and the Games it replays, as they happen."""
    loads, games = [], []
    ctx, real_game = service.parts.context, live_module.Game
    real_load = ctx.load
    monkeypatch.setattr(ctx, "load", lambda game_id: loads.append(game_id) or real_load(game_id))
    monkeypatch.setattr(live_module, "Game", lambda *a, **k: games.append(a) or real_game(*a, **k))
    return loads, games


def test_commits_keep_the_live_state_without_reading_the_log(service, monkeypatch, tmp_path):  # noqa: F811
    gid = new_game(service)
    updates = []
    service.bus.publish = updates.append   # what each page would receive
    g = shadow(service, gid)
    first = g.play(0, placement_from_gcg(g, "8H", "CAT"))
    # a play the camera was unsure of, credited without a clock press: review and turns flags
    service.commit(gid, [dataclasses.replace(first, turn_inferred=True, review=True, certainty=0.4)], expect=0)
    service.live(gid)   # a page has the game open: its live state is computed once
    loads, games = watch_replays(service, monkeypatch)
    steps = [lambda g: [g.pass_turn(1)],
             lambda g: [g.play(0, placement_from_gcg(g, "9G", "aT"))],   # a blank
             lambda g: g.challenge("phony"),                              # taken off
             lambda g: [g.exchange(1, 2)],
             lambda g: [g.pass_turn(1)],                                  # out of turn
             lambda g: [Close("director", "time called")]]
    n = 1
    for step in steps:
        entries = step(shadow(service, gid))   # built on the record as a fresh read replays it
        service.commit(gid, entries, expect=n)
        n += len(entries)
        published, read = updates[-1].data["live"], service.live(gid).model_dump()
        assert loads == [] and games == [], "a commit's live update read the log or replayed it"
        assert published == read == fresh_live(service, gid, tmp_path)
        games.clear()   # (the fresh read's own replay)
    live = service.live(gid)
    assert live.ended and live.end_reason == "time called" and live.turns_inferred == [0]
    assert live.unconfirmed == [0] and live.out_of_turn and live.fields["on_turn"] == ""


def test_an_entry_the_writer_did_not_keep_is_read_from_the_log(service, monkeypatch, tmp_path):  # noqa: F811
    gid = new_game(service)
    service.play(gid, "8H", "CAT")           # the operator's: built on a fresh read, not the kept record
    service.live(gid)
    g = shadow(service, gid)
    service.commit(gid, [g.pass_turn(1)], expect=1)
    loads, _ = watch_replays(service, monkeypatch)
    service.play(gid, "9G", "AT", player=0)
    assert service.live(gid).model_dump() == fresh_live(service, gid, tmp_path)
    assert service.live(gid).scores == shadow(service, gid).state.scores
    assert loads   # the log was read once more for the live state (and the build's own read)


def test_a_correction_rewrites_the_live_state_and_the_next_commit_follows_it(service, tmp_path):  # noqa: F811
    from tilecam.api import schemas as s
    gid = new_game(service)
    g = shadow(service, gid)
    service.commit(gid, [g.play(0, placement_from_gcg(g, "8H", "CAT"))], expect=0)
    g = shadow(service, gid)
    service.commit(gid, [g.pass_turn(1)], expect=1)
    service.live(gid)
    service.correct(gid, 0, s.ScoreFix(kind="score", agreed=100, reason="director's ruling"), by="desk")
    assert service.live(gid).scores == [100, 0]
    g = shadow(service, gid)
    service.commit(gid, [g.pass_turn(0)], expect=3)
    assert service.live(gid).model_dump() == fresh_live(service, gid, tmp_path)
    assert service.live(gid).scores == [100, 0] and service.live(gid).on_turn == 1


def test_a_read_while_the_fold_goes_on_keeps_its_own_state(service):  # noqa: F811
    """A read holds no lock: the state it fills the racks' pools from is a copy the next entry leaves alone."""
    gid = new_game(service)
    g = shadow(service, gid)
    service.commit(gid, [g.play(0, placement_from_gcg(g, "8H", "CAT"))], expect=0)
    service.live(gid)
    shown = service.parts.live._shown[gid]
    pool = shown.unseen_of("", None)
    g = shadow(service, gid)
    service.commit(gid, [g.play(1, placement_from_gcg(g, "9G", "AT"))], expect=1)
    service.live(gid)
    assert shown.unseen_of("", None) == pool and len(shown.state.board) == 3
