"""/tournament on a central service on PostgreSQL that three stations forward to, in headless Debian
chromium, as the director walks it on the day:

- pi-1 records a live game with its clock running and serves its own console (a station server
  on its SQLite file): the row shows the forwarded clock ticking, the station's address, and
  "Console at pi-1" opens that station's console on the game, where corrections are made;
- pi-2 finished its game and was switched off before the next round: not flagged;
- pi-3 went silent during its game: flagged, and, having given no address, the row says in words
  where its game is corrected.

The central is a real `tilecam serve` subprocess; each station is a recorder's GameService and
the real Forwarder (api/station/forwarder.py) on its own store connection, as `tilecam run` wires them.
TILECAM_SCREENSHOTS=1 writes docs/pages/tournament-stations.png (commit it when it changes).
"""
from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import httpx
import pytest

from apiserver import LiveServer, wait_for
from browser import chromium_page
from tilecam.api.bus import Bus
from tilecam.api.station.forwarder import Central, Forwarder
from tilecam.api.service import GameService
from tilecam.api.store import open_store
from tilecam.scoring.gcg import read_gcg, record_from_gcg
from tilecam.scoring.rules import get_profile
from tilecam.scoring.tiles import DISTRIBUTIONS

pytestmark = pytest.mark.slow  # a real browser, PostgreSQL and a server process
REPO = Path(__file__).resolve().parents[3]
SHOT = REPO / "docs" / "pages" / "tournament-stations.png"
WAIT = 15_000  # ms; the page asks every 2 s
STALE_S = 3    # the central's [tournament] stale_after_s: short, so that the test need not wait a minute
TOKENS = {f"pi-{n}": f"station-pi-{n}-token-0123456789" for n in (1, 2, 3)}


def free_port() -> int:
    import socket
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


class Station:
    """A station: its SQLite file written by the recorder's service (which holds the clock), and the
    forwarder on a connection of its own; `serve()` runs the station's own server (its console)."""

    def __init__(self, tmp: Path, name: str, central: str, table: int, url_of_self: bool) -> None:
        self.name, self.table, self.path = name, table, tmp / f"{name}.sqlite3"
        self.recorder = GameService(open_store(self.path), Bus(8))
        self.server = LiveServer(self.path, service=self.recorder).__enter__() if url_of_self else None
        self._fw_store = open_store(self.path)

        def clock_of(game_id):
            clock = self.recorder.clock_now(game_id)
            return None if clock is None else clock.model_dump()
        self.forwarder = Forwarder(GameService(self._fw_store, Bus(1)),
                                   Central(central, name, TOKENS[name], timeout_s=2.0), retry_initial_s=0.05,
                                   retry_max_s=0.4, heartbeat_s=0.5, say=lambda m: None,
                                   url=self.server.url if self.server else None, clock_of=clock_of)

    def record(self, path: Path, turns: int | None) -> int:
        record, _, _ = record_from_gcg(read_gcg(path.read_bytes()), get_profile("naspa"), DISTRIBUTIONS["en"])
        gid = self.recorder.create_game([(p.name, p.nick) for p in record.players], "naspa", "en",
                                        meta={"table": str(self.table)}).id
        for ev in record.events[:turns]:
            self.recorder.append(gid, ev)
        return gid

    def close(self) -> None:
        self.forwarder.stop()
        if self.server is not None:
            self.server.__exit__(None, None, None)
        self.recorder.store.close()
        self._fw_store.close()


@pytest.fixture
def central(tmp_path, pg, pg_url, monkeypatch):
    monkeypatch.setenv("TILECAM_STORE_PASSWORD", pg.password)
    config = tmp_path / "central.toml"
    config.write_text(f'[store]\nurl = "{pg_url}"\n\n[tournament]\nstale_after_s = {STALE_S}\n\n[auth.tokens]\n'
                      + "".join(f'"{k}" = "{v}"\n' for k, v in TOKENS.items())
                      + 'director = "director-token-0123456789abcdef"\n')
    port = free_port()
    proc = subprocess.Popen([sys.executable, "-m", "tilecam.api.cli", "serve", "--port", str(port),
                             "--config", str(config)], cwd=REPO, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True)
    url = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 60  # a loaded 2-core machine takes its time to import
    while True:
        try:
            httpx.get(f"{url}/api/games", timeout=2)
            break
        except httpx.TransportError:
            assert proc.poll() is None, proc.stderr.read()
            assert time.monotonic() < deadline, "tilecam serve did not start"
            time.sleep(0.1)
    yield url
    proc.send_signal(signal.SIGINT)
    try:
        proc.communicate(timeout=20)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.communicate()


def central_holds(central: str, station: Station, game_id: int) -> bool:
    r = httpx.get(f"{central}/api/stations/{station.name}", headers={"Authorization": f"Bearer {TOKENS[station.name]}"})
    uid = station.recorder.game(game_id).meta.get("station_uid")
    return any(g["uid"] == uid and g["next"] == station.recorder.count(game_id) for g in r.json()["games"])


def test_the_director_walks_the_tournament_of_three_forwarding_stations(tmp_path, central, shared_data):
    liwords = shared_data / "gcg" / "liwords"
    stations = [Station(tmp_path, "pi-1", central, 1, url_of_self=True),
                Station(tmp_path, "pi-2", central, 2, url_of_self=False),
                Station(tmp_path, "pi-3", central, 3, url_of_self=False)]
    one, two, three = stations
    try:
        g1 = one.record(liwords / "vs_josh.gcg", 14)
        one.recorder.start_clock(g1)
        one.recorder.clock_press(g1, None)       # started: the clock of the player on turn after the
                                                 # 14th move runs (the second player's)
        g2 = two.record(liwords / "doug_vs_emely.gcg", None)   # the whole game: over
        g3 = three.record(liwords / "r20_peter.gcg", 9)
        for st in stations:
            st.forwarder.start()
        for st, gid in ((one, g1), (two, g2), (three, g3)):
            wait_for(lambda: central_holds(central, st, gid), timeout=30, interval=0.2)
        two.forwarder.stop()    # switched off after its game, before the next round
        three.forwarder.stop()  # lost its power mid-game
        time.sleep(STALE_S + 1)

        api_rows = {t["table"]: t for t in httpx.get(f"{central}/api/tables").json()["tables"]}
        assert api_rows[2]["ended"] and api_rows[2]["flags"] == [] and api_rows[2]["station"]["stale"] is False
        assert api_rows[3]["flags"] == ["stale"] and not api_rows[3]["ended"]
        assert api_rows[1]["flags"] == [] and api_rows[1]["station"]["url"] == one.server.url
        assert api_rows[1]["links"]["operator"] == f"{one.server.url}/operator?game={g1}"
        assert api_rows[1]["clock"]["running"] == 1 == api_rows[1]["on_turn"] and "operator" not in api_rows[3]["links"]

        with chromium_page(tmp_path / "chromium-profile", 1366, 700) as page:
            failed: list[str] = []
            page.on("response", lambda r: failed.append(f"{r.status} {r.url}") if r.status >= 400 else None)
            page.goto(f"{central}/tournament")
            page.wait_for_function("() => Number(document.body.dataset.polls || 0) > 0", timeout=WAIT)
            assert page.inner_text("#attention") == "1 needs attention: table 3 (station)"
            # Table 1: the clock forwarded from pi-1 ticks here; its console is the station's.
            running = page.locator("#table-1 td.clock .running")
            assert running.count() == 1 and re.fullmatch(r"2[45]:\d\d", running.inner_text())
            before = running.inner_text()
            page.wait_for_function(
                f"() => document.querySelector('#table-1 td.clock .running').textContent !== '{before}'", timeout=WAIT)
            host = one.server.url.removeprefix("http://")
            assert f"pi-1 ({host}) · heard" in page.inner_text("#table-1 td.flags")
            link = page.locator("#table-1 a[data-link=operator]")
            assert link.inner_text() == "Console at pi-1"
            assert link.get_attribute("href") == api_rows[1]["links"]["operator"]
            # Table 2: over, its station off: grey, not red.
            assert page.get_attribute("#table-2", "data-flags") == ""
            assert re.search(r"pi-2 · heard \d+ s ago", page.inner_text("#table-2 td.flags"))
            assert api_rows[2]["result"] in page.inner_text("#table-2 td.last")
            # Table 3: silent mid-game, flagged; no address given: where corrections are made, in words.
            assert re.search(r"pi-3 silent \d+ s", page.inner_text("#table-3 td.flags"))
            assert page.inner_text("#table-3 [data-link=operator]") == "Console: at station pi-3"
            assert page.locator("#table-3 a[data-link=operator]").count() == 0
            if os.environ.get("TILECAM_SCREENSHOTS"):
                SHOT.parent.mkdir(parents=True, exist_ok=True)
                page.screenshot(path=str(SHOT), full_page=True)
                print(f"tournament screenshot: {SHOT}")

            # The console link opens pi-1's own console on the game, where the director corrects it.
            with page.context.expect_page() as opened:
                link.click()
            console = opened.value
            console.wait_for_function(f"() => document.getElementById('game').value === '{g1}'", timeout=WAIT)
            assert console.url.startswith(one.server.url) and "Cesar" in console.inner_text("#game option:checked")
            console.close()
            # A press at pi-1 reaches the central's page: the other player's clock runs there.
            one.recorder.clock_press(g1, 1)
            page.wait_for_function("() => document.querySelectorAll('#table-1 td.clock div')[0]"
                                   ".classList.contains('running')", timeout=WAIT)
            # The central's overlay of table 1 shows the forwarded clock, and follows the next press.
            overlay = page.context.new_page()
            overlay.goto(f"{central}/overlay/table/1")
            overlay.wait_for_function("() => /^2[45]:\\d\\d$/.test(document.querySelector('#p0 .clock').textContent)"
                                      " && document.querySelector('#p0 .clock').classList.contains('running')",
                                      timeout=WAIT)
            one.recorder.clock_press(g1, 0)
            overlay.wait_for_function("() => document.querySelector('#p1 .clock').classList.contains('running')",
                                      timeout=WAIT)
            overlay.close()
            assert page.errors == [] and failed == []  # no script error, no 404 (the favicon included)
    finally:
        for st in stations:
            st.close()
