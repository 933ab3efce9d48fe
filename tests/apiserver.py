"""The API under uvicorn on 127.0.0.1 at a free port, in a background thread, for tests over real HTTP.

Test modules import the fixtures: ``from apiserver import api, client, operator  # noqa: F401``.
"""
from __future__ import annotations

import socket
import threading
import time
from pathlib import Path

import httpx
import pytest
import uvicorn

from tilecam.api.app import close_streams, create_app
from tilecam.api.settings import AuthSettings, ServerSettings, Settings, StoreSettings

TOKEN = "test-operator-token"
AUTH = {"Authorization": f"Bearer {TOKEN}"}
BROADCAST = "test-broadcast-token-only-reads"   # ?broadcast=: the racks live, nothing else


class LiveServer:
    def __init__(self, db_path: Path, **app_kwargs) -> None:
        self.settings = Settings(store=StoreSettings(db_path=str(db_path)),
                                 auth=AuthSettings(tokens={"tester": TOKEN}, broadcast_token=BROADCAST),
                                 server=ServerSettings(graceful_shutdown_s=1.0))
        self.app = create_app(self.settings, **app_kwargs)
        # Bind first: the port is ours before uvicorn starts, so no other process can take it.
        # proto=IPPROTO_TCP explicitly: asyncio sets TCP_NODELAY only on sockets that say so,
        # and without it every keep-alive response waits 40 ms for a delayed ACK.
        self.sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM, socket.IPPROTO_TCP)
        self.sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self.sock.bind(("127.0.0.1", 0))
        self.port = self.sock.getsockname()[1]
        self.url = f"http://127.0.0.1:{self.port}"
        config = uvicorn.Config(self.app, log_level="warning", lifespan="on",
                                timeout_graceful_shutdown=self.settings.server.graceful_shutdown_s)
        self.server = uvicorn.Server(config)
        self.thread = threading.Thread(target=self.server.run, kwargs={"sockets": [self.sock]}, daemon=True)

    def __enter__(self) -> "LiveServer":
        self.thread.start()
        deadline = time.monotonic() + 10
        while not self.server.started:
            if not self.thread.is_alive() or time.monotonic() > deadline:
                raise RuntimeError("the API server did not start")
            time.sleep(0.01)
        return self

    def __exit__(self, *exc) -> None:
        close_streams(self.app)  # as `tilecam serve` does on Ctrl-C
        self.server.should_exit = True
        self.thread.join(10)
        self.sock.close()

    @property
    def service(self):
        return self.app.state.service

    def with_racks_on_air(self, on_air: str) -> "LiveServer":
        """Serve with [racks] on_air set (before it starts): the default is "broadcast"."""
        from tilecam.api.service import RacksOnAir
        from tilecam.api.settings import get_settings

        racks = self.settings.racks.model_copy(update={"on_air": on_air})
        self.settings = self.settings.model_copy(update={"racks": racks})
        self.app.dependency_overrides[get_settings] = lambda: self.settings
        self.app.state.racks_on_air = RacksOnAir.from_settings(self.settings)   # as create_app builds it
        return self


@pytest.fixture(scope="module")
def api(tmp_path_factory) -> LiveServer:
    with LiveServer(tmp_path_factory.mktemp("api") / "games.sqlite3") as server:
        yield server


@pytest.fixture(scope="module")
def client(api: LiveServer) -> httpx.Client:
    with httpx.Client(base_url=api.url, timeout=10) as c:
        yield c


def new_game(client: httpx.Client, p1: str = "Alice Ames", p2: str = "Bob Brown", **kw) -> int:
    r = client.post("/api/games", json={"players": [{"name": p1}, {"name": p2}], **kw}, headers=AUTH)
    assert r.status_code == 201, r.text
    return r.json()["id"]


def import_gcg(client: httpx.Client, path: Path, rules: str = "naspa") -> int:
    r = client.post("/api/games/gcg", params={"rules": rules}, content=path.read_bytes(),
                    headers={**AUTH, "Content-Type": "text/plain"})
    assert r.status_code == 201, r.text
    return r.json()["id"]


def wait_for(predicate, timeout: float = 5.0, interval: float = 0.01):
    """Poll until predicate() is truthy; returns its value or fails after `timeout` seconds."""
    deadline = time.monotonic() + timeout
    while True:
        value = predicate()
        if value:
            return value
        if time.monotonic() > deadline:
            raise AssertionError(f"condition not met within {timeout} s")
        time.sleep(interval)


class SseReader:
    """Reads a Server-Sent Events stream in a thread; events land on a queue as (event, id, data).

    The reader hangs up by itself after `limit` events, so leaving the block never waits on a read."""

    def __init__(self, url: str, limit: int) -> None:
        self.limit = limit
        import queue

        self.url = url
        self.events: "queue.Queue[tuple[str, str, dict]]" = queue.Queue()
        self._client = httpx.Client(timeout=httpx.Timeout(10, read=None))
        self._stop = threading.Event()
        self.thread = threading.Thread(target=self._run, daemon=True)

    def _run(self) -> None:
        import json

        try:
            with self._client.stream("GET", self.url) as r:
                self.status = r.status_code
                fields: dict[str, str] = {}
                for line in r.iter_lines():
                    if self._stop.is_set():
                        return
                    if not line:
                        if "data" in fields:
                            self.events.put((fields.get("event", "message"), fields.get("id", ""),
                                             json.loads(fields["data"])))
                            self.limit -= 1
                            if self.limit == 0:
                                return
                        fields = {}
                    elif not line.startswith(":"):
                        key, _, value = line.partition(":")
                        fields[key] = value.lstrip(" ")
        except httpx.HTTPError:
            pass  # closed by stop()

    def __enter__(self) -> "SseReader":
        self.thread.start()
        return self

    def next(self, timeout: float = 5.0) -> tuple[str, str, dict]:
        return self.events.get(timeout=timeout)

    def __exit__(self, *exc) -> None:
        self._stop.set()
        self._client.close()
        self.thread.join(5)


def create_game_when_up(proc, port: int, token: str, timeout: float = 60.0) -> httpx.Response:
    """POST a new game to a `tilecam serve` subprocess as soon as it listens (it must not exit first).
    A loaded 2-core machine takes several seconds to import the server: `timeout` allows for that."""
    deadline = time.monotonic() + timeout
    while True:
        try:
            return httpx.post(f"http://127.0.0.1:{port}/api/games", headers={"Authorization": f"Bearer {token}"},
                              json={"players": [{"name": "A"}, {"name": "B"}]})
        except httpx.TransportError:
            assert proc.poll() is None and time.monotonic() < deadline, "serve did not start"
            time.sleep(0.05)
