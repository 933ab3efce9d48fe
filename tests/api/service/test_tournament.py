"""The tournament view over real HTTP: GET /api/tables lists every table with its newest game and
flags what needs the director (a claimed score the engine disagrees with, a play under review, a
station not heard from); bad filters are 422s with a message."""
from __future__ import annotations

import time

import pytest
from apiserver import AUTH, api, client, new_game  # noqa: F401  (fixtures: a server and database per module)
from tilecam.scoring.board import Direction, Square
from tilecam.scoring.placement import PlacedTile, Placement


def play(client, gid, position, word, **kw):
    r = client.post(f"/api/games/{gid}/plays", json={"position": position, "word": word, **kw}, headers=AUTH)
    assert r.status_code == 200, r.text


def forwarded(api, gid, station, silent_s):
    """As the central service writes a forwarded game's meta: its station, and when it last heard from it."""
    api.service.set_meta(gid, {"station": station, "station_heard_at": str(time.time() - silent_s)})


def camera_play(api, gid, word="CAT"):
    pl = Placement(tuple(PlacedTile(Square(7, 6 + i), ch) for i, ch in enumerate(word)), Direction.ACROSS)
    api.service.build(gid, lambda g: g.play(0, pl, certainty=0.42, review=True))


def by_table(client, **params):
    r = client.get("/api/tables", params=params)
    assert r.status_code == 200, r.text
    return {t["table"]: t for t in r.json()["tables"]}


def test_every_table_with_its_current_game_and_a_second_game_replacing_the_first(api, client):
    assert client.get("/api/tables").json()["tables"] == []
    first = new_game(client, "Nigel Richards", "Jackson Smylie", table=1)
    play(client, first, "8D", "ZEBRA")
    play(client, first, "D7", "A.E")  # through the Z: the overlay writes it A(Z)E
    other = new_game(client, "Wellington Jighere", "Lewis MacKay", table=2)
    new_game(client, "No Table", "Anywhere")  # a game at no table is no row
    forwarded(api, first, "pi-01", 1)

    tables = by_table(client)
    assert sorted(tables) == [1, 2]
    t1 = tables[1]
    assert t1["game_id"] == first and t1["games"] == 1 and t1["moves"] == 2
    assert t1["players"] == ["Nigel Richards", "Jackson Smylie"]
    live = client.get(f"/api/games/{first}/live").json()
    assert t1["scores"] == live["scores"] and t1["on_turn"] == 0 and not t1["ended"]
    assert t1["last_play"] == live["fields"]["last_play"] == f"Jackson Smylie: D7 A(Z)E +{live['scores'][1]}"
    assert t1["last_played"] == live["last_played"] == {"player": 1, "position": "D7", "word": "A(Z)E",
                                                        "score": live["scores"][1], "bonus": None}
    assert t1["flags"] == [] and t1["disagreements"] == [] and t1["review"] == []
    assert t1["station"]["name"] == "pi-01" and t1["station"]["stale"] is False and t1["station"]["silent_s"] < 30
    assert t1["clock"] is None and t1["clocks"] == []
    # A forwarded game is corrected at its station, which gave no address: no console link here
    # (the central's console refuses every write on it; the page says where corrections are made).
    assert t1["links"] == {"recount": f"/recount/{first}", "replay": f"/replay/{first}",
                           "overlay": "/overlay/table/1", "live": "/api/tables/1/live"}
    assert t1["station"]["url"] is None and t1["station"]["console"] is None
    assert tables[2]["game_id"] == other and tables[2]["station"] is None and tables[2]["moves"] == 0
    assert tables[2]["links"]["operator"] == f"/operator?game={other}"  # a game entered here: this console

    # The next round at table 1: the table's row follows the new game.
    second = new_game(client, "Next Round", "Player Two", table=1)
    t1 = by_table(client)[1]
    assert t1["game_id"] == second and t1["games"] == 2
    assert t1["players"] == ["Next Round", "Player Two"] and t1["scores"] == [0, 0] and t1["last_play"] == ""
    assert t1["station"] is None  # the first game's station was that game's: the new one has none yet
    play(client, second, "8H", "ZAX")
    t1 = by_table(client)[1]
    assert t1["moves"] == 1 and t1["last_play"].startswith("Next Round: 8H ZAX +") and t1["on_turn"] == 1


def test_an_ended_game_has_its_result_and_no_one_on_turn(client):
    gid = new_game(client, "Alice Ames", "Bob Brown", table=3)
    play(client, gid, "8G", "QUA")
    r = client.post(f"/api/games/{gid}/end", json={"reason": "time called"}, headers=AUTH)
    assert r.status_code == 200, r.text
    t = by_table(client)[3]
    assert t["ended"] and t["on_turn"] is None and t["result"].startswith("Alice Ames wins by ")


def test_a_claimed_score_the_engine_disagrees_with_is_flagged(client):
    gid = new_game(client, table=4)
    play(client, gid, "8D", "QUALM", claimed=50, engine_stands=True)  # the engine gives QUALM 52
    t = by_table(client)[4]
    assert t["flags"] == ["score"]
    [d] = t["disagreements"]
    assert (d["number"], d["what"], d["claimed"], d["engine"], d["agreed"]) == (1, "score", 50, 52, 52)
    assert d == client.get(f"/api/games/{gid}/recount").json()["first_discrepancy"]
    assert t["scores"] == [52, 0]
    # A score correction to what was announced: the recount still names the move; the engine disagrees.
    r = client.post(f"/api/games/{gid}/moves/0/corrections", headers=AUTH,
                    json={"kind": "score", "agreed": 50, "reason": "the announced score stands"})
    assert r.status_code == 200, r.text
    t = by_table(client)[4]
    assert t["flags"] == ["score"] and t["scores"] == [50, 0] and t["disagreements"][0]["agreed"] == 50


def test_a_play_under_review_is_flagged_until_confirmed(api, client):
    gid = new_game(client, table=5)
    camera_play(api, gid)
    t = by_table(client)[5]
    assert t["flags"] == ["review"] and t["review"] == [1]
    r = client.post(f"/api/games/{gid}/moves/0/corrections", headers=AUTH,
                    json={"kind": "play", "position": "8G", "word": "CAT", "reason": "confirmed as read"})
    assert r.status_code == 200, r.text
    t = by_table(client)[5]
    assert t["flags"] == [] and t["review"] == []


def test_a_station_not_heard_from_is_flagged_with_how_long(api, client):
    gid = new_game(client, table=6)
    forwarded(api, gid, "pi-06", 600)  # the default stale_after_s is 60
    body = client.get("/api/tables").json()
    assert body["stale_after_s"] == api.settings.tournament.stale_after_s == 60
    t = {x["table"]: x for x in body["tables"]}[6]
    assert t["flags"] == ["stale"] and t["station"]["stale"] is True
    assert 600 <= t["station"]["silent_s"] < 660 and abs(t["station"]["heard_at"] - (time.time() - 600)) < 60
    assert body["flagged"] == sum(1 for x in body["tables"] if x["flags"])
    # Heard from again: the flag goes without the game being touched.
    forwarded(api, gid, "pi-06", 0)
    assert by_table(client)[6]["flags"] == []
    # A time the central cannot read is never heard from: flagged, not a 500.
    api.service.set_meta(gid, {"station_heard_at": "yesterday"})
    t = by_table(client)[6]
    assert t["flags"] == ["stale"] and t["station"]["heard_at"] is None and t["station"]["silent_s"] is None


def test_a_tile_set_in_doubt_is_flagged_and_kept_out_of_the_gcg(api, client):
    # issue 35: every score rests on the set; evidence against it is the director's to see
    from tilecam.api.service.view import TILESET_META

    gid = new_game(client, table=12)
    play(client, gid, "8D", "ZEBRA")
    assert by_table(client)[12]["flags"] == [] and by_table(client)[12]["tileset"] is None
    doubt = "tile set en in doubt: Ä at A7 read on at least 2 of 8 frames, yet the board's counts are English"
    api.service.set_meta(gid, {TILESET_META: doubt})
    t = by_table(client)[12]
    assert t["flags"] == ["tileset"] and t["tileset"] == doubt
    assert 12 in by_table(client, flagged=True)
    assert TILESET_META not in api.service.load(gid).record().meta   # the recording's, never the GCG's


def test_a_heartbeat_does_not_replay_the_game(api, client, monkeypatch):
    gid = new_game(client, table=7)
    play(client, gid, "8D", "ZEBRA")
    forwarded(api, gid, "pi-07", 0)
    by_table(client)
    loads = []
    context = type(api.service.parts.context)   # every part reads a game through the context
    real = context.load
    monkeypatch.setattr(context, "load", lambda self, g: loads.append(g) or real(self, g))
    forwarded(api, gid, "pi-07", 0)
    assert by_table(client)[7]["station"]["stale"] is False
    assert loads == []  # every table from the cache, the heartbeat included
    play(client, gid, "D7", "A.E")
    assert by_table(client)[7]["moves"] == 2 and gid in loads  # a new move: replayed again


def test_a_damaged_game_is_one_flagged_row(api, client):
    from tilecam.scoring.events import Pass

    gid = new_game(client, table=8)
    api.service.store.append(gid, Pass(0, 999))  # written around the engine: the log no longer replays
    body = client.get("/api/tables").json()
    t = {x["table"]: x for x in body["tables"]}[8]
    assert t["flags"] == ["damaged"] and "cumulative 999" in t["damaged"]
    assert t["players"] == ["Alice Ames", "Bob Brown"] and t["on_turn"] is None
    assert {x["table"] for x in body["tables"]} >= {1, 2, 8}  # the other tables still load


def test_only_some_tables_or_only_the_flagged(api, client):
    for table in (20, 21, 25):
        new_game(client, table=table)
    forwarded(api, by_table(client)[25]["game_id"], "pi-25", 3600)
    assert sorted(by_table(client, tables="20-21,25")) == [20, 21, 25]
    assert sorted(by_table(client, tables=" 21 , 25")) == [21, 25]
    assert sorted(by_table(client, tables="20-25", flagged="true")) == [25]
    assert by_table(client, tables="9999") == {}


@pytest.mark.parametrize("params, message", [
    ({"tables": "0"}, "query.tables: '0' is not a table or a range of tables"),
    ({"tables": "5-3"}, "query.tables: '5-3' is not a table"),
    ({"tables": "1-10000"}, "query.tables: '1-10000' is not a table"),
    ({"tables": "x"}, "query.tables: 'x' is not a table"),
    ({"tables": "\u0663"}, "query.tables: '\u0663' is not a table"),  # an Arabic-Indic 3
    ({"tables": "1,,2"}, "query.tables: '' is not a table"),
    ({"tables": "1" * 201}, "tables"),
    ({"flagged": "perhaps"}, "flagged"),
])
def test_bad_filters_are_a_422_with_a_message(client, params, message):
    r = client.get("/api/tables", params=params)
    assert r.status_code == 422 and message in r.json()["detail"], r.text
    page = client.get("/tournament", params=params)
    assert page.status_code == 422 and message in page.json()["detail"], page.text


def test_the_page_is_served_and_the_route_is_described(client):
    r = client.get("/tournament")
    assert r.status_code == 200 and r.headers["content-type"].startswith("text/html") and "/static/tournament.js" in r.text
    spec = client.get("/openapi.json").json()
    op = spec["paths"]["/api/tables"]["get"]
    assert "stale_after_s" in op["description"] and "422" in op["responses"]
    row = spec["components"]["schemas"]["TableRowOut"]["properties"]
    assert all(row[k].get("description") for k in ("flags", "review", "station", "last_play", "game_id"))


def test_a_game_a_station_forwards_through_the_ingest(api, client, monkeypatch):
    """The keys the central's ingest writes (api/service/ingest.py) are the ones this view reads."""
    service = api.service
    gid = service.ingest_header("pi-40", "token-of-pi-40", "uid-40", [{"nick": "A", "name": "Ann Ames"},
                                {"nick": "B", "name": "Bo Brown"}], "naspa", "en", "standard", {"table": "40"}).game_id
    t = by_table(client)[40]
    assert t["game_id"] == gid and t["station"]["name"] == "pi-40" and t["flags"] == []
    assert "token-of-pi-40" not in client.get("/api/tables").text  # the station's token is not shown
    later = time.time() + 600
    monkeypatch.setattr(service, "clock", lambda: later)  # ten minutes on, nothing heard
    t = by_table(client)[40]
    assert t["flags"] == ["stale"] and 595 < t["station"]["silent_s"] < 605
    service.heartbeat("pi-40", "token-of-pi-40", ["uid-40"])  # heard again, at the later time
    t = by_table(client)[40]
    assert t["flags"] == [] and t["station"]["silent_s"] < 5


def test_a_station_switched_off_after_its_game_ended_is_not_flagged(api, client):
    """Between rounds the stations are switched off: silence is a fault only during a live game."""
    gid = new_game(client, "Alice Ames", "Bob Brown", table=8)
    play(client, gid, "8G", "QUA")
    forwarded(api, gid, "pi-08", 600)
    assert by_table(client)[8]["flags"] == ["stale"]  # live and silent: flagged
    assert client.post(f"/api/games/{gid}/end", json={"reason": "time called"}, headers=AUTH).status_code == 200
    forwarded(api, gid, "pi-08", 3600)  # an hour later, switched off
    t = by_table(client)[8]
    assert t["ended"] and t["flags"] == [] and t["station"]["stale"] is False
    assert 3600 <= t["station"]["silent_s"] < 3660  # still said, in grey, not as a fault


def test_the_station_s_address_and_clock_from_its_heartbeat(api, client, monkeypatch):
    """The heartbeat names the station's address (the table's console link goes there) and carries
    its clock, which /api/tables and the game's live state (the overlays) show, running down here."""
    service = api.service
    gid = service.ingest_header("pi-41", "token-of-pi-41", "c" * 32, [{"nick": "A", "name": "Ann Ames"},
                                {"nick": "B", "name": "Bo Brown"}], "naspa", "en", "standard", {"table": "41"}).game_id
    now = time.time()
    monkeypatch.setattr(service, "clock", lambda: now)
    clock = {"at": now - 30, "running": 1, "on_clock": 1, "paused": False, "started": True, "finished": False,
             "initial_ms": 1_500_000, "remaining_ms": [1_400_000, 65_000], "overtime_minutes": [0, 0],
             "penalties": [0, 0], "lost_on_time": [False, False]}
    service.heartbeat("pi-41", "token-of-pi-41", ["c" * 32], url="http://pi-41.local:8000", game=3, clock=clock)
    t = by_table(client)[41]
    assert t["station"]["url"] == "http://pi-41.local:8000"
    assert t["station"]["console"] == t["links"]["operator"] == "http://pi-41.local:8000/operator?game=3"
    assert t["clocks"] == ["23:20", "1:05"] and t["clock"]["running"] == 1
    now += 70  # the running player's time runs down from the heartbeat's arrival, into overtime
    t = by_table(client)[41]
    assert t["clocks"] == ["23:20", "-0:05"] and t["clock"]["remaining_ms"] == [1_400_000, -5_000]
    live = client.get(f"/api/games/{gid}/live").json()
    assert live["clock"]["remaining_ms"] == [1_400_000, -5_000] and live["fields"]["p2_clock"] == "-0:05"
    assert client.get(f"/api/tables/41/fields/p1_clock").text == "23:20"
    gcg = client.get(f"/api/games/{gid}.gcg").text  # the central's keys are never the game's
    assert "pi-41" not in gcg and "station" not in gcg and "1400000" not in gcg
    # Paused at the station: nothing runs down here either.
    service.heartbeat("pi-41", "token-of-pi-41", ["c" * 32], clock={**clock, "running": None, "paused": True})
    now += 600
    assert by_table(client)[41]["clocks"] == ["23:20", "1:05"]
    # No clock any more (a new heartbeat without one): none shown; the address stays.
    service.heartbeat("pi-41", "token-of-pi-41", ["c" * 32])
    t = by_table(client)[41]
    assert t["clock"] is None and t["clocks"] == [] and t["station"]["url"] == "http://pi-41.local:8000"


def test_a_forwarded_game_ends_while_its_station_s_clock_still_runs(api, client, shared_data):
    """The out-play reaches the central before the station's heartbeat says its clock stopped: the
    central publishes the end (it has no clock of its own to stop) and shows the result."""
    from tilecam.scoring.events import to_json
    from tilecam.scoring.gcg import read_gcg, record_from_gcg
    from tilecam.scoring.rules import get_profile
    from tilecam.scoring.tiles import DISTRIBUTIONS

    record, _, _ = record_from_gcg(read_gcg((shared_data / "gcg" / "liwords" / "vs_josh.gcg").read_bytes()),
                                   get_profile("naspa"), DISTRIBUTIONS["en"])
    service, uid = api.service, "d" * 32
    gid = service.ingest_header("pi-42", "token-of-pi-42", uid, [{"nick": p.nick, "name": p.name}
                                for p in record.players], "naspa", "en", "standard", {"table": "42"}).game_id
    clock = {"at": time.time(), "running": 0, "on_clock": 0, "paused": False, "started": True, "finished": False,
             "initial_ms": 1_500_000, "remaining_ms": [600_000, 500_000], "overtime_minutes": [0, 0],
             "penalties": [0, 0], "lost_on_time": [False, False]}
    service.heartbeat("pi-42", "token-of-pi-42", [uid], clock=clock)
    service.ingest_entries("pi-42", "token-of-pi-42", uid, [(i, to_json(e), None) for i, e in enumerate(record.events)])
    t = by_table(client)[42]
    assert t["ended"] and t["result"] == "Cesar wins by 60" and t["clock"]["finished"] is False


def test_a_press_a_station_forwards_to_one_server_is_announced_by_every_server(tmp_path):
    """Two servers on one database: the heartbeat that carries a press reaches one; the other's
    watcher (announce_external) sends its SSE clients the press too, once, and nothing for a
    heartbeat that changes nothing."""
    from tilecam.api.bus import Bus
    from tilecam.api.service import GameService
    from tilecam.api.store import open_store
    from tilecam.scoring.events import Pass, to_json

    db = tmp_path / "central.sqlite3"
    one, two = GameService(open_store(db), Bus()), GameService(open_store(db), Bus())
    heard: list[dict] = []
    two.bus.publish = lambda msg: heard.append(msg.data["live"]) or 0
    two.announce_external()  # the watcher's first look takes its mark
    uid, token = "e" * 32, "token-of-pi-43"
    gid = one.ingest_header("pi-43", token, uid, [{"nick": "A", "name": "Ann"}, {"nick": "B", "name": "Bo"}],
                            "naspa", "en", "standard", {"table": "43"}).game_id
    one.ingest_entries("pi-43", token, uid, [(0, to_json(Pass(0, 0)), None)])
    two.announce_external()
    assert [live["seq"] for live in heard] == [0] and heard[0]["clock"] is None
    clock = {"at": time.time(), "running": 1, "on_clock": 1, "paused": False, "started": True, "finished": False,
             "initial_ms": 1_500_000, "remaining_ms": [1_490_000, 1_500_000], "overtime_minutes": [0, 0],
             "penalties": [0, 0], "lost_on_time": [False, False]}
    one.heartbeat("pi-43", token, [uid], clock=clock)
    assert two.announce_external() == [gid]
    assert heard[-1]["clock"]["running"] == 1 and heard[-1]["fields"]["p2_clock"] == "25:00"
    one.heartbeat("pi-43", token, [uid], clock={**clock, "at": time.time() + 5})  # nothing pressed
    assert two.announce_external() == [] and len(heard) == 2
    one.heartbeat("pi-43", token, [uid], clock={**clock, "running": 0, "on_clock": 0})  # pressed
    two.announce_external()
    assert len(heard) == 3 and heard[-1]["clock"]["running"] == 0
    one.store.close()
    two.store.close()
