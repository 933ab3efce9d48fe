"""The SQLite event store: one JSON row per entry with its kind, WAL mode, frames, no rules."""
from __future__ import annotations

import json
import sqlite3
import threading

import pytest

from api.store import NotFound, Store
from scoring.board import Direction, Square
from scoring.events import Correction, Exchange, Pass, Play
from scoring.placement import PlacedTile, Placement

PLAY = Play(0, Placement((PlacedTile(Square(7, 7), "A"), PlacedTile(Square(7, 8), "X")), Direction.ACROSS),
            ("AX",), None, 18, 18, 18)


@pytest.fixture
def store(tmp_path):
    s = Store(tmp_path / "games.sqlite3")
    yield s
    s.close()


def test_store_creates_games_with_players_rules_and_meta(store):
    row = store.create_game([{"nick": "a", "name": "Ann"}, {"nick": "b", "name": "Ben"}], "naspa", "en",
                            meta={"title": "R1"})
    assert row.id == 1 and row.rules == "naspa" and row.lang == "en" and row.layout == "standard"
    assert row.players[1] == {"nick": "b", "name": "Ben"} and row.meta == {"title": "R1"}
    assert [g.id for g in store.games()] == [1]
    row = store.update_game(1, meta={"title": None, "round": "2"})
    assert row.meta == {"round": "2"}


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


def test_store_knows_no_rules(store):
    # An entry that could never follow is still stored: checking is the service's job.
    gid = store.create_game([{"nick": "a", "name": "a"}, {"nick": "b", "name": "b"}], "naspa", "en").id
    store.append(gid, Pass(0, 999))
    assert store.count(gid) == 1


def test_store_unknown_game_is_not_found(store):
    with pytest.raises(NotFound, match="no game 7"):
        store.game(7)
    with pytest.raises(NotFound):
        store.append(7, PLAY)


def test_store_frames_as_bytes_or_paths(store):
    gid = store.create_game([{"nick": "a", "name": "a"}, {"nick": "b", "name": "b"}], "naspa", "en").id
    store.append(gid, PLAY)
    store.put_frame(gid, 0, jpeg=b"\xff\xd8jpeg")
    assert store.frame(gid, 0).jpeg == b"\xff\xd8jpeg"
    store.put_frame(gid, 0, path="/frames/0001.jpg")
    assert store.frame(gid, 0).path == "/frames/0001.jpg" and store.frame(gid, 0).jpeg is None
    assert store.frame_seqs(gid) == {0}
    with pytest.raises(NotFound, match="no evidence frame"):
        store.frame(gid, 1)
    with pytest.raises(ValueError):
        store.put_frame(gid, 0)


def test_store_appends_from_many_threads_get_distinct_seqs(store):
    gid = store.create_game([{"nick": "a", "name": "a"}, {"nick": "b", "name": "b"}], "naspa", "en").id
    seqs: list[int] = []
    lock = threading.Lock()

    def writer(player: int) -> None:
        for _ in range(25):
            seq = store.append(gid, Pass(player, 0))
            with lock:
                seqs.append(seq)

    threads = [threading.Thread(target=writer, args=(i % 2,)) for i in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert sorted(seqs) == list(range(100))
    assert [r.seq for r in store.entries(gid)] == list(range(100))
