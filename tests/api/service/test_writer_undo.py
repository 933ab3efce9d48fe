"""Undoing a correction over real HTTP: one more Correction that puts the move back as it stood
(the log stays append-only); only a move's latest correction; and the operator token checked on
its own (GET /api/token) before anything is written."""
from __future__ import annotations

from apiserver import AUTH, api, client, new_game  # noqa: F401  (fixtures)


def post(client, path, body=None):  # noqa: F811
    return client.post(path, json=body if body is not None else {}, headers=AUTH)


def move(client, gid, index=0):  # noqa: F811
    return client.get(f"/api/games/{gid}/moves").json()[index]


def corrections(client, gid):  # noqa: F811
    return [c for c in client.get(f"/api/games/{gid}/recount").json()["corrections"] if c["kind"] == "correction"]


def test_undo_puts_the_move_back_as_it_stood_before_the_correction(client):  # noqa: F811
    gid = new_game(client)
    assert post(client, f"/api/games/{gid}/plays", {"position": "8D", "word": "QUALM"}).status_code == 200
    assert move(client, gid)["agreed"] == 52
    score = post(client, f"/api/games/{gid}/moves/0/corrections", {"kind": "score", "agreed": 60}).json()["seqs"][0]
    play = post(client, f"/api/games/{gid}/moves/0/corrections",
                {"kind": "play", "position": "8F", "word": "QUA"}).json()["seqs"][0]
    m = move(client, gid)
    assert (m["word"], m["agreed"]) == ("QUA", 60)  # the ruling stands through the later fix

    # The score ruling has a correction on top of it: refused, nothing written.
    entries = len(client.get(f"/api/games/{gid}.json").json()["log"])
    r = post(client, f"/api/games/{gid}/corrections/{score}/undo")
    assert r.status_code == 422 and "undo that one first" in r.json()["detail"], r.text
    assert len(client.get(f"/api/games/{gid}.json").json()["log"]) == entries

    # The latest one undone: the play as it stood before it (QUALM), the ruling of 60 kept.
    r = post(client, f"/api/games/{gid}/corrections/{play}/undo", {"reason": "undone at the console"})
    assert r.status_code == 200, r.text
    m = move(client, gid)
    assert (m["word"], m["agreed"], m["corrected"]) == ("QUALM", 60, True)
    log = client.get(f"/api/games/{gid}.json").json()["log"]
    assert len(log) == entries + 1 and log[-1]["kind"] == "correction" and log[-1]["by"] == "tester"
    assert corrections(client, gid)[-1]["change"] == "play 8F QUA → 8D QUALM"

    # Undoing the undo takes the correction again; the first undone in turn gives back the rules' 52.
    undo = r.json()["seqs"][0]
    assert post(client, f"/api/games/{gid}/corrections/{undo}/undo").status_code == 200
    assert move(client, gid)["word"] == "QUA"


def test_undo_refuses_what_is_no_correction(client):  # noqa: F811
    gid = new_game(client)
    seq = post(client, f"/api/games/{gid}/plays", {"position": "8D", "word": "QUALM"}).json()["seqs"][0]
    r = post(client, f"/api/games/{gid}/corrections/{seq}/undo")
    assert r.status_code == 422 and r.json()["detail"] == "that log entry is not a correction"
    r = post(client, f"/api/games/{gid}/corrections/99999/undo")
    assert r.status_code == 404 and "no log entry 99999" in r.json()["detail"]
    assert client.post(f"/api/games/{gid}/corrections/{seq}/undo", json={}).status_code == 401


def test_a_token_is_checked_without_writing(client):  # noqa: F811
    r = client.get("/api/token", headers=AUTH)
    assert r.status_code == 200 and r.json() == {"operator": "tester"}
    r = client.get("/api/token", headers={"Authorization": "Bearer not-the-token"})
    assert r.status_code == 401 and r.json()["detail"] == "unknown operator token"
    assert client.get("/api/token").status_code == 401
