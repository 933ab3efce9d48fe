"""The operator console as an operator uses it on the day, at 1280x800 (and 1366x768) in headless
Debian chromium, on the demo game's first nine turns with their rendered frames, four plays read
under the review threshold:

- a pasted wrong token is refused when it is entered, before anything is written;
- the page fits a laptop: the move list's fix and undo columns on screen, the review queue one
  line per play with its photo folded until opened (the photos made the page ~6,100 px tall);
- the review buttons write plays as the rest of the page does (`1H MA(s)TERL?`, not `MA.TERL?`);
- a runner-up (here 0.1 %) is taken only after a question that shows what it changes on the board;
- a correction is undone from the message bar or the move list: one more correction in the log.

TILECAM_PAGE_SHOTS=1 writes docs/pages/operator-review.png and docs/pages/operator-runner-up.png.
"""
from __future__ import annotations

import dataclasses
import os
from pathlib import Path

import cv2
import pytest

from apiserver import TOKEN, api, client, wait_for  # noqa: F401  (fixtures)
from browser import chromium_page
from test_demo_pages_browser import PLAYERS, SCENE
from tilecam.api.demo.game import make_demo_game
from tilecam.api.demo.video import boards_after_each_play
from tilecam.models.synth import render_scene

pytestmark = pytest.mark.slow  # end to end (see pyproject's markers)

DOCS = Path(__file__).resolve().parents[3] / "docs" / "pages"
SHOTS = bool(os.environ.get("TILECAM_PAGE_SHOTS"))
# Plays read under the threshold: index -> (certainty, runner-ups as (position, word, probability)).
REVIEW = {0: (0.55, (("8D", "DJINS", 0.2),)), 2: (0.61, (("J1", "sCRIEVE", 0.3),)),
          3: (0.41, (("1H", "MA.TERL?", 0.33),)), 6: (0.62, (("H11", "VLGAE", 0.001), ("H11", "ALGAL", 0.0005)))}


@pytest.fixture(scope="module")
def game(api):  # noqa: F811
    demo = make_demo_game(9)
    boards = boards_after_each_play(demo)
    s = api.service
    gid = s.create_game(PLAYERS, "naspa", "en", meta={"table": "3"}).id
    for i, ev in enumerate(demo.events):
        if i in REVIEW:
            ev = dataclasses.replace(ev, certainty=REVIEW[i][0], review=True, runner_ups=REVIEW[i][1])
        scene = render_scene(boards[i + 1], 5, SCENE, frame=i)
        ok, jpeg = cv2.imencode(".jpg", scene.image, [cv2.IMWRITE_JPEG_QUALITY, 85])
        s.append(gid, ev, jpeg=jpeg.tobytes(), sidecar={"corners": scene.corners.tolist()})
    return gid


def moves(client, gid):  # noqa: F811
    return client.get(f"/api/games/{gid}/moves").json()


def log(client, gid):  # noqa: F811
    return client.get(f"/api/games/{gid}.json").json()["log"]


def message(page) -> str:
    return page.locator("#message").text_content()


def open_console(page, url: str, gid: int) -> None:
    page.goto(f"{url}/operator")
    page.wait_for_function(f"() => [...document.querySelectorAll('#game option')].some((o) => o.value === '{gid}')")
    page.select_option("#game", str(gid))
    page.wait_for_function("() => document.querySelectorAll('#moves tr').length === 9")
    page.wait_for_selector("#review:not([hidden]) #review-queue li")


def fits(page, width: int) -> None:
    """Nothing wider than the window; every fix and undo button of the move list on screen."""
    assert page.evaluate("document.documentElement.scrollWidth") <= width
    right = page.locator("#moves button").evaluate_all("bs => Math.max(...bs.map((b) => b.getBoundingClientRect().right))")
    assert right <= width, right


@pytest.mark.parametrize("width, height", [(1366, 768)])
def test_the_console_fits_a_laptop(api, client, game, tmp_path, width, height):  # noqa: F811
    with chromium_page(tmp_path / "profile", width, height) as page:
        open_console(page, api.url, game)
        fits(page, width)
        assert page.evaluate("document.documentElement.scrollHeight") < 1600
        assert page.errors == []


def test_an_operator_works_the_review_queue(api, client, game, tmp_path):  # noqa: F811
    with chromium_page(tmp_path / "profile", 1280, 800) as page:
        # A wrong token is refused as it is entered: said at once, marked, nothing written.
        entries = len(log(client, game))
        open_console(page, api.url, game)
        page.fill("#token", "pasted-the-wrong-thing")
        page.dispatch_event("#token", "change")
        page.wait_for_function("() => document.querySelector('#message').className === 'error'")
        assert message(page).startswith("token refused: unknown operator token")
        assert "token-bad" in page.get_attribute("#token", "class")
        page.fill("#token", TOKEN)
        page.dispatch_event("#token", "change")
        page.wait_for_function("() => document.querySelector('#message').textContent.startsWith('token accepted')")
        assert 'signed "tester"' in message(page) and "token-ok" in page.get_attribute("#token", "class")
        assert len(log(client, game)) == entries

        # It fits: the whole move list on screen, the queue one entry per play, no photo loaded yet.
        fits(page, 1280)
        items = page.locator("#review-queue li")
        assert items.count() == 4 and page.inner_text("#review-count") == "(4)"
        assert page.locator("#review-queue img").count() == 0
        assert page.evaluate("document.documentElement.scrollHeight") < 1600
        # One notation: the review buttons write plays as the move list does.
        labels = page.locator("#review-queue button").all_inner_texts()
        assert "1H MA(s)TERL? (33.0 %)" in labels and "confirm 1H MA(s)TERLy" in labels, labels
        assert not any("." in label.split(" (")[0].replace("0.", "") for label in labels), labels
        assert page.locator("#moves tr td:nth-child(3)").all_text_contents()[3] == "1H MA(s)TERLy"
        # The photo on demand: opened, it loads.
        items.nth(0).locator("summary").click()
        page.wait_for_function("() => { const i = document.querySelector('#review-queue img');"
                               " return i && i.complete && i.naturalWidth > 0; }")
        assert page.get_attribute("#review-queue img", "src").endswith("/moves/0/frame.jpg?view=board")
        items.nth(0).locator("summary").click()
        if SHOTS:
            page.evaluate("() => { document.activeElement.blur(); window.scrollTo(0, 0); }")
            page.screenshot(path=str(DOCS / "operator-review.png"))

        # A runner-up at 0.1 %: a question first, naming what comes off the board and what goes on.
        algae = items.nth(3)
        algae.locator("button", has_text="H11 VLGAE (0.1 %)").click()
        page.wait_for_selector("#confirm[open]")
        assert "0.1 %" in page.inner_text("#confirm-text") and "62.0 %" in page.inner_text("#confirm-text")
        assert page.locator("#confirm-detail li").all_inner_texts() == [
            "Takes off the board: A at H11", "Puts on the board: V at H11"]
        # ... and drawn on the board: the V in green at H11 (row 11, column H) in place of the A
        cells = page.locator("#confirm-detail .change-board span")
        assert cells.count() == 225
        put = page.locator("#confirm-detail .change-board .put")
        assert put.all_inner_texts() == ["V"] and put.get_attribute("title") == "V replaces A at H11"
        assert cells.nth(10 * 15 + 7).get_attribute("class") == "put"
        assert page.locator("#confirm-detail .change-board .taken").count() == 0
        if SHOTS:
            page.screenshot(path=str(DOCS / "operator-runner-up.png"))
        page.locator("#confirm-choices button", has_text="Keep the reading").click()
        page.wait_for_function("() => document.querySelector('#message').textContent === 'nothing changed'")
        assert moves(client, game)[6]["word"] == "ALGAE" and len(log(client, game)) == entries

        algae.locator("button", has_text="H11 VLGAE").click()
        page.locator("#confirm-choices button", has_text="Take H11 VLGAE").click()
        wait_for(lambda: moves(client, game)[6]["word"] == "VLGAE")
        page.wait_for_function("() => !document.querySelector('#message-undo').hidden")
        assert page.inner_text("#message-undo") == "Undo this correction"
        assert page.locator("#review-queue li").count() == 3

        # Undone from the message bar: one more correction; the reading is the camera's again.
        page.click("#message-undo")
        wait_for(lambda: moves(client, game)[6]["word"] == "ALGAE")
        page.wait_for_function("() => document.querySelector('#message').textContent === 'move 7: correction undone'")
        tail = log(client, game)[-2:]
        assert [e["kind"] for e in tail] == ["correction", "correction"] and len(log(client, game)) == entries + 2

        # A fix from the form, undone later from the move list ("undo fix" on the corrected row).
        page.fill("#fix [name=number]", "2")
        page.select_option("#fix [name=kind]", "score")
        page.fill("#fix [name=a]", "40")
        page.click("#fix button")
        wait_for(lambda: moves(client, game)[1]["agreed"] == 40)
        page.wait_for_function("() => document.querySelector('#moves tr[data-index=\"1\"] button.undo-fix') !== null")
        page.locator("#moves tr[data-index='1'] button.undo-fix").click()
        page.wait_for_selector("#confirm[open]")
        assert "score 33 → 40" in page.inner_text("#confirm-text")
        page.locator("#confirm-choices button", has_text="Undo the correction").click()
        wait_for(lambda: moves(client, game)[1]["agreed"] == 33)
        fits(page, 1280)
        assert page.errors == []
