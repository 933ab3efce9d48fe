"""The overlay as a broadcaster meets it on the day, at 1920x1080 in headless Debian chromium:
`parts=clocks` without the scores still shows each player's clock (their name beside it); the
OBS field for the player on turn; and at the end the last-play box keeps the going-out play, not
the rack points after it, with the result and no player marked on turn.

TILECAM_PAGE_SHOTS=1 writes docs/pages/overlay-clocks.png and docs/pages/overlay-end.png.
"""
from __future__ import annotations

import os
from pathlib import Path

import pytest

from apiserver import AUTH, api, client, import_gcg, new_game  # noqa: F401  (fixtures)
from browser import chromium_page

pytestmark = pytest.mark.slow  # end to end (see pyproject's markers)

DOCS = Path(__file__).resolve().parents[3] / "docs" / "pages"
SHOTS = bool(os.environ.get("TILECAM_PAGE_SHOTS"))
WAIT = 10_000


@pytest.fixture(scope="module")
def page(tmp_path_factory):
    with chromium_page(tmp_path_factory.mktemp("chromium-profile"), 1920, 1080) as p:
        yield p


def post(client, path, body=None):  # noqa: F811
    r = client.post(path, json=body if body is not None else {}, headers=AUTH)
    assert r.status_code in (200, 201), r.text
    return r.json()


def test_clocks_without_scores_show_each_players_clock(api, client, page):  # noqa: F811
    gid = new_game(client, "Nigel Richards", "Jackson Smylie")
    post(client, f"/api/games/{gid}/clock", {"minutes": 25})
    post(client, f"/api/games/{gid}/clock/press")
    page.goto(f"{api.url}/overlay/{gid}?parts=clocks&theme=dark")
    page.wait_for_function("() => document.querySelector('[data-field=p1_clock]').textContent.includes(':')",
                           timeout=WAIT)
    for p in ("p0", "p1"):
        assert page.is_visible(f"#{p} .clock") and page.is_visible(f"#{p} .name")
        assert not page.is_visible(f"#{p} .score")
    assert page.inner_text("#p0 .clock").startswith(("25:00", "24:5"))
    assert page.inner_text("#p1 .clock") == "25:00"
    assert not page.is_visible("#board") and not page.is_visible("#last") and not page.is_visible("#unseen")
    if SHOTS:
        page.screenshot(path=str(DOCS / "overlay-clocks.png"), clip={"x": 0, "y": 0, "width": 960, "height": 300})
    # ... and scores without clocks: no clock.
    page.goto(f"{api.url}/overlay/{gid}?parts=scores")
    page.wait_for_function("() => document.querySelector('[data-field=p1_clock]').textContent.includes(':')",
                           timeout=WAIT)
    assert page.is_visible("#p0 .score") and not page.is_visible("#p0 .clock")
    assert page.errors == []


def test_the_player_on_turn_as_an_obs_field(api, client, page):  # noqa: F811
    gid = new_game(client, "Nigel Richards", "Jackson Smylie")
    page.goto(f"{api.url}/overlay/{gid}/on_turn")
    page.wait_for_function("() => document.querySelector('#field').textContent === 'Nigel Richards'", timeout=WAIT)
    post(client, f"/api/games/{gid}/plays", {"position": "8G", "word": "QAt"})
    page.wait_for_function("() => document.querySelector('#field').textContent === 'Jackson Smylie'", timeout=WAIT)
    assert page.errors == []


def test_at_the_end_the_last_play_box_keeps_the_going_out_play(api, client, page, shared_data):  # noqa: F811
    gid = import_gcg(client, shared_data / "gcg" / "liwords" / "vs_josh.gcg")
    live = client.get(f"/api/games/{gid}/live").json()
    page.goto(f"{api.url}/overlay/{gid}")
    page.wait_for_function("() => document.querySelector('#result').textContent.length > 0", timeout=WAIT)
    last = page.inner_text("#last [data-field=last_play]")
    assert "VULPINE" in last and "unplayed" not in last and last == live["fields"]["last_play"]
    assert page.inner_text("#last .word") == "VULPINE"
    # the going-out play's tiles stay highlighted; nobody is on turn
    assert page.locator(".tile.last").count() == 7
    assert page.locator(".player.on-turn").count() == 0
    assert page.inner_text("#result") == live["fields"]["result"]
    if SHOTS:
        page.screenshot(path=str(DOCS / "overlay-end.png"))
    assert page.errors == []
