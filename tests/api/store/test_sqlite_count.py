"""The SQLite store's log length: counted once, then answered from memory until a write moves it,
ours or another connection's (the recorder asks before every snapshot: no SQL query per frame)."""
from __future__ import annotations

import pytest

from tilecam.api.store import open_store
from tilecam.scoring.events import Pass

PLAYERS = [{"nick": "Ann", "name": "Ann"}, {"nick": "Ben", "name": "Ben"}]


def test_the_count_follows_every_writer_and_asks_no_query_while_nothing_moved(tmp_path):
    a, b = open_store(tmp_path / "g.sqlite3"), open_store(tmp_path / "g.sqlite3")  # two connections
    try:
        gid = a.create_game(PLAYERS, "naspa", "en").id
        assert a.count(gid) == 0
        said: list[str] = []
        a._db.set_trace_callback(said.append)
        assert [a.count(gid) for _ in range(5)] == [0] * 5
        assert not [q for q in said if "COUNT" in q], said          # only PRAGMA data_version
        b.append(gid, Pass(0, 0), 0)                                # another connection commits
        assert a.count(gid) == 1
        a.append(gid, Pass(1, 0), 1)                                # our own commit
        assert a.count(gid) == 2 and b.count(gid) == 2
        with pytest.raises(RuntimeError):
            with a.writing():
                a.append(gid, Pass(0, 0), 2)
                assert a.count(gid) == 3                            # inside: the rows as they stand
                raise RuntimeError("rolled back")
        assert a.count(gid) == 2 and b.count(gid) == 2
    finally:
        a.close()
        b.close()
