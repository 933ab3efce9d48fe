"""Issue 35, the overlay's edges in headless Debian chromium: `/overlay/table/N/on_turn?scale=2` cut
the bold first letter of the name at the page's edge; `?parts=racks` on a game without rack cameras
was a blank page (now each player's name and seven empty slots; the default overlay still shows no
rack box until a rack is on air)."""
from __future__ import annotations

import os
from pathlib import Path

import cv2
import numpy as np
import pytest

from apiserver import AUTH, api, client  # noqa: F401  (fixtures)
from browser import chromium_page

pytestmark = pytest.mark.slow  # end to end (see pyproject's markers)

WAIT = 10_000


@pytest.fixture(scope="module")
def table(client):  # noqa: F811
    r = client.post("/api/games", headers=AUTH, json={"players": [{"name": "Alice Ames"}, {"name": "Bob Brown"}],
                                                       "table": 31})
    assert r.status_code == 201, r.text
    return 31


def keep(tmp_path: Path, name: str) -> None:
    if os.environ.get("TILECAM_SHOTS"):
        (Path(os.environ["TILECAM_SHOTS"]) / name).write_bytes((tmp_path / name).read_bytes())


def test_a_field_at_scale_2_keeps_its_first_letter_inside_the_page(api, table, tmp_path):  # noqa: F811
    with chromium_page(tmp_path / "profile", 800, 300) as page:
        page.goto(f"{api.url}/overlay/table/{table}/on_turn?scale=2&theme=dark")
        page.wait_for_function("() => document.getElementById('field').textContent === 'Alice Ames'", timeout=WAIT)
        page.screenshot(path=str(tmp_path / "on_turn.png"))
        assert not page.errors, page.errors
    keep(tmp_path, "on_turn.png")
    image = cv2.imread(str(tmp_path / "on_turn.png"), cv2.IMREAD_GRAYSCALE)
    lit = np.flatnonzero((image > 128).any(axis=0))   # the columns the white letters light
    assert lit.size and lit[0] >= 8, lit[:5]          # the A's foot was in column 0


def test_racks_asked_for_on_a_game_without_rack_cameras_show_empty_slots(api, table, tmp_path):  # noqa: F811
    with chromium_page(tmp_path / "profile", 600, 200) as page:
        page.goto(f"{api.url}/overlay/table/{table}?parts=racks")
        page.wait_for_selector("#racks:not([hidden])", timeout=WAIT)
        racks = page.locator("#racks .rack.empty")
        assert racks.count() == 2 and [racks.nth(i).locator(".who").text_content() for i in (0, 1)] == \
            ["Alice Ames", "Bob Brown"]
        assert racks.nth(0).locator(".rtile").count() == 7
        page.screenshot(path=str(tmp_path / "racks.png"))
        keep(tmp_path, "racks.png")
        page.goto(f"{api.url}/overlay/table/{table}")   # not asked for: no rack box until a rack is on air
        page.wait_for_function("() => document.querySelector('[data-field=p1_name]').textContent === 'Alice Ames'",
                               timeout=WAIT)
        assert page.locator("#racks").is_hidden()
        assert not page.errors, page.errors
