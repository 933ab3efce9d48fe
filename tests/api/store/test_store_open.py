"""Which store the settings name (api/store: open_store, store_file, store_name) and how the
commands follow it: [store] url wins over db_path, --db wins over both for one run, and a
PostgreSQL store's token file is named after the settings file, not a database file."""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from tilecam.api.commands.serve import token_beside, with_db
from tilecam.api.settings import Settings, StoreSettings
from tilecam.api.store import StoreError, open_store, store_file, store_name

REPO = Path(__file__).resolve().parents[3]


def test_the_url_wins_over_db_path(tmp_path):
    settings = StoreSettings(db_path=str(tmp_path / "unused.sqlite3"), url=f"sqlite:///{tmp_path / 'used.sqlite3'}")
    open_store(settings).close()
    assert (tmp_path / "used.sqlite3").exists() and not (tmp_path / "unused.sqlite3").exists()
    assert store_file(settings) == tmp_path / "used.sqlite3"
    assert store_file(StoreSettings(url="postgresql://desk@db.local/tournament")) is None


@pytest.mark.parametrize("url", ["mysql://desk@db.local/games", "http://db.local/games"])
def test_an_engine_tilecam_has_not_is_named_with_the_two_it_has(url):
    with pytest.raises(StoreError, match="stores are not supported: give a SQLite file .* or postgresql://"):
        open_store(url)


def test_a_printed_store_never_shows_a_password():
    assert store_name("postgresql://desk:s3cret@db.local:5432/t") == "postgresql://desk:***@db.local:5432/t"
    assert store_name("postgres://desk@db.local/t?sslmode=require&password=s3cret") == \
        "postgres://desk@db.local/t?sslmode=require&password=***"
    assert store_name(StoreSettings(db_path="games.sqlite3")) == "games.sqlite3"


def test_db_wins_for_one_run_and_the_token_file_follows_the_store(tmp_path):
    central = Settings(store=StoreSettings(url="postgresql://desk@db.local/t"))
    assert token_beside(central, str(tmp_path / "central.toml")) == str(tmp_path / "central")
    assert token_beside(central, None) == "tilecam"
    local = with_db(central, str(tmp_path / "g.sqlite3"))
    assert local.store.url is None and token_beside(local, "central.toml") == str(tmp_path / "g.sqlite3")
    assert with_db(central, None) is central


def test_serve_with_a_password_in_the_url_stops_with_the_reason_and_not_the_password(tmp_path):
    config = tmp_path / "central.toml"
    config.write_text('[store]\nurl = "postgresql://desk:s3cret-pw@127.0.0.1:1/t"\n')
    done = subprocess.run([sys.executable, "-m", "tilecam.api.cli", "serve", "--config", str(config), "--port", "0"],
                          cwd=tmp_path, capture_output=True, text=True, timeout=60)
    assert done.returncode == 2 and "Traceback" not in done.stderr
    assert "password" in done.stderr and "s3cret-pw" not in done.stdout + done.stderr
    assert (tmp_path / "central.token").exists()  # the operator token beside the settings file


def test_a_postgresql_url_libpq_cannot_read_is_named(monkeypatch):
    with pytest.raises(StoreError, match='is not a PostgreSQL URL: invalid URI query parameter: "colour"'):
        open_store("postgresql://desk@127.0.0.1:1/t?colour=blue")
