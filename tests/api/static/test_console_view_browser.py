"""Issue 35: the console at 1280x800 said what a fix did (and offered its Undo) in the message line at
the top of the page, 755 px above the view of an operator correcting a move under a long move list.
The message line now stays in view as the page scrolls (headless Debian chromium)."""
from __future__ import annotations

import os
from pathlib import Path

import pytest

from apiserver import TOKEN, api, client, import_gcg, wait_for  # noqa: F401  (fixtures)
from browser import chromium_page

pytestmark = pytest.mark.slow  # end to end (see pyproject's markers)


def in_view(page, selector: str) -> bool:
    return page.evaluate(f"""() => {{ const r = document.querySelector({selector!r}).getBoundingClientRect();
        return r.height > 0 && r.top >= 0 && r.bottom <= innerHeight; }}""")


def test_the_result_of_a_fix_and_its_undo_are_in_view(api, client, shared_data, tmp_path):  # noqa: F811
    gid = import_gcg(client, shared_data / "gcg" / "liwords" / "josh_nationals_round_1.gcg")
    moves = client.get(f"/api/games/{gid}/moves").json()
    first = next(m for m in moves if m["kind"] == "play")
    with chromium_page(tmp_path / "profile", 1280, 800) as page:
        page.goto(f"{api.url}/operator?game={gid}")
        page.fill("#token", TOKEN)
        page.dispatch_event("#token", "change")
        page.wait_for_function(f"() => document.querySelectorAll('#moves tr').length === {len(moves)}")
        page.locator("#fix").scroll_into_view_if_needed()
        assert page.evaluate("scrollY") > 400   # the fix form is well below the top of the page
        page.fill("#fix [name=number]", "1")
        page.select_option("#fix [name=kind]", "score")
        page.fill("#fix [name=a]", str(first["engine"] + 1))
        page.fill("#fix [name=reason]", "ruled by the director")
        page.click("#fix button")
        page.wait_for_function("() => document.querySelector('#message').textContent === 'move 1 corrected'")
        assert in_view(page, "#message") and in_view(page, "#message-undo"), page.evaluate("scrollY")
        assert not page.errors, page.errors
        page.screenshot(path=str(tmp_path / "fix.png"))
        if os.environ.get("TILECAM_SHOTS"):
            (Path(os.environ["TILECAM_SHOTS"]) / "fix.png").write_bytes((tmp_path / "fix.png").read_bytes())
    assert client.get(f"/api/games/{gid}/moves").json()[0]["agreed"] == first["engine"] + 1
