"""The game clock over real HTTP: start, press, pause, undo, the p1_clock... fields, overtime into
the record at the end, and the buttons' trigger path when a recorder records the game."""
from __future__ import annotations

import pytest

from apiserver import AUTH, SseReader, api, client, new_game  # noqa: F401  (fixtures)
from tilecam.api.station.triggers import connect, from_http
from tilecam.hardware.triggers import Trigger

MIN = 60.0


class FakeTime:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


@pytest.fixture
def t(api):
    fake = FakeTime()
    saved = api.service.steady
    api.service.steady = fake
    yield fake
    api.service.steady = saved


def clock_game(client, **kw) -> int:
    gid = new_game(client, **kw)
    r = client.post(f"/api/games/{gid}/clock", json={}, headers=AUTH)
    assert r.status_code == 201, r.text
    return gid


def post(client, gid: int, what: str, body: dict | None = None, status: int = 200) -> dict:
    r = client.post(f"/api/games/{gid}/clock/{what}", json=body, headers=AUTH) if body is not None else \
        client.post(f"/api/games/{gid}/clock/{what}", headers=AUTH)
    assert r.status_code == status, r.text
    return r.json()


def fields(client, gid: int) -> dict:
    return client.get(f"/api/games/{gid}/fields").json()


def test_a_game_without_a_clock_has_empty_clock_fields(client):
    gid = new_game(client)
    live = client.get(f"/api/games/{gid}/live").json()
    assert live["clock"] is None
    assert [live["fields"][f"p{i}_clock"] for i in (1, 2, 3, 4)] == ["", "", "", ""]
    assert client.get(f"/api/games/{gid}/fields/p1_clock").text == ""
    r = client.post(f"/api/games/{gid}/clock/press", json={}, headers=AUTH)
    assert r.status_code == 404 and "has no clock" in r.json()["detail"]


def test_start_a_clock_and_what_is_refused(client, t):
    gid = clock_game(client)
    live = client.get(f"/api/games/{gid}/live").json()
    assert live["clock"]["remaining_ms"] == [25 * 60_000] * 2 and live["clock"]["started"] is False
    assert (live["fields"]["p1_clock"], live["fields"]["p2_clock"], live["fields"]["p3_clock"]) == \
        ("25:00", "25:00", "")
    r = client.post(f"/api/games/{gid}/clock", json={}, headers=AUTH)
    assert r.status_code == 409 and "already has a clock" in r.json()["detail"]
    assert client.post(f"/api/games/{gid}/clock/pause").status_code == 401
    assert client.post("/api/games/99999/clock", json={}, headers=AUTH).status_code == 404
    r = client.post(f"/api/games/{new_game(client)}/clock", json={"minutes": 0}, headers=AUTH)
    assert r.status_code == 422 and "minutes" in r.json()["detail"]
    box = client.post("/api/games", json={"players": [{"name": n} for n in "ABC"], "rules": "box"},
                      headers=AUTH).json()["id"]
    r = client.post(f"/api/games/{box}/clock", json={}, headers=AUTH)
    assert r.status_code == 422 and "no time control" in r.json()["detail"]
    r = client.post(f"/api/games/{box}/clock", json={"minutes": 20}, headers=AUTH)
    assert r.status_code == 201 and r.json()["fields"]["p3_clock"] == "20:00"


def test_presses_switch_the_clock_and_the_fields_count_down(client, t):
    gid = clock_game(client)
    clock = post(client, gid, "press", {"player": 1})["clock"]          # starts player 0's clock
    assert (clock["started"], clock["running"]) == (True, 0)
    t.now += 90.5
    f = fields(client, gid)
    assert (f["p1_clock"], f["p2_clock"]) == ("23:30", "25:00")
    r = client.post(f"/api/games/{gid}/clock/press", json={"player": 1}, headers=AUTH)
    assert r.status_code == 409 and "player 1's clock is not running" in r.json()["detail"]
    r = client.post(f"/api/games/{gid}/clock/press", json={"player": 5}, headers=AUTH)
    assert r.status_code == 422 and "no player 5" in r.json()["detail"]
    clock = post(client, gid, "press", {"player": 0})["clock"]
    assert clock["running"] == 1 and clock["remaining_ms"] == [25 * 60_000 - 90_500, 25 * 60_000]
    t.now += 10
    assert client.get(f"/api/games/{gid}/fields/p2_clock").text == "24:50"
    # Held by mistake: the press is taken back, player 0's clock runs on from their press.
    clock = post(client, gid, "undo", {"player": 0})["clock"]
    assert clock["running"] == 0 and clock["remaining_ms"] == [25 * 60_000 - 100_500, 25 * 60_000]


def test_the_first_press_starts_the_clock_of_the_player_on_turn(client, t):
    """Issue 35: a play entered before the clock was started left player 2 on turn (the pages' ▶),
    and the first press started player 1's clock."""
    gid = clock_game(client)
    r = client.post(f"/api/games/{gid}/plays", headers=AUTH, json={"position": "8G", "word": "CAT"})
    assert r.status_code == 200 and r.json()["live"]["on_turn"] == 1, r.text
    clock = post(client, gid, "press", {})["clock"]
    assert (clock["started"], clock["running"]) == (True, 1)
    clock = post(client, gid, "press", {"player": 1})["clock"]   # then turn by turn, as ever
    assert clock["running"] == 0


def test_pause_and_resume(client, t):
    gid = clock_game(client)
    assert client.post(f"/api/games/{gid}/clock/pause", headers=AUTH).status_code == 409  # not started
    post(client, gid, "press", {})
    t.now += 30
    clock = post(client, gid, "pause")["clock"]
    assert (clock["paused"], clock["running"], clock["on_clock"]) == (True, None, 0)
    t.now += 600
    assert fields(client, gid)["p1_clock"] == "24:30"
    r = client.post(f"/api/games/{gid}/clock/press", json={}, headers=AUTH)
    assert r.status_code == 409 and "paused" in r.json()["detail"]
    clock = post(client, gid, "resume")["clock"]
    assert (clock["paused"], clock["running"]) == (False, 0)
    assert client.post(f"/api/games/{gid}/clock/resume", headers=AUTH).status_code == 409
    t.now += 5
    assert fields(client, gid)["p1_clock"] == "24:25"


def test_overtime_shows_and_goes_into_the_record_at_the_end(client, t):
    gid = clock_game(client)
    post(client, gid, "press", {})
    r = client.post(f"/api/games/{gid}/plays", json={"position": "8D", "word": "QUALM"}, headers=AUTH)
    assert r.status_code == 201 or r.status_code == 200, r.text
    t.now += 25 * MIN + 1                  # player 0 one second over
    assert fields(client, gid)["p1_clock"] == "-0:01"
    post(client, gid, "press", {"player": 0})
    t.now += 36 * MIN                      # player 1: 11 minutes over, more than NASPA allows
    live = client.get(f"/api/games/{gid}/live").json()
    assert live["fields"]["p2_clock"] == "-11:00"
    assert live["clock"]["overtime_minutes"] == [1, 11] and live["clock"]["penalties"] == [-10, -110]
    assert live["clock"]["lost_on_time"] == [False, True]
    r = client.post(f"/api/games/{gid}/end", json={"reason": "time"}, headers=AUTH)
    assert r.status_code == 200, r.text
    assert r.json()["live"]["clock"]["finished"] is True
    moves = client.get(f"/api/games/{gid}/moves").json()
    penalties = [(m["player"], m["kind"], m["agreed"], m["note"]) for m in moves if m["kind"] == "time_penalty"]
    assert penalties == [(0, "time_penalty", -10, "overtime -0:01"),
                         (1, "time_penalty", -110, "overtime -11:00; more than 10 minutes over: lost on time")]
    assert client.get(f"/api/games/{gid}/live").json()["scores"] == [r.json()["live"]["scores"][0], -110]
    # Once: finishing again enters nothing, and the stopped clock refuses presses.
    assert post(client, gid, "finish")["seqs"] == []
    r = client.post(f"/api/games/{gid}/clock/press", json={}, headers=AUTH)
    assert r.status_code == 409 and "game is over" in r.json()["detail"]


def test_a_press_is_sent_to_overlays_over_sse(api, client, t):
    gid = clock_game(client)
    with SseReader(f"{api.url}/api/games/{gid}/events", limit=2) as sse:
        first = sse.next()[2]["live"]["clock"]
        assert first["started"] is False
        post(client, gid, "press", {"player": 1})
        update = sse.next()[2]["live"]
    assert update["clock"]["running"] == 0 and update["fields"]["p1_clock"] == "25:00"
    assert update["clock"]["at"] > 0


def test_the_station_path_the_recorder_hears_whose_turn_ended(api, client, t):
    """As the station wires it: from_http(connect(recorder.on_trigger, **service.clock_handlers(game)))."""
    gid = clock_game(client)
    heard: list[Trigger] = []

    def recorder(trigger: Trigger) -> str:
        heard.append(trigger)
        return "snapshot"

    api.app.state.on_trigger = from_http(connect(recorder, **api.service.clock_handlers(gid)))
    api.app.state.status = lambda: {"game_id": gid}
    try:
        post(client, gid, "press", {"player": 1})                       # starts the clock: no turn end
        assert heard == []
        post(client, gid, "press", {"player": 0})
        assert [(h.kind, h.player, h.source) for h in heard] == [("turn_end", 0, "http")]
        r = client.post("/api/trigger", json={"kind": "pause"}, headers=AUTH)
        assert r.status_code == 200 and r.json()["action"] == "clock paused"
        assert client.get(f"/api/games/{gid}/live").json()["clock"]["paused"] is True
        r = client.post("/api/trigger", json={"kind": "turn_end", "player": 1}, headers=AUTH)
        assert r.status_code == 409 and "paused" in r.json()["detail"]
        assert len(heard) == 1
        other = clock_game(client)                                       # not the recorded game
        post(client, other, "press", {})
        post(client, other, "press", {"player": 0})
        assert len(heard) == 1
    finally:
        api.app.state.on_trigger = None
        api.app.state.status = None


def test_a_recorded_game_s_end_is_one_commit_rack_points_and_overtime(tmp_path, shared_data):
    """The station's recorder ends a game with the rack points (GameLink.commit_end, from
    Recorder.finish); with a clock in overtime, the penalty goes into the same transaction, so no
    update (nor the central service the station forwards to) shows a result the next entry changes."""
    from tilecam.api.bus import Bus
    from tilecam.api.station.link import GameLink
    from tilecam.api.service import GameService
    from tilecam.api.store import open_store
    from tilecam.scoring.gcg import read_gcg, record_from_gcg
    from tilecam.scoring.rules import get_profile
    from tilecam.scoring.tiles import DISTRIBUTIONS

    record, _, _ = record_from_gcg(read_gcg((shared_data / "gcg" / "liwords" / "vs_josh.gcg").read_bytes()),
                                   get_profile("naspa"), DISTRIBUTIONS["en"], rules="naspa")
    turns = [e for e in record.events if e.kind not in ("end_rack_points", "end_rack_penalty")]
    service = GameService(open_store(tmp_path / "station.sqlite3"), Bus())
    fake = FakeTime()
    service.steady = fake
    gid = service.create_game([(p.name, p.nick) for p in record.players], "naspa", "en").id
    service.start_clock(gid)
    service.clock_press(gid, None)          # player 1's clock runs ...
    fake.now += 25 * MIN + 30               # ... into overtime: one minute started
    for e in turns:                         # the game as the recorder committed it, to the out-play
        service.commit(gid, [e])
    shown: list[dict] = []
    service.bus.publish = lambda msg: shown.append(msg.data["live"]) or 0
    mark = service.store.changes(None).mark
    rack_points = service.load(gid).game_at().finish_out()
    seqs = GameLink(service, gid).commit_end(rack_points, expect=len(turns))
    assert service.store.changes(None).mark == mark + 1   # one write transaction
    kinds = [e.entry.kind for e in service.store.entries(gid)]
    assert [kinds[s] for s in seqs] == ["end_rack_points", "time_penalty"]
    final = shown[-1]["scores"]
    assert shown and all(live["scores"] == final for live in shown), [live["scores"] for live in shown]
    assert final[0] == 457 - 10 and shown[-1]["clock"]["finished"]
