"""Undo as an append-only Void: the engine skips the voided event, the service refuses a void a
later move depends on, and the API, the GCG export, the recount and the live state see the log
without it."""
from __future__ import annotations

import pytest

from apiserver import AUTH, SseReader, api, client, new_game  # noqa: F401  (fixtures)
from tilecam.scoring.events import Correction, Pass, Void, from_json, to_json, voided
from tilecam.scoring.game import Game, GameError, effective_events
from tilecam.scoring.gcg import placement_from_gcg
from tilecam.scoring.rules import get_profile
from tilecam.scoring.tiles import DISTRIBUTIONS

NASPA, EN = get_profile("naspa"), DISTRIBUTIONS["en"]


def _game() -> Game:
    g = Game(NASPA, EN)
    g.play(0, placement_from_gcg(g, "8D", "QUALM"), None)   # 0
    g.pass_turn(1)                                           # 1
    g.play(0, placement_from_gcg(g, "H7", "O.S"), None)     # 2: through the M of QUALM
    return g


def test_void_roundtrips_through_json():
    v = Void(3, "desk", "double click")
    assert to_json(v) == {"kind": "void", "target": 3, "by": "desk", "reason": "double click"}
    assert from_json(to_json(v)) == v
    with pytest.raises(ValueError, match="bad void"):
        from_json({"kind": "void", "by": "desk"})


def test_a_voided_event_is_skipped_and_the_rest_recomputed():
    g = _game()
    log = list(g.events) + [Void(1, "desk")]
    events = effective_events(log, NASPA, EN)
    assert [e.kind for e in events] == ["play", "play"]
    assert events[1].cumulative == g.events[0].agreed + g.events[2].agreed
    assert voided(log) == {1}


def test_a_voided_events_corrections_go_with_it_and_later_ones_are_refused():
    g = _game()
    fix = Correction(1, Pass(1, 0, None, "fixed"), "desk")
    assert len(effective_events(list(g.events) + [fix, Void(1, "desk")], NASPA, EN)) == 2
    with pytest.raises(GameError, match="which was voided"):
        effective_events(list(g.events) + [Void(1, "desk"), fix], NASPA, EN)


@pytest.mark.parametrize("extra, message", [
    ([Void(1, "desk"), Void(3, "desk")], "names no earlier event"),        # a void of a void
    ([Void(1, "desk"), Void(1, "desk")], "which was voided"),              # twice
    ([Correction(0, Pass(0, 0), "desk"), Void(3, "desk")], "names no earlier event"),  # a correction
    ([Void(7, "desk")], "names no earlier event"),
])
def test_what_cannot_be_voided(extra, message):
    with pytest.raises(GameError, match=message):
        effective_events(list(_game().events) + extra, NASPA, EN)


# ---- over HTTP ----------------------------------------------------------------------------

def post(client, path, body=None):
    return client.post(path, json=body if body is not None else {}, headers=AUTH)


def log_of(client, gid):
    return client.get(f"/api/games/{gid}.json").json()


def entries(client, gid) -> int:
    return client.get(f"/api/games/{gid}").json()["entries"]


def test_undo_a_double_pass(client):
    gid = new_game(client)
    assert post(client, f"/api/games/{gid}/plays", {"position": "8D", "word": "QUALM"}).status_code == 200
    post(client, f"/api/games/{gid}/passes")
    post(client, f"/api/games/{gid}/passes")  # the second click of a double-click
    assert client.get(f"/api/games/{gid}.gcg").text.count(" - +0 ") == 2
    moves = client.get(f"/api/games/{gid}/moves").json()
    r = post(client, f"/api/games/{gid}/moves/2/void", {"reason": "double click", "seq": moves[2]["seq"]})
    assert r.status_code == 200, r.text
    assert r.json()["seqs"] == [3] and r.json()["live"]["on_turn"] == 0
    moves = client.get(f"/api/games/{gid}/moves").json()
    assert [(m["kind"], m["player"]) for m in moves] == [("play", 0), ("pass", 1)]
    gcg = client.get(f"/api/games/{gid}.gcg").text  # the export sees the log without the voided pass
    assert [ln.split()[0] for ln in gcg.splitlines() if ln.startswith(">")] == [">Alice_Ames:", ">Bob_Brown:"]
    assert gcg.count(" - +0 ") == 1
    log = log_of(client, gid)  # the log keeps the pass and the void after it
    assert [e["kind"] for e in log["log"]] == ["play", "pass", "pass", "void"]
    assert {k: log["log"][3][k] for k in ("target", "by", "reason")} == {
        "target": 2, "by": "tester", "reason": "double click"}
    assert len(log["events"]) == 2
    recount = client.get(f"/api/games/{gid}/recount")
    assert recount.status_code == 200 and [m["seq"] for m in recount.json()["moves"]] == [0, 1]
    assert client.get(f"/api/games/{gid}/live").json()["on_turn"] == 0


def test_void_refused_when_a_later_play_is_built_on_it(client):
    gid = new_game(client)
    post(client, f"/api/games/{gid}/plays", {"position": "8D", "word": "QUALM"})
    post(client, f"/api/games/{gid}/plays", {"position": "H7", "word": "O.S"})
    before = entries(client, gid)
    r = post(client, f"/api/games/{gid}/moves/0/void", {})
    assert r.status_code == 409
    assert "move 1" in r.json()["detail"]  # numbered from 1, as people count moves
    assert entries(client, gid) == before  # nothing written
    assert post(client, f"/api/games/{gid}/moves/1/void").status_code == 200
    assert post(client, f"/api/games/{gid}/moves/0/void").status_code == 200  # now the last
    assert client.get(f"/api/games/{gid}/moves").json() == []
    assert entries(client, gid) == before + 2


def test_void_refused_when_turn_order_depends_on_it(client):
    gid = new_game(client)
    post(client, f"/api/games/{gid}/plays", {"position": "8D", "word": "QUALM"})
    post(client, f"/api/games/{gid}/passes")
    post(client, f"/api/games/{gid}/exchanges", {"count": 3})
    r = post(client, f"/api/games/{gid}/moves/1/void")
    assert r.status_code == 409
    assert r.json()["detail"] == ("move 2 cannot be voided: move 3 (Alice Ames's exchange) depends on it; "
                                  "void the later moves first, the last first")


def test_void_a_penalty_under_later_moves(client):
    gid = new_game(client)
    post(client, f"/api/games/{gid}/plays", {"position": "8D", "word": "QUALM"})
    post(client, f"/api/games/{gid}/end", {"reason": "time"})   # overtime goes in once the game is over
    post(client, f"/api/games/{gid}/time-penalties", {"player": 1, "minutes": 1})
    post(client, f"/api/games/{gid}/time-penalties", {"player": 0, "minutes": 2})
    assert client.get(f"/api/games/{gid}/live").json()["scores"][1] == -10
    r = post(client, f"/api/games/{gid}/moves/1/void", {"reason": "wrong player"})
    assert r.status_code == 200, r.text
    assert r.json()["live"]["scores"][1] == 0
    assert [m["kind"] for m in client.get(f"/api/games/{gid}/moves").json()] == ["play", "time_penalty"]


def test_void_of_a_challenged_play_is_refused_and_of_the_withdrawal_restores_it(client):
    gid = new_game(client)
    post(client, f"/api/games/{gid}/plays", {"position": "8D", "word": "QUALM"})
    score = client.get(f"/api/games/{gid}/live").json()["scores"][0]
    assert post(client, f"/api/games/{gid}/challenges", {"outcome": "phony"}).status_code == 200
    assert client.get(f"/api/games/{gid}/live").json()["scores"][0] == 0
    r = post(client, f"/api/games/{gid}/moves/0/void")
    assert r.status_code == 409 and "no play to challenge" in r.json()["detail"]
    assert post(client, f"/api/games/{gid}/moves/1/void").json()["live"]["scores"][0] == score


@pytest.mark.parametrize("path, body, status, message", [
    ("/moves/5/void", {}, 404, "has no move 6 (index 5)"),  # numbered from 1
    ("/moves/0/void", {"seq": 9}, 409, "the record changed"),
    ("/moves/0/void", {"why": "x"}, 422, "why"),
    ("/moves/0/void", {"reason": "x" * 5000}, 422, "reason"),
    ("/moves/x/void", {}, 422, "index"),
])
def test_void_bad_requests_are_4xx_with_a_message(client, path, body, status, message):
    gid = new_game(client)
    post(client, f"/api/games/{gid}/passes")
    r = post(client, f"/api/games/{gid}{path}", body)
    assert r.status_code == status and message in r.json()["detail"], r.text
    assert entries(client, gid) == 1


def test_void_needs_the_token_and_is_published_live(api, client):
    gid = new_game(client)
    post(client, f"/api/games/{gid}/passes")
    assert client.post(f"/api/games/{gid}/moves/0/void", json={}).status_code == 401
    with SseReader(f"{api.url}/api/games/{gid}/events", limit=2) as sse:
        first = sse.events.get(timeout=5)
        assert first[2]["live"]["on_turn"] == 1
        post(client, f"/api/games/{gid}/moves/0/void")
        event, _, data = sse.events.get(timeout=5)
    assert event == "update" and data["entry"] == {"kind": "void", "target": 0, "by": "tester", "reason": ""}
    assert data["live"]["on_turn"] == 0 and data["live"]["seq"] == 1
