"""Operator writes over real HTTP: tokens, turns, challenges under each rule, the end, corrections."""
from __future__ import annotations

import re

import pytest

from apiserver import AUTH, api, client, new_game  # noqa: F401  (fixtures)
from tilecam.scoring.game import Game


def post(client, path, body=None):
    return client.post(path, json=body if body is not None else {}, headers=AUTH)


def moves(client, gid):
    return client.get(f"/api/games/{gid}/moves").json()


def test_operator_writes_need_a_known_token(client):
    body = {"players": [{"name": "A"}, {"name": "B"}]}
    r = client.post("/api/games", json=body)
    assert r.status_code == 401 and "Bearer" in r.json()["detail"]
    r = client.post("/api/games", json=body, headers={"Authorization": "Bearer nope"})
    assert r.status_code == 401 and r.json()["detail"] == "unknown operator token"
    gid = new_game(client)
    assert client.post(f"/api/games/{gid}/passes", json={}).status_code == 401
    assert client.get(f"/api/games/{gid}").status_code == 200  # reads are public


@pytest.mark.parametrize("body, message", [
    ({"players": [{"name": "A"}, {"name": "B"}], "rules": "scrabble-club"}, "unknown rules"),
    ({"players": [{"name": "A"}, {"name": "B"}], "lang": "xx"}, "unknown tile set"),
    ({"players": [{"name": "A"}, {"name": "A"}]}, "different nicknames"),
])
def test_operator_create_game_rejects_bad_input(client, body, message):
    r = client.post("/api/games", json=body, headers=AUTH)
    assert r.status_code == 422 and message in r.json()["detail"]
    assert client.post("/api/games", json={"players": [{"name": "A"}]}, headers=AUTH).status_code == 422


def test_operator_sets_player_names(client):
    gid = new_game(client)
    players = [{"name": "Dave Wiegand"}, {"name": "Joel Sherman", "nick": "joel"}]
    r = client.put(f"/api/games/{gid}/players", json={"players": players}, headers=AUTH)
    assert r.status_code == 200 and r.json()["fields"]["p1_name"] == "Dave Wiegand"
    assert client.get(f"/api/games/{gid}").json()["players"] == [
        {"nick": "Dave_Wiegand", "name": "Dave Wiegand"}, {"nick": "joel", "name": "Joel Sherman"}]
    assert "#player2 joel Joel Sherman" in client.get(f"/api/games/{gid}.gcg").text


def test_an_announced_score_is_kept_while_the_engines_stands(client):
    # what the console sends: the claim goes into the record, the engine's score goes on air
    gid = new_game(client)
    r = post(client, f"/api/games/{gid}/plays",
             {"position": "8D", "word": "QUALM", "claimed": 38, "engine_stands": True})
    assert r.status_code == 200 and r.json()["live"]["scores"] == [52, 0]
    m = moves(client, gid)[0]
    assert (m["claimed"], m["engine"], m["agreed"]) == (38, 52, 52)
    first = client.get(f"/api/games/{gid}/recount").json()["first_discrepancy"]
    assert first is not None and first["what"] == "score"   # the director still sees the misannounced score


def test_the_engines_score_still_stands_after_a_correction_of_another_move(client):
    # Every correction replays the log: the decision that the engine's score stands is part of it.
    gid = new_game(client)
    post(client, f"/api/games/{gid}/plays", {"position": "8D", "word": "QUALM", "claimed": 50, "engine_stands": True})
    post(client, f"/api/games/{gid}/plays", {"position": "H7", "word": "AM"})
    assert len(moves(client, gid)) == 2
    r = correct(client, gid, 1, {"kind": "score", "agreed": 4})
    assert r.status_code == 200 and r.json()["live"]["scores"] == [52, 4]
    m = moves(client, gid)[0]
    assert (m["claimed"], m["engine"], m["agreed"], m["cumulative"], m["corrected"]) == (50, 52, 52, 52, False)
    assert client.get(f"/api/games/{gid}/live").json()["scores"] == [52, 4]
    assert re.search(r"^>Alice_Ames: \S+ 8D QUALM \+52 52$", client.get(f"/api/games/{gid}.gcg").text, re.M)
    rc = client.get(f"/api/games/{gid}/recount").json()
    assert rc["moves"][0]["agreed"] == 52 and rc["final"] == [52, 4]
    # a ruling still overrides it, and survives later replays too
    correct(client, gid, 0, {"kind": "score", "agreed": 50})
    correct(client, gid, 1, {"kind": "score", "agreed": 3})
    assert client.get(f"/api/games/{gid}/live").json()["scores"] == [50, 3]


def test_operator_records_plays_passes_and_exchanges(client):
    gid = new_game(client)
    r = post(client, f"/api/games/{gid}/plays", {"position": "8D", "word": "QUALM", "claimed": 50})
    assert r.status_code == 200 and r.json()["seqs"] == [0]
    assert r.json()["live"]["scores"] == [50, 0]  # the announced score stands until corrected
    assert post(client, f"/api/games/{gid}/exchanges", {"count": 4}).json()["live"]["on_turn"] == 0
    assert post(client, f"/api/games/{gid}/passes").status_code == 200
    got = moves(client, gid)
    assert [(m["kind"], m["player"]) for m in got] == [("play", 0), ("exchange", 1), ("pass", 0)]
    assert got[0]["claimed"] == 50 and got[0]["engine"] == 52
    assert client.get(f"/api/games/{gid}/recount").json()["first_discrepancy"]["what"] == "score"
    gcg = client.get(f"/api/games/{gid}.gcg").text  # the writer fills in the racks nobody saw
    assert re.search(r"^>Bob_Brown: [A-Z?]{4,7} -4 \+0 0$", gcg, re.M) and "UNKNOWN" not in gcg, gcg


@pytest.mark.parametrize("body, status, message", [
    ({"position": "8Z", "word": "QAT"}, 422, "off the 15x15 board"),
    ({"position": "88", "word": "QAT"}, 422, "unknown coordinate"),
    ({"position": "1A", "word": "QAT"}, 422, "centre square"),
    ({"position": "8H", "word": "Q"}, 422, "at least two tiles"),
    ({"position": "8H", "word": "Q1T"}, 422, "not a tile"),
    ({"word": "QAT"}, 422, "position"),
])
def test_operator_bad_plays_get_the_engines_reason(client, body, status, message):
    gid = new_game(client)
    r = post(client, f"/api/games/{gid}/plays", body)
    assert r.status_code == status
    assert message in str(r.json()["detail"])
    assert moves(client, gid) == []


def test_operator_unknown_game_is_404(client):
    r = post(client, "/api/games/31337/plays", {"position": "8H", "word": "QAT"})
    assert r.status_code == 404 and r.json()["detail"] == "no game 31337"


def test_operator_challenge_phony_takes_the_play_off(client):
    gid = new_game(client)
    post(client, f"/api/games/{gid}/plays", {"position": "8H", "word": "ZQX"})
    r = post(client, f"/api/games/{gid}/challenges", {"outcome": "phony"})
    assert r.status_code == 200
    live = r.json()["live"]
    assert live["scores"] == [0, 0] and live["rows"][7] == "." * 15 and live["on_turn"] == 1
    assert moves(client, gid)[-1]["kind"] == "phony_withdrawn"


def test_operator_challenge_valid_play_under_double_costs_the_turn(client):
    gid = new_game(client)  # naspa: double challenge
    post(client, f"/api/games/{gid}/plays", {"position": "8H", "word": "ZAX"})
    r = post(client, f"/api/games/{gid}/challenges", {"outcome": "valid"})
    assert r.json()["live"]["on_turn"] == 0
    assert [m["kind"] for m in moves(client, gid)] == ["play", "turn_lost"]
    assert "#note #unsuccessful-challenge" in client.get(f"/api/games/{gid}.gcg").text


def test_operator_challenge_valid_play_under_five_points_gives_a_bonus(client):
    gid = new_game(client, rules="naspa-csw")
    post(client, f"/api/games/{gid}/plays", {"position": "8H", "word": "ZAX"})
    r = post(client, f"/api/games/{gid}/challenges", {"outcome": "valid", "words": 1})
    assert r.json()["live"]["scores"] == [43, 0]
    assert moves(client, gid)[-1]["kind"] == "challenge_bonus"


@pytest.mark.parametrize("rules, kinds", [("naspa", ["play", "turn_lost"]), ("wespa", ["play", "challenge_bonus"])])
def test_operator_challenge_is_decided_by_the_game_not_the_service(client, monkeypatch, rules, kinds):
    # The route passes the adjudication through; scoring.game.Game.challenge decides under the rules.
    calls = []
    decide = Game.challenge

    def spy(game, outcome, challenger=None, words=None):
        calls.append((game.profile.name, outcome, challenger, words))
        return decide(game, outcome, challenger, words)

    monkeypatch.setattr(Game, "challenge", spy)
    gid = new_game(client, rules=rules)
    post(client, f"/api/games/{gid}/plays", {"position": "8H", "word": "ZAX"})
    r = post(client, f"/api/games/{gid}/challenges", {"outcome": "valid", "words": 2, "challenger": 1})
    assert r.status_code == 200, r.text
    assert calls == [(rules, "valid", 1, 2)]
    assert [m["kind"] for m in moves(client, gid)] == kinds


def test_operator_challenge_needs_a_play_to_challenge(client):
    gid = new_game(client)
    r = post(client, f"/api/games/{gid}/challenges", {"outcome": "phony"})
    assert r.status_code == 409 and "no play to challenge" in r.json()["detail"]
    assert post(client, f"/api/games/{gid}/challenges", {"outcome": "maybe"}).status_code == 422


def test_operator_time_penalty(client):
    gid = new_game(client)
    # overtime is counted once the game is over (issue 43 item 9: entered mid-game, a running total
    # went negative on a turn's GCG line, '>ann: E - +0 -30', which macondo cannot read)
    r = post(client, f"/api/games/{gid}/time-penalties", {"player": 1, "minutes": 2})
    assert r.status_code == 409 and "overtime is counted once the game is over" in r.json()["detail"]
    assert post(client, f"/api/games/{gid}/end", {"reason": "both flags fell"}).status_code == 200
    r = post(client, f"/api/games/{gid}/time-penalties", {"player": 1, "minutes": 2})
    assert r.json()["live"]["scores"] == [0, -20]
    r = post(client, f"/api/games/{gid}/time-penalties", {"player": 4, "minutes": 2})
    assert r.status_code == 422 and "no player 4" in r.json()["detail"]
    r = post(client, f"/api/games/{gid}/plays", {"position": "8H", "word": "ZAX", "player": 2})
    assert r.status_code == 422 and "no player 2" in r.json()["detail"]


def test_operator_six_zeros_end_then_final_racks(client):
    gid = new_game(client)
    for _ in range(6):
        assert post(client, f"/api/games/{gid}/passes").status_code == 200
    detail = client.get(f"/api/games/{gid}").json()
    assert detail["ended"] and detail["end_reason"] == "zeros"
    r = post(client, f"/api/games/{gid}/passes")
    assert r.status_code == 409 and "already ended" in r.json()["detail"]
    assert post(client, f"/api/games/{gid}/end").status_code == 422  # the racks are needed
    r = post(client, f"/api/games/{gid}/end", {"racks": ["QZ", "AEI"]})
    assert r.status_code == 200 and r.json()["live"]["scores"] == [-20, -3]
    assert post(client, f"/api/games/{gid}/end", {"racks": ["QZ", "AEI"]}).status_code == 409


def test_operator_director_ends_a_game(client):
    gid = new_game(client)
    post(client, f"/api/games/{gid}/plays", {"position": "8H", "word": "ZAX"})
    r = post(client, f"/api/games/{gid}/end", {"reason": "forfeit"})
    assert r.status_code == 200 and r.json()["live"]["ended"] and r.json()["live"]["end_reason"] == "forfeit"
    detail = client.get(f"/api/games/{gid}").json()
    assert detail["closed_by"] == "tester" and "closed_by" not in detail["meta"]   # the log says it, not meta
    log = client.get(f"/api/games/{gid}.json").json()["log"]
    assert r.json()["seqs"] == [1] and log[1]["kind"] == "close" and log[1]["by"] == "tester"
    r = post(client, f"/api/games/{gid}/passes")
    assert r.status_code == 409 and "ended by tester" in r.json()["detail"]


def correct(client, gid, index, body):
    return post(client, f"/api/games/{gid}/moves/{index}/corrections", body)


def test_operator_designates_a_blank_and_the_log_names_the_token(client):
    gid = new_game(client)
    post(client, f"/api/games/{gid}/plays", {"position": "8D", "word": "?UALM"})  # a blank nobody named
    post(client, f"/api/games/{gid}/plays", {"position": "D8", "word": ".I"})
    r = correct(client, gid, 0, {"kind": "blank", "square": "8d", "letter": "q", "reason": "the blank is a Q"})
    assert r.status_code == 200 and r.json()["live"]["fields"]["blank1"] == "Q"
    got = moves(client, gid)
    assert got[0]["word"] == "qUALM" and got[0]["engine"] == 12 and got[0]["corrected"]
    assert got[1]["cumulative"] == 1 and got[1]["totals"] == [12, 1]  # QI through a blank: recomputed
    log = client.get(f"/api/games/{gid}.json").json()["log"]
    assert [e["kind"] for e in log] == ["play", "play", "correction"]
    assert log[2] | {"replacement": None} == log[2] | {"target": 0, "by": "tester", "reason": "the blank is a Q",
                                                      "replacement": None, "agreed": None}
    assert "8D qUALM +12 12" in client.get(f"/api/games/{gid}.gcg").text


def test_operator_fixes_a_misread_letter(client):
    gid = new_game(client)
    post(client, f"/api/games/{gid}/plays", {"position": "8H", "word": "ZAP"})
    r = correct(client, gid, 0, {"kind": "letter", "square": "8J", "letter": "X"})
    assert r.json()["live"]["rows"][7][7:10] == "ZAX" and r.json()["live"]["scores"] == [38, 0]
    r = correct(client, gid, 0, {"kind": "letter", "square": "9J", "letter": "X"})
    assert r.status_code == 422 and "placed no tile on J9" in r.json()["detail"]
    r = correct(client, gid, 0, {"kind": "letter", "square": "8J", "letter": "7"})
    assert r.status_code == 422 and "not a letter" in r.json()["detail"]


def test_operator_reenters_a_play_and_refuses_one_that_breaks_later_plays(client):
    gid = new_game(client)
    post(client, f"/api/games/{gid}/plays", {"position": "8H", "word": "ZA"})
    post(client, f"/api/games/{gid}/plays", {"position": "I8", "word": "AX"})
    r = correct(client, gid, 0, {"kind": "play", "position": "8G", "word": "ZA"})
    assert r.status_code == 409 or r.status_code == 422
    assert "detail" in r.json()
    assert len(client.get(f"/api/games/{gid}.json").json()["log"]) == 2  # nothing written
    r = correct(client, gid, 0, {"kind": "play", "position": "8H", "word": "ZAS"})
    assert r.status_code == 200 and moves(client, gid)[0]["word"] == "ZAS"


def test_operator_turns_a_pass_into_an_exchange_and_back(client):
    gid = new_game(client)
    post(client, f"/api/games/{gid}/passes")
    r = correct(client, gid, 0, {"kind": "exchange", "count": 3})
    assert r.status_code == 200 and moves(client, gid)[0]["kind"] == "exchange"
    assert correct(client, gid, 0, {"kind": "pass"}).status_code == 200
    assert moves(client, gid)[0]["kind"] == "pass"
    post(client, f"/api/games/{gid}/plays", {"position": "8H", "word": "ZAX"})
    r = correct(client, gid, 1, {"kind": "exchange", "count": 3})
    # Messages people read number moves from 1, as the pages do: index 1 is move 2.
    assert r.status_code == 422 and r.json()["detail"] == "move 2 is a play; only a pass becomes an exchange"


def test_operator_rules_a_score(client):
    gid = new_game(client)
    post(client, f"/api/games/{gid}/plays", {"position": "8H", "word": "ZAX", "claimed": 40})
    post(client, f"/api/games/{gid}/passes")
    r = correct(client, gid, 0, {"kind": "score", "agreed": 38, "reason": "director's ruling"})
    assert r.json()["live"]["scores"] == [38, 0]
    # The ruling stands through a later fix of the same move.
    correct(client, gid, 0, {"kind": "letter", "square": "8J", "letter": "T"})
    assert moves(client, gid)[0] | {"text": None} == moves(client, gid)[0] | {
        "text": None, "claimed": 40, "engine": 24, "agreed": 38}
    assert correct(client, gid, 1, {"kind": "score", "agreed": 5}).status_code == 422


@pytest.mark.parametrize("index, status", [(7, 404), (-1, 404)])
def test_operator_correction_of_a_missing_move(client, index, status):
    gid = new_game(client)
    r = correct(client, gid, index, {"kind": "pass"})
    assert r.status_code == status and "has no move" in r.json()["detail"]


def test_operator_console_page(client):
    r = client.get("/operator")
    assert r.status_code == 200 and "tilecam operator" in r.text
    assert client.get("/static/operator.js").status_code == 200


def test_operator_concurrent_writes_keep_one_consistent_log(api):
    """Two desks writing at once: the per-game lock serialises check-then-append."""
    import httpx
    from concurrent.futures import ThreadPoolExecutor

    with httpx.Client(base_url=api.url, timeout=10) as c:
        gid = new_game(c)
        assert c.post(f"/api/games/{gid}/end", json={"reason": "time"}, headers=AUTH).status_code == 200

        def penalise(i: int) -> int:
            r = c.post(f"/api/games/{gid}/time-penalties", json={"player": i % 2, "minutes": 1}, headers=AUTH)
            return r.status_code

        with ThreadPoolExecutor(8) as pool:
            assert set(pool.map(penalise, range(20))) == {200}
        log = c.get(f"/api/games/{gid}.json").json()["log"]
        log = [e for e in log if e["kind"] == "time_penalty"]   # after the director's close
        assert [e["seq"] for e in log] == list(range(1, 21))
        assert c.get(f"/api/games/{gid}").json()["scores"] == [-100, -100]
        assert [e["cumulative"] for e in log if e["player"] == 0] == list(range(-10, -101, -10))


def test_operator_write_while_another_process_holds_the_database_is_409(tmp_path, monkeypatch):
    """Another writer (a recorder beside the server) holding SQLite's write lock past the busy
    timeout: the write is refused with a message, not a 500, and nothing is written."""
    import sqlite3

    import httpx

    from tilecam.api.store import sqlite as store_module
    from apiserver import LiveServer

    monkeypatch.setattr(store_module, "BUSY_TIMEOUT_S", 0.2)
    db = tmp_path / "games.sqlite3"
    with LiveServer(db, store=store_module.SqliteStore(db)) as server, \
            httpx.Client(base_url=server.url, timeout=10) as c:
        gid = new_game(c)
        other = sqlite3.connect(db, isolation_level=None)
        other.execute("BEGIN IMMEDIATE")
        try:
            r = c.post(f"/api/games/{gid}/passes", json={}, headers=AUTH)
        finally:
            other.execute("ROLLBACK")
            other.close()
        assert r.status_code == 409 and "the database is busy" in r.json()["detail"]
        assert moves(c, gid) == []
        assert c.post(f"/api/games/{gid}/passes", json={}, headers=AUTH).status_code == 200


def test_a_blank_is_named_only_where_a_blank_lies(client):
    gid = new_game(client, "Cesar Del Solar", "Josh Sokol")
    post(client, f"/api/games/{gid}/plays", {"position": "H6", "word": "FOE"})  # down: F on 6H, O on 7H, E on 8H
    post(client, f"/api/games/{gid}/plays", {"position": "8G", "word": "z.AS"})
    before = client.get(f"/api/games/{gid}.json").json()["log"]
    r = correct(client, gid, 0, {"kind": "blank", "square": "H6", "letter": "E"})
    assert r.status_code == 422 and r.json()["detail"] == (
        "H6 holds F, not a blank (to make it a blank, correct the play)"), r.text
    assert client.get(f"/api/games/{gid}.json").json()["log"] == before  # nothing written
    assert moves(client, gid)[0]["word"] == "FOE"
    # where a blank lies it is named, and a misread letter is still fixed on an ordinary tile
    assert correct(client, gid, 1, {"kind": "blank", "square": "8G", "letter": "e"}).status_code == 200
    assert moves(client, gid)[1]["shown"] == "e(E)AS"
    assert correct(client, gid, 0, {"kind": "letter", "square": "6H", "letter": "T"}).status_code == 200
    assert moves(client, gid)[0]["word"] == "TOE"


def test_the_recount_says_what_each_correction_changed(client):
    gid = new_game(client, "Cesar Del Solar", "Josh Sokol")
    post(client, f"/api/games/{gid}/plays", {"position": "H7", "word": "OB"})
    post(client, f"/api/games/{gid}/plays", {"position": "8F", "word": "ZE.?A", "claimed": 30})
    post(client, f"/api/games/{gid}/passes")
    post(client, f"/api/games/{gid}/exchanges", {"count": 3})
    post(client, f"/api/games/{gid}/passes")
    assert correct(client, gid, 1, {"kind": "blank", "square": "8I", "letter": "r"}).status_code == 200
    assert correct(client, gid, 1, {"kind": "score", "agreed": 34, "reason": "ruled"}).status_code == 200
    assert correct(client, gid, 2, {"kind": "exchange", "count": 2}).status_code == 200
    assert correct(client, gid, 3, {"kind": "exchange", "count": 4}).status_code == 200
    assert post(client, f"/api/games/{gid}/moves/4/void").status_code == 200
    rc = client.get(f"/api/games/{gid}/recount").json()
    got = [(c["kind"], c["number"], c["change"], c["by"]) for c in rc["corrections"]]
    assert got == [
        ("correction", 2, "blank at I8 named R", "tester"),
        ("correction", 2, "score 30 → 34", "tester"),
        ("correction", 3, "pass → exchange of 2", "tester"),
        ("correction", 4, "exchange of 3 → 4", "tester"),
        ("void", None, "move 5 voided", "tester"),
    ]
    seqs = {m["number"]: m["seq"] for m in rc["moves"]}
    assert [c["target"] for c in rc["corrections"][:4]] == [seqs[2], seqs[2], seqs[3], seqs[4]]
    assert all(re.match(r"\d{4}-\d\d-\d\dT", c["at"]) for c in rc["corrections"])
    assert rc["corrections"][1]["reason"] == "ruled" and rc["corrections"][1]["agreed"] == 34


def test_the_recount_describes_a_play_reentered(client):
    gid = new_game(client)
    post(client, f"/api/games/{gid}/plays", {"position": "H7", "word": "OB"})
    post(client, f"/api/games/{gid}/plays", {"position": "8F", "word": "ZE.rA"})
    assert correct(client, gid, 1, {"kind": "play", "position": "8F", "word": "ZE.RA"}).status_code == 200
    change = client.get(f"/api/games/{gid}/recount").json()["corrections"][0]["change"]
    assert change.startswith("play 8F ZE(B)rA → 8F ZE(B)RA; score ")
