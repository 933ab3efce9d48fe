"""Reading games over real HTTP: list, detail, board, moves, unseen, GCG/JSON exports, recount."""
from __future__ import annotations

from pathlib import Path

import pytest

from apiserver import api, client, import_gcg  # noqa: F401  (fixtures)
from gcgcheck import check_gcg  # tests/gcgcheck.py: the line rules of macondo's and Quackle's readers
from conftest import shared_data_dir
from tilecam.scoring.events import from_json
from tilecam.scoring.gcg import read_gcg, record_from_gcg
from tilecam.scoring.gcg import choose_rules
from tilecam.scoring.rules import get_profile
from tilecam.scoring.tiles import DISTRIBUTIONS

GCG = sorted((shared_data_dir() / "gcg" / "liwords").glob("*.gcg"))
EN = DISTRIBUTIONS["en"]


def replayed(path: Path):
    gcg = read_gcg(path.read_bytes())
    rules = choose_rules("auto", gcg)
    record, findings, _ = record_from_gcg(gcg, get_profile(rules), EN, rules=rules)
    return rules, record, findings


@pytest.fixture(scope="module")
def doug(client, shared_data):
    return import_gcg(client, shared_data / "gcg" / "liwords" / "doug_vs_emely.gcg")


def test_games_list_and_detail(client, doug):
    listed = {g["id"]: g for g in client.get("/api/games").json()}
    assert listed[doug]["players"][0] == {"nick": "doug", "name": "doug"}
    detail = client.get(f"/api/games/{doug}").json()
    assert detail["moves"] == 28 and detail["scores"] == [451, 345] and detail["ended"]
    assert detail["end_reason"] == "out" and detail["links"]["gcg"] == f"/api/games/{doug}.gcg"


def test_games_board_at_any_turn(client, doug):
    empty = client.get(f"/api/games/{doug}/board", params={"turn": 0}).json()
    assert empty["tiles"] == [] and set("".join(empty["rows"])) == {"."}
    first = client.get(f"/api/games/{doug}/board", params={"turn": 1}).json()
    assert first["rows"][7][3:8] == "WINDY" and first["last_play"] == ["8D", "8E", "8F", "8G", "8H"]
    assert first["scores"] == [32, 0] and first["on_turn"] == 1
    # The phony TIL.. at 4B (event 5) is withdrawn by event 6: the board goes back to turn 5's.
    rows = [client.get(f"/api/games/{doug}/board", params={"turn": t}).json()["rows"] for t in (5, 6, 7)]
    assert rows[1][3].startswith(".TIL") and rows[2] == rows[0]
    r = client.get(f"/api/games/{doug}/board", params={"turn": 99})
    assert r.status_code == 404 and "no turn 99" in r.json()["detail"]


def test_games_moves_carry_scores_and_running_totals(client, doug, shared_data):
    _, record, _ = replayed(shared_data / "gcg" / "liwords" / "doug_vs_emely.gcg")
    moves = client.get(f"/api/games/{doug}/moves").json()
    assert [m["cumulative"] for m in moves] == [e.cumulative for e in record.events]
    assert moves[0] | {"totals": None} == moves[0] | {
        "index": 0, "player": 0, "nick": "doug", "kind": "play", "position": "8D", "word": "WINDY",
        "claimed": 32, "engine": 32, "agreed": 32, "totals": None, "corrected": False, "frame": False}
    assert moves[2]["word"] == "JAVE..N" and moves[6]["kind"] == "phony_withdrawn"
    assert moves[-1]["totals"] == [451, 345]


def test_games_unseen_tiles(client, doug):
    start = client.get(f"/api/games/{doug}/unseen", params={"turn": 0}).json()
    assert start["count"] == 100 and start["bag"] == 86 and start["blanks"] == 2
    assert start["vowels"] + start["consonants"] + start["blanks"] == 100
    mine = client.get(f"/api/games/{doug}/unseen", params={"turn": 0, "rack": "DINNVWY"}).json()
    assert mine["count"] == 93 and mine["tiles"]["N"] == 4
    end = client.get(f"/api/games/{doug}/unseen").json()
    assert end["pool"] == "EGOP" and end["bag"] == 0


@pytest.mark.parametrize("path", GCG, ids=lambda p: p.name)
def test_games_gcg_export_rereads_to_the_same_events(client, path):
    rules, record, findings = replayed(path)
    gid = import_gcg(client, path, rules)
    r = client.get(f"/api/games/{gid}.gcg")
    assert r.status_code == 200 and r.headers["content-type"].startswith("text/plain")
    again, _, _ = record_from_gcg(read_gcg(r.text), get_profile(rules), EN, rules=rules)
    # The writer fills in a rack the record did not know (every reader needs one).
    assert again.events == record.events
    stored = client.get(f"/api/games/{gid}.json").json()
    assert tuple(from_json(e) for e in stored["events"]) == record.events
    assert [e["seq"] for e in stored["log"]] == list(range(len(record.events)))
    # The recount finds the record's own score discrepancies, first one first.
    report = client.get(f"/api/games/{gid}/recount").json()
    score_findings = [f for f in findings if f.what == "score"]
    assert [d["index"] for d in report["discrepancies"]] == [f.event_index for f in score_findings]
    first = report["first_discrepancy"]
    assert (first["index"] if first else None) == (score_findings[0].event_index if score_findings else None)
    assert report["final"] == list(record_totals(record))


def record_totals(record):
    totals = [0, 0]
    for e in record.events:
        totals[e.player] = e.cumulative
    return totals


def test_games_recount_rows_compare_claimed_engine_agreed(client, doug):
    report = client.get(f"/api/games/{doug}/recount").json()
    row = report["moves"][4]
    assert {k: row[k] for k in ("text", "claimed", "engine", "agreed", "cumulative")} == \
        {"text": "10B DONATES +JAVELINA", "claimed": 82, "engine": 82, "agreed": 82, "cumulative": 148}
    assert report["first_discrepancy"] is None and report["final"] == [451, 345]


def test_games_scoresheet_comparison(client, doug):
    moves = client.get(f"/api/games/{doug}/moves").json()
    sheet = [m["cumulative"] for m in moves if m["player"] == 1]
    ok = client.post(f"/api/games/{doug}/recount", json={"player": 1, "cumulative": sheet}).json()
    assert ok["agrees"] and ok["first_mismatch"] is None
    wrong = sheet[:3] + [sheet[3] + 10] + sheet[4:]
    bad = client.post(f"/api/games/{doug}/recount", json={"player": 1, "cumulative": wrong}).json()
    assert not bad["agrees"]
    assert bad["first_mismatch"] | {"text": None} == {"turn": 4, "index": bad["first_mismatch"]["index"],
                                                       "text": None, "sheet": sheet[3] + 10,
                                                       "record": sheet[3], "agrees": False}
    short = client.post(f"/api/games/{doug}/recount", json={"player": 1, "cumulative": sheet[:-1]}).json()
    assert short["first_mismatch"]["turn"] == len(sheet) and short["first_mismatch"]["sheet"] is None
    r = client.post(f"/api/games/{doug}/recount", json={"player": 5, "cumulative": []})
    assert r.status_code == 422 and "no player 5" in r.json()["detail"]


def test_games_unknown_game_is_404_everywhere(client):
    for path in ("/api/games/424242", "/api/games/424242/board", "/api/games/424242/moves",
                 "/api/games/424242/unseen", "/api/games/424242.gcg", "/api/games/424242.json",
                 "/api/games/424242/recount"):
        r = client.get(path)
        assert r.status_code == 404, path
        assert r.json()["detail"] == "no game 424242"
    assert client.get("/api/games/abc").status_code == 422


def test_games_openapi_docs(client):
    spec = client.get("/openapi.json").json()
    assert "/api/games/{game_id}.gcg" in spec["paths"] and "/api/games/{game_id}/events" in spec["paths"]
    assert client.get("/docs").status_code == 200


def test_a_damaged_game_is_listed_as_damaged_and_the_others_still_load(api, client):
    from tilecam.scoring.events import Pass
    auth = {"Authorization": "Bearer test-operator-token"}
    good, bad = (client.post("/api/games", json={"players": [{"name": a}, {"name": b}]}, headers=auth).json()["id"]
                 for a, b in (("Ann", "Bob"), ("Cy", "Di")))
    api.service.store.append(bad, Pass(0, 999))  # written around the engine: the log no longer replays
    r = client.get("/api/games")
    assert r.status_code == 200
    listed = {g["id"]: g for g in r.json()}
    assert "cumulative 999" in listed[bad]["damaged"]
    assert listed[good]["damaged"] is None and listed[good]["players"][0]["name"] == "Ann"
    assert all(g["damaged"] is None for gid, g in listed.items() if gid != bad)
    assert client.get(f"/api/games/{bad}").status_code == 409


def test_moves_and_recount_show_the_whole_word_numbered_from_one(client):
    """People read `8F ZE(B)rA`, not GCG's `8F ZE.rA`; every list numbers moves the same way."""
    from apiserver import AUTH, new_game

    gid = new_game(client, "Cesar Del Solar", "Josh Sokol")
    for body in ({"position": "H7", "word": "OB"}, {"position": "8F", "word": "ZE.rA", "claimed": 30}):
        assert client.post(f"/api/games/{gid}/plays", json=body, headers=AUTH).status_code == 200
    zebra = client.get(f"/api/games/{gid}/moves").json()[1]
    assert (zebra["number"], zebra["position"], zebra["word"], zebra["shown"]) == (2, "8F", "ZE.rA", "ZE(B)rA")
    assert zebra["text"] == "8F ZE(B)rA"
    rc = client.get(f"/api/games/{gid}/recount").json()
    assert [(m["number"], m["position"], m["shown"], m["text"]) for m in rc["moves"]] == [
        (1, "H7", "OB", "H7 OB"), (2, "8F", "ZE(B)rA", "8F ZE(B)rA")]
    first = rc["first_discrepancy"]
    assert (first["number"], first["position"], first["shown"], first["text"]) == (2, "8F", "ZE(B)rA", "8F ZE(B)rA")
    assert rc["discrepancies"] == [first]
    client.post(f"/api/games/{gid}/passes", json={}, headers=AUTH)
    passed = client.get(f"/api/games/{gid}/moves").json()[2]
    assert (passed["number"], passed["position"], passed["shown"], passed["text"]) == (3, None, None, "pass")


def test_gcg_download_is_an_attachment_named_for_the_players_and_the_date(client):
    from urllib.parse import quote

    from apiserver import AUTH, new_game

    gid = new_game(client, "Cesar", "Josh", table=3, meta={"event": "Nationals 2026"})
    assert client.post(f"/api/games/{gid}/plays", json={"position": "8D", "word": "QUALM"}, headers=AUTH).status_code == 200
    r = client.get(f"/api/games/{gid}.gcg")
    date = client.get(f"/api/games/{gid}").json()["created"][:10]
    assert r.status_code == 200
    assert r.headers["content-disposition"] == f'attachment; filename="{date}_Cesar_vs_Josh.gcg"'
    lines = r.text.splitlines()
    assert "#title Nationals 2026: Cesar vs Josh" in lines
    assert f"#description date: {date}; table: 3" in lines
    assert check_gcg(r.text) == []
    # our own reader reads them back as the record's title and description
    read = read_gcg(r.text)
    assert read.meta["title"] == "Nationals 2026: Cesar vs Josh" and read.meta["description"] == f"date: {date}; table: 3"
    # names beyond ASCII: a plain fallback, and the UTF-8 name as RFC 5987 says
    gid = new_game(client, "José Ñúñez", "Łukasz Żak")
    cd = client.get(f"/api/games/{gid}.gcg").headers["content-disposition"]
    name = f"{date}_José_Ñúñez_vs_Łukasz_Żak.gcg"
    assert cd == f'''attachment; filename="{date}_Jose_Nunez_vs_Lukasz_Zak.gcg"; filename*=UTF-8''{quote(name)}'''
