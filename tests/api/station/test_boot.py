"""api/station/boot.py: the store opened with its folder made (a fresh machine has none), a store
that cannot be opened a SetupError naming it; the address the station prints. (The address it gives
others, own_url, is tested through the station: tests/api/station/test_station.py.)"""
from __future__ import annotations

import pytest

from tilecam.api.settings import ServerSettings, StoreSettings
from tilecam.api.station.boot import SetupError, base_url, open_store


def test_the_store_s_folder_is_made_before_it_is_opened(tmp_path):
    path = tmp_path / "cache" / "tilecam" / "games.sqlite3"
    store = open_store(StoreSettings(db_path=str(path)))
    try:
        assert path.is_file()
    finally:
        store.close()


def test_a_store_that_cannot_be_opened_is_a_setup_error_naming_it(tmp_path):
    (tmp_path / "file").write_text("not a folder")
    with pytest.raises(SetupError, match="file"):
        open_store(StoreSettings(db_path=str(tmp_path / "file" / "games.sqlite3")))
    with pytest.raises(SetupError):
        open_store(StoreSettings(url="mysql://somewhere/games"))


def test_the_address_printed_is_one_this_machine_reaches():
    assert base_url(ServerSettings(host="0.0.0.0", port=8001)) == "http://127.0.0.1:8001"
    assert base_url(ServerSettings(host="::", port=80)) == "http://127.0.0.1:80"
    assert base_url(ServerSettings(host="10.0.0.7", port=8000)) == "http://10.0.0.7:8000"
