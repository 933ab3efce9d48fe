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
    r = client.get("/overlay/8080")
    assert r.status_code == 404 and r.json()["detail"] == "no game 8080"


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
