"""Issue 35 in Chromium: a game recorded without a clock press, ended by the director. The overlay
puts the result on air with the hedge under it (turns inferred: who played which move is a guess);
the recount never says "No discrepancy" alone, marks each move whose player is a guess, and says it
on paper too (print to PDF, read back with pdftotext). Screenshots go to $TILECAM_ARTIFACTS (default:
a temporary folder), their paths printed."""
from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from apiserver import api, client  # noqa: F401  (fixtures)
from browser import chromium_page
sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "api"))  # where test_app_turns_hedge lives
from test_app_turns_hedge import HEDGE, ended_without_presses

pytestmark = pytest.mark.slow  # end to end (see pyproject's markers)
SAID = HEDGE[0].upper() + HEDGE[1:]  # the API's words, as a sentence


def shots(tmp_path) -> Path:
    path = Path(os.environ.get("TILECAM_ARTIFACTS") or tmp_path)
    path.mkdir(parents=True, exist_ok=True)
    return path


def test_the_overlay_and_the_recount_say_the_turns_were_inferred(api, client, tmp_path):  # noqa: F811
    gid = ended_without_presses(api, client, 81)
    out = shots(tmp_path)
    with chromium_page(tmp_path / "profile", 1160, 720) as page:
        page.goto(f"{api.url}/overlay/{gid}?theme=dark")
        page.wait_for_function("() => document.body.dataset.seq !== undefined", timeout=10_000)
        result = page.inner_text("#result")
        assert " wins by " in result and result.endswith(" (turns inferred)"), result
        assert page.locator("#hedge").is_visible() and page.inner_text("#hedge") == SAID
        page.screenshot(path=str(out / "overlay-turns-inferred.png"))
        print(out / "overlay-turns-inferred.png")

        page.goto(f"{api.url}/recount/{gid}")
        page.wait_for_function("() => document.body.dataset.ready === '1'", timeout=10_000)
        first = page.inner_text("#first")
        assert first.startswith("No discrepancy in the scores, but the turns were inferred"), first
        assert page.inner_text("#turns") == f"{SAID}."
        players = page.locator("#moves tbody tr td:nth-child(2)").all_inner_texts()
        assert players == ["Cesar", "Josh (turn inferred)", "Cesar (turn inferred)"], players
        page.screenshot(path=str(out / "recount-turns-inferred.png"), full_page=True)
        print(out / "recount-turns-inferred.png")
        pdf = out / "recount-turns-inferred.pdf"
        pdf.write_bytes(page.pdf(format="A4", landscape=True, print_background=True))
        assert page.errors == []

    if not shutil.which("pdftotext"):
        pytest.fail("poppler's pdftotext is missing: run `make chromium` (apt-get install poppler-utils)")
    text = " ".join(subprocess.run(["pdftotext", str(pdf), "-"], capture_output=True, text=True,
                                   check=True).stdout.split())
    assert "No discrepancy in the scores, but the turns were inferred" in text, text[:600]
    assert f"{SAID}." in text and "· turns inferred" in text  # the sheet's title too
