"""The recorder routes over real HTTP: status, and clock presses sent as HTTP triggers."""
from __future__ import annotations

import httpx

from apiserver import AUTH, LiveServer
from tilecam.api.station.triggers import from_http
from tilecam.scoring import MAX_PLAYERS


def test_http_trigger_reaches_the_recorder_and_status_shows_it(tmp_path):
    received = []
    with LiveServer(tmp_path / "r.sqlite3") as server, httpx.Client(base_url=server.url, timeout=10) as client:
        assert client.get("/api/status").json() == {}
        r = client.post("/api/trigger", json={"kind": "turn_end", "player": 0}, headers=AUTH)
        assert r.status_code == 409 and "no recorder" in r.json()["detail"]
        server.app.state.on_trigger = from_http(lambda t: received.append(t) or "snapshot")  # as the station does
        server.app.state.status = lambda: {"camera": "connected", "frames": len(received)}
        assert client.post("/api/trigger", json={"kind": "turn_end", "player": 0}).status_code in (401, 403)
        r = client.post("/api/trigger", json={"kind": "turn_end", "player": 1}, headers=AUTH)
        assert r.status_code == 200 and r.json()["action"] == "snapshot"
        assert received[0].kind == "turn_end" and received[0].player == 1 and received[0].source == "http"
        bad = client.post("/api/trigger", json={"kind": "teleport"}, headers=AUTH)
        assert bad.status_code == 422 and "unknown trigger kind" in bad.json()["detail"]
        # the seats a press may name are the rules' (scoring.MAX_PLAYERS), which the station hands hardware
        bad = client.post("/api/trigger", json={"kind": "turn_end", "player": MAX_PLAYERS}, headers=AUTH)
        assert bad.status_code == 422 and bad.json()["detail"] == \
            f"player must be 0 to {MAX_PLAYERS - 1} or null, got {MAX_PLAYERS}", bad.text
        assert client.post("/api/trigger", json={"kind": "undo", "player": MAX_PLAYERS - 1},
                           headers=AUTH).status_code == 200
        received.pop()
        assert client.get("/api/status").json() == {"camera": "connected", "frames": 1}
