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
    assert m["runner_ups"] == [{"position": "8G", "word": "COT", "probability": 0.31}]
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
