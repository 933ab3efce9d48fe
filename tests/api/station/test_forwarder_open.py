"""The forwarder's wiring (api/station/forwarder.py:open_forwarder): built from [tournament] only when
a server is set, refused before any game when its token cannot be used, on a store connection of its
own that sees what the station's service writes, with the clocks of the station's service."""
from __future__ import annotations

import re

import pytest

from tilecam.api.bus import Bus
from tilecam.api.service import GameService
from tilecam.api.settings import load_settings
from tilecam.api.station import SetupError
from tilecam.api.station.boot import open_store
from tilecam.api.station.forwarder import open_forwarder

TOKEN = "a-station-token-long-enough-for-the-central"


def settings(tmp_path, **tournament):
    return load_settings(store={"db_path": str(tmp_path / "station.sqlite3")}, tournament=tournament)


def token_file(tmp_path, text: str = TOKEN, mode: int = 0o600):
    path = tmp_path / "token"
    path.write_text(text + "\n")
    path.chmod(mode)
    return str(path)


def test_a_single_table_has_no_forwarder(tmp_path):
    assert open_forwarder(settings(tmp_path), None, "http://table:8000") is None


def test_a_server_without_a_token_it_can_use_stops_the_start(tmp_path):
    server = "http://central:8000"
    with pytest.raises(SetupError, match=re.escape("[tournament] server is set but not token_file")):
        open_forwarder(settings(tmp_path, server=server), None, "http://table:8000")
    for text, mode in (("short", 0o600), (TOKEN, 0o644)):
        with pytest.raises(SetupError, match=re.escape(str(tmp_path / "token"))):
            open_forwarder(settings(tmp_path, server=server, token_file=token_file(tmp_path, text, mode)), None,
                           "http://table:8000")
    assert not (tmp_path / "station.sqlite3").exists()   # refused before the store is opened


def test_it_follows_the_station_s_store_on_its_own_connection_with_the_station_s_clocks(tmp_path):
    s = settings(tmp_path, server="http://central:8000/", token_file=token_file(tmp_path), station="table-7")
    store = open_store(s.store)
    service = GameService(store, Bus())
    forwarder, own = open_forwarder(s, service, "http://table-7.local:8000")
    try:
        assert own is not store and forwarder.service.store is own
        assert forwarder.central.base == "http://central:8000/api/stations/table-7" and forwarder.central.station == "table-7"
        assert forwarder.url == "http://table-7.local:8000"
        gid = service.create_game([("Ann", None), ("Ben", None)]).id
        assert forwarder.service.games()[0].id == gid        # what the station writes, it sees
        assert forwarder.clock_of(gid) is None               # no clock runs here yet
        service.start_clock(gid, 25)
        assert forwarder.clock_of(gid)["running"] is None and not forwarder.clock_of(gid)["started"]
    finally:
        own.close()
        store.close()
