"""Stations forwarding to the central service (issue 22), over real HTTP.

A station's store (SQLite) is written by a "recorder" (a GameService on its own connection, as
the Station's recorder is) while the Forwarder pushes it to a real `tilecam serve` subprocess.
Faults: the central killed with SIGKILL mid-stream and restarted on the same store; the network
cut by a TCP proxy the test closes and reopens; the central's PostgreSQL server stopped and
started again (tests/pgserver.py). In each, the central's record must equal the
station's: every entry once, in order, with its sidecar and frame, and the same GCG.
"""
from __future__ import annotations

import signal
import socket
import subprocess
import sys
import threading
import time
from contextlib import contextmanager
from pathlib import Path

import cv2
import httpx
import numpy as np
import pytest

from apiserver import LiveServer, TOKEN, wait_for
from tilecam.api.bus import Bus
from tilecam.api.schemas import ScoreFix
from tilecam.api.station.forwarder import Central, Forwarder
from tilecam.api.service import GameService
from tilecam.api.store import open_store
from tilecam.scoring.events import to_json
from tilecam.scoring.gcg import read_gcg, record_from_gcg
from tilecam.scoring.rules import get_profile
from tilecam.scoring.tiles import DISTRIBUTIONS

REPO = Path(__file__).resolve().parents[3]
GAME = REPO / "api" / "demo" / "vs_josh.gcg"
STATION_TOKEN = "station-seven-token-0123456789"
DIRECTOR_TOKEN = "director-token-0123456789abcdef"
STATION = "pi-7"

pytestmark = pytest.mark.slow


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def jpeg(i: int) -> bytes:
    image = np.full((48, 64, 3), (i * 37) % 256, np.uint8)
    return cv2.imencode(".jpg", image)[1].tobytes()


def record_events():
    record, _, _ = record_from_gcg(read_gcg(GAME.read_text()), get_profile("naspa"), DISTRIBUTIONS["en"])
    return record


class Central_:
    """`tilecam serve` on a store (a SQLite file, or `url`) and a port, killed and restarted at will."""

    def __init__(self, tmp: Path, url: str | None = None) -> None:
        self.db = url or tmp / "central.sqlite3"  # what open_store takes, for the test to read it back
        self.config = tmp / "central.toml"
        self.config.write_text((f'[store]\nurl = "{url}"\n\n' if url else f'[store]\ndb_path = "{self.db}"\n\n') +
                               f'[auth.tokens]\n"{STATION}" = "{STATION_TOKEN}"\ndirector = "{DIRECTOR_TOKEN}"\n')
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.proc = None

    def start(self) -> "Central_":
        self.proc = subprocess.Popen([sys.executable, "-m", "tilecam.api.cli", "serve", "--port", str(self.port),
                                      "--config", str(self.config)], cwd=REPO,
                                     stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        deadline = time.monotonic() + 60  # a loaded 2-core machine starts serve slowly
        while True:
            try:
                httpx.get(f"{self.url}/api/games", timeout=2)
                return self
            except httpx.TransportError:
                assert self.proc.poll() is None, self.proc.stderr.read()
                assert time.monotonic() < deadline, "tilecam serve did not start"
                time.sleep(0.05)

    def kill(self) -> None:
        self.proc.send_signal(signal.SIGKILL)
        self.proc.wait(10)

    def stop(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.send_signal(signal.SIGINT)
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()


class Proxy:
    """A TCP proxy the test controls: `cut()` closes the listening socket and every connection
    through it (the station sees the network gone); `restore()` listens again on the same port."""

    def __init__(self, target_port: int) -> None:
        self.target = target_port
        self.port = free_port()
        self._conns: list[socket.socket] = []
        self._lock = threading.Lock()
        self._listener = None
        self.restore()

    def restore(self) -> None:
        listener = socket.socket()
        listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        listener.bind(("127.0.0.1", self.port))
        listener.listen(16)
        self._listener = listener
        threading.Thread(target=self._accept, args=(listener,), daemon=True).start()

    def _accept(self, listener: socket.socket) -> None:
        while True:
            try:
                client, _ = listener.accept()
            except OSError:
                return  # cut
            try:
                upstream = socket.create_connection(("127.0.0.1", self.target))
            except OSError:
                client.close()
                continue
            with self._lock:
                self._conns += [client, upstream]
            for a, b in ((client, upstream), (upstream, client)):
                threading.Thread(target=self._pipe, args=(a, b), daemon=True).start()

    @staticmethod
    def _pipe(a: socket.socket, b: socket.socket) -> None:
        try:
            while data := a.recv(65536):
                b.sendall(data)
        except OSError:
            pass
        for s in (a, b):
            try:
                s.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass

    def cut(self) -> None:
        self._listener.close()
        with self._lock:
            conns, self._conns = self._conns, []
        for s in conns:
            try:
                s.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass
            s.close()

    def close(self) -> None:
        self.cut()


class StationSide:
    """The station's store, written by a recorder's service and read by the forwarder's own."""

    def __init__(self, tmp: Path, server: str) -> None:
        path = tmp / "station.sqlite3"
        self.recorder = GameService(open_store(path), Bus(8))
        self._fw_store = open_store(path)
        self.forwarder = Forwarder(GameService(self._fw_store, Bus(1)),
                                   Central(server, STATION, STATION_TOKEN, timeout_s=2.0),
                                   retry_initial_s=0.05, retry_max_s=0.4, heartbeat_s=0.5, say=lambda m: None)

    def close(self) -> None:
        self.forwarder.stop()
        self.recorder.store.close()
        self._fw_store.close()


def record(station: StationSide, events, pause: float = 0.02, at=None) -> int:
    """A game at table 7 recorded entry by entry (sidecar and, every third entry, a frame);
    `at(i)` is called before entry i (the test's fault goes there)."""
    row = station.recorder.create_game([("Cesar", "cesar"), ("Josh", "josh")], meta={"table": "7"})
    for i, ev in enumerate(events):
        if at is not None:
            at(i)
        station.recorder.append(row.id, ev, sidecar={"frame": i * 10, "t": i * 1.5},
                                jpeg=jpeg(i) if i % 3 == 0 else None)
        if i == 4:  # the operator fixes the names mid-game: the header goes out again
            station.recorder.set_players(row.id, [("Cesar Del Solar", "cesar"), ("Josh Sokol", "josh")], "desk")
        time.sleep(pause)
    return row.id


def uid_of(station: StationSide, game_id: int) -> str:
    """The uid the forwarder gave the game (in the station's store, before anything was sent)."""
    return wait_for(lambda: station.recorder.game(game_id).meta.get("station_uid"), timeout=15)


def central_game(url: str, uid: str) -> dict:
    r = httpx.get(f"{url}/api/stations/{STATION}", headers={"Authorization": f"Bearer {STATION_TOKEN}"})
    assert r.status_code == 200, r.text
    return next((g for g in r.json()["games"] if g["uid"] == uid), {})


def assert_mirrored(station: StationSide, game_id: int, central_db: Path | str, url: str) -> None:
    """The central's record equals the station's: entries, sidecars, frames, players, GCG."""
    local = station.recorder
    uid = uid_of(station, game_id)
    n = local.count(game_id)
    wait_for(lambda: central_game(url, uid).get("next") == n and
             len(central_game(url, uid)["frames"]) == len(local.frame_seqs(game_id)), timeout=30)
    store = open_store(central_db)
    try:
        mirror = GameService(store, Bus(1))
        cid = central_game(url, uid)["game_id"]
        theirs, ours = mirror.entries(cid), local.entries(game_id)
        assert [(e.seq, to_json(e.entry), e.sidecar) for e in theirs] == \
               [(e.seq, to_json(e.entry), e.sidecar) for e in ours]
        assert mirror.frame_seqs(cid) == local.frame_seqs(game_id)
        assert all(mirror.frame(cid, q).jpeg == local.frame(game_id, q).jpeg for q in local.frame_seqs(game_id))
        row = mirror.game(cid)
        assert row.players == local.game(game_id).players
        assert (row.meta["station"], row.meta["table"], row.meta["station_uid"]) == (STATION, "7", uid)
        assert int(row.meta["station_heard_at"]) >= int(time.time()) - 60
        # the whole record, racks and all, as the director's token gets it (a page gets what is on air)
        assert httpx.get(f"{url}/api/games/{cid}.gcg",
                         headers={"Authorization": f"Bearer {DIRECTOR_TOKEN}"}).text == local.gcg(local.load(game_id))
        assert mirror.live(cid).scores == local.live(game_id).scores
    finally:
        store.close()


@contextmanager
def forwarding(tmp_path: Path, url: str | None = None, through_proxy: bool = False):
    """A central `tilecam serve` (on `url`'s store, else a SQLite file), optionally behind a
    Proxy, and a station whose forwarder pushes to it: (central, station, the URL it pushes to)."""
    central = Central_(tmp_path, url).start()
    proxy = Proxy(central.port) if through_proxy else None
    server = f"http://127.0.0.1:{proxy.port}" if proxy else central.url
    station = StationSide(tmp_path, server)
    try:
        yield central, station, server, proxy
    finally:
        station.close()
        if proxy is not None:
            proxy.close()
        central.stop()


def record_through_outage(central: Central_, station: StationSide, server: str, down, up,
                          min_outage_s: float = 0.0) -> None:
    """The whole game recorded while the forwarder pushes it: `down()` once the central holds five
    entries (mid-stream), `up()` eight entries later, the station recording on meanwhile; then the
    central's record must equal the station's."""
    station.forwarder.start()
    went_down = []

    def fault(i: int) -> None:
        if i == 8:
            wait_for(lambda: central_game(server, uid_of(station, 1)).get("next", 0) >= 5, timeout=15)
            down()
            went_down.append(time.monotonic())
        if i == 16:
            time.sleep(max(0.0, min_outage_s - (time.monotonic() - went_down[0])))
            assert station.forwarder.error is not None  # it noticed, and kept the entries
            up()

    game_id = record(station, record_events().events, pause=0.1, at=fault)
    assert_mirrored(station, game_id, central.db, server)


def test_a_station_forwards_its_game_live_and_the_central_refuses_to_correct_it(tmp_path):
    with forwarding(tmp_path) as (central, station, server, _):
        station.forwarder.start()
        events = record_events().events
        game_id = record(station, events[:10])
        uid = uid_of(station, game_id)
        # live: the first entries are at the central before the game is over
        wait_for(lambda: central_game(server, uid).get("next") == 10, timeout=15)
        for ev in events[10:]:
            station.recorder.append(game_id, ev)
        assert_mirrored(station, game_id, central.db, server)
        assert station.forwarder.error is None

        # idle: the heartbeat keeps station_heard_at moving
        cid = central_game(server, uid)["game_id"]
        heard = lambda: int(httpx.get(f"{server}/api/games/{cid}").json()["meta"]["station_heard_at"])
        first = heard()
        wait_for(lambda: heard() > first, timeout=5, interval=0.2)

        # the central's operator may not write to the station's game: the station corrects it
        director = {"Authorization": f"Bearer {DIRECTOR_TOKEN}"}
        for path, body in ((f"/api/games/{cid}/moves/0/corrections", {"kind": "score", "agreed": 31}),
                           (f"/api/games/{cid}/moves/0/void", {}),
                           (f"/api/games/{cid}/passes", {}),
                           (f"/api/games/{cid}/end", {"reason": "forfeit"}),
                           (f"/api/games/{cid}/clock", {})):
            r = httpx.post(server + path, json=body, headers=director)
            assert r.status_code == 409, (path, r.text)
            assert "station pi-7 at table 7" in r.json()["detail"], r.text
        r = httpx.put(f"{server}/api/games/{cid}/players", headers=director,
                      json={"players": [{"name": "X"}, {"name": "Y"}]})
        assert r.status_code == 409 and "pi-7" in r.json()["detail"]

        # ... and the station's own correction reaches the central
        station.recorder.correct(game_id, 0, ScoreFix(kind="score", agreed=31), by="desk")
        assert_mirrored(station, game_id, central.db, server)
        assert httpx.get(f"{server}/api/games/{cid}/moves").json()[0]["agreed"] == 31


def test_central_killed_mid_stream_and_restarted_loses_and_doubles_nothing(tmp_path):
    with forwarding(tmp_path) as (central, station, server, _):
        record_through_outage(central, station, server, central.kill, central.start)


def test_network_cut_and_restored_loses_and_doubles_nothing(tmp_path):
    with forwarding(tmp_path, through_proxy=True) as (central, station, server, proxy):
        record_through_outage(central, station, server, proxy.cut, proxy.restore, min_outage_s=3.0)


def test_postgresql_restarted_mid_stream_loses_and_doubles_nothing(tmp_path, pg, pg_url, monkeypatch):
    monkeypatch.setenv("TILECAM_STORE_PASSWORD", pg.password)  # for the central, and for reading it back
    try:
        with forwarding(tmp_path, url=pg_url) as (central, station, server, _):
            # the central's database goes away mid-stream; the central itself stays up
            record_through_outage(central, station, server, pg.stop, pg.start)
    finally:
        if not pg.running:
            pg.start()


def test_a_restarted_station_asks_the_central_and_sends_only_what_is_missing(tmp_path):
    with forwarding(tmp_path) as (central, station, server, _):
        events = record_events().events
        game_id = record(station, events[:12], pause=0)
        station.forwarder.step()  # everything so far, then the station "restarts"
        assert station.forwarder.pushed == 12
        store = open_store(tmp_path / "station.sqlite3")
        try:
            again = Forwarder(GameService(store, Bus(1)), Central(server, STATION, STATION_TOKEN), say=lambda m: None)
            sent = watch_calls(again)
            for ev in events[12:]:
                station.recorder.append(game_id, ev)
            again.step()
            assert again.pushed == len(events) - 12
            entries = [e["seq"] for method, path, body in sent if path.endswith("/entries") for e in body["entries"]]
            assert entries == list(range(12, len(events)))  # the first 12 were not sent again
            assert not any(method == "PUT" and path.startswith("/games/") and "/frames/" not in path
                           for method, path, _ in sent)  # nor the header, which did not change
            assert_mirrored(station, game_id, central.db, server)
        finally:
            store.close()


def watch_calls(forwarder: Forwarder) -> list[tuple[str, str, object]]:
    """Every request the forwarder makes from now on, as (method, path, body)."""
    calls, call = [], forwarder.central.call

    def watched(method, path="", body=None):
        calls.append((method, path, body))
        return call(method, path, body)
    forwarder.central.call = watched
    return calls


def test_a_central_that_holds_less_than_the_station_thinks_is_sent_the_rest_from_its_end(tmp_path):
    with forwarding(tmp_path) as (central, station, server, _):
        events = record_events().events
        game_id = record(station, events[:3], pause=0)
        station.forwarder.step()
        for ev in events[3:8]:
            station.recorder.append(game_id, ev)
        uid = uid_of(station, game_id)
        station.forwarder._held[uid].next = 6  # as if a restored central had lost entries 3 to 5
        sent = watch_calls(station.forwarder)
        station.forwarder.step()
        first_seqs = [body["entries"][0]["seq"] for _, path, body in sent if path.endswith("/entries")]
        assert first_seqs == [6, 3]  # refused with the central's next, resent from there
        assert_mirrored(station, game_id, central.db, server)


# ---- bad ingest requests: a 4xx with a message, never a 500 ---------------------------------------

@pytest.fixture(scope="module")
def ingest(tmp_path_factory):
    with LiveServer(tmp_path_factory.mktemp("ingest") / "central.sqlite3") as server:
        yield server


UID = "0123456789abcdef0123456789abcdef"
HEADER = {"players": [{"name": "Ann", "nick": "ann"}, {"name": "Bo", "nick": "bo"}], "rules": "naspa",
          "lang": "en", "meta": {"table": "3"}}


def test_bad_ingest_requests_are_refused_with_a_message(ingest):
    auth = {"Authorization": f"Bearer {TOKEN}"}
    base = f"{ingest.url}/api/stations/s1/games/{UID}"
    with httpx.Client(headers=auth, timeout=10) as c:
        assert c.put(base, json=HEADER).status_code == 200
        play = to_json(record_events().events[0])
        assert c.post(f"{base}/entries", json={"entries": [{"seq": 0, "entry": play}]}).json()["next"] == 1
        again = c.post(f"{base}/entries", json={"entries": [{"seq": 0, "entry": play}]})
        assert again.status_code == 200 and again.json()["next"] == 1  # a resent entry: a no-op

        refusals = [
            (c.post(f"{base}/entries", json={"entries": [{"seq": 5, "entry": play}]}), 409, "send from 1"),
            (c.post(f"{base}/entries", json={"entries": [{"seq": 0, "entry": {**play, "claimed": 99}}]}), 409,
             "never overwritten"),
            (c.post(f"{base}/entries", json={"entries": [{"seq": 0, "entry": play, "sidecar": {"x": 1}}]}), 409,
             "its sidecar"),
            (c.post(f"{base}/entries", json={"entries": [{"seq": 1, "entry": {"kind": "nope"}}]}), 422, "nope"),
            (c.post(f"{base}/entries", json={"entries": [{"seq": 1, "entry": {"kind": "play", "player": 0}}]}),
             422, "bad play"),
            (c.post(f"{base}/entries", json={"entries": [{"seq": 1, "entry": play}]}), 422, "does not replay"),
            (c.post(f"{base}/entries", json={"entries": [{"seq": 2, "entry": play}, {"seq": 1, "entry": play}]}),
             422, "consecutive"),
            (c.post(f"{base}/entries", json={"entries": []}), 422, "entries"),
            (c.post(f"{base}/entries", content=b"{not json", headers={"Content-Type": "application/json"}),
             422, "not valid JSON"),
            (c.post(f"{ingest.url}/api/stations/s1/games/{'f' * 32}/entries",
                    json={"entries": [{"seq": 0, "entry": play}]}), 404, "header first"),
            (c.put(f"{base}/frames/0", content=b"not a jpeg"), 422, "frame"),
            (c.put(f"{base}/frames/3", content=jpeg(1)), 409, "send entries from 1"),
            (c.put(base, json={**HEADER, "rules": "wespa"}), 409, "rules never change"),
            (c.put(base, json={**HEADER, "rules": "chess"}), 422, "unknown rules"),
            (c.put(base, json={**HEADER, "meta": {"bad key": "x"}}), 422, "meta"),
            (c.put(base, json={**HEADER, "players": [{"name": "Ann", "nick": "a:b"}, {"name": "Bo", "nick": "bo"}]}),
             422, "nick"),
            (c.put(f"{ingest.url}/api/stations/s1/games/NOT-A-UID", json=HEADER), 422, "uid"),
            (c.put(f"{ingest.url}/api/stations/s%20x/games/{UID}", json=HEADER), 422, "station"),
            (c.put(f"{ingest.url}/api/stations/s2/games/{UID}", json=HEADER), 409, "forwarded by station s1"),
            (httpx.put(base, json=HEADER), 401, "Bearer"),
        ]
        for r, status, words in refusals:
            assert r.status_code == status, (r.request.url, r.text)
            assert words in r.json()["detail"], (words, r.text)
        gap = refusals[0][0].json()
        assert gap["next"] == 1
        assert c.put(f"{base}/frames/0", content=jpeg(1)).json()["frames"] == [0]
        state = c.get(f"{ingest.url}/api/stations/s1").json()["games"]
        assert [(g["uid"], g["next"], g["frames"]) for g in state] == [(UID, 1, [0])]
        assert c.post(f"{ingest.url}/api/stations/s1/heartbeat", json={"games": [UID, "e" * 32]}).json() == \
            {UID: state[0]["game_id"]}


def test_a_header_takes_every_nick_the_station_takes(ingest):
    # A liwords game (josh_nationals_round_9.gcg) imported at a station has a nick of 42 characters.
    from tilecam.scoring.gcg import NICK_MAX

    auth = {"Authorization": f"Bearer {TOKEN}"}
    base = f"{ingest.url}/api/stations/s3/games/{'a' * 32}"
    players = lambda nick: {**HEADER, "players": [{"name": "Ann", "nick": nick}, {"name": "Bo", "nick": "bo"}]}
    ok = httpx.put(base, json=players("N" * NICK_MAX), headers=auth)
    assert ok.status_code == 200, ok.text
    too_long = httpx.put(base, json=players("N" * (NICK_MAX + 1)), headers=auth)
    assert too_long.status_code == 422 and "nick" in too_long.json()["detail"]


def test_a_station_restored_from_an_older_copy_is_told_the_records_diverged(tmp_path):
    import sqlite3

    from tilecam.api.station.forwarder import Refused

    with forwarding(tmp_path) as (central, station, server, _):
        events = record_events().events
        game_id = record(station, events[:3], pause=0)
        station.forwarder.step()  # the uid is in the store from here on
        backup = tmp_path / "backup.sqlite3"
        with sqlite3.connect(tmp_path / "station.sqlite3") as src, sqlite3.connect(backup) as dst:
            src.backup(dst)
        for ev in events[3:6]:
            station.recorder.append(game_id, ev)
        station.forwarder.step()
        store = open_store(backup)  # the station's card replaced by the older copy
        try:
            restored = Forwarder(GameService(store, Bus(1)), Central(server, STATION, STATION_TOKEN), say=lambda m: None)
            with pytest.raises(Refused, match="the central holds 6 entries of game .*, this station 3: .*diverged"):
                restored.step()
            assert central_game(server, uid_of(station, game_id))["next"] == 6  # nothing was taken back
        finally:
            store.close()


def test_the_station_s_console_address_and_its_clock_reach_the_central(tmp_path):
    """The heartbeat carries the station's address (/tournament links its console, where the game is
    corrected) and its clock, sent at once when pressed: the central's /api/tables, live state and
    OBS fields show it, running down between heartbeats."""
    central = Central_(tmp_path).start()
    path = tmp_path / "station.sqlite3"
    recorder = GameService(open_store(path), Bus(8))
    fw_store = open_store(path)

    def clock_of(game_id):
        clock = recorder.clock_now(game_id)
        return None if clock is None else clock.model_dump()

    forwarder = Forwarder(GameService(fw_store, Bus(1)), Central(central.url, STATION, STATION_TOKEN, timeout_s=2.0),
                          retry_initial_s=0.05, retry_max_s=0.4, heartbeat_s=30.0, say=lambda m: None,
                          url="http://pi-7.local:8000", clock_of=clock_of)
    try:
        gid = recorder.create_game([("Cesar", "cesar"), ("Josh", "josh")], meta={"table": "7"}).id
        recorder.start_clock(gid)
        forwarder.start()
        recorder.clock_press(gid, None)  # Cesar's clock runs
        table = lambda: (httpx.get(f"{central.url}/api/tables").json()["tables"] or [{"clock": None}])[0]
        t = wait_for(lambda: (lambda t: t if t["clock"] and t["clock"]["running"] == 0 else None)(table()), timeout=15)
        assert t["station"]["url"] == "http://pi-7.local:8000"
        assert t["links"]["operator"] == t["station"]["console"] == f"http://pi-7.local:8000/operator?game={gid}"
        assert t["clocks"][1] == "25:00" and t["clocks"][0] <= "25:00"
        # A press goes out at once (the heartbeat is 30 s here): Josh's clock runs at the central too.
        recorder.clock_press(gid, 0)
        t = wait_for(lambda: (lambda t: t if t["clock"]["running"] == 1 else None)(table()), timeout=5)
        cid = t["game_id"]
        first = httpx.get(f"{central.url}/api/games/{cid}/live").json()["clock"]["remaining_ms"][1]
        time.sleep(1.1)  # ... and runs down there between heartbeats
        live = httpx.get(f"{central.url}/api/games/{cid}/live").json()
        assert live["clock"]["remaining_ms"][1] <= first - 1000 and live["fields"]["p2_clock"] < "25:00"
        assert httpx.get(f"{central.url}/api/tables/7/fields/p1_clock").text == t["clocks"][0]
    finally:
        forwarder.stop()
        recorder.store.close()
        fw_store.close()
        central.stop()
