"""Trust is earned per table (issue 36) in headless Debian chromium: the console says how far the
table's tiles are learned and which are not yet, a one-click confirmation takes the sure play out
of review and teaches its tiles; /tournament shows the same line under the table."""
from __future__ import annotations

import sys
from pathlib import Path

import pytest

from apiserver import TOKEN, api, client, new_game, wait_for  # noqa: F401  (fixtures)
from browser import chromium_page, open_console_game
sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "api" / "service"))  # where test_view_learning lives
from test_view_learning import camera_play

pytestmark = pytest.mark.slow


def test_the_console_and_the_tournament_show_the_learning(api, client, tmp_path):
    gid = new_game(client, "Nigel Richards", "Jackson Smylie", table=4)
    camera_play(api, gid)
    with chromium_page(tmp_path / "profile", 1280, 800) as page:
        open_console_game(page, api.url, TOKEN, gid)
        page.wait_for_selector("#learning:not([hidden])")
        assert page.locator("#learning").text_content().startswith("learning: 0 of 27 tiles seen, 0 plays confirmed"
                                                                     " · not yet: A B C")
        page.wait_for_selector("#review:not([hidden]) #review-queue li")
        page.screenshot(path=str(tmp_path / "console-before.png"))
        page.locator("#review-queue button", has_text="confirm 8G CAT").click()
        wait_for(lambda: client.get(f"/api/games/{gid}/live").json()["unconfirmed"] == [])
        page.wait_for_function("() => document.querySelector('#learning').textContent"
                               ".startsWith('learning: 3 of 27 tiles seen, 1 play confirmed')")
        assert " C " not in page.locator("#learning").text_content()
        page.wait_for_selector("#review[hidden]", state="attached")
        page.screenshot(path=str(tmp_path / "console.png"))

        page.goto(f"{api.url}/tournament")
        page.wait_for_selector("#table-4 .learning")
        assert page.locator("#table-4 .learning").text_content() == "learning: 3 of 27 tiles seen, 1 play confirmed"
        page.screenshot(path=str(tmp_path / "tournament.png"))
    print(tmp_path)
