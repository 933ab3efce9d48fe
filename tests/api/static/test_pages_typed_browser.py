"""Issue 46: the pages read typed fields, never a sentence of the API's. A withdrawn phony is named
from the play its `takes_back` points at (page.js moveText), not found by searching the moves before
it or by testing the move's text for the word; the director's page draws the last play from its
parts (`last_played`), not by cutting `last_play` at ': ' and the word, and so does the overlay.
Headless Debian chromium."""
from __future__ import annotations

import pytest

from apiserver import AUTH, api, client, import_gcg, new_game  # noqa: F401  (fixtures)
from browser import chromium_page

pytestmark = pytest.mark.slow  # end to end (see pyproject's markers)


def test_a_withdrawn_phony_is_named_from_the_play_it_takes_back(api, client, shared_data, tmp_path):  # noqa: F811
    gid = import_gcg(client, shared_data / "gcg" / "liwords" / "josh_nationals_round_29.gcg")
    moves = client.get(f"/api/games/{gid}/moves").json()
    recount = client.get(f"/api/games/{gid}/recount").json()["moves"]
    withdrawn = [m for m in moves if m["kind"] == "phony_withdrawn"]
    assert len(withdrawn) == 2
    for m in withdrawn:   # the play just before it, the same player's
        taken = moves[m["takes_back"]]
        assert taken["kind"] == "play" and taken["index"] == m["index"] - 1 and taken["player"] == m["player"]
        assert recount[m["index"]]["takes_back"] == m["takes_back"]
    assert all(m["takes_back"] is None for m in moves if m["kind"] != "phony_withdrawn")
    with chromium_page(tmp_path / "profile", 1280, 800) as page:
        page.goto(f"{api.url}/replay/{gid}")
        page.wait_for_function(f"() => document.body.dataset.turn === '{len(moves)}'")
        items = page.locator("#moves li .text").all_text_contents()
        for m in withdrawn:
            assert items[m["index"]].endswith(f"phony withdrawn: {moves[m['takes_back']]['shown']}"), items
        page.screenshot(path=str(tmp_path / "replay.png"))
        # The field decides, whatever the text says or which play of the player's came last.
        said = page.evaluate("""() => moveText(
            {index: 5, kind: "phony_withdrawn", player: 1, text: "withdrawn (FIRST)", takes_back: 1},
            [{index: 1, kind: "play", player: 1, shown: "FIRST"}, {index: 3, kind: "play", player: 1, shown: "LAST"}])""")
        assert said == "withdrawn (FIRST): FIRST"
        assert page.evaluate("""() => moveText({index: 2, kind: "pass", player: 0, text: "pass", takes_back: null},
                                                [{index: 1, kind: "play", player: 0, shown: "WORD"}])""") == "pass"
        assert not page.errors, page.errors


def test_the_directors_page_draws_the_last_play_from_its_parts(api, client, tmp_path):  # noqa: F811
    # a name holding ': ' and the word: cutting the sentence at ': ' or at the word splits the name
    gid = new_game(client, "Dr: ZEBRA Who", "Jo Ames", table=7)
    r = client.post(f"/api/games/{gid}/plays", json={"position": "8D", "word": "ZEBRA"}, headers=AUTH)
    assert r.status_code == 200, r.text
    row = next(t for t in client.get("/api/tables").json()["tables"] if t["table"] == 7)
    live = client.get(f"/api/games/{gid}/live").json()
    score = live["scores"][0]
    assert row["last_played"] == live["last_played"] == {"player": 0, "position": "8D", "word": "ZEBRA",
                                                         "score": score, "bonus": None}
    assert row["last_play"] == live["last_text"] == f"Dr: ZEBRA Who: 8D ZEBRA +{score}"
    with chromium_page(tmp_path / "profile", 1280, 800) as page:
        page.goto(f"{api.url}/tournament")
        page.wait_for_selector("#table-7 td.last .play")
        assert page.inner_text("#table-7 td.last .play") == f"8D ZEBRA +{score}"
        assert page.inner_text("#table-7 td.last .word") == "ZEBRA"
        assert page.inner_text("#table-7 td.last") == row["last_play"]
        page.screenshot(path=str(tmp_path / "tournament.png"))
        # the overlay draws it so too (overlay.js renderLastPlay)
        page.goto(f"{api.url}/overlay/{gid}")
        page.wait_for_selector("#last .word")
        assert page.inner_text("#last .word") == "ZEBRA"
        assert page.inner_text("#last [data-field=last_play]") == row["last_play"]
        page.screenshot(path=str(tmp_path / "overlay.png"))
        page.goto(f"{api.url}/tournament")
        page.wait_for_selector("#table-7 td.last .play")
        # a pass: no play in parts, the sentence shown whole
        r = client.post(f"/api/games/{gid}/passes", json={}, headers=AUTH)
        assert r.status_code == 200, r.text
        page.wait_for_function("() => !document.querySelector('#table-7 td.last .play')", timeout=10000)
        row = next(t for t in client.get("/api/tables").json()["tables"] if t["table"] == 7)
        assert row["last_played"] is None and page.inner_text("#table-7 td.last") == row["last_play"]
        assert not page.errors, page.errors
