"""Issue 46: the replay and recount pages give "Open in Woogles", the link the server built (the GCG
export in Woogles' import link), and say when Woogles will not mark the game complete. Headless
Debian chromium; the link is read, never followed (no internet here)."""
from __future__ import annotations

from pathlib import Path
from urllib.parse import parse_qs, urlsplit

import pytest

from apiserver import api, client, import_gcg  # noqa: F401  (fixtures)
from browser import chromium_page

pytestmark = pytest.mark.slow  # end to end (see pyproject's markers)



def test_the_pages_open_the_game_in_woogles(api, client, shared_data, tmp_path):  # noqa: F811
    done = import_gcg(client, shared_data / "gcg" / "liwords" / "doug_vs_emely.gcg")
    unseen = import_gcg(client, Path(__file__).resolve().parents[2] / "data" / "gcg" / "zeros_end_racks_unseen.gcg")
    with chromium_page(tmp_path / "profile", 1280, 800) as page:
        page.goto(f"{api.url}/replay/{done}")
        link = page.locator("#woogles a")
        link.wait_for(state="visible")
        href = link.get_attribute("href")
        parts = urlsplit(href)
        assert (parts.scheme, parts.netloc, parts.path) == ("https", "woogles.io", "/scrabblecam/callback")
        assert parse_qs(parts.query)["gcg"] == [client.get(f"/api/games/{done}.gcg").text]
        assert link.inner_text() == "Open in Woogles" and page.locator("#woogles-note").is_hidden()
        page.screenshot(path=str(tmp_path / "replay-woogles.png"))

        page.goto(f"{api.url}/recount/{unseen}")
        note = page.locator("#woogles-note")
        note.wait_for(state="visible")
        assert note.inner_text().endswith("the end racks were not seen"), note.inner_text()
        assert page.locator("#woogles a").get_attribute("href") == client.get(f"/api/games/{unseen}/woogles").json()["url"]
        page.screenshot(path=str(tmp_path / "recount-woogles.png"))
        assert not page.errors, page.errors
