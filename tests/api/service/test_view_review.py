"""A play the camera read with little certainty: in /moves (certainty, review, runner-ups) and the
live state (unconfirmed, last_unconfirmed) until a person confirms it or takes a runner-up."""
from __future__ import annotations

from apiserver import AUTH, api, client, new_game  # noqa: F401  (fixtures)
from tilecam.scoring.board import Direction, Square
from tilecam.scoring.placement import PlacedTile, Placement


def camera_play(api, gid, word="CAT", certainty=0.42, runner_ups=(("8G", "COT", 0.31),)):
    pl = Placement(tuple(PlacedTile(Square(7, 6 + i), ch) for i, ch in enumerate(word)), Direction.ACROSS)
    api.service.build(gid, lambda g: g.play(0, pl, certainty=certainty, review=True, runner_ups=runner_ups))


def test_a_play_under_review_is_unconfirmed_until_confirmed(api, client):
    gid = new_game(client)
    camera_play(api, gid)
    [m] = client.get(f"/api/games/{gid}/moves").json()
    assert m["certainty"] == 0.42 and m["review"] is True
    # what taking the runner-up changes on the board, for the console's confirmation
    assert m["runner_ups"] == [{"position": "8G", "word": "COT", "probability": 0.31, "score": 10,
                                "changes": [{"square": "H8", "was": "A", "now": "O"}]}]
    live = client.get(f"/api/games/{gid}/live").json()
    assert live["unconfirmed"] == [0] and live["last_unconfirmed"] is True
    # confirming is re-entering the play as read: the move is no longer under review
    r = client.post(f"/api/games/{gid}/moves/0/corrections", headers=AUTH,
                    json={"kind": "play", "position": m["position"], "word": m["word"], "reason": "confirmed as read"})
    assert r.status_code == 200, r.text
    [m] = client.get(f"/api/games/{gid}/moves").json()
    assert m["review"] is False and m["certainty"] == 0.42 and m["text"].startswith("8G CAT")
    live = client.get(f"/api/games/{gid}/live").json()
    assert live["unconfirmed"] == [] and live["last_unconfirmed"] is False


def test_taking_a_runner_up_is_one_play_correction(api, client):
    gid = new_game(client)
    camera_play(api, gid)
    r = client.post(f"/api/games/{gid}/moves/0/corrections", headers=AUTH,
                    json={"kind": "play", "position": "8G", "word": "COT", "reason": "runner-up reading taken"})
    assert r.status_code == 200, r.text
    [m] = client.get(f"/api/games/{gid}/moves").json()
    assert m["word"] == "COT" and m["review"] is False
    # a person's play carries no reading
    client.post(f"/api/games/{gid}/plays", headers=AUTH, json={"position": "H7", "word": "A.E"})
    assert client.get(f"/api/games/{gid}/moves").json()[1]["certainty"] is None


def test_a_runner_up_says_which_squares_it_adds_and_takes_away(api, client):
    gid = new_game(client)
    # read as CAT on 8G-8I; the runner-up is a blank standing for the C and one tile more, at 8F
    camera_play(api, gid, runner_ups=(("8F", "EcAT", 0.05), ("8G", "Q", 0.01)))
    [m] = client.get(f"/api/games/{gid}/moves").json()
    taken, misfit = m["runner_ups"]
    assert taken["changes"] == [{"square": "F8", "was": None, "now": "E"}, {"square": "G8", "was": "C", "now": "c"}]
    assert taken["score"] == 6  # E1 + blank 0 + A1 + T1 on the centre's double word
    assert misfit["changes"] == [] and misfit["score"] is None  # one tile off the centre: no play there


def test_confirming_a_play_whose_blank_is_unnamed_is_refused_and_the_flags_stay(api, client):
    """'Confirm' re-enters the play as read; with a blank nobody named ('?', on air) that would
    settle a guess: a 422 saying to name the blank, and the play stays under review and flagged."""
    gid = new_game(client, table=41)
    pl = Placement((PlacedTile(Square(7, 6), "C"), PlacedTile(Square(7, 7), "?", True), PlacedTile(Square(7, 8), "T")),
                   Direction.ACROSS)
    api.service.build(gid, lambda g: g.play(0, pl, certainty=0.42, review=True))
    [m] = client.get(f"/api/games/{gid}/moves").json()
    assert m["blank_undecided"] is True and m["word"] == "C?T"
    r = client.post(f"/api/games/{gid}/moves/0/corrections", headers=AUTH,
                    json={"kind": "play", "position": m["position"], "word": m["word"], "reason": "confirmed as read"})
    assert r.status_code == 422, r.text
    assert "blank at H8 has no letter" in r.text and "name it" in r.text
    [m] = client.get(f"/api/games/{gid}/moves").json()
    assert m["review"] is True and m["corrected"] is False
    [t] = [t for t in client.get("/api/tables").json()["tables"] if t["table"] == 41]
    assert t["flags"] == ["review", "blank"] and t["blanks"] == [1] and t["review"] == [1]
    # named by re-entering it with the letter: confirmed, and nothing is flagged any more
    r = client.post(f"/api/games/{gid}/moves/0/corrections", headers=AUTH,
                    json={"kind": "play", "position": "8G", "word": "CaT", "reason": "confirmed, blank named"})
    assert r.status_code == 200, r.text
    [t] = [t for t in client.get("/api/tables").json()["tables"] if t["table"] == 41]
    assert t["flags"] == [] and t["blanks"] == []


def test_a_high_certainty_play_with_an_unnamed_blank_flags_its_table(api, client):
    gid = new_game(client, table=42)
    pl = Placement((PlacedTile(Square(7, 7), "?", True), PlacedTile(Square(7, 8), "O")), Direction.ACROSS)
    api.service.build(gid, lambda g: g.play(0, pl, certainty=0.99, review=False))
    [t] = [t for t in client.get("/api/tables").json()["tables"] if t["table"] == 42]
    assert t["flags"] == ["blank"] and t["blanks"] == [1] and t["review"] == []
    r = client.post(f"/api/games/{gid}/moves/0/corrections", headers=AUTH,
                    json={"kind": "blank", "square": "H8", "letter": "g"})
    assert r.status_code == 200, r.text
    [t] = [t for t in client.get("/api/tables").json()["tables"] if t["table"] == 42]
    assert t["flags"] == []


def test_undoing_a_letter_correction_puts_the_play_back_under_review(api, client):
    """Issue 35: a letter fixed on a play under review, then undone at the console: the reading is
    the camera's again and so is its review (in /moves' review queue, /live's unconfirmed and the
    table's flags); undoing the undo is the person's word again."""
    gid = new_game(client, table=61)
    camera_play(api, gid)

    def state():
        [m] = client.get(f"/api/games/{gid}/moves").json()
        live = client.get(f"/api/games/{gid}/live").json()
        [t] = [t for t in client.get("/api/tables").json()["tables"] if t["table"] == 61]
        return m["word"], m["review"], live["unconfirmed"], "review" in t["flags"]

    r = client.post(f"/api/games/{gid}/moves/0/corrections", headers=AUTH,
                    json={"kind": "letter", "square": "8H", "letter": "O"})
    assert r.status_code == 200, r.text
    assert state() == ("COT", False, [], False)
    undo = client.post(f"/api/games/{gid}/corrections/{r.json()['seqs'][0]}/undo", headers=AUTH, json={})
    assert undo.status_code == 200, undo.text
    assert state() == ("CAT", True, [0], True)
    again = client.post(f"/api/games/{gid}/corrections/{undo.json()['seqs'][0]}/undo", headers=AUTH, json={})
    assert again.status_code == 200, again.text
    assert state() == ("COT", False, [], False)
    log = client.get(f"/api/games/{gid}.json").json()["log"]
    assert [e.get("undoes") for e in log] == [None, None, 1, 2]  # the undos name what they take back


def test_a_withdrawn_play_offers_no_runner_up_and_says_why_it_is_in_review(api, client):
    """Issue 43 item 7: on MAZEY, withdrawn the next move with ALGAE's A on H11 since, the console
    asked "Takes off the board: M at H11". A play a challenge took back has no tile on the board to
    read again: no runner-up. And the queue says why a play is in it from scoring's typed doubts."""
    from tilecam.scoring import Doubt

    gid = new_game(client)
    pl = Placement(tuple(PlacedTile(Square(7, 6 + i), ch) for i, ch in enumerate("CAT")), Direction.ACROSS)
    api.service.build(gid, lambda g: g.play(0, pl, certainty=0.9995, review=True, runner_ups=(("8G", "COT", 0.0004),),
                                            doubts=(Doubt.NOT_FROM_RACK,)))
    assert client.get(f"/api/games/{gid}/moves").json()[0]["runner_ups"]   # on the board: offered
    r = client.post(f"/api/games/{gid}/challenges", headers=AUTH, json={"outcome": "phony"})
    assert r.status_code == 200, r.text
    # Bob's DOG where CAT stood: H8 holds his O now, none of CAT's tiles
    r = client.post(f"/api/games/{gid}/plays", headers=AUTH, json={"position": "8G", "word": "DOG"})
    assert r.status_code == 200, r.text
    m = client.get(f"/api/games/{gid}/moves").json()[0]
    assert m["review"] is True and m["runner_ups"] == []
    assert m["doubts"] == ["not_from_rack"] and m["certainty"] == 0.9995
    # a person's play has no doubts
    assert client.get(f"/api/games/{gid}/moves").json()[2]["doubts"] == []


def test_the_recount_says_how_many_camera_plays_no_person_confirmed(api, client):
    """Issue 43 item 8: "No discrepancy: every score agrees with the engine" on a game where 18 of
    24 camera plays were never confirmed reads as "checked". The recount counts them."""
    gid = new_game(client)
    rc = client.get(f"/api/games/{gid}/recount").json()
    assert (rc["camera_plays"], rc["unconfirmed"]) == (0, 0)
    camera_play(api, gid)                                                 # the camera's CAT
    client.post(f"/api/games/{gid}/plays", headers=AUTH, json={"position": "H7", "word": "A.E"})   # a person's
    pl = Placement((PlacedTile(Square(8, 8), "O"),), Direction.ACROSS)     # the camera's TO, sure of it
    api.service.build(gid, lambda g: g.play(0, pl, certainty=0.99))
    rc = client.get(f"/api/games/{gid}/recount").json()
    assert rc["first_discrepancy"] is None
    assert (rc["camera_plays"], rc["unconfirmed"]) == (2, 2)   # unsure or sure, no person looked at either
    m = client.get(f"/api/games/{gid}/moves").json()[0]
    r = client.post(f"/api/games/{gid}/moves/0/corrections", headers=AUTH,
                    json={"kind": "play", "position": m["position"], "word": m["word"], "reason": "confirmed as read"})
    assert r.status_code == 200, r.text
    rc = client.get(f"/api/games/{gid}/recount").json()
    assert (rc["camera_plays"], rc["unconfirmed"]) == (2, 1)
