"""Racks on the pages, end to end in headless Debian chromium (issues 30, 43): the broadcaster's
overlay (`?broadcast=<broadcast token>`) shows each player's rack live, its sure tiles alone; the
overlay without it shows none until the game is over (then the rack of each player's last move),
and none reached the page; `?racks=off` shows none; the console sees the racks live, says who sees
them, and confirms a rack read under review with one click.

The screenshots go to $TILECAM_ARTIFACTS (default: a temporary folder)."""
from __future__ import annotations

import os
from pathlib import Path

import pytest

from apiserver import AUTH, BROADCAST, TOKEN, LiveServer, client, wait_for  # noqa: F401  (fixtures)
from browser import chromium_page

pytestmark = pytest.mark.slow  # end to end (see pyproject's markers)

FIRST, NOW0, NOW1 = "CATXYZE", "XYZEJKL", "MOWDUGR"


def seen(player: int, tiles: str, certainty: float = 0.99) -> dict:
    # marked for review as the station marks it, against [racks] review_below
    return {"player": player, "t": 2.0, "tiles": list(tiles), "certainty": [certainty] * len(tiles), "frame": None,
            "review": certainty < 0.9}


def small_jpeg() -> bytes:
    import cv2
    import numpy as np

    image = np.full((60, 240, 3), (181, 227, 244), np.uint8)
    cv2.putText(image, FIRST, (8, 42), cv2.FONT_HERSHEY_SIMPLEX, 1.2, (20, 20, 20), 2)
    return cv2.imencode(".jpg", image)[1].tobytes()


@pytest.fixture(scope="module")
def page(tmp_path_factory):
    with chromium_page(tmp_path_factory.mktemp("chromium-profile"), 1280, 800) as p:
        yield p


@pytest.fixture(scope="module")
def shots(tmp_path_factory) -> Path:
    env = os.environ.get("TILECAM_ARTIFACTS")
    path = Path(env) if env else tmp_path_factory.mktemp("artifacts")
    path.mkdir(parents=True, exist_ok=True)
    return path


@pytest.fixture(scope="module")
def api(tmp_path_factory):
    """A server with the default [racks] on_air ("broadcast")."""
    with LiveServer(tmp_path_factory.mktemp("api") / "games.sqlite3") as server:
        yield server


@pytest.fixture(scope="module")
def game(api, client) -> int:
    r = client.post("/api/games", json={"players": [{"name": "Ann Able"}, {"name": "Ben Best"}]}, headers=AUTH)
    gid = r.json()["id"]
    api.service.add_rack(gid, seen(0, FIRST), jpeg=small_jpeg())
    assert client.post(f"/api/games/{gid}/plays", json={"position": "8H", "word": "CAT"}, headers=AUTH).status_code == 200
    api.service.add_rack(gid, seen(0, NOW0))
    api.service.add_rack(gid, seen(1, NOW1, certainty=0.42))
    return gid


def racks_shown(page) -> list[str]:
    return page.evaluate("""() => [...document.querySelectorAll('#racks .rack')].filter((r) => !r.hidden)
        .map((r) => [...r.querySelectorAll('.rtile')].map((t) => t.firstChild ? t.firstChild.textContent : '·').join(''))""")


def load_overlay(page, url: str) -> str:
    """The overlay at `url` once it has drawn the game; every body the page received, joined."""
    got: list[str] = []
    page.on("response", lambda r: got.append(r.url))
    page.goto(url)
    page.wait_for_function("() => document.body.dataset.seq !== undefined && document.querySelectorAll('.tile').length === 3",
                           timeout=10_000)
    return "".join(got)


def test_the_broadcast_overlay_shows_the_racks_live_and_the_public_one_none(api, game, page, shots):
    load_overlay(page, f"{api.url}/overlay/{game}?broadcast={BROADCAST}")
    page.wait_for_function("() => document.querySelectorAll('#racks .rack:not([hidden])').length === 2")
    assert racks_shown(page) == [NOW0, "?" * 7]  # each rack now; Ben's read unsure: dimmed ?, no letter
    assert NOW1 not in page.content()
    page.screenshot(path=str(shots / "overlay_racks_broadcast.png"))
    print(f"screenshot: {shots / 'overlay_racks_broadcast.png'}")
    assert page.errors == []
    got = load_overlay(page, f"{api.url}/overlay/{game}")   # the venue's, the public's: the game goes on
    assert page.locator("#racks").is_hidden() and racks_shown(page) == []
    assert all(r not in page.content() for r in (FIRST, NOW0, NOW1)) and BROADCAST not in got
    page.screenshot(path=str(shots / "overlay_racks_public.png"))
    print(f"screenshot: {shots / 'overlay_racks_public.png'}")
    assert page.errors == []


def test_racks_off_shows_none_and_none_reached_the_page(api, game, page):
    load_overlay(page, f"{api.url}/overlay/{game}?racks=off")
    assert page.locator("#racks").is_hidden() and racks_shown(page) == []
    # What the page holds (its DOM, its last live state) has no rack letter: the server left them out.
    html = page.content()
    assert all(r not in html for r in (FIRST, NOW0, NOW1))
    assert page.errors == []


def test_the_console_confirms_a_rack_read_with_one_click(api, client, game, page, shots):
    page.goto(f"{api.url}/operator")
    page.fill("#token", TOKEN)
    page.dispatch_event("#token", "change")
    page.wait_for_function(f"() => [...document.querySelectorAll('#game option')].some((o) => o.value === '{game}')")
    page.select_option("#game", str(game))
    page.wait_for_selector("#racks-queue li .rack-confirm")
    assert page.locator("#racks-queue li").count() == 1
    assert NOW1 in page.locator("#racks-queue li .reading").text_content()
    assert "42.0 %" in page.locator("#racks-queue li .reading").text_content()
    assert NOW0 in page.locator("#racks-now").text_content()  # the console sees the racks live
    assert "on air only to the broadcast overlay" in page.locator("#racks-air").text_content()
    page.screenshot(path=str(shots / "console_racks.png"))
    page.click("#racks-queue li .rack-confirm")
    page.wait_for_function("() => document.querySelectorAll('#racks-queue li').length === 0")
    reads = client.get(f"/api/games/{game}/racks", headers=AUTH).json()
    assert reads["review"] == [] and reads["reads"][-1]["confirmed_by"] == "tester"
    assert "rack confirmed" in page.locator("#message").text_content()
    assert page.errors == []


def test_once_the_game_is_over_the_public_overlay_and_recount_show_the_racks(api, client, game, page, shots):
    assert client.post(f"/api/games/{game}/end", json={"reason": "stopped"}, headers=AUTH).status_code == 200
    load_overlay(page, f"{api.url}/overlay/{game}")
    page.wait_for_function("() => document.querySelectorAll('#racks .rack:not([hidden])').length === 1")
    assert racks_shown(page) == [FIRST]   # Ann's last move was made from it; Ben made none
    page.screenshot(path=str(shots / "overlay_racks_over.png"))
    page.goto(f"{api.url}/recount/{game}")
    page.wait_for_function("() => document.body.dataset.ready === '1'")
    img = page.locator("tr[data-index='0'] img.rack-thumb")
    assert img.get_attribute("src") == f"/api/games/{game}/racks/0/frame.jpg"
    page.wait_for_function("() => document.querySelector('img.rack-thumb').naturalWidth === 240")
    assert FIRST in page.locator("tr[data-index='0'] .rack-text").text_content()
    page.goto(f"{api.url}/recount/{game}?racks=off")  # the page asks as it is told; the API decides
    page.wait_for_function("() => document.body.dataset.ready === '1'")
    assert page.locator("img.rack-thumb").count() == 0 and page.errors == []
