"""The replay as a player opens it after the game, at 1280x800 in headless Debian chromium (a
whole imported game, vs_josh.gcg): the move list's cells never run into each other (a "+32" and
the next column's "22." read "+3222" before), and the finished game shows its result with no
player marked on turn, while any earlier turn still marks who was to play.

TILECAM_PAGE_SHOTS=1 writes docs/pages/replay-end.png.
"""
from __future__ import annotations

import os
from pathlib import Path

import pytest

from apiserver import api, client, import_gcg  # noqa: F401  (fixtures)
from browser import chromium_page

pytestmark = pytest.mark.slow  # end to end (see pyproject's markers)

DOCS = Path(__file__).resolve().parents[3] / "docs" / "pages"

# Every pair of text cells of the move list that share a line, closer than 6 px (or overlapping).
CLOSE_CELLS = """() => {
  const cells = [...document.querySelectorAll('#moves li > span')].map((e) => [e, e.getBoundingClientRect()]);
  const out = [];
  for (const [a, ra] of cells) for (const [b, rb] of cells) {
    if (a === b || ra.left > rb.left) continue;
    const sameLine = ra.top < rb.bottom - 2 && rb.top < ra.bottom - 2;
    if (sameLine && rb.left - ra.right < 6) out.push(a.textContent + ' | ' + b.textContent);
  }
  return out;
}"""


@pytest.mark.parametrize("width", [1280, 1366, 1920])
def test_the_move_list_keeps_its_columns_apart_and_the_end_shows_the_result(api, client, shared_data, tmp_path, width):  # noqa: F811
    gid = import_gcg(client, shared_data / "gcg" / "liwords" / "vs_josh.gcg")
    result = client.get(f"/api/games/{gid}/live").json()["fields"]["result"]
    n = len(client.get(f"/api/games/{gid}/moves").json())
    with chromium_page(tmp_path / "profile", width, 800) as page:
        page.goto(f"{api.url}/replay/{gid}")
        page.wait_for_function(f"() => document.body.dataset.turn === '{n}'", timeout=10_000)
        assert page.evaluate(CLOSE_CELLS) == []
        # no list marker drawn outside the cells (the "22." that ran into "+32"), no cell overflowing
        assert page.locator("#moves li").evaluate_all(
            "els => els.filter((e) => getComputedStyle(e).display === 'list-item' || e.scrollWidth > e.clientWidth + 1).length") == 0
        # the number, the move, the score and the running total, each its own cell
        first = page.locator("#moves li").first.locator("span").all_inner_texts()
        assert first[0] == "1." and first[1].startswith("Cesar: 8D"), first
        assert first[2].startswith("+") and first[3].isdigit()
        # the end: the result, nobody on turn
        assert page.locator("#scores .on-turn").count() == 0
        assert page.inner_text("#scores .result") == result == "Cesar wins by 60"
        if width == 1280 and os.environ.get("TILECAM_PAGE_SHOTS"):
            page.screenshot(path=str(DOCS / "replay-end.png"), full_page=True)
        # an earlier turn: who was to play, no result
        page.keyboard.press("ArrowLeft")
        page.wait_for_function(f"() => document.body.dataset.turn === '{n - 1}'")
        assert page.locator("#scores .on-turn").count() == 1 and page.locator("#scores .result").count() == 0
        assert page.errors == []
