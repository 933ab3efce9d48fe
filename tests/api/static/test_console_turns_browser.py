"""The console says where the camera could not be sure whose turn it was, at 1280x800 in headless
Debian chromium: plays credited to the player on turn without a clock press carry a `turn?` mark
on their player, and the live state's words on the turn order (`turns`) stand above the move list."""
from __future__ import annotations

import dataclasses

import pytest

from apiserver import api, client  # noqa: F401  (fixtures)
from browser import chromium_page
from test_demo_pages_browser import PLAYERS
from tilecam.api.demo.game import make_demo_game

pytestmark = pytest.mark.slow  # end to end (see pyproject's markers)


def test_inferred_turns_are_marked_where_the_operator_looks(api, client, tmp_path):  # noqa: F811
    s = api.service
    gid = s.create_game(PLAYERS, "naspa", "en", meta={"table": "5"}).id
    for i, ev in enumerate(make_demo_game(5).events):
        s.append(gid, dataclasses.replace(ev, turn_inferred=i >= 2))  # no press seen from move 3 on
    moves = client.get(f"/api/games/{gid}/moves").json()
    assert [m["turn_inferred"] for m in moves] == [False, False, True, True, True]
    turns = client.get(f"/api/games/{gid}/live").json()["turns"]
    assert turns
    with chromium_page(tmp_path / "profile", 1280, 800) as page:
        page.goto(f"{api.url}/operator?game={gid}")
        page.wait_for_function("() => document.querySelectorAll('#moves tr').length === 5")
        marks = page.locator("#moves tr").evaluate_all(
            "trs => trs.map((tr) => tr.querySelector('.turn-mark') ? tr.querySelector('.turn-mark').textContent : '')")
        assert marks == ["", "", "turn?", "turn?", "turn?"]
        page.wait_for_selector("#turns-note:not([hidden])")
        assert page.inner_text("#turns-note") == turns
        assert page.errors == []
