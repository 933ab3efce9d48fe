"""Issue 35: the replay page opened on the last move scrolled past its title (the current move
brought into view moved the whole page at 1280x800). Headless Debian chromium."""
from __future__ import annotations

import pytest

from apiserver import api, client, import_gcg  # noqa: F401  (fixtures)
from browser import chromium_page

pytestmark = pytest.mark.slow  # end to end (see pyproject's markers)


def test_the_replay_opens_at_its_title(api, client, shared_data, tmp_path):  # noqa: F811
    gid = import_gcg(client, shared_data / "gcg" / "liwords" / "josh_nationals_round_1.gcg")
    moves = len(client.get(f"/api/games/{gid}/moves").json())
    with chromium_page(tmp_path / "profile", 1280, 800) as page:
        page.goto(f"{api.url}/replay/{gid}")
        page.wait_for_function(f"() => document.body.dataset.turn === '{moves}'")   # opened on the last move
        assert page.evaluate("scrollY") == 0
        assert page.locator("h1").bounding_box()["y"] >= 0
        page.locator("#moves li").first.click()   # a step the reader makes still shows its move
        page.wait_for_function("() => document.body.dataset.turn === '1'")
        assert not page.errors, page.errors
