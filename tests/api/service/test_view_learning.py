"""Trust is earned per table (issue 36) over real HTTP: the live state and /api/tables carry the
table's `learning` (tiles learned of the set's, plays confirmed), computed from the log and the
tiles the table learned before (the game's meta, LEARNED_META)."""
from __future__ import annotations

from apiserver import AUTH, api, client, new_game  # noqa: F401  (fixtures)
from tilecam.api.service.view import LEARNED_META
from tilecam.scoring.board import Direction, Square
from tilecam.scoring.placement import PlacedTile, Placement


def camera_play(api, gid, word="CAT", review=True):
    """A play as the scorekeeper appends it on a table that has not learned its tiles: sure, flagged."""
    pl = Placement(tuple(PlacedTile(Square(7, 6 + i), ch) for i, ch in enumerate(word)), Direction.ACROSS)
    api.service.build(gid, lambda g: g.play(0, pl, certainty=0.999, review=review))


def test_the_learning_grows_with_each_confirmation_and_shows_on_the_tournament(api, client):
    gid = new_game(client, table=3)
    camera_play(api, gid)
    live = client.get(f"/api/games/{gid}/live").json()
    assert live["learning"] == {"seen": 0, "of": 27, "confirmed": 0, "missing": list("ABCDEFGHIJKLMNOPQRSTUVWXYZ?"),
                                "trusted": False, "text": "learning: 0 of 27 tiles seen, 0 plays confirmed"}
    assert live["unconfirmed"] == [0]
    [m] = client.get(f"/api/games/{gid}/moves").json()
    r = client.post(f"/api/games/{gid}/moves/0/corrections", headers=AUTH,
                    json={"kind": "play", "position": m["position"], "word": m["word"], "reason": "confirmed as read"})
    assert r.status_code == 200, r.text
    live = client.get(f"/api/games/{gid}/live").json()
    assert live["unconfirmed"] == [] and live["learning"]["seen"] == 3 and live["learning"]["confirmed"] == 1
    assert "C" not in live["learning"]["missing"] and live["learning"]["text"] == \
        "learning: 3 of 27 tiles seen, 1 play confirmed"
    [row] = client.get("/api/tables").json()["tables"]
    assert row["table"] == 3 and row["learning"]["text"] == "learning: 3 of 27 tiles seen, 1 play confirmed"
    # the undo of the confirmation: the play is back under review, its tiles no longer learned
    seq = client.get(f"/api/games/{gid}/recount").json()["corrections"][0]["seq"]
    r = client.post(f"/api/games/{gid}/corrections/{seq}/undo", headers=AUTH, json={"reason": "clicked by mistake"})
    assert r.status_code == 200, r.text
    live = client.get(f"/api/games/{gid}/live").json()
    assert live["unconfirmed"] == [0] and live["learning"]["seen"] == 0


def test_the_tiles_learned_before_count_and_a_game_entered_by_hand_has_no_learning(api, client):
    gid = new_game(client)
    assert client.get(f"/api/games/{gid}/live").json()["learning"] is None
    client.post(f"/api/games/{gid}/plays", headers=AUTH, json={"position": "8G", "word": "CAT"})
    assert client.get(f"/api/games/{gid}/live").json()["learning"] is None   # no camera here
    api.service.set_meta(gid, {LEARNED_META: " ".join("ABCDEFGHIJKLMNOPQRSTUVWXYZ?")})
    learning = client.get(f"/api/games/{gid}/live").json()["learning"]
    assert learning["trusted"] and learning["text"] == "learned: all 27 tiles seen, 0 plays confirmed"
