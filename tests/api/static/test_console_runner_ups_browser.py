"""Issue 35, item 7, in headless Debian chromium: the console's review queue offers only runner-ups
the tile set's counts allow, none identical to the reading on air, each with its own certainty
against the reading's (the queue showed '0.0 % against 0.0 %', a runner-up equal to the play, and one
whose correction was then refused: 'the set has 15 E; this correction would make 16')."""
from __future__ import annotations

import os
from pathlib import Path

from apiserver import AUTH, TOKEN, api, client  # noqa: F401  (fixtures)
from browser import chromium_page, open_console_game
from tilecam.scoring.gcg import placement_from_gcg

SHOT = Path(os.environ.get("TILECAM_SHOT_DIR", "/tmp")) / "console-runner-ups.png"


def test_the_review_queue_offers_only_runner_ups_the_counts_allow(api, client, tmp_path):  # noqa: F811
    s = api.service
    gid = s.create_game([("Ann Able", None), ("Ben Best", None)], "naspa", "en").id
    game = s.load(gid).game_at()
    runner_ups = (("8G", "AVE", 0.31),   # the reading on air
                  ("8G", "AVV", 0.22),   # a third V once the second is down
                  ("8G", "ACE", 0.12))
    s.append(gid, game.play(0, placement_from_gcg(game, "8G", "AVE"), certainty=0.46, review=True,
                            runner_ups=runner_ups))
    assert client.post(f"/api/games/{gid}/plays", headers=AUTH,
                       json={"position": "H7", "word": "V."}).status_code == 200
    with chromium_page(tmp_path / "profile", 1280, 800) as page:
        open_console_game(page, api.url, TOKEN, gid)
        page.wait_for_selector("#review:not([hidden]) #review-queue li")
        item = page.locator("#review-queue li")
        assert item.count() == 1
        assert "certainty 46.0 %" in item.locator(".reading").inner_text()
        assert item.locator("button.runner-up").all_inner_texts() == ["8G ACE (12.0 %)"]
        page.screenshot(path=str(SHOT.with_name("console-runner-ups-queue.png")))
        item.locator("button.runner-up").click()
        page.wait_for_selector("#confirm[open]")
        assert "12.0 % against 46.0 % for 8G AVE" in page.inner_text("#confirm-text")
        page.evaluate("() => window.scrollTo(0, 0)")
        page.screenshot(path=str(SHOT))
        page.locator("#confirm-choices button", has_text="Take 8G ACE").click()
        page.wait_for_function("() => document.querySelector('#message').textContent.includes('runner-up reading taken')")
        assert "error" not in (page.get_attribute("#message", "class") or "")
        assert page.errors == []
    assert client.get(f"/api/games/{gid}/moves").json()[0]["word"] == "ACE"


def test_a_withdrawn_phony_has_no_runner_up_and_the_queue_says_why_a_play_is_in_it(api, client, tmp_path):  # noqa: F811
    """Issue 43 item 7: MAZEY, withdrawn the next move, asked "Takes off the board: M at H11" where
    ALGAE's A stood; a play under review for another reason than its certainty showed
    "certainty 100.0 %" (0.9995 rounded). Issue 44: a play built on a reading in doubt says so."""
    from tilecam.scoring import Doubt

    s = api.service
    gid = s.create_game([("Ann Able", None), ("Ben Best", None)], "naspa", "en").id
    game = s.load(gid).game_at()
    s.append(gid, game.play(0, placement_from_gcg(game, "8G", "AVE"), certainty=0.9995, review=True,
                            runner_ups=(("8G", "ACE", 0.0004),), doubts=(Doubt.NOT_FROM_RACK,)))
    assert client.post(f"/api/games/{gid}/challenges", headers=AUTH, json={"outcome": "phony"}).status_code == 200
    assert client.post(f"/api/games/{gid}/plays", headers=AUTH, json={"position": "8G", "word": "OX"}).status_code == 200
    game = s.load(gid).game_at()
    s.append(gid, game.play(0, placement_from_gcg(game, "G7", "A."), certainty=0.9995, review=True,
                            runner_ups=(("G7", "E.", 0.0003),), doubts=(Doubt.CERTAINTY,)))
    # issue 44: a sure play through the unsure A goes under review for it
    game = s.load(gid).game_at()
    s.append(gid, game.play(1, placement_from_gcg(game, "G6", "T.."), certainty=0.999, review=True,
                            doubts=(Doubt.BUILT_ON,)))
    with chromium_page(tmp_path / "profile", 1280, 800) as page:
        open_console_game(page, api.url, TOKEN, gid)
        page.wait_for_selector("#review:not([hidden]) #review-queue li")
        items = page.locator("#review-queue li")
        assert items.count() == 3
        withdrawn, unsure, built = items.nth(0), items.nth(1), items.nth(2)
        assert "its words run through a tile of an earlier play still in doubt" in built.locator(".reading").inner_text()
        assert withdrawn.locator("button.runner-up").count() == 0   # off the board: nothing to put there
        assert "its tiles were not on the rack read before it" in withdrawn.locator(".reading").inner_text()
        assert "read at 99.9 %, under the review threshold" in unsure.locator(".reading").inner_text()
        assert "100.0 %" not in page.inner_text("#review-queue")
        assert unsure.locator("button.runner-up").all_inner_texts() == ["G7 E(O) (0.0 %)"]
        page.locator("#review").scroll_into_view_if_needed()
        page.screenshot(path=str(SHOT.with_name("console-review-doubts.png")))
        assert page.errors == []
