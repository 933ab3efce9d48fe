"""Issue 46: /api/games/{id}/woogles, the GCG export as the Woogles editor's import link, and what
Woogles will not take as played. Over real HTTP; nothing reaches woogles.io."""
from __future__ import annotations

from pathlib import Path
from urllib.parse import parse_qs, urlsplit

from apiserver import api, client, import_gcg, new_game  # noqa: F401  (fixtures)

DATA = Path(__file__).resolve().parents[2] / "data" / "gcg"


def gcg_of(url: str) -> str:
    parts = urlsplit(url)
    assert (parts.scheme, parts.netloc, parts.path) == ("https", "woogles.io", "/scrabblecam/callback")
    return parse_qs(parts.query, strict_parsing=True)["gcg"][0]   # as URLSearchParams.get("gcg") reads it


def test_a_finished_game_opens_in_woogles_whole(client, shared_data):
    gid = import_gcg(client, shared_data / "gcg" / "liwords" / "doug_vs_emely.gcg")
    out = client.get(f"/api/games/{gid}/woogles").json()
    assert out["complete"] and out["why"] is None and out["length"] == len(out["url"])
    assert gcg_of(out["url"]) == client.get(f"/api/games/{gid}.gcg").text   # the export, byte for byte
    assert client.get(f"/api/games/{gid}").json()["links"]["woogles"] == f"/api/games/{gid}/woogles"


def test_a_game_whose_end_racks_nobody_saw_says_so(client):
    gid = import_gcg(client, DATA / "zeros_end_racks_unseen.gcg")   # six scoreless turns, no racks taken off
    out = client.get(f"/api/games/{gid}/woogles").json()
    assert not out["complete"] and out["why"].endswith("the end racks were not seen"), out
    assert gcg_of(out["url"]).splitlines()[-1] == f"#note {out['why']}"   # the GCG says it too


def test_a_game_in_play_is_not_complete_and_a_bad_id_is_a_404(client):
    gid = new_game(client)
    out = client.get(f"/api/games/{gid}/woogles").json()
    assert out == {"game_id": gid, "url": out["url"], "length": len(out["url"]), "complete": False,
                   "why": "Woogles will not mark this game complete: the game is not over"}
    assert gcg_of(out["url"]) == client.get(f"/api/games/{gid}.gcg").text
    assert client.get("/api/games/99999/woogles").status_code == 404


def test_more_than_two_players_gives_no_link(client):
    gid = import_gcg(client, DATA / "box_four_players.gcg", rules="box")
    out = client.get(f"/api/games/{gid}/woogles").json()
    assert out["url"] is None and out["length"] == 0 and not out["complete"], out
    assert out["why"] == "Woogles cannot import this game: it imports two-player games only"
