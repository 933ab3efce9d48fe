"""Live: Server-Sent Events over real HTTP and the OBS text fields (the bus itself: tests/api/test_bus.py)."""
from __future__ import annotations

import re
import threading

import pytest

from apiserver import AUTH, SseReader, api, client, new_game  # noqa: F401  (fixtures)
from tilecam.api.schemas import OBS_FIELDS


def test_live_sse_sends_the_state_then_each_committed_entry(api, client):
    gid = new_game(client)
    with SseReader(f"{api.url}/api/games/{gid}/events", limit=3) as sse:
        event, seq, data = sse.next()
        assert event == "update" and seq == "-1" and data["live"]["scores"] == [0, 0]
        r = client.post(f"/api/games/{gid}/plays", json={"position": "8H", "word": "ZAX"}, headers=AUTH)
        assert r.status_code == 200, r.text
        event, seq, data = sse.next()
        assert seq == "0" and data["entry"]["kind"] == "play" and data["committed"] > 0
        assert data["live"]["fields"]["p1_score"] == "38" and data["live"]["last_play"] == ["8H", "8I", "8J"]
        client.post(f"/api/games/{gid}/passes", json={}, headers=AUTH)
        assert sse.next()[2]["entry"]["kind"] == "pass"


def test_live_sse_unknown_game_is_404(client):
    assert client.get("/api/games/90909/events").status_code == 404


def test_live_obs_fields_as_text(client):
    gid = new_game(client, "Nigel Richards", "Jackson Smylie")
    client.post(f"/api/games/{gid}/plays", json={"position": "8G", "word": "QAt"}, headers=AUTH)
    fields = client.get(f"/api/games/{gid}/fields").json()
    assert set(fields) == set(OBS_FIELDS)
    for name in OBS_FIELDS:
        r = client.get(f"/api/games/{gid}/fields/{name}")
        assert r.status_code == 200 and r.headers["content-type"].startswith("text/plain")
        assert r.text == fields[name]
    assert fields["p1_name"] == "Nigel Richards" and fields["p2_name"] == "Jackson Smylie"
    assert fields["p1_score"] == "22" and fields["score"] == "22 - 0"
    assert fields["p3_name"] == fields["p3_score"] == fields["p4_score"] == ""  # a two-player game
    assert fields["last_play"] == "Nigel Richards: 8G QAt +22"
    assert fields["blank1"] == "T" and fields["blank2"] == ""
    assert fields["unseen_count"] == "97" and fields["unseen_tiles"].endswith(" ?")


@pytest.mark.parametrize("field", ["score.txt", "p5_score", "board"])
def test_live_unknown_obs_field_is_422(client, field):
    gid = new_game(client)
    r = client.get(f"/api/games/{gid}/fields/{field}")
    assert r.status_code == 422


def test_live_state_json(client):
    gid = new_game(client)
    live = client.get(f"/api/games/{gid}/live").json()
    assert live["seq"] == -1 and len(live["rows"]) == 15 and live["unseen_count"] == 100
    assert live["premiums"][7][7] == "*" and live["values"]["Q"] == 10


def test_live_recorder_thread_appends_reach_sse_clients(api, client):
    """The recorder's seam: build/append from another thread, committed then published."""
    from tilecam.scoring.board import Direction, Square
    from tilecam.scoring.events import Pass, Play
    from tilecam.scoring.game import GameError
    from tilecam.scoring.placement import PlacedTile, Placement, PlacementError

    gid = new_game(client)
    placement = Placement((PlacedTile(Square(7, 7), "O"), PlacedTile(Square(7, 8), "X")), Direction.ACROSS)
    with SseReader(f"{api.url}/api/games/{gid}/events", limit=3) as sse:
        sse.next()
        worker = threading.Thread(target=lambda: api.service.build(gid, lambda g: g.play(0, placement)))
        worker.start()
        worker.join()
        _, seq, data = sse.next()
        assert seq == "0" and data["live"]["scores"] == [18, 0]
        with pytest.raises(GameError, match="cumulative"):
            api.service.append(gid, Pass(1, 5))  # a wrong running total is refused, nothing stored
        bogus = Play(1, Placement((PlacedTile(Square(6, 8), "A"),), Direction.ACROSS), ("AX",), None, 99, 99, 99)
        with pytest.raises(GameError, match="engine score 99 is not what the rules give"):
            api.service.append(gid, bogus)
        floating = Play(1, Placement((PlacedTile(Square(0, 0), "A"), PlacedTile(Square(0, 1), "X")),
                                     Direction.ACROSS), ("AX",), None, 9, 9, 9)
        with pytest.raises(PlacementError, match="does not touch"):
            api.service.append(gid, floating)
        assert api.service.append(gid, Pass(1, 0)) == 1
        assert sse.next()[2]["entry"] == {"kind": "pass", "player": 1, "cumulative": 0, "rack": None, "note": ""}


def test_live_last_play_shows_played_through_letters_and_blanks_and_survives_a_challenge_bonus(client):
    gid = new_game(client, "Nigel Richards", "Jackson Smylie", rules="wespa")  # 5-point challenges
    r = client.post(f"/api/games/{gid}/plays", json={"position": "H7", "word": "OB"}, headers=AUTH)
    assert r.status_code == 200, r.text
    assert r.json()["live"]["fields"]["last_play"] == "Nigel Richards: H7 OB +8"
    # ZEBRA through the B, its R a blank
    r = client.post(f"/api/games/{gid}/plays", json={"position": "8F", "word": "ZE.rA"}, headers=AUTH)
    assert r.status_code == 200, r.text
    fields = r.json()["live"]["fields"]
    played = f"Jackson Smylie: 8F ZE(B)rA +{r.json()['live']['scores'][1]}"
    assert fields["last_play"] == played and fields["last_word"] == "ZE(B)rA"
    r = client.post(f"/api/games/{gid}/challenges", json={"outcome": "valid", "words": 1}, headers=AUTH)
    assert r.status_code == 200, r.text
    fields = r.json()["live"]["fields"]
    assert fields["last_play"] == f"{played}, challenge bonus +5" and fields["last_word"] == "ZE(B)rA"
    assert client.get(f"/api/games/{gid}/fields/last_play").text == f"{played}, challenge bonus +5"
    r = client.post(f"/api/games/{gid}/passes", json={}, headers=AUTH)
    fields = r.json()["live"]["fields"]
    assert fields["last_play"] == "Nigel Richards: pass" and fields["last_word"] == ""


def test_live_winner_and_spread_only_at_the_end(client):
    gid = new_game(client, "Nigel Richards", "Jackson Smylie")
    client.post(f"/api/games/{gid}/plays", json={"position": "8H", "word": "ZAX"}, headers=AUTH)
    client.post(f"/api/games/{gid}/plays", json={"position": "I7", "word": "OXO"}, headers=AUTH)
    fields = client.get(f"/api/games/{gid}/fields").json()
    assert fields["winner"] == fields["spread"] == fields["result"] == ""
    r = client.post(f"/api/games/{gid}/end", json={"reason": "forfeit"}, headers=AUTH)
    assert r.status_code == 200, r.text
    live = r.json()["live"]
    a, b = live["scores"]
    assert a != b
    winner = "Nigel Richards" if a > b else "Jackson Smylie"
    assert live["fields"]["winner"] == winner and live["fields"]["spread"] == f"+{abs(a - b)}"
    assert live["fields"]["result"] == f"{winner} wins by {abs(a - b)}"


def test_live_tie_has_no_winner(client):
    gid = new_game(client)
    client.post(f"/api/games/{gid}/end", json={"reason": "forfeit"}, headers=AUTH)
    fields = client.get(f"/api/games/{gid}/fields").json()
    assert fields["winner"] == "Tie" and fields["spread"] == "0" and fields["result"] == "Tie at 0"


def test_live_vowels_consonants_of_the_unseen_pool_blanks_apart(client):
    gid = new_game(client)
    # said plainly, not "42 / 56 V/C"
    assert client.get(f"/api/games/{gid}/fields/vowels_consonants").text == "42 vowels · 56 consonants"  # + 2 blanks
    client.post(f"/api/games/{gid}/plays", json={"position": "8G", "word": "QAt"}, headers=AUTH)
    fields = client.get(f"/api/games/{gid}/fields").json()
    assert fields["vowels_consonants"] == "41 vowels · 55 consonants" and fields["unseen_count"] == "97"
    unseen = client.get(f"/api/games/{gid}/unseen").json()
    assert fields["vowels_consonants"] == f"{unseen['vowels']} vowels · {unseen['consonants']} consonants"


def test_live_vowels_consonants_in_the_singular():
    from tilecam.api.service.live import _count

    assert [_count(n, "vowel") for n in (0, 1, 2)] == ["0 vowels", "1 vowel", "2 vowels"]


def test_live_result_waits_for_the_rack_points(client, shared_data):
    """The out-play ends the game, but the spread moves once more with the rack points: no winner
    goes on air before them (it would read 'cesar wins by 44', then 60)."""
    text = (shared_data / "gcg" / "liwords" / "doug_vs_emely.gcg").read_text(encoding="utf-8")
    lines = text.rstrip("\n").split("\n")
    last = max(i for i, ln in enumerate(lines) if ln.startswith(">"))
    assert re.match(r">\S+:\s+\(\S+\) \+\d+ \d+$", lines[last])  # the rack points
    r = client.post("/api/games/gcg", content="\n".join(lines[:last] + lines[last + 1:]) + "\n",
                    headers={**AUTH, "Content-Type": "text/plain"})
    assert r.status_code == 201, r.text
    gid = r.json()["id"]
    with SseReader(f"{client.base_url}/api/games/{gid}/events", limit=4) as sse:
        first = sse.next()[2]["live"]
        assert first["ended"] and first["end_reason"] == "out"
        assert first["fields"]["winner"] == first["fields"]["spread"] == first["fields"]["result"] == ""
        r = client.post(f"/api/games/{gid}/end", json={}, headers=AUTH)
        assert r.status_code == 200, r.text
        fields = r.json()["live"]["fields"]
        a, b = r.json()["live"]["scores"]
        assert fields["spread"] == f"+{abs(a - b)}" and fields["result"].endswith(f"wins by {abs(a - b)}")
        # every update the stream carried after the end has the final result, none an earlier one
        update = sse.next()[2]
        assert update["entry"]["kind"] == "end_rack_points" and update["live"]["fields"] == fields


def test_live_withdrawn_phony_names_the_word(client):
    gid = new_game(client, "Cesar Del Solar", "Josh Sokol")
    client.post(f"/api/games/{gid}/plays", json={"position": "8G", "word": "ZAX"}, headers=AUTH)
    r = client.post(f"/api/games/{gid}/plays", json={"position": "H7", "word": "QA"}, headers=AUTH)
    assert r.status_code == 200, r.text
    score = r.json()["live"]["scores"][1]
    r = client.post(f"/api/games/{gid}/challenges", json={"outcome": "phony"}, headers=AUTH)
    assert r.json()["live"]["fields"]["last_play"] == f"Josh Sokol: Q(A) withdrawn -{score}"
    assert r.json()["live"]["last_text"] == f"Josh Sokol: Q(A) withdrawn -{score}"
