"""Overlay pages over real HTTP: the board overlay, one page per OBS field, static assets."""
from __future__ import annotations

import pytest

from apiserver import api, client, new_game  # noqa: F401  (fixtures)
from tilecam.api.schemas import OBS_FIELDS


def test_overlay_page_is_served_for_a_known_game(client):
    gid = new_game(client)
    r = client.get(f"/overlay/{gid}")
    assert r.status_code == 200 and r.headers["content-type"].startswith("text/html")
    assert 'id="board"' in r.text and "/static/overlay.js" in r.text


def test_overlay_page_for_a_game_not_created_yet_is_the_page_not_json(client):
    # OBS is pointed at the URL before the game exists: it gets the page, whose script waits.
    for path in ("/overlay/8080", "/overlay/8080/score", "/overlay/table/77", "/overlay/table/77/last_play"):
        r = client.get(path)
        assert r.status_code == 200 and r.headers["content-type"].startswith("text/html"), path
        assert "/static/live.js" in r.text


@pytest.mark.parametrize("query", ["scale=1.5", "scale=0.25&theme=light", "parts=board,scores&rotate=3",
                                   "parts=last&theme=dark&rotate=0", "theme=transparent&scale=4"])
def test_overlay_options_in_the_query_string(client, query):
    gid = new_game(client)
    for path in (f"/overlay/{gid}", "/overlay/table/1"):
        assert client.get(f"{path}?{query}").status_code == 200


@pytest.mark.parametrize("query, field", [("scale=5", "scale"), ("scale=big", "scale"), ("parts=board,logo", "parts"),
                                          ("parts=", "parts"), ("theme=pink", "theme"), ("rotate=4", "rotate"),
                                          ("rotate=-1", "rotate")])
def test_overlay_bad_option_is_a_422_naming_it(client, query, field):
    for path in ("/overlay/1", "/overlay/table/1"):
        r = client.get(f"{path}?{query}")
        assert r.status_code == 422 and f"query.{field}" in r.json()["detail"], (path, r.text)


def test_overlay_unknown_part_names_the_valid_ones_not_a_pattern(client):
    for path in ("/overlay/1", "/overlay/table/1"):
        r = client.get(f"{path}?parts=board,scroe")
        assert r.status_code == 422 and r.json()["detail"] == (
            "query.parts: unknown 'scroe'; valid: board, scores, last, unseen, clocks, racks"), r.text


def test_overlay_field_page_options(client):
    assert client.get("/overlay/1/score?scale=2&theme=dark").status_code == 200
    r = client.get("/overlay/1/score?rotate=1")  # the board's option means nothing on a field page
    assert r.status_code == 200
    r = client.get("/overlay/table/1/score?theme=neon")
    assert r.status_code == 422 and "query.theme" in r.json()["detail"]


@pytest.mark.parametrize("path", ["/overlay/table/0", "/overlay/table/x", "/overlay/table/10000/score",
                                  "/overlay/table/2/p9_score"])
def test_overlay_bad_table_page_is_422(client, path):
    r = client.get(path)
    assert r.status_code == 422 and r.json()["detail"]


@pytest.mark.parametrize("field", OBS_FIELDS)
def test_overlay_field_pages_follow_the_stream(client, field):
    gid = new_game(client)
    r = client.get(f"/overlay/{gid}/{field}")
    assert r.status_code == 200 and r.headers["content-type"].startswith("text/html")
    assert f'data-field="{field}"' in r.text and 'src="/static/field.js"' in r.text


def test_overlay_unknown_field_page_is_422(client):
    gid = new_game(client)
    assert client.get(f"/overlay/{gid}/p5_name").status_code == 422


@pytest.mark.parametrize("asset, kind", [("overlay.css", "text/css"), ("overlay.js", "javascript"),
                                         ("live.js", "javascript"), ("operator.css", "text/css")])
def test_overlay_static_assets(client, asset, kind):
    r = client.get(f"/static/{asset}")
    assert r.status_code == 200 and kind in r.headers["content-type"]


def test_overlay_background_is_transparent(client):
    css = client.get("/static/overlay.css").text
    assert "background: transparent" in css


@pytest.mark.parametrize("path", ["/overlay/0", "/overlay/-3/score", f"/overlay/{2**63}"])
def test_overlay_page_for_an_id_no_game_can_have_is_404(client, path):
    r = client.get(path)
    assert r.status_code == 404 and "game ids are positive" in r.json()["detail"]
