"""The SQLite engine beyond the contract (test_store_contract.py holds it to the Store's promises, as it does
PostgreSQL): one JSON row per entry with its kind, WAL mode, files from older versions, files that are no store."""
from __future__ import annotations

import json
import sqlite3

import pytest

from tilecam.api.bus import Bus
from tilecam.api.service import GameService
from tilecam.api.store import StoreError, open_store
from tilecam.scoring.board import Direction, Square
from tilecam.scoring.events import Correction, Exchange, Pass, Play
from tilecam.scoring.placement import PlacedTile, Placement

PLAY = Play(0, Placement((PlacedTile(Square(7, 7), "A"), PlacedTile(Square(7, 8), "X")), Direction.ACROSS),
            ("AX",), None, 18, 18, 18)


@pytest.fixture
def store(tmp_path):
    s = open_store(tmp_path / "games.sqlite3")
    yield s
    s.close()


def test_store_keeps_one_json_row_per_entry_with_its_kind(store, tmp_path):
    gid = store.create_game([{"nick": "a", "name": "a"}, {"nick": "b", "name": "b"}], "naspa", "en").id
    entries = [PLAY, Pass(1, 0), Correction(1, Exchange(1, 3, None, 0), by="desk", reason="misread")]
    assert [store.append(gid, e) for e in entries] == [0, 1, 2]
    assert [r.entry for r in store.entries(gid)] == entries
    raw = sqlite3.connect(tmp_path / "games.sqlite3")
    rows = raw.execute("SELECT seq, kind, data FROM entries ORDER BY seq").fetchall()
    assert [(seq, kind) for seq, kind, _ in rows] == [(0, "play"), (1, "pass"), (2, "correction")]
    assert json.loads(rows[2][2])["replacement"]["kind"] == "exchange"
    assert raw.execute("PRAGMA journal_mode").fetchone()[0] == "wal"


def old_database(path, sidecar: bool) -> sqlite3.Connection:
    """A store file as an older tilecam wrote it: no table column, no changes table, and before
    the sidecar column too unless `sidecar`."""
    raw = sqlite3.connect(path)
    raw.executescript(f"""
        CREATE TABLE games (id INTEGER PRIMARY KEY AUTOINCREMENT, players TEXT NOT NULL, rules TEXT NOT NULL,
            lang TEXT NOT NULL, layout TEXT NOT NULL DEFAULT 'standard', created TEXT NOT NULL,
            meta TEXT NOT NULL DEFAULT '{{}}');
        CREATE TABLE entries (game_id INTEGER NOT NULL REFERENCES games(id), seq INTEGER NOT NULL,
            kind TEXT NOT NULL, data TEXT NOT NULL, created TEXT NOT NULL, {"sidecar TEXT, " if sidecar else ""}
            PRIMARY KEY (game_id, seq));
    """)
    return raw


def test_a_database_from_before_the_sidecar_column_is_migrated(tmp_path):
    path = tmp_path / "old.sqlite3"
    raw = old_database(path, sidecar=False)
    raw.execute("INSERT INTO games (players, rules, lang, created) VALUES (?, 'naspa', 'en', 'then')",
                (json.dumps([{"nick": "a", "name": "a"}, {"nick": "b", "name": "b"}]),))
    raw.execute("INSERT INTO entries VALUES (1, 0, 'pass', ?, 'then')", (json.dumps({"kind": "pass", "player": 0,
                                                                                     "cumulative": 0}),))
    raw.commit()
    raw.close()
    store = open_store(path)
    assert [r.entry for r in store.entries(1)] == [Pass(0, 0)] and store.entries(1)[0].sidecar is None
    assert store.append(1, Pass(1, 0), expect=1, sidecar={"frame_index": 2}) == 1
    assert store.entries(1)[1].sidecar == {"frame_index": 2}
    store.close()


@pytest.mark.parametrize("make", ["folder", "text", "foreign", "missing_dir"])
def test_a_db_that_cannot_be_a_tilecam_store_is_one_clear_error(tmp_path, make):
    path = tmp_path / "x.sqlite3"
    if make == "folder":
        path.mkdir()
    elif make == "text":
        path.write_text("not a database\n" * 100)
    elif make == "foreign":
        raw = sqlite3.connect(path)
        raw.execute("CREATE TABLE games (name TEXT)")
        raw.commit()
        raw.close()
    else:
        path = tmp_path / "no" / "such" / "x.sqlite3"
    with pytest.raises(StoreError, match=str(path.name)):
        open_store(path)


def test_a_game_that_cannot_be_replayed_does_not_take_down_the_list(store):
    service = GameService(store, Bus())
    good = service.create_game([("Ann", None), ("Bob", None)]).id
    bad = service.create_game([("Cy", None), ("Di", None)]).id
    service.pass_turn(good)
    store.append(bad, Pass(0, 999))  # the store knows no rules: a log the engine cannot replay
    listed = {g["id"]: g for g in service.summaries()}
    assert "damaged" not in listed[good] and listed[good]["moves"] == 1
    assert "cumulative 999" in listed[bad]["damaged"] and listed[bad]["players"][0]["name"] == "Cy"
    assert listed[bad]["entries"] == 1


def test_a_database_from_before_tables_were_indexed_gains_the_column_and_the_changes(tmp_path):
    path = tmp_path / "old.sqlite3"
    raw = old_database(path, sidecar=True)
    players = json.dumps([{"nick": "a", "name": "a"}, {"nick": "b", "name": "b"}])
    for meta in ({"table": "2"}, {}, {"table": "2", "round": "3"}, {"table": "two"}):
        raw.execute("INSERT INTO games (players, rules, lang, created, meta) VALUES (?, 'naspa', 'en', 'then', ?)",
                    (players, json.dumps(meta)))
    raw.commit()
    raw.close()
    store = open_store(path)
    assert store.table_games(2) == [1, 3]
    mark = store.changes().mark
    other = open_store(path)
    other.append(2, Pass(0, 0))
    assert store.changes(mark).games == {2}
    plan = sqlite3.connect(path).execute("EXPLAIN QUERY PLAN SELECT id FROM games WHERE table_no = 2 "
                                         "ORDER BY id").fetchall()
    assert "games_table" in str(plan)  # an index, not a scan of every game
    other.close()
    store.close()


def test_a_watcher_whose_mark_was_pruned_is_told_to_reload_everything(tmp_path, monkeypatch):
    from tilecam.api.store import sqlite as engine
    monkeypatch.setattr(engine, "CHANGES_KEPT", 3)
    watcher, writer = open_store(tmp_path / "g.sqlite3"), open_store(tmp_path / "g.sqlite3")
    gid = writer.create_game([{"nick": "a", "name": "a"}, {"nick": "b", "name": "b"}], "naspa", "en").id
    mark = watcher.changes().mark
    for _ in range(6):
        writer.append(gid, Pass(0, 0))
    assert watcher.changes(mark).games is None
    watcher.close()
    writer.close()


def test_the_watcher_publishes_each_entry_another_writer_added_since_its_last_look(tmp_path):
    # A replica of the central: a station's forwarded batch lands in one transaction of another
    # server; every client here must get each entry, as the writing server's clients do.
    db = tmp_path / "g.sqlite3"
    sent: list[tuple[int, int]] = []
    bus = Bus()
    bus.publish = lambda msg: sent.append((msg.game_id, msg.seq)) or 1
    recorder = GameService(open_store(db), Bus())
    old = recorder.create_game([("Ann", None), ("Bob", None)]).id
    recorder.pass_turn(old)
    server = GameService(open_store(db), bus)  # starts now: it has not followed `old`
    gid = recorder.create_game([("Cy", None), ("Di", None)]).id
    assert server.announce_external() == []  # the first look only takes the mark
    recorder.pass_turn(gid)
    assert server.announce_external() == [gid] and sent == [(gid, 0)]
    recorder.commit(gid, [Pass(1, 0), Pass(0, 0)])  # two in one transaction, as an ingest batch
    recorder.pass_turn(old)
    recorder.pass_turn(old)
    assert server.announce_external() == [old, gid]
    assert sent == [(gid, 0), (old, 2), (gid, 1), (gid, 2)]  # of `old`, not followed before, the newest


def test_the_watcher_reads_only_the_games_that_changed(tmp_path):
    db = tmp_path / "g.sqlite3"
    server, recorder = GameService(open_store(db), Bus()), GameService(open_store(db), Bus())
    games = [recorder.create_game([("Ann", None), ("Bob", None)]).id for _ in range(20)]
    assert server.announce_external() == []  # the first look only takes the mark
    recorder.pass_turn(games[7])
    read: list[int] = []
    count = server.store.count
    server.store.count = lambda gid: read.append(gid) or count(gid)
    assert server.announce_external() == [games[7]] and set(read) == {games[7]}
    read.clear()
    assert server.announce_external() == [] and read == []  # nothing since: one PRAGMA, no game read
    server.pass_turn(games[3])  # its own write is published by the writer, not again by the watcher
    assert server.announce_external() == []
