"""The PostgreSQL store beyond the contract (test_store_contract.py runs that on it too): where its
password may come from, several servers on one database, a server restart, and `tilecam serve`
on it over real HTTP. The server is the session's own (tests/pgserver.py, the `pg` fixture)."""
from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path

import httpx
import pytest

from apiserver import AUTH, LiveServer, SseReader, create_game_when_up, new_game
from tilecam.api.bus import Bus
from tilecam.api.service import GameService
from tilecam.api.settings import StoreSettings
from tilecam.api.store import StoreError, open_store, store_name
from tilecam.api.store.postgres import PASSWORD_ENV
from tilecam.scoring.events import Pass

REPO = Path(__file__).resolve().parents[3]
PLAYERS = [{"nick": "a", "name": "Ann"}, {"nick": "b", "name": "Ben"}]


@pytest.fixture
def no_password(monkeypatch, tmp_path):
    """No password from anywhere: our variable, libpq's, or a ~/.pgpass."""
    for name in (PASSWORD_ENV, "PGPASSWORD"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("PGPASSFILE", str(tmp_path / "no.pgpass"))


@pytest.fixture
def with_password(monkeypatch, no_password, pg):
    monkeypatch.setenv(PASSWORD_ENV, pg.password)


def password_file(tmp_path: Path, text: str, mode: int = 0o600) -> str:
    path = tmp_path / "store.password"
    path.write_text(text)
    path.chmod(mode)
    return str(path)


@pytest.mark.parametrize("where", ["netloc", "query"])
def test_a_password_in_the_url_is_refused_and_never_repeated(pg_url, pg, where):
    url = pg_url.replace("tilecam@", f"tilecam:{pg.password}@") if where == "netloc" \
        else f"{pg_url}?password={pg.password}"
    with pytest.raises(StoreError, match="password_file.*TILECAM_STORE_PASSWORD") as caught:
        open_store(url)
    assert pg.password not in str(caught.value)
    assert pg.password not in store_name(url) and "***" in store_name(url)


def test_the_password_from_the_environment(pg_url, with_password):
    store = open_store(pg_url)
    assert store.create_game(PLAYERS, "naspa", "en").id == 1
    store.close()


def test_the_password_from_password_file_wins_over_the_environment(pg_url, pg, no_password, tmp_path,
                                                                    monkeypatch):
    monkeypatch.setenv(PASSWORD_ENV, "not-the-password")
    store = open_store(StoreSettings(url=pg_url, password_file=password_file(tmp_path, pg.password + "\n")))
    assert store.games() == []
    store.close()


def test_no_or_a_wrong_password_is_one_clear_error_without_it(pg_url, no_password, tmp_path):
    with pytest.raises(StoreError, match="cannot reach the PostgreSQL store .*password"):
        open_store(pg_url)
    with pytest.raises(StoreError, match="password authentication failed") as caught:
        open_store(StoreSettings(url=pg_url, password_file=password_file(tmp_path, "guessed-wrong\n")))
    assert "guessed-wrong" not in str(caught.value)


@pytest.mark.parametrize("problem", ["missing", "empty", "readable by others"])
def test_a_password_file_that_cannot_be_used_says_why(pg_url, no_password, tmp_path, problem):
    path = str(tmp_path / "nowhere") if problem == "missing" else \
        password_file(tmp_path, "", 0o600) if problem == "empty" else password_file(tmp_path, "x\n", 0o644)
    with pytest.raises(StoreError, match={"missing": "cannot read", "empty": "is empty",
                                          "readable by others": "chmod 600"}[problem]):
        open_store(StoreSettings(url=pg_url, password_file=path))


def test_a_url_that_names_no_server_is_a_store_error(with_password):
    with pytest.raises(StoreError, match="cannot reach"):
        open_store("postgresql://tilecam@127.0.0.1:1/nothing")


def test_two_servers_on_one_database_each_announce_the_others_entries(pg_url, with_password):
    """Two services (two `tilecam serve` processes, as far as the store can tell) on one database:
    each one's watcher wakes on the other's commit (NOTIFY), well before its wait runs out."""
    first, second = GameService(open_store(pg_url), Bus()), GameService(open_store(pg_url), Bus())
    try:
        gid = first.create_game([("Ann", None), ("Ben", None)]).id
        assert second.announce_external() == []  # the first look takes the mark
        woke: list[tuple[list[int], float]] = []
        t0 = time.monotonic()
        waiter = threading.Thread(target=lambda: woke.append((second.announce_external(wait_s=30),
                                                              time.monotonic() - t0)))
        waiter.start()
        time.sleep(0.3)
        first.pass_turn(gid)
        waiter.join(35)
        assert woke and woke[0][0] == [gid] and woke[0][1] < 15  # woken, not timed out
        assert second.entries(gid)[0].entry == Pass(0, 0)
        assert first.announce_external() == []  # and back the other way
        second.pass_turn(gid)
        assert first.announce_external(wait_s=30) == [gid]
    finally:
        first.store.close()
        second.store.close()


def test_a_server_restart_fails_the_writes_in_between_and_loses_or_doubles_nothing(pg_url, pg, with_password):
    store, watcher = open_store(pg_url), open_store(pg_url)
    try:
        gid = store.create_game(PLAYERS, "naspa", "en").id
        store.append(gid, Pass(0, 0), expect=0)
        mark = watcher.changes().mark
        assert watcher.wait_changes(mark, 0.1).games == frozenset()  # listening before the outage
        with pg.down():
            with pytest.raises(StoreError, match="cannot reach"):
                store.append(gid, Pass(1, 0), expect=1)
            with pytest.raises(StoreError, match="cannot reach"):
                store.entries(gid)
            with pytest.raises(StoreError, match="cannot reach"):
                watcher.wait_changes(mark, 0.1)
        # Back: the pooled connections the restart broke are replaced at the next call.
        assert store.append(gid, Pass(1, 0), expect=1) == 1
        assert watcher.wait_changes(mark, 5).games == {gid}
        store.append(gid, Pass(0, 0), expect=2)
        assert [r.seq for r in watcher.entries(gid)] == [0, 1, 2]
        pg.restart()  # a restart between calls, no call in between: nothing to see but a reconnect
        assert watcher.count(gid) == 3 and store.append(gid, Pass(1, 0), expect=3) == 3
        assert [r.entry for r in store.entries(gid)] == [Pass(0, 0), Pass(1, 0)] * 2
    finally:
        store.close()
        watcher.close()


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.mark.slow
def test_tilecam_serve_on_postgresql_serves_and_a_second_server_streams_its_updates(pg_url, pg, tmp_path):
    """`tilecam serve --config central.toml` twice on one database: a game made on one is served
    by both, and a pass entered on the first reaches the second one's SSE clients."""
    secret = password_file(tmp_path, pg.password + "\n")
    config = tmp_path / "central.toml"
    config.write_text(f'[store]\nurl = "{pg_url}"\npassword_file = "{secret}"\n'
                      f'[auth]\ntokens = {{ desk = "{"d" * 20}" }}\n')
    env = {k: v for k, v in os.environ.items() if k not in (PASSWORD_ENV, "PGPASSWORD")}
    ports = [free_port(), free_port()]
    procs = [subprocess.Popen([sys.executable, "-m", "tilecam.api.cli", "serve", "--config", str(config),
                               "--port", str(port)], cwd=tmp_path, env=env, stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, text=True) for port in ports]
    try:
        made = create_game_when_up(procs[0], ports[0], "d" * 20)
        assert made.status_code == 201, made.text
        gid = made.json()["id"]
        create_game_when_up(procs[1], ports[1], "d" * 20)  # the second is up too
        second = f"http://127.0.0.1:{ports[1]}"
        assert httpx.get(f"{second}/api/games/{gid}").json()["players"][0]["name"] == "A"
        with httpx.Client(timeout=httpx.Timeout(10, read=20)) as client, \
                client.stream("GET", f"{second}/api/games/{gid}/events") as stream:
            lines = stream.iter_lines()
            first = next(line for line in lines if line.startswith("data:"))
            assert json.loads(first[5:])["live"]["seq"] == -1  # nothing played yet
            r = httpx.post(f"http://127.0.0.1:{ports[0]}/api/games/{gid}/passes", json={},
                           headers={"Authorization": f"Bearer {'d' * 20}"})
            assert r.status_code == 200, r.text
            update = next(line for line in lines if line.startswith("data:"))
            assert json.loads(update[5:])["entry"]["kind"] == "pass"
    finally:
        for proc in procs:
            proc.send_signal(signal.SIGINT)  # Ctrl-C: a clean stop, the store closed
        outs = [proc.communicate(timeout=20) for proc in procs]
    assert all(proc.returncode == 0 for proc in procs), outs
    printed = outs[0][0]
    assert f"serving {pg_url} on" in printed and pg.password not in printed + outs[0][1]
    base = f"http://127.0.0.1:{ports[0]}"  # what the director and the broadcaster open, as demo prints them
    assert f"  tournament        {base}/tournament" in printed and f"{base}/overlay/table/<n>" in printed
    assert not (tmp_path / "tilecam.sqlite3").exists()  # nothing fell back to a file


def test_the_api_through_a_server_restart_answers_503_then_follows_the_store_again(pg_url, pg, with_password):
    """During the outage a request is a 503 naming the store, with Retry-After (what a load balancer
    and a client expect; no traceback); after it, the same server (its watcher too) goes on: another
    server's entry reaches this one's SSE client."""
    with LiveServer(pg_url) as server, httpx.Client(base_url=server.url, timeout=10) as client:
        gid = new_game(client)
        with SseReader(f"{server.url}/api/games/{gid}/events", limit=2) as sse:
            assert sse.next()[2]["live"]["seq"] == -1
            with pg.down():
                r = client.get("/api/games")
                assert r.status_code == 503 and "cannot reach the PostgreSQL store" in r.json()["detail"]
                assert r.headers["retry-after"] == "5"
                r = client.post(f"/api/games/{gid}/passes", json={}, headers=AUTH)  # a write too
                assert r.status_code == 503 and r.headers["retry-after"] == "5", r.text
                time.sleep(1)  # the watcher meets the outage too
            other = GameService(open_store(pg_url), Bus())  # another server on the database
            try:
                other.pass_turn(gid)
            finally:
                other.store.close()
            assert sse.next(timeout=15)[2]["entry"]["kind"] == "pass"
        assert client.get("/api/games").status_code == 200
