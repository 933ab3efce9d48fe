"""Numbered schema migrations (api/store/migrations.py): an old SQLite file is brought forward, a
database newer than the code is refused untouched, on both engines."""
from __future__ import annotations

import json
import sqlite3
import threading

import pytest

from tilecam.api.settings import StoreSettings
from tilecam.api.store import StoreError, open_store
from tilecam.api.store import postgres, sqlite as sqlite_engine
from tilecam.api.store.migrations import Migration, ordered
from tilecam.scoring.events import Pass

PLAYERS = json.dumps([{"nick": "a", "name": "a"}, {"nick": "b", "name": "b"}])


def version_of(path) -> int:
    raw = sqlite3.connect(path)
    try:
        return raw.execute("SELECT version FROM schema_version").fetchone()[0]
    finally:
        raw.close()


def first_tilecam_file(path) -> None:
    """A file as the first tilecam wrote it: games and entries only, no version, no sidecar,
    no table column, no frames or changes tables."""
    raw = sqlite3.connect(path)
    raw.executescript("""
        CREATE TABLE games (id INTEGER PRIMARY KEY AUTOINCREMENT, players TEXT NOT NULL, rules TEXT NOT NULL,
            lang TEXT NOT NULL, layout TEXT NOT NULL DEFAULT 'standard', created TEXT NOT NULL,
            meta TEXT NOT NULL DEFAULT '{}');
        CREATE TABLE entries (game_id INTEGER NOT NULL REFERENCES games(id), seq INTEGER NOT NULL,
            kind TEXT NOT NULL, data TEXT NOT NULL, created TEXT NOT NULL, PRIMARY KEY (game_id, seq));
    """)
    raw.execute("INSERT INTO games (players, rules, lang, created, meta) VALUES (?, 'naspa', 'en', 'then', ?)",
                (PLAYERS, json.dumps({"table": "4"})))
    raw.execute("INSERT INTO entries VALUES (1, 0, 'pass', ?, 'then')",
                (json.dumps({"kind": "pass", "player": 0, "cumulative": 0}),))
    raw.commit()
    raw.close()


def test_an_old_sqlite_file_is_brought_to_the_latest_version_and_keeps_its_games(tmp_path):
    path = tmp_path / "old.sqlite3"
    first_tilecam_file(path)
    store = open_store(path)
    assert version_of(path) == sqlite_engine.MIGRATIONS[-1].version == 5
    assert [r.entry for r in store.entries(1)] == [Pass(0, 0)] and store.table_games(4) == [1]
    assert store.append(1, Pass(1, 0), expect=1, jpeg=b"\xff\xd8", sidecar={"frame_index": 3}) == 1
    store.close()
    again = open_store(path)  # up to date: opened as it is
    assert version_of(path) == 5 and again.count(1) == 2 and again.entries(1)[1].sidecar == {"frame_index": 3}
    # version 4: the rack log, empty for an old game, written from now on
    assert again.racks(1) == [] and again.append_rack(1, "seen", {"player": 0, "tiles": ["A"]}) == 0
    # version 5: the table log (the clock, names, tiles learned), empty for an old game
    assert again.table_log(1) == [] and again.append_table(1, "clock", {"do": "start", "minutes": 25}) == 0
    again.close()


def test_a_file_from_before_versions_with_every_column_is_only_stamped(tmp_path):
    """What the code before schema versions wrote (sidecar, table_no, frames, changes: all there)."""
    path = tmp_path / "recent.sqlite3"
    raw = sqlite3.connect(path)
    for statement in sqlite_engine.FIRST_SCHEMA:
        raw.execute(statement)
    raw.execute("ALTER TABLE entries ADD COLUMN sidecar TEXT")
    raw.execute("ALTER TABLE games ADD COLUMN table_no INTEGER")
    raw.execute("INSERT INTO games (players, rules, lang, created, table_no, meta) VALUES (?, 'naspa', 'en', "
                "'then', 2, '{\"table\": \"2\"}')", (PLAYERS,))
    raw.commit()
    raw.close()
    store = open_store(path)
    assert version_of(path) == 5 and store.table_games(2) == [1] and store.racks(1) == []
    store.close()


def test_a_sqlite_file_newer_than_the_code_is_refused_untouched(tmp_path):
    path = tmp_path / "new.sqlite3"
    open_store(path).close()
    raw = sqlite3.connect(path)
    raw.execute("UPDATE schema_version SET version = 99")
    raw.commit()
    raw.close()
    with pytest.raises(StoreError, match="schema version 99, newer than this tilecam's 5.*upgrade tilecam"):
        open_store(path)
    assert version_of(path) == 99


def test_a_postgresql_database_newer_than_the_code_is_refused(pg, pg_url, tmp_path):
    secret = tmp_path / "pw"
    secret.write_text(pg.password)
    secret.chmod(0o600)
    settings = StoreSettings(url=pg_url, password_file=str(secret))
    open_store(settings).close()
    dbname = pg_url.rsplit("/", 1)[1]
    assert pg.admin("SELECT version FROM schema_version", dbname=dbname) == [(postgres.MIGRATIONS[-1].version,)]
    pg.admin("UPDATE schema_version SET version = 42", dbname=dbname)
    with pytest.raises(StoreError, match=f"schema version 42, newer than this tilecam's "
                                         f"{postgres.MIGRATIONS[-1].version}"):
        open_store(settings)


def test_postgresql_servers_starting_together_migrate_once(pg, pg_url, monkeypatch):
    monkeypatch.setenv(postgres.PASSWORD_ENV, pg.password)
    opened, failed = [], []

    def start() -> None:
        try:
            opened.append(open_store(pg_url))
        except Exception as exc:  # noqa: BLE001 - collected for the assertion below
            failed.append(exc)

    threads = [threading.Thread(target=start) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(60)
    assert failed == [] and len(opened) == 4
    assert pg.admin("SELECT count(*) FROM schema_version", dbname=pg_url.rsplit("/", 1)[1]) == [(1,)]
    for store in opened:
        store.close()


def test_a_postgresql_database_holding_other_tables_is_a_clear_error(pg, pg_url, monkeypatch):
    monkeypatch.setenv(postgres.PASSWORD_ENV, pg.password)
    pg.admin("CREATE TABLE games (name TEXT)", dbname=pg_url.rsplit("/", 1)[1])
    with pytest.raises(StoreError, match="games.*already exists.*a tilecam database"):
        open_store(pg_url)


def test_migrations_are_numbered_in_order():
    step = Migration(1, "x", lambda db: None)
    assert ordered(step) == (step,)
    with pytest.raises(ValueError, match=r"numbered 1..2 in order, not \[1, 3\]"):
        ordered(step, Migration(3, "y", lambda db: None))
