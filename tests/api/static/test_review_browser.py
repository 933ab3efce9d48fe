"""The operator console's review queue in headless Debian chromium: a play the camera read with
little certainty shows its evidence and its runner-up readings; a runner-up is taken once the question that shows its change is answered."""
from __future__ import annotations

import sys
from pathlib import Path

import pytest

from apiserver import TOKEN, api, client, new_game, wait_for  # noqa: F401  (fixtures)
from browser import chromium_page, open_console_game
sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "api" / "service"))  # where test_view_review lives
from test_view_review import camera_play

pytestmark = pytest.mark.slow


def test_the_review_queue_takes_a_runner_up_after_its_question(api, client, tmp_path):
    gid = new_game(client)
    camera_play(api, gid)
    with chromium_page(tmp_path / "profile", 1280, 800) as page:
        open_console_game(page, api.url, TOKEN, gid)
        page.wait_for_selector("#review:not([hidden]) #review-queue li")
        assert "certainty 42.0 %" in page.locator("#review-queue li").text_content()
        page.locator("#review-queue button", has_text="8G COT").click()
        # a runner-up goes on air only once the question is answered: what it changes on the board
        page.wait_for_selector("#confirm[open]")
        assert page.locator("#confirm-detail li").all_inner_texts() == [
            "Takes off the board: A at H8", "Puts on the board: O at H8"]
        page.locator("#confirm-choices button", has_text="Take 8G COT").click()
        wait_for(lambda: client.get(f"/api/games/{gid}/moves").json()[0]["word"] == "COT")
        page.wait_for_selector("#review[hidden]", state="attached")
