"""Rack reads forwarded like entries (issue 30), to a real `tilecam serve` on PostgreSQL: every row of
the station's rack log (reads and the operator's confirmations) at the central once, in order, with
its evidence frame; the central's pages show the racks; a restarted forwarder resends nothing it
holds; a bad forwarded row is a 4xx with a message."""
from __future__ import annotations

import base64

import httpx
import pytest

from apiserver import TOKEN
from test_forwarder import (DIRECTOR_TOKEN, STATION, STATION_TOKEN, central_game, forwarding, jpeg, record,  # noqa: F401
                          record_events, uid_of, watch_calls, ingest, UID, HEADER)
from tilecam.api.bus import Bus
from tilecam.api.service import GameService
from tilecam.api.station.forwarder import Central, Forwarder
from tilecam.api.store import open_store
from apiserver import wait_for

pytestmark = pytest.mark.slow


def seen(player: int, tiles: str, certainty: float = 0.99) -> dict:
    # marked for review as the station marks it, against [racks] review_below
    return {"player": player, "t": 3.0, "tiles": list(tiles), "certainty": [certainty] * len(tiles), "frame": None,
            "review": certainty < 0.9}


def test_rack_reads_reach_a_postgresql_central_once_in_order_with_their_frames(tmp_path, pg, pg_url, monkeypatch):
    monkeypatch.setenv("TILECAM_STORE_PASSWORD", pg.password)
    with forwarding(tmp_path, url=pg_url) as (central, station, server, _):
        events = record_events().events
        game_id = record(station, events[:2], pause=0)
        rec = station.recorder
        rec.add_rack(game_id, seen(0, "AEINRST"), jpeg=jpeg(1))
        rec.add_rack(game_id, seen(1, "QUIZJXK", certainty=0.3), jpeg=jpeg(2))
        rec.confirm_rack(game_id, 1, "QUIZJX?", "desk")
        station.forwarder.step()
        uid = uid_of(station, game_id)
        assert central_game(server, uid)["racks"] == 3
        store = open_store(central.db)
        try:
            mirror = GameService(store, Bus(1))
            cid = central_game(server, uid)["game_id"]
            theirs, ours = mirror.rack_log(cid), rec.rack_log(game_id)
            assert [(r.seq, r.kind, r.data, r.frame) for r in theirs] == [(r.seq, r.kind, r.data, r.frame) for r in ours]
            assert mirror.rack_frame(cid, 0).jpeg == jpeg(1) and mirror.rack_frame(cid, 1).jpeg == jpeg(2)
        finally:
            store.close()
        # the central's pages show them, as on air there ...
        # (on air by default a turn late: none yet; the director sees them as read)
        assert "AEINRST" not in httpx.get(f"{server}/api/games/{cid}/live").text
        live = httpx.get(f"{server}/api/games/{cid}/live",
                         headers={"Authorization": f"Bearer {DIRECTOR_TOKEN}"}).json()
        assert live["fields"]["rack1"] == "AEINRST" and live["fields"]["rack2"] == "QUIZJX?"
        assert "AEINRST" not in httpx.get(f"{server}/api/games/{cid}/live?racks=off").text
        # ... its operator cannot confirm the station's racks: the station's operator does
        r = httpx.post(f"{server}/api/games/{cid}/racks/0/confirm", headers={"Authorization": f"Bearer {DIRECTOR_TOKEN}"})
        assert r.status_code == 409 and STATION in r.json()["detail"]
        # a restarted station sends only the rows the central lacks
        rec.add_rack(game_id, seen(0, "EINRSTU"))
        rec.add_rack(game_id, seen(1, ""))   # an empty rack (issue 43): a read, forwarded as any other
        fw_store = open_store(tmp_path / "station.sqlite3")
        try:
            again = Forwarder(GameService(fw_store, Bus(1)), Central(server, STATION, STATION_TOKEN), say=lambda m: None)
            sent = watch_calls(again)
            again.step()
            assert [body["seq"] for _, path, body in sent if path.endswith("/racks")] == [3, 4]
        finally:
            fw_store.close()
        wait_for(lambda: httpx.get(f"{server}/api/games/{cid}/fields/rack1", headers={
            "Authorization": f"Bearer {DIRECTOR_TOKEN}"}).text == "EINRSTU", timeout=10)
        racks = httpx.get(f"{server}/api/games/{cid}/live", headers={"Authorization": f"Bearer {DIRECTOR_TOKEN}"}).json()
        assert racks["racks"][1]["tiles"] == []   # player 2's rack as last read: empty


def test_bad_forwarded_rack_rows_are_refused_with_a_message(ingest):
    auth = {"Authorization": f"Bearer {TOKEN}"}
    base = f"{ingest.url}/api/stations/s9/games/{UID}"
    with httpx.Client(headers=auth, timeout=10) as c:
        assert c.post(f"{base}/racks", json={"seq": 0, "kind": "seen", "data": {}}).status_code == 404  # no header yet
        assert c.put(base, json=HEADER).status_code == 200
        good = {"player": 0, "t": 1.0, "tiles": ["A"], "certainty": [1.0], "turn": 0}
        for body, status in (
                ({"seq": 0, "kind": "guess", "data": good}, 422),
                ({"seq": 0, "kind": "seen", "data": {"tiles": "A"}}, 422),
                ({"seq": 0, "kind": "confirm", "data": {"target": 0, "tiles": []}}, 422),
                ({"seq": 0, "kind": "seen", "data": good, "jpeg": "not base64!"}, 422),
                ({"seq": 0, "kind": "seen", "data": good, "jpeg": base64.b64encode(b"not a jpeg").decode()}, 422),
                ({"seq": 2, "kind": "seen", "data": good}, 409),
                ({"seq": 0, "kind": "seen", "data": good}, 200),
                ({"seq": 0, "kind": "seen", "data": good}, 200),  # the same again: a no-op
                ({"seq": 0, "kind": "seen", "data": {**good, "tiles": ["B"]}}, 409)):
            r = c.post(f"{base}/racks", json=body)
            assert r.status_code == status and r.json(), (body, r.text)
            if status >= 400:
                assert r.json()["detail"], r.text
        assert c.get(f"{ingest.url}/api/stations/s9").json()["games"][0]["racks"] == 1
