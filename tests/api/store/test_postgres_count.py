"""The PostgreSQL store's log length (api/store/postgres.py:count): the last row of the (game_id, seq)
index, one lookup however long the game (COUNT(*) read every entry, per snapshot the recorder
takes); always asked of the server, so it never misses another server's commit (the contract test
holds every engine to that: test_the_count_is_the_log_s_length_as_every_writer_left_it)."""
from __future__ import annotations

import pytest

from tilecam.api.settings import StoreSettings
from tilecam.api.store import open_store
from tilecam.api.store.postgres import COUNT_SQL
from tilecam.scoring.events import Pass

PLAYERS = [{"nick": "a", "name": "Ann"}, {"nick": "b", "name": "Ben"}]


@pytest.fixture
def store(pg, pg_url, tmp_path):
    secret = tmp_path / "store.password"
    secret.write_text(pg.password + "\n")
    secret.chmod(0o600)
    s = open_store(StoreSettings(url=pg_url, password_file=str(secret)))
    yield s
    s.close()


def test_the_count_reads_the_index_s_last_row_not_every_entry(store):
    games = [store.create_game(PLAYERS, "naspa", "en").id for _ in range(3)]
    with store.writing():
        for i in range(3000):
            store.append(games[i % 3], Pass(i % 2, 0))
    assert [store.count(g) for g in games] == [1000] * 3 == [len(store.entries(g)) for g in games]
    store._read(lambda conn: conn.execute("ANALYZE entries"))
    asked, rows = [], store._rows
    store._rows = lambda sql, params=(): asked.append((sql, params)) or rows(sql, params)
    assert store.count(games[1]) == 1000
    del store._rows
    assert asked == [(COUNT_SQL, (games[1],))]          # one statement: this one
    plan = "\n".join(r[0] for r in store._rows("EXPLAIN " + COUNT_SQL, (games[1],)))
    assert "Backward" in plan and "Limit" in plan, plan    # the MAX read off the index's end
    assert "Seq Scan" not in plan, plan
