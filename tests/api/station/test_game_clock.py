"""The station's game clock at the end of a source (api/station/game.py:stop_clock): a game that is
over stops its clock through the service's one end (GameService.end_clock); a game not over keeps
it running; a store gone meanwhile is said, never raised (the recording is done all the same).
Real parts: a SQLite store, the game service, the clock in the trigger path (clock_trigger)."""
from __future__ import annotations

from types import SimpleNamespace

from tilecam.api.bus import Bus
from tilecam.api.service import GameService
from tilecam.api.settings import Settings
from tilecam.api.station.game import Recording, attach_game, clock_trigger, stop_clock
from tilecam.api.store import open_store


def over(recording: Recording, is_over: bool) -> Recording:
    """The recording as its scorekeeper answers whether the game is over (scoring's rule)."""
    return Recording(recording.game_id, SimpleNamespace(over=is_over), recording.link, recording.resumed,
                     recording.lang)


def test_the_clock_stops_when_the_source_ends_with_the_game_over_and_not_before(tmp_path):
    service = GameService(open_store(tmp_path / "games.sqlite3"), Bus())
    said: list[str] = []
    try:
        rec = attach_game(service, None, players=["Ann", "Ben"])
        assert clock_trigger(Settings(), service, rec.game_id, lambda trigger: "recorder") is not None
        gid = rec.game_id
        assert not stop_clock(service, over(rec, False), said.append)
        assert not service.game_clock(gid).state(1e9).finished          # the game goes on
        assert stop_clock(service, over(rec, True), said.append)
        assert service.game_clock(gid).state(1e9).finished and said == []
        assert stop_clock(service, over(rec, True), said.append)        # once: nothing more written
        assert [e.entry.kind for e in service.entries(gid)] == []
    finally:
        service.store.close()
    assert not stop_clock(service, over(rec, True), said.append)        # the store is gone
    assert len(said) == 1 and str(gid) in said[0]
