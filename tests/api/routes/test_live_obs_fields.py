"""The OBS fields: the list the routes take is the list the service fills (no field the docs name
that a route refuses, none a route takes that is always empty), the player on turn, and at the
end the going-out play in `last_play`, not the rack points that follow it."""
from __future__ import annotations

from typing import get_args

from apiserver import AUTH, api, client, import_gcg, new_game  # noqa: F401  (fixtures)
from tilecam.api.schemas import OBS_FIELDS, ObsField


def test_the_field_list_and_the_route_type_are_one(client):  # noqa: F811
    assert OBS_FIELDS == get_args(ObsField) and "on_turn" in OBS_FIELDS
    gid = new_game(client)
    assert set(client.get(f"/api/games/{gid}/fields").json()) == set(OBS_FIELDS)
    spec = client.get("/openapi.json").json()
    for path in ("/api/games/{game_id}/fields/{field}", "/overlay/{game_id}/{field}"):
        param = next(p for p in spec["paths"][path]["get"]["parameters"] if p["name"] == "field")
        assert param["schema"]["enum"] == list(OBS_FIELDS), path


def test_the_player_on_turn(client):  # noqa: F811
    gid = new_game(client, "Nigel Richards", "Jackson Smylie")
    assert client.get(f"/api/games/{gid}/fields/on_turn").text == "Nigel Richards"
    client.post(f"/api/games/{gid}/plays", json={"position": "8G", "word": "QAt"}, headers=AUTH)
    assert client.get(f"/api/games/{gid}/fields/on_turn").text == "Jackson Smylie"


def test_at_the_end_the_last_play_is_the_going_out_play(client, shared_data):  # noqa: F811
    gid = import_gcg(client, shared_data / "gcg" / "liwords" / "vs_josh.gcg")
    moves = client.get(f"/api/games/{gid}/moves").json()
    assert moves[-1]["kind"] == "end_rack_points"
    out = moves[-2]
    assert out["kind"] == "play"
    live = client.get(f"/api/games/{gid}/live").json()
    name = live["players"][out["player"]]["name"]
    assert live["fields"]["last_play"] == f"{name}: {out['position']} {out['shown']} {out['agreed']:+d}"
    assert live["fields"]["last_word"] == out["shown"]
    assert live["fields"]["on_turn"] == "" and live["fields"]["result"]
    assert live["last_play"] and set(live["last_play"]) <= {t["square"] for t in client.get(f"/api/games/{gid}/board").json()["tiles"]}
