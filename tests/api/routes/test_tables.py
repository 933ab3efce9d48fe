"""Tables over real HTTP: a game names its table when created, and /api/tables/{n} follows the newest."""
from __future__ import annotations

import pytest

from apiserver import AUTH, api, client, new_game  # noqa: F401  (fixtures)


def test_table_follows_its_newest_game(client):
    assert client.get("/api/tables/31").status_code == 404
    first = new_game(client, "Nigel Richards", "Jackson Smylie", table=31)
    new_game(client, "Other Table", "Somebody Else", table=32)
    t = client.get("/api/tables/31").json()
    assert t["table"] == 31 and t["game_id"] == first and t["games"] == [first]
    assert t["game"]["meta"]["table"] == "31" and t["game"]["players"][0]["name"] == "Nigel Richards"
    assert t["links"]["overlay"] == "/overlay/table/31"

    second = new_game(client, "Next Round", "Player Two", table=31)
    t = client.get("/api/tables/31").json()
    assert t["game_id"] == second and t["games"] == [first, second]
    live = client.get("/api/tables/31/live").json()
    assert live["game_id"] == second and live["fields"]["p1_name"] == "Next Round"
    assert client.get("/api/tables/31/fields/p1_name").text == "Next Round"


def test_table_live_follows_moves_of_the_current_game(client):
    gid = new_game(client, table=33)
    client.post(f"/api/games/{gid}/plays", json={"position": "8H", "word": "ZAX"}, headers=AUTH)
    assert client.get("/api/tables/33/fields/p1_score").text == client.get(f"/api/games/{gid}/fields/p1_score").text
    assert client.get("/api/tables/33/live").json()["seq"] == 0


def test_table_in_meta_counts_as_the_table(client):
    gid = new_game(client, meta={"table": "34"})
    assert client.get("/api/tables/34").json()["game_id"] == gid


def test_table_and_meta_table_that_differ_are_a_422(client):
    r = client.post("/api/games", headers=AUTH,
                    json={"players": [{"name": "A"}, {"name": "B"}], "table": 35, "meta": {"table": "36"}})
    assert r.status_code == 422 and "table 35 and meta.table '36' differ" in r.json()["detail"]


@pytest.mark.parametrize("table", [0, -1, 10_000, "x"])
def test_bad_table_number_is_a_422(client, table):
    for path in (f"/api/tables/{table}", f"/api/tables/{table}/live", f"/api/tables/{table}/fields/score"):
        r = client.get(path)
        assert r.status_code == 422 and r.json()["detail"], path
    r = client.post("/api/games", headers=AUTH, json={"players": [{"name": "A"}, {"name": "B"}], "table": table})
    assert r.status_code == 422 and "body.table" in r.json()["detail"]


def test_table_without_a_game_is_a_404_with_a_message(client):
    for path in ("/api/tables/4321", "/api/tables/4321/live", "/api/tables/4321/fields/score"):
        r = client.get(path)
        assert r.status_code == 404 and r.json()["detail"] == "no game at table 4321 yet", path


def test_unknown_field_of_a_table_is_a_422(client):
    new_game(client, table=37)
    assert client.get("/api/tables/37/fields/p9_name").status_code == 422


def test_tilecam_run_names_its_table(tmp_path):
    """`tilecam run --table 7`: the game it records is table 7's current game. The source is one
    black frame (no board to find), enough for the station to create its game and serve."""
    import os
    import socket
    import subprocess
    import sys

    import cv2
    import httpx
    import numpy as np

    from apiserver import wait_for

    (tmp_path / "frames").mkdir()
    cv2.imwrite(str(tmp_path / "frames" / "000001.jpg"), np.zeros((480, 640, 3), np.uint8))
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    cmd = [sys.executable, "-m", "tilecam.api.cli", "run", "--source", str(tmp_path / "frames"),
           "--db", str(tmp_path / "games.sqlite3"), "--port", str(port)]
    env = {**os.environ, "TILECAM_TOKEN": "tables-test-operator-token"}
    bad = subprocess.run([*cmd, "--table", "0"], capture_output=True, text=True, env=env, cwd=tmp_path, timeout=60)
    assert bad.returncode == 2 and "--table 0" in bad.stderr and "9999" in bad.stderr
    proc = subprocess.Popen([*cmd, "--table", "7"], env=env, cwd=tmp_path,
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        def table():
            try:
                r = httpx.get(f"http://127.0.0.1:{port}/api/tables/7", timeout=2)
            except httpx.TransportError:
                return None
            return r.json() if r.status_code == 200 else None
        t = wait_for(table, timeout=60, interval=0.2)
        assert t["game_id"] == 1 and t["game"]["meta"]["table"] == "7"
    finally:
        proc.terminate()
        proc.wait(timeout=30)
