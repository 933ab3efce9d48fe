"""api/station/station.py in one process, on a real SQLite file and real frames: what cannot start
is a SetupError before any game is created; a recording of a folder of pre-warped photos (ScrabScrap
game06, German) ends as "ended" with its plays in the store at the station's table; a looped source
records into a new game at the same table; the station's own address as the director reaches it."""
from __future__ import annotations

import shutil
import socket

import pytest

from tilecam.api.bus import Bus
from tilecam.api.service import GameService
from tilecam.api.settings import load_settings
from tilecam.api.station import Hooks, Job, SetupError, Station
from tilecam.api.store import open_store


@pytest.fixture
def service(tmp_path):
    svc = GameService(open_store(tmp_path / "station.sqlite3"), Bus())
    yield svc
    svc.store.close()


@pytest.fixture
def photos(shared_data, tmp_path):
    """ScrabScrap game06's first three moves, one pre-warped photo each."""
    folder = tmp_path / "game06"
    folder.mkdir()
    for i in (1, 2, 3):
        shutil.copy(shared_data / "scrabscrap" / "game06" / f"image-{i}.jpg", folder / f"image-{i}.jpg")
    return folder


def job(source, **kw) -> Job:
    return Job(str(source), **{"new_game": True, "pace": False, "clock": False, "quiet": True, "lang": "de",
                               "prewarped": True, **kw})


@pytest.mark.parametrize("kw,why", [
    ({"game_id": 99, "new_game": False}, "no game 99"),
    ({"rules": "calvinball"}, "calvinball"),
    ({"racks": {3: "rack3.avi"}}, "player 3"),
])
def test_what_cannot_start_is_a_setup_error_and_leaves_no_game(service, photos, kw, why):
    station = Station(load_settings(None), job(photos, **kw), service=service)
    try:
        with pytest.raises(SetupError, match=why):
            station.open()
    finally:
        station.close()
    assert service.store.games() == []


def test_a_source_that_does_not_open_or_a_rack_camera_that_is_the_board_camera_is_refused(service, photos,
                                                                                          tmp_path):
    for source, racks in ((tmp_path / "nothing.avi", None), (photos, {1: str(photos)})):
        station = Station(load_settings(None), job(source, racks=racks), service=service)
        try:
            with pytest.raises(SetupError):
                station.open()
        finally:
            station.close()
    assert service.store.games() == []


def test_a_folder_is_recorded_into_a_game_at_the_stations_table(service, photos):
    commits, over = [], []
    station = Station(load_settings(None), job(photos, table=5),
                      Hooks(on_commit=commits.append, on_game_over=over.append), service=service)
    try:
        station.open()
        assert station.photos   # a folder: one photo per move
        assert station.record_here() == "ended"
        gid = station.recording.game_id
        plays = [e.entry for e in service.entries(gid) if e.entry.kind == "play"]
        assert len(plays) == 3 and plays[0].words[0] == "GEMAUST"
        assert [s for seqs in commits for s in seqs] == list(range(service.count(gid)))
        assert over == [station]
        assert service.game(gid).meta["table"] == "5" and service.game(gid).lang == "de"
        status = station.status()
        assert status["game_id"] == gid and status["source"] == "ended"
        assert dict(station.urls())["overlay"].endswith("/overlay/table/5")
        assert dict(station.game_urls())["GCG"].endswith(f"/api/games/{gid}.gcg")
    finally:
        station.close()


def test_a_resumed_game_is_named_the_stations_table(service, photos):
    gid = service.create_game([("Ann", None), ("Ben", None)], "naspa", "de").id
    station = Station(load_settings(None), job(photos, game_id=gid, new_game=False, table=8), service=service)
    try:
        station.open()
        assert station.recording.game_id == gid and station.recording.resumed
        assert service.game(gid).meta["table"] == "8" and len(service.store.games()) == 1
    finally:
        station.close()


def test_a_looped_source_records_its_next_game_at_the_same_table(service, photos):
    games = []

    def next_game(st):
        games.append(st.recording.game_id)
        st.stop_event.set()       # one more game is enough: its loop stops before its first frame
    station = Station(load_settings(None), job(photos, table=6, loop=True), Hooks(on_new_game=next_game),
                      service=service)
    try:
        station.open()
        first = station.recording.game_id
        assert station.record_here() == "stopped"
        assert games == [station.recording.game_id] and games[0] != first
        assert [g.meta.get("table") for g in service.store.games()] == ["6", "6"]
        assert service.count(first) > 0 and service.count(games[0]) == 0
    finally:
        station.close()


@pytest.mark.parametrize("server,url,expect", [
    ({"host": "127.0.0.1", "port": 8010}, None, "http://127.0.0.1:8010"),
    ({"host": "::1", "port": 8011}, None, "http://[::1]:8011"),
    ({"host": "0.0.0.0", "port": 8012}, None, f"http://{socket.gethostname()}:8012"),
    ({"host": "0.0.0.0", "port": 8013}, "http://pi-13.local:8013/", "http://pi-13.local:8013"),
])
def test_the_stations_own_address_is_as_the_director_reaches_it(server, url, expect):
    settings = load_settings(None, server=server, tournament={"url": url})
    assert Station(settings, Job("picam")).own_url() == expect
