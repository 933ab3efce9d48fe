"""Box games of three and four players over real HTTP, and the undecided blank the operator must see."""
from __future__ import annotations

import pytest

from apiserver import AUTH, api, client  # noqa: F401  (fixtures)
from tilecam.scoring.board import Direction, Square
from tilecam.scoring.events import BLANK_NOT_READ
from tilecam.scoring.placement import PlacedTile, Placement

FOUR = [{"name": "Ann Avery"}, {"name": "Ben Bell"}, {"name": "Cy Cole", "nick": "cy"}, {"name": "Di Dunn"}]


def post(client, path, body=None):
    return client.post(path, json=body if body is not None else {}, headers=AUTH)


def create(client, players, rules="box"):
    return post(client, "/api/games", {"players": players, "rules": rules})


def test_multiplayer_four_player_box_game_over_http(client):
    r = create(client, FOUR)
    assert r.status_code == 201, r.text
    game = r.json()
    gid = game["id"]
    assert [p["nick"] for p in game["players"]] == ["Ann_Avery", "Ben_Bell", "cy", "Di_Dunn"]
    assert game["scores"] == [0, 0, 0, 0] and game["bag"] == 100 - 4 * 7 and game["on_turn"] == 0

    r = post(client, f"/api/games/{gid}/plays", {"position": "8G", "word": "CAT"})
    assert r.status_code == 200 and r.json()["live"]["on_turn"] == 1
    # Cy (player 2) challenges the valid CAT and loses his next turn; Ben is still next.
    r = post(client, f"/api/games/{gid}/challenges", {"outcome": "valid", "challenger": 2})
    assert r.status_code == 200 and r.json()["live"]["on_turn"] == 1
    r = post(client, f"/api/games/{gid}/plays", {"position": "I7", "word": "A.E"})
    live = r.json()["live"]
    assert live["on_turn"] == 3 and live["scores"][2] == 0  # Cy's turn was the one lost
    assert post(client, f"/api/games/{gid}/time-penalties", {"player": 3, "minutes": 1}).status_code == 409  # not over
    r = post(client, f"/api/games/{gid}/exchanges", {"count": 2})
    live = r.json()["live"]
    assert live["on_turn"] == 0 and live["last_text"] == "Di Dunn: exchange 2"

    moves = client.get(f"/api/games/{gid}/moves").json()
    assert [(m["player"], m["kind"]) for m in moves] == [(0, "play"), (2, "turn_lost"), (1, "play"),
                                                         (3, "exchange")]
    ate = moves[2]["agreed"]
    assert moves[-1]["totals"] == [10, ate, 0, 0] and moves[2]["nick"] == "Ben_Bell"
    assert live["scores"] == [10, ate, 0, 0]  # box rules cost nothing for overtime
    fields = client.get(f"/api/games/{gid}/fields").json()
    assert fields["score"] == f"10 - {ate} - 0 - 0"
    assert [fields[f"p{i}_name"] for i in range(1, 5)] == [p["name"] for p in FOUR]
    assert [fields[f"p{i}_score"] for i in range(1, 5)] == ["10", str(ate), "0", "0"]
    assert client.get(f"/api/games/{gid}/fields/p4_name").text == "Di Dunn"
    recount = client.get(f"/api/games/{gid}/recount").json()
    assert recount["final"] == [10, ate, 0, 0] and len(recount["players"]) == 4
    listed = {g["id"]: g for g in client.get("/api/games").json()}
    assert listed[gid]["scores"] == [10, ate, 0, 0] and listed[gid]["damaged"] is None

    # Every player passes twice in a row (eight passes) and the game ends; each loses their rack.
    for i in range(8):
        assert not client.get(f"/api/games/{gid}").json()["ended"], i
        assert post(client, f"/api/games/{gid}/passes").status_code == 200
    detail = client.get(f"/api/games/{gid}").json()
    assert detail["ended"] and detail["end_reason"] == "passes"
    r = post(client, f"/api/games/{gid}/end", {"racks": ["QZ", "AEI"]})
    assert r.status_code == 422 and r.json()["detail"] == "give one rack per player (4)"
    r = post(client, f"/api/games/{gid}/end", {"racks": ["QZ", "AEI", "", "K"]})
    assert r.status_code == 200 and r.json()["live"]["scores"] == [10 - 20, ate - 3, 0, -5]


def test_multiplayer_three_players_and_the_players_endpoint(client):
    gid = create(client, FOUR[:3]).json()["id"]
    new = [{"name": "Eve Ende"}, {"name": "Flo Fink"}, {"name": "Gus Gray"}]
    r = client.put(f"/api/games/{gid}/players", json={"players": new}, headers=AUTH)
    assert r.status_code == 200 and [p["name"] for p in r.json()["players"]] == [p["name"] for p in new]
    assert r.json()["fields"]["p3_name"] == "Gus Gray" and r.json()["fields"]["p4_name"] == ""
    r = client.put(f"/api/games/{gid}/players", json={"players": new[:2]}, headers=AUTH)
    assert r.status_code == 422 and r.json()["detail"] == f"game {gid} has 3 players"
    r = post(client, f"/api/games/{gid}/time-penalties", {"player": 3, "minutes": 1})
    assert r.status_code == 422 and r.json()["detail"] == "no player 3; players are 0..2"


@pytest.mark.parametrize("players, rules, message", [
    (FOUR[:1], "box", "body.players: List should have at least 2 items after validation, not 1"),
    (FOUR + [{"name": "Ed Eyre"}], "box", "body.players: List should have at most 4 items after validation, not 5"),
    (FOUR[:3], "naspa", "rules 'naspa' are for 2 players, not 3"),
    (FOUR, "wespa", "rules 'wespa' are for 2 players, not 4"),
])
def test_multiplayer_player_counts_the_rules_do_not_allow_are_422(client, players, rules, message):
    before = len(client.get("/api/games").json())
    r = create(client, players, rules)
    assert r.status_code == 422 and r.json()["detail"] == message
    assert len(client.get("/api/games").json()) == before


def test_multiplayer_challenger_must_be_another_player(client):
    gid = create(client, FOUR).json()["id"]
    post(client, f"/api/games/{gid}/plays", {"position": "8G", "word": "CAT"})
    r = post(client, f"/api/games/{gid}/challenges", {"outcome": "valid", "challenger": 0})
    assert r.status_code == 422 and r.json()["detail"] == "player 0 made the play; another player challenges it"
    r = post(client, f"/api/games/{gid}/challenges", {"outcome": "valid", "challenger": 4})
    assert r.status_code == 422 and r.json()["detail"] == "no player 4; players are 0..3"


def test_blank_undecided_is_flagged_until_the_operator_names_it(api, client):
    gid = create(client, FOUR[:2], "naspa").json()["id"]
    # The recorder saw a blank it could not name: decode leaves its letter '?'.
    undecided = Placement((PlacedTile(Square(7, 7), "Q"), PlacedTile(Square(7, 8), "?", True),
                           PlacedTile(Square(7, 9), "T")), Direction.ACROSS)
    api.service.build(gid, lambda g: g.play(0, undecided))
    r = post(client, f"/api/games/{gid}/plays", {"position": "9G", "word": "ZA", "note": "clean"})
    assert r.status_code == 200 and r.json()["live"]["blank_undecided"] == [0]
    moves = client.get(f"/api/games/{gid}/moves").json()
    assert [m["blank_undecided"] for m in moves] == [True, False]
    r = post(client, f"/api/games/{gid}/moves/0/corrections", {"kind": "blank", "square": "8I", "letter": "a"})
    assert r.status_code == 200 and r.json()["live"]["blank_undecided"] == []
    moves = client.get(f"/api/games/{gid}/moves").json()
    assert moves[0]["word"] == "QaT" and not moves[0]["blank_undecided"]


def test_blank_undecided_from_a_gcg_note_and_the_fix_clears_it(client):
    # A record whose writer had to pick the blank's letter says so in the play's note: imported, the
    # play's blank is flagged (Play.blank_guessed), the writer's line no note of the play.
    gcg = ("#character-encoding UTF-8\n#player1 a A\n#player2 b B\n>a: ?AQ 8G QAt +22 22\n"
           f"#note {BLANK_NOT_READ}: written as t\n#note well played\n")
    r = client.post("/api/games/gcg", content=gcg.encode(), headers={**AUTH, "Content-Type": "text/plain"})
    assert r.status_code == 201, r.text
    gid = r.json()["id"]
    assert client.get(f"/api/games/{gid}/live").json()["blank_undecided"] == [0]
    got = client.get(f"/api/games/{gid}/moves").json()[0]
    assert got["blank_undecided"] is True and got["note"] == "well played"
    r = post(client, f"/api/games/{gid}/moves/0/corrections", {"kind": "blank", "square": "8I", "letter": "T"})
    assert r.status_code == 200 and r.json()["live"]["blank_undecided"] == []
    got = client.get(f"/api/games/{gid}/moves").json()[0]
    assert got["note"] == "well played" and got["blank_undecided"] is False


def test_a_note_in_the_words_of_a_guessed_blank_flags_nothing(client):
    # What a play's note says is for people: an operator's note in the GCG writer's words is no flag
    # (the flag is Play.blank_guessed, set only by the GCG reader).
    gid = create(client, FOUR[:2], "naspa").json()["id"]
    r = post(client, f"/api/games/{gid}/plays", {"position": "8G", "word": "QAt", "note": f"{BLANK_NOT_READ}: T chosen"})
    assert r.status_code == 200 and r.json()["live"]["blank_undecided"] == []
    got = client.get(f"/api/games/{gid}/moves").json()[0]
    assert got["blank_undecided"] is False and got["note"] == f"{BLANK_NOT_READ}: T chosen"
