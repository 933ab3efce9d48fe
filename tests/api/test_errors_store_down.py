"""A store that cannot answer (its disk failing, its server restarting) is a 503 with Retry-After
naming the store, on the SQLite engine as on PostgreSQL (test_postgres.py restarts a real
server); a row that cannot be read is a 500 (asking again will not help). Over real HTTP."""
from __future__ import annotations

import httpx

from apiserver import AUTH, LiveServer, new_game


def test_a_failing_sqlite_store_answers_503_with_retry_after_then_goes_on(tmp_path):
    with LiveServer(tmp_path / "games.sqlite3") as server, httpx.Client(base_url=server.url, timeout=10) as client:
        gid = new_game(client)
        db = server.service.store._db
        # Every statement on the server's connection fails from here, as on a failing disk
        # (SQLite's progress handler interrupts each one: "interrupted", an OperationalError).
        db.set_progress_handler(lambda: 1, 1)
        try:
            for r in (client.get("/api/games"), client.get(f"/api/games/{gid}/moves"),
                      client.post(f"/api/games/{gid}/passes", json={}, headers=AUTH)):
                assert r.status_code == 503, r.text
                assert r.headers["retry-after"] == "5"
                assert "the SQLite store" in r.json()["detail"] and "games.sqlite3" in r.json()["detail"]
        finally:
            db.set_progress_handler(None, 1)
        r = client.post(f"/api/games/{gid}/passes", json={}, headers=AUTH)
        assert r.status_code == 200, r.text
        assert [m["kind"] for m in client.get(f"/api/games/{gid}/moves").json()] == ["pass"]


def test_a_row_that_cannot_be_read_is_a_500_without_retry_after(tmp_path):
    with LiveServer(tmp_path / "games.sqlite3") as server, httpx.Client(base_url=server.url, timeout=10) as client:
        gid = new_game(client)
        assert client.post(f"/api/games/{gid}/passes", json={}, headers=AUTH).status_code == 200
        db = server.service.store._db
        with server.service.store._lock:  # written around the store, as a newer tilecam might
            db.execute("UPDATE entries SET data = '{\"kind\": \"no such kind\"}' WHERE game_id = ?", (gid,))
        r = client.get(f"/api/games/{gid}/moves")
        assert r.status_code == 500 and "log entry 0 cannot be read" in r.json()["detail"]
        assert "retry-after" not in r.headers
