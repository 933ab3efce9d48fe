"""tilecam run: one process records a source, serves the API and the live preview, and picks its
game up again after kill -9. The source is the demo's rendered video (two plays, about six
seconds played at its own frame rate), as `tilecam demo --render-only` makes it."""
from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path

import cv2
import httpx
import numpy as np
import pytest
from gpiozero.pins.mock import MockFactory

from tilecam.api.demo.game import make_demo_game
from tilecam.api.settings import ServerSettings, load_settings
from tilecam.api.station import Hooks, Job, Station, app_server

pytestmark = pytest.mark.slow  # end to end (see pyproject's markers)

REPO = Path(__file__).resolve().parents[3]
TOKEN = "run-test-operator-token"
MOVES = 2  # the demo game's first two turns (two plays): the video `tilecam demo --moves 2` renders


def cli(*args: str, **kw) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "tilecam.api.cli", *args], capture_output=True, text=True,
                          cwd=REPO, **kw)


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@pytest.fixture(scope="module")
def video(tmp_path_factory) -> Path:
    r = cli("demo", "--render-only", "--moves", str(MOVES), "--cache", str(tmp_path_factory.mktemp("cache")),
            timeout=300)
    assert r.returncode == 0, r.stderr
    path = Path(r.stdout.strip())  # the path and nothing else: `tilecam run --source "$(...)"`
    assert path.is_file() and path.suffix == ".avi"
    return path


def start(video: Path, cfg: Path) -> subprocess.Popen:
    return subprocess.Popen([sys.executable, "-m", "tilecam.api.cli", "run", "--source", str(video),
                             "--config", str(cfg)], cwd=REPO, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True, env={**os.environ, "TILECAM_TOKEN": TOKEN})


def wait_up(proc: subprocess.Popen, client: httpx.Client, timeout: float = 60.0) -> None:
    deadline = time.monotonic() + timeout
    while True:
        try:
            client.get("/api/games").raise_for_status()
            return
        except httpx.TransportError:
            assert proc.poll() is None, f"tilecam run exited: {proc.communicate()[1]}"
            assert time.monotonic() < deadline, "tilecam run did not start serving"
            time.sleep(0.1)


def one_preview_frame(client: httpx.Client) -> np.ndarray:
    """The first JPEG of the MJPEG stream, decoded."""
    buf = b""
    with client.stream("GET", "/api/preview.mjpg", timeout=20) as r:
        assert r.status_code == 200 and r.headers["content-type"].startswith("multipart/x-mixed-replace")
        for chunk in r.iter_bytes():
            buf += chunk
            start = buf.find(b"\xff\xd8")
            end = buf.find(b"\xff\xd9", start + 2)
            if start >= 0 and end > 0:
                image = cv2.imdecode(np.frombuffer(buf[start:end + 2], np.uint8), cv2.IMREAD_COLOR)
                assert image is not None
                return image
    raise AssertionError("the preview stream ended without a frame")


def test_run_records_serves_the_preview_and_resumes_after_kill_9(video, tmp_path):
    port = free_port()
    db = tmp_path / "station.sqlite3"
    cfg = tmp_path / "tilecam.toml"
    cfg.write_text(f'[server]\nport = {port}\n\n[store]\ndb_path = "{db}"\n\n[recorder]\npreview_every_ms = 50\n')
    truth = make_demo_game(MOVES)
    want = [(e.placement.tiles, e.engine) for e in truth.events]
    with httpx.Client(base_url=f"http://127.0.0.1:{port}", timeout=10) as client:
        proc = start(video, cfg)
        try:
            wait_up(proc, client)
            games = client.get("/api/games").json()
            assert len(games) == 1
            gid = games[0]["id"]
            # The preview shows the camera's frames, from the same process that records them.
            frame = one_preview_frame(client)
            assert frame.shape[:2] == (960, 1280)
            # The moves appear one by one as they are committed: kill -9 right after the first.
            deadline = time.monotonic() + 60
            while not (moves := client.get(f"/api/games/{gid}/moves").json()):
                assert proc.poll() is None and time.monotonic() < deadline, "no move committed"
                time.sleep(0.05)
            assert len(moves) == 1 and moves[0]["word"] and moves[0]["engine"] == want[0][1]
        finally:
            proc.send_signal(signal.SIGKILL)
            proc.wait(30)

        proc = start(video, cfg)  # the same command, as systemd's Restart= would run it
        try:
            wait_up(proc, client)
            deadline = time.monotonic() + 90
            while client.get("/api/status").json().get("source") != "ended":
                assert proc.poll() is None and time.monotonic() < deadline, "the video did not play through"
                assert len(client.get(f"/api/games/{gid}/moves").json()) <= MOVES
                time.sleep(0.1)
            assert [g["id"] for g in client.get("/api/games").json()] == [gid]  # the same game, no second one
            moves = client.get(f"/api/games/{gid}/moves").json()
            # the first play is not there twice, and both are the plays of the game
            assert [m["engine"] for m in moves] == [e for _, e in want]
            assert [m["kind"] for m in moves] == ["play"] * MOVES and moves[1]["cumulative"] == want[1][1]
        finally:
            proc.send_signal(signal.SIGINT)  # how systemd stops the unit
            out, err = proc.communicate(timeout=30)
        assert f"resuming game {gid}" in out and "(1 entries)" in out
        assert proc.returncode == 0, err
        assert "Traceback" not in err


def _played_through(proc: subprocess.Popen, client: httpx.Client) -> None:
    deadline = time.monotonic() + 90
    while client.get("/api/status").json().get("source") != "ended":
        assert proc.poll() is None and time.monotonic() < deadline, "the video did not play through"
        time.sleep(0.1)


def _unclocked(live: dict) -> dict:
    """The live state but its clock (which runs on between two reads)."""
    return {**{k: v for k, v in live.items() if k != "clock"},
            "fields": {k: v for k, v in live["fields"].items() if not k.endswith("_clock")}}


def test_run_killed_with_its_clock_running_resumes_the_same_clock(video, tmp_path):
    """Issue 46: the clock is in the game's log. A station's clock started, pressed twice (Ben's clock
    running), the station SIGKILLed and started again: Ann's time is as it was to the millisecond,
    Ben's ran on through the dead time (a real clock runs while the station is down), the same player
    on turn and on the clock, the same flags and fields."""
    port = free_port()
    db = tmp_path / "station.sqlite3"
    cfg = tmp_path / "tilecam.toml"
    cfg.write_text(f'[server]\nport = {port}\n\n[store]\ndb_path = "{db}"\n')
    with httpx.Client(base_url=f"http://127.0.0.1:{port}", timeout=10) as client:
        proc = start(video, cfg)
        try:
            wait_up(proc, client)
            _played_through(proc, client)
            gid = client.get("/api/games").json()[0]["id"]
            auth = {"Authorization": f"Bearer {TOKEN}"}
            assert client.get(f"/api/games/{gid}/live").json()["clock"]["started"] is False  # the station's own
            for player in (None, 0):   # the first press starts Ann's clock; Ann ends her turn
                r = client.post(f"/api/games/{gid}/clock/press", json={"player": player}, headers=auth)
                assert r.status_code == 200, r.text
                time.sleep(0.5)
            before = client.get(f"/api/games/{gid}/live").json()
        finally:
            proc.send_signal(signal.SIGKILL)
            proc.wait(30)
        time.sleep(2.0)  # dead
        proc = start(video, cfg)  # the same command, as systemd's Restart= would run it
        try:
            wait_up(proc, client)
            _played_through(proc, client)
            after = client.get(f"/api/games/{gid}/live").json()
        finally:
            proc.send_signal(signal.SIGINT)
            out, err = proc.communicate(timeout=30)
    assert f"resuming game {gid}" in out and "Traceback" not in err and proc.returncode == 0, err
    was, now = before["clock"], after["clock"]
    assert was["on_clock"] == now["on_clock"] == 1 and now["running"] == 1 and now["started"]
    assert now["remaining_ms"][0] == was["remaining_ms"][0] < 25 * 60_000           # Ann's: as it was
    ran_ms = (now["at"] - was["at"]) * 1000                                        # Ben's ran on, dead or not
    assert ran_ms > 2000 and abs((was["remaining_ms"][1] - now["remaining_ms"][1]) - ran_ms) < 100
    assert _unclocked(after) == _unclocked(before)


@pytest.mark.parametrize("toml,key", [
    ("[track]\nmin_redetect_qualty = 0.7\n", "track.min_redetect_qualty"),   # a typo
    ("[track]\nmin_redetect_quality = 7\n", "track.min_redetect_quality"),   # out of bounds
    ("[capture]\nfps = -1\n", "capture.fps"),
], ids=["unknown key", "out of bounds", "negative fps"])
def test_a_bad_setting_fails_at_start_naming_its_key(tmp_path, toml, key):
    cfg = tmp_path / "tilecam.toml"
    cfg.write_text(toml)
    r = cli("run", "--source", str(tmp_path), "--config", str(cfg), timeout=60)
    assert r.returncode == 2 and r.stderr.startswith("tilecam run: ") and key in r.stderr, r.stderr
    assert "Traceback" not in r.stderr


def test_a_port_in_use_is_refused_before_anything_is_ready(tmp_path):
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        port = busy.getsockname()[1]
        r = cli("run", "--source", str(tmp_path), "--db", str(tmp_path / "x.sqlite3"), "--port", str(port),
                timeout=60, env={**os.environ, "TILECAM_TOKEN": TOKEN})
        served = cli("serve", "--db", str(tmp_path / "x.sqlite3"), "--port", str(port), timeout=60,
                     env={**os.environ, "TILECAM_TOKEN": TOKEN})
    for cmd, done in (("run", r), ("serve", served)):
        assert done.returncode == 2, done.stderr
        assert f"port {port}" in done.stderr and "--port" in done.stderr   # which port, and the option to pick another
        assert done.stdout == "" and "Traceback" not in done.stderr
    assert not (tmp_path / "x.sqlite3").exists()  # refused before a game was created


def test_a_source_that_does_not_open_is_exit_2(tmp_path):
    r = cli("run", "--source", str(tmp_path / "nothing.avi"), "--db", str(tmp_path / "x.sqlite3"), timeout=120,
            env={**os.environ, "TILECAM_TOKEN": TOKEN})
    assert r.returncode == 2 and "nothing.avi" in r.stderr and "Traceback" not in r.stderr
    from tilecam.api.store import open_store
    store = open_store(tmp_path / "x.sqlite3")
    try:
        assert store.games() == []  # no empty game left behind
    finally:
        store.close()


def test_the_buttons_run_the_clock_then_the_recorder_and_the_led_shows_its_state(video, tmp_path):
    """In one process, through gpiozero's mock pins: the first clock press starts the clock, the next
    ends player 1's turn (the other clock runs and the recorder is asked for a snapshot), the challenge
    button reaches the recorder; the LED stays on while the board is in view and goes dark at the end."""
    pins = MockFactory()
    settings = load_settings(store={"db_path": str(tmp_path / "b.sqlite3")},
                             buttons={"enabled": True, "debounce_ms": 0}, leds={"enabled": True})
    seen = []
    station = Station(settings, Job(str(video), new_game=True, pace=False),
                      Hooks(on_outcome=lambda f, o: seen.append((o.state, station.led.state))), pin_factory=pins)

    def press(pin_number) -> None:
        pin = pins.pin(pin_number)
        pin.drive_low()
        pin.drive_high()

    def until(done, what) -> None:
        deadline = time.monotonic() + 5
        while not done():  # gpiozero calls back on its own thread
            assert time.monotonic() < deadline, what
            time.sleep(0.01)

    try:
        station.open().start()
        assert station.wait(120)
        gid = station.recording.game_id
        assert len(station.service.load(gid).events) == MOVES
        assert {led for state, led in seen if state == "clear"} == {"recording"}
        assert station.led.state == "idle"  # the source has ended: nothing is being recorded
        clock = lambda: station.service.live(gid).clock  # noqa: E731
        assert clock() is not None and not clock().running
        press(settings.buttons.player1_pin)
        until(lambda: clock().started, "the first press did not start the clock")
        assert clock().running == 0
        snapshots = []
        station.recorder.press = lambda player=None: snapshots.append(player)
        press(settings.buttons.player1_pin)
        until(lambda: clock().running == 1, "player 1's press did not start player 2's clock")
        assert snapshots == [0]
        fields = station.service.live(gid).fields
        assert fields["p1_clock"] in ("25:00", "24:59") and fields["p2_clock"] in ("25:00", "24:59")
        press(settings.buttons.challenge_pin)
        until(lambda: any("challenge" in n for n in station.recorder.notices), "no challenge notice")

        # The station's app over real HTTP: a press from the console or /api/trigger takes the buttons'
        # path, handed over as JSON (the web builds no hardware Trigger; station/triggers.py:from_http)
        app, port = station.create_app(), free_port()
        server = app_server(app, ServerSettings(port=port))
        threading.Thread(target=server.run, daemon=True).start()
        until(lambda: server.started, "the station's app did not start")
        token = next(iter(app.state.tokens.values()))
        try:
            with httpx.Client(base_url=f"http://127.0.0.1:{port}", timeout=10,
                              headers={"Authorization": f"Bearer {token}"}) as http:
                r = http.post(f"/api/games/{gid}/clock/press", json={"player": 1})
                assert r.status_code == 200 and r.json()["clock"]["running"] == 0
                assert snapshots == [0, 1]  # the recorder heard player 2's turn end, as from their button
                r = http.post("/api/trigger", json={"kind": "challenge", "player": 0})
                assert r.status_code == 200 and r.json()["action"] == "notice"
                assert r.json()["trigger"]["source"] == "http" and r.json()["trigger"]["player"] == 0
                r = http.post("/api/trigger", json={"kind": "teleport"})
                assert r.status_code == 422 and "unknown trigger kind" in r.json()["detail"]
        finally:
            server.should_exit = True
    finally:
        station.close()


def test_the_station_settings_in_docs_pi_md_are_valid(tmp_path):
    """The tilecam.toml that docs/pi.md's step 8 tells a Pi owner to write starts the station."""
    text = (REPO / "docs" / "pi.md").read_text(encoding="utf-8")
    step = text[text.index("## 8."):]
    block = step[step.index("```toml") + len("```toml"):]
    cfg = tmp_path / "tilecam.toml"
    cfg.write_text(block[:block.index("```")])
    settings = load_settings(cfg)
    assert settings.server.host == "0.0.0.0" and settings.capture.source == "picam"
    assert settings.buttons.enabled and settings.leds.enabled
    unit = (REPO / "hardware" / "deploy" / "tilecam.service").read_text(encoding="utf-8")
    assert 'TILECAM_ARGS=run --config /home/pi/tilecam/tilecam.toml"' in unit
