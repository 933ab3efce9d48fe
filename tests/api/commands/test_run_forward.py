"""tilecam run with [tournament] server set: the Station starts its forwarder, says where it
forwards to, and the central service ends up with the station's game (the demo's rendered video,
two plays), its table and station name, entry for entry."""
from __future__ import annotations

import signal
import time

import httpx
import pytest

from apiserver import TOKEN, LiveServer, wait_for
from tilecam.api.store import open_store
from test_run import cli, free_port, start, video, wait_up  # noqa: F401  (the video fixture)

pytestmark = pytest.mark.slow


def test_run_forwards_its_game_to_the_central_service(video, tmp_path):  # noqa: F811
    token_file = tmp_path / "station.token"
    token_file.write_text(TOKEN + "\n")
    token_file.chmod(0o600)
    with LiveServer(tmp_path / "central.sqlite3") as central:
        port = free_port()
        cfg = tmp_path / "tilecam.toml"
        cfg.write_text(f'[server]\nport = {port}\n\n[store]\ndb_path = "{tmp_path / "station.sqlite3"}"\n\n'
                       f'[tournament]\nserver = "{central.url}"\ntoken_file = "{token_file}"\ntable = 5\n'
                       f'station = "pi-5"\nretry_initial_s = 0.1\n')
        with httpx.Client(base_url=f"http://127.0.0.1:{port}", timeout=10) as station:
            proc = start(video, cfg)
            try:
                wait_up(proc, station)
                deadline = time.monotonic() + 90
                while station.get("/api/status").json().get("source") != "ended":
                    assert proc.poll() is None and time.monotonic() < deadline, "the video did not play through"
                    time.sleep(0.1)
                (game,) = station.get("/api/games").json()
                ours = station.get(f"/api/games/{game['id']}.json").json()["log"]
                assert len(ours) >= 2

                def mirrored():
                    theirs = central.service.table_games(5)
                    return theirs and central.service.count(theirs[-1]) == len(ours) and theirs[-1]
                cid = wait_for(mirrored, timeout=20)
                meta = central.service.game(cid).meta
                assert (meta["station"], meta["table"]) == ("pi-5", "5")
                assert meta["station_uid"] == station.get(f"/api/games/{game['id']}").json()["meta"]["station_uid"]
                with httpx.Client(base_url=central.url) as c:
                    strip = lambda log: [{k: v for k, v in e.items() if k != "created"} for e in log]
                    assert strip(c.get(f"/api/games/{cid}.json").json()["log"]) == strip(ours)
                    assert c.get(f"/api/games/{cid}.gcg").text == station.get(f"/api/games/{game['id']}.gcg").text
                assert station.get("/api/status").json()["forward"]["error"] is None
                # The heartbeat names the station's own address ([server]: 127.0.0.1 here), for the
                # console link on the central's /tournament.
                url = wait_for(lambda: central.service.game(cid).meta.get("station_url"), timeout=20)
                assert url == f"http://127.0.0.1:{port}"
                row = httpx.get(f"{central.url}/api/tables").json()["tables"][0]
                assert row["links"]["operator"] == f"http://127.0.0.1:{port}/operator?game={game['id']}"
            finally:
                proc.send_signal(signal.SIGINT)
                out, err = proc.communicate(timeout=30)
    assert f"forwarding to     {central.url} as station pi-5, table 5" in out
    assert f"http://127.0.0.1:{port}/operator" in out
    assert proc.returncode == 0, err
    assert "Traceback" not in err


def test_a_token_file_others_can_read_stops_the_start_before_any_game(tmp_path):
    token_file = tmp_path / "station.token"
    token_file.write_text(TOKEN + "\n")
    token_file.chmod(0o644)
    db = tmp_path / "station.sqlite3"
    cfg = tmp_path / "tilecam.toml"
    cfg.write_text(f'[store]\ndb_path = "{db}"\n\n[tournament]\nserver = "http://127.0.0.1:9"\n'
                   f'token_file = "{token_file}"\n')
    r = cli("run", "--source", str(tmp_path), "--config", str(cfg), "--port", str(free_port()), timeout=120)
    assert r.returncode == 2
    assert str(token_file) in r.stderr and "0644" in r.stderr and "chmod 600" in r.stderr
    assert "Traceback" not in r.stderr
    store = open_store(db)  # nothing was recorded: no game was made
    try:
        assert store.games() == []
    finally:
        store.close()
