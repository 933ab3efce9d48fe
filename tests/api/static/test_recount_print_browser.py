"""The recount as a director prints it: Chromium's own print to PDF (A4 landscape), read back with
poppler (pdftotext, pdftoppm), on the demo game's first nine turns with their rendered frames and
two corrections. Every sheet carries the title and "page N of M"; the photos are printed large
enough to read the tiles in (54 mm, about 3.4 mm a square); squares are written as the boards'
coordinates read (O1); a confirmation says so in plain words; the dates read "26 Nov 14:30"; an
agreeing recount says how many camera plays no person confirmed, on screen and on paper.

TILECAM_PAGE_SHOTS=1 writes docs/pages/recount-print-1.png and recount-print-2.png (the first two
sheets at 100 dpi).
"""
from __future__ import annotations

import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from apiserver import AUTH, api, client  # noqa: F401  (fixtures)
from browser import chromium_page
from test_console_day_browser import game  # noqa: F401  (fixture: the demo's nine turns, with frames)

pytestmark = pytest.mark.slow  # end to end (see pyproject's markers)

DOCS = Path(__file__).resolve().parents[3] / "docs" / "pages"
SHOTS = bool(os.environ.get("TILECAM_PAGE_SHOTS"))
DATE = r"\d{1,2} [A-Z][a-z]{2} \d\d:\d\d"


def correct(client, gid, index, body):  # noqa: F811
    r = client.post(f"/api/games/{gid}/moves/{index}/corrections", headers=AUTH, json=body)
    assert r.status_code == 200, r.text


def test_the_printed_recount_names_every_sheet_and_shows_readable_photos(api, client, game, tmp_path):  # noqa: F811
    moves = client.get(f"/api/games/{game}/moves").json()
    correct(client, game, 0, {"kind": "play", "position": moves[0]["position"], "word": moves[0]["word"],
                              "reason": "confirmed as read"})
    correct(client, game, 3, {"kind": "blank", "square": "O1", "letter": "S", "reason": "the photo shows an S"})
    with chromium_page(tmp_path / "profile", 1280, 800) as page:
        page.goto(f"{api.url}/recount/{game}")
        page.wait_for_function("() => document.body.dataset.ready === '1'", timeout=10_000)
        page.wait_for_function("() => [...document.querySelectorAll('img.thumb')].every((i) => i.complete && i.naturalWidth > 0)",
                               timeout=20_000)
        # four camera plays (REVIEW), two confirmed or corrected above: an agreeing recount says so
        # (issue 43 item 8: "No discrepancy" alone read as "checked")
        assert page.inner_text("#first") == ("Every score agrees with the engine; 2 of 4 camera plays were never "
                                             "confirmed by a person."), page.inner_text("#first")
        page.screenshot(path=str(tmp_path / "recount.png"))
        shutil.copy(tmp_path / "recount.png", Path(os.environ.get("TILECAM_SHOT_DIR", "/tmp")) / "recount-unconfirmed.png")
        meta = page.inner_text("#meta")
        assert re.search(rf"played {DATE} · printed {DATE}$", meta) and "/" not in meta, meta
        fixes = page.locator("td.who div").all_inner_texts()
        assert any(f.endswith("tester: blank at O1 named S (the photo shows an S)") for f in fixes), fixes
        assert any(f.endswith("tester: confirmed as read, nothing changed") for f in fixes), fixes
        assert not any("no change" in f or "1O" in f for f in fixes), fixes

        page.emulate_media(media="print")
        box = page.locator("img.thumb").first.bounding_box()
        assert box["width"] >= 200 and box["height"] >= 200  # 54 mm at 96 px an inch
        # the table within the sheet's width: A4 landscape less its margins, 273 mm
        page.set_viewport_size({"width": 1032, "height": 800})
        widths = page.evaluate("[...document.querySelectorAll('#moves tbody tr:first-child td')].map((t) => [t.className, Math.round(t.getBoundingClientRect().width)])")
        assert page.evaluate("document.querySelector('#moves').getBoundingClientRect().right") <= 1032, widths
        page.set_viewport_size({"width": 1280, "height": 800})
        pdf = tmp_path / "recount.pdf"
        pdf.write_bytes(page.pdf(format="A4", landscape=True, print_background=True))
        page.emulate_media(media="screen")
        assert page.errors == []

    if not shutil.which("pdftotext") or not shutil.which("pdftoppm"):
        pytest.fail("poppler's pdftotext/pdftoppm are missing: run `make chromium` (apt-get install poppler-utils)")
    text = subprocess.run(["pdftotext", "-layout", str(pdf), "-"], capture_output=True, text=True, check=True).stdout
    sheets = [s for s in text.split("\f") if s.strip()]
    assert len(sheets) >= 3, len(sheets)
    for n, sheet in enumerate(sheets, 1):
        assert "Recount: Cesar Del Solar vs Josh Castellano · game" in sheet, (n, sheet[:300])
        assert f"page {n} of {len(sheets)}" in sheet, (n, sheet[-300:])
    # every move's row on paper
    assert "MA(s)TERLs" in text and "3L OO(Z)E" in text
    assert "2 of 4 camera plays were never confirmed by a person" in " ".join(text.split())
    out = tmp_path / "sheet"
    subprocess.run(["pdftoppm", "-png", "-r", "100", "-f", "1", "-l", "2", str(pdf), str(out)], check=True)
    pngs = sorted(tmp_path.glob("sheet-*.png"))
    assert len(pngs) == 2
    if SHOTS:
        for i, png in enumerate(pngs, 1):
            shutil.copy(png, DOCS / f"recount-print-{i}.png")
