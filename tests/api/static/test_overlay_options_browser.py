"""The overlay with options at 1920x1080 in headless Debian chromium, step by step through a short
game at a table: the placeholder before the game, the last play with its played-through letters and
blank, the play kept after a challenge bonus, the winner and the spread, then the next game at the
same table without a reload. TILECAM_SCREENSHOTS=1 writes docs/pages/overlay.png (commit it when it changes).
"""
from __future__ import annotations

import os
from pathlib import Path

import pytest

from apiserver import AUTH, api, client  # noqa: F401  (fixtures)
from browser import chromium_page

pytestmark = pytest.mark.slow  # end to end (see pyproject's markers)

SHOT = Path(__file__).resolve().parents[3] / "docs" / "pages" / "overlay.png"
WAIT = 10_000  # ms; a table page looks for a new game every 2 s


@pytest.fixture(scope="module")
def page(tmp_path_factory):
    with chromium_page(tmp_path_factory.mktemp("chromium-profile"), 1920, 1080) as p:
        yield p


def create(client, p1: str, p2: str, **kw) -> int:
    r = client.post("/api/games", headers=AUTH, json={"players": [{"name": p1}, {"name": p2}], **kw})
    assert r.status_code == 201, r.text
    return r.json()["id"]


def send(client, gid: int, what: str, body: dict) -> dict:
    r = client.post(f"/api/games/{gid}/{what}", headers=AUTH, json=body)
    assert r.status_code == 200, r.text
    return r.json()["live"]


def seen(page, live: dict) -> None:
    page.wait_for_function(f"() => document.body.dataset.game === '{live['game_id']}' "
                           f"&& document.body.dataset.seq === '{live['seq']}'", timeout=WAIT)


def test_table_overlay_with_options_through_a_short_game_then_the_next_round(api, client, page):
    page.goto(f"{api.url}/overlay/table/41?scale=1.5&theme=dark")
    page.wait_for_function("() => document.body.dataset.waiting === '1'", timeout=WAIT)
    assert page.inner_text("#placeholder") == "Table 41: waiting for the game"
    assert not page.is_visible("#overlay")
    page.evaluate("window.__sameDocument = true")  # gone if the page reloads

    gid = create(client, "Nigel Richards", "Jackson Smylie", rules="wespa", table=41)  # 5-point challenges
    page.wait_for_function(f"() => document.body.dataset.game === '{gid}' && document.body.dataset.seq === '-1'",
                           timeout=WAIT)
    assert not page.is_visible("#placeholder") and page.is_visible("#board")
    # the backend's words, with no "V/C" unit after them
    assert page.inner_text("[data-field=vowels_consonants]") == "42 vowels · 56 consonants"
    assert not page.is_visible("#unseen .vc-unit")
    # scale=1.5: the 1160x690 overlay fills most of a 1920x1080 scene and still fits it
    width, height = page.evaluate("() => [document.documentElement.scrollWidth, document.documentElement.scrollHeight]")
    assert 1600 < width <= 1920 and 900 < height <= 1080, (width, height)

    live = send(client, gid, "plays", {"position": "H7", "word": "OB"})
    seen(page, live)
    assert page.inner_text("#last [data-field=last_play]") == "Nigel Richards: H7 OB +8"

    live = send(client, gid, "plays", {"position": "8F", "word": "ZE.rA"})  # ZEBRA through the B, a blank R
    seen(page, live)
    played = f"Jackson Smylie: 8F ZE(B)rA +{live['scores'][1]}"
    assert page.inner_text("#last [data-field=last_play]") == played
    assert page.inner_text("#last .word") == "ZE(B)rA"
    assert page.locator("#last .word .blank").all_inner_texts() == ["r"]
    assert "".join(page.locator("#last .word .through").all_inner_texts()) == "(B)"

    live = send(client, gid, "challenges", {"outcome": "valid", "words": 1})
    seen(page, live)
    assert page.inner_text("#last [data-field=last_play]") == f"{played}, challenge bonus +5"
    assert page.inner_text("#last .word") == "ZE(B)rA"
    assert page.inner_text("[data-field=p2_score]") == str(live["scores"][1])

    live = send(client, gid, "end", {"reason": "forfeit"})
    # a director's end writes no log entry (the seq stays): wait for the result itself
    page.wait_for_function("() => document.querySelector('#result').textContent.length > 0", timeout=WAIT)
    a, b = live["scores"]
    assert b > a
    assert page.inner_text("#result") == f"Jackson Smylie wins by {b - a}"
    if os.environ.get("TILECAM_SCREENSHOTS"):
        SHOT.parent.mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(SHOT))
        print(f"overlay screenshot: {SHOT}")

    # The next round at the same table: the open page follows it without a reload.
    nxt = create(client, "Wellington Jighere", "Lewis MacKay", table=41)
    page.wait_for_function(f"() => document.body.dataset.game === '{nxt}'", timeout=WAIT)
    page.wait_for_function("() => document.querySelector('[data-field=p1_name]').textContent === 'Wellington Jighere'",
                           timeout=WAIT)
    assert page.evaluate("window.__sameDocument") is True
    assert page.inner_text("#result") == "" and page.inner_text("[data-field=p1_score]") == "0"
    assert page.locator(".tile").count() == 0


def test_game_overlay_waits_for_its_game_then_turns_the_board_and_shows_only_some_parts(api, client, page):
    gid = max(g["id"] for g in client.get("/api/games").json()) + 1
    page.goto(f"{api.url}/overlay/{gid}?rotate=1&parts=board,scores&theme=light")
    page.wait_for_function("() => document.body.dataset.waiting === '1'", timeout=WAIT)
    assert page.inner_text("#placeholder") == f"Waiting for game {gid}"
    assert create(client, "Alice Ames", "Bob Brown") == gid
    page.wait_for_function(f"() => document.body.dataset.seq === '-1'", timeout=WAIT)
    live = send(client, gid, "plays", {"position": "8H", "word": "ZAX"})
    seen(page, live)
    # A quarter turn clockwise: row 15 heads the left column, the columns run down the side,
    # and row 8 (ZAX, across) now reads down the middle column.
    coords = page.locator(".coord").all_inner_texts()
    assert coords[1:16] == [str(r) for r in range(15, 0, -1)]
    assert coords[16:18] == ["A", "B"]
    middle = page.evaluate("() => [...document.querySelectorAll('.sq')].filter((_, k) => k % 15 === 7)"
                           ".map(sq => (sq.querySelector('.tile')?.firstChild?.textContent) || '.').join('')")
    assert middle == "." * 7 + "ZAX" + "." * 5
    assert page.is_visible("#board") and page.is_visible("#p0")
    assert not page.is_visible("#last") and not page.is_visible("#unseen")
    assert page.evaluate("getComputedStyle(document.body).backgroundColor") == "rgb(247, 244, 234)"


def test_table_field_page_waits_then_follows(api, client, page):
    page.goto(f"{api.url}/overlay/table/42/last_play?scale=2")
    page.wait_for_function("() => document.body.dataset.waiting === '1'", timeout=WAIT)
    assert page.inner_text("#field") == ""
    gid = create(client, "Alice Ames", "Bob Brown", table=42)
    live = send(client, gid, "plays", {"position": "8G", "word": "QAt"})
    seen(page, live)
    assert page.inner_text("#field") == "Alice Ames: 8G QAt +22"
