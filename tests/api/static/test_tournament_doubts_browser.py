"""/tournament in headless Debian chromium says in words what the camera could not be sure of:
a move out of turn (a clock press contradicting the inferred order), turns inferred without a
press, a blank nobody named. The entries come from the scorekeeper through the recorder's link,
as at a station. TILECAM_SCREENSHOTS=1 writes docs/pages/tournament-doubts.png."""
from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest
from apiserver import api, client, new_game  # noqa: F401  (fixtures)
from browser import chromium_page
sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "api"))  # where test_app_turns lives
from test_app_turns import CAT, COW, TON, Station
from tilecam.scoring.board import Direction, Square
from tilecam.scoring.placement import PlacedTile, Placement

pytestmark = pytest.mark.slow  # a real browser
SHOT = Path(__file__).resolve().parents[3] / "docs" / "pages" / "tournament-doubts.png"


def test_the_director_reads_what_the_camera_could_not_be_sure_of(api, client, tmp_path):
    order = new_game(client, "Cesar", "Josh", table=1)
    station = Station(api, order)
    for rows in (CAT, COW, TON):
        station.see(rows)
    station.see(TON, player=1, pressed=True)   # Josh's press: TON was his, a turn went unseen
    inferred = new_game(client, "Alice Ames", "Bob Brown", table=2)
    station = Station(api, inferred)
    for rows in (CAT, COW):
        station.see(rows)                       # no press at this table
    blank = new_game(client, "Nigel Richards", "Jackson Smylie", table=3)
    pl = Placement((PlacedTile(Square(7, 7), "?", True), PlacedTile(Square(7, 8), "O")), Direction.ACROSS)
    api.service.build(blank, lambda g: g.play(0, pl, certainty=0.99))

    with chromium_page(tmp_path / "profile", 1366, 700) as page:
        page.goto(f"{api.url}/tournament")
        page.wait_for_function("() => Number(document.body.dataset.polls || 0) > 0", timeout=10_000)
        text = {n: page.inner_text(f"#table-{n} td.flags") for n in (1, 2, 3)}
        assert "TURN ORDER" in text[1].upper()
        assert "move 3: Josh took a turn with Cesar on turn (a turn missed between moves 1 and 3" in text[1]
        assert "turns inferred since move 2: no clock press seen" in text[1]
        assert "TURNS" in text[2].upper() and "turns inferred since move 2: no clock press seen" in text[2]
        assert "move 1: a blank nobody named (on air as ?), name it in the console" in text[3]
        attention = page.inner_text("#attention")
        # (the synthetic snapshots' plays are also under review: that flag is not this test's)
        assert attention.startswith("3 need attention: table 1 (order, "), attention
        assert "table 2 (" in attention and "inferred)" in attention and "table 3 (blank)" in attention
        assert page.errors == []
        if os.environ.get("TILECAM_SCREENSHOTS"):
            page.screenshot(path=str(SHOT), full_page=True)
        page.screenshot(path=str(tmp_path / "doubts.png"), full_page=True)
        print(f"screenshot: {tmp_path / 'doubts.png'}")
