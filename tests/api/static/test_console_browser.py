"""A short game entered through the operator console in headless Debian chromium, as an operator
would: plays by clicking the board and typing the word, a blank from its picker, a pass behind its
confirmation (a double-click records one), an announced score the rules disagree with, an undo.
The record is checked over the API after each step.

The screenshot docs/pages/operator.png comes from test_demo_pages_browser.py (TILECAM_PAGE_SHOTS=1).
"""
from __future__ import annotations

import re

import pytest

from apiserver import AUTH, TOKEN, api, client, new_game, wait_for  # noqa: F401  (fixtures)
from browser import chromium_page

pytestmark = pytest.mark.slow  # end to end (see pyproject's markers)


@pytest.fixture(scope="module")
def page(tmp_path_factory):
    with chromium_page(tmp_path_factory.mktemp("chromium-profile"), 1280, 800) as p:
        yield p


def moves(client, gid):
    return client.get(f"/api/games/{gid}/moves").json()


def count_is(client, gid, n):
    return lambda: len(moves(client, gid)) == n


def message(page) -> str:
    return page.locator("#message").text_content()


def answer(page, label: str) -> None:
    """Click the confirmation dialog's button labelled `label` (the dialog must be open)."""
    page.wait_for_selector("#confirm[open]")
    page.locator("#confirm-choices button", has_text=label).click()
    page.wait_for_function("() => !document.querySelector('#confirm').open")


def test_a_game_entered_through_the_console(api, client, page):
    gid = new_game(client, "Alice Ames", "Bob Brown")
    page.goto(f"{api.url}/operator")
    page.fill("#token", TOKEN)
    page.dispatch_event("#token", "change")
    page.wait_for_function(f"() => [...document.querySelectorAll('#game option')].some((o) => o.value === '{gid}')")
    page.select_option("#game", str(gid))
    page.wait_for_selector("#board button[data-square='8D']")
    page.wait_for_function("() => document.querySelector('#on-turn').textContent === 'on turn: Alice Ames'")

    # 1. Alice: QUALM from 8D across, announced as the rules give it: recorded without a question.
    page.click("#board button[data-square='8D']")
    page.fill("#word", "qualm")
    assert page.locator("#preview").text_content() == "8D QUALM"
    page.fill("#claimed", "52")
    page.click("#record-play")
    wait_for(count_is(client, gid, 1))
    m = moves(client, gid)[0]
    assert (m["position"], m["word"], m["engine"], m["agreed"]) == ("8D", "QUALM", 52, 52)
    page.wait_for_function("() => document.querySelector('#message').textContent.startsWith('recorded')")
    assert page.input_value("#word") == "" and page.input_value("#claimed") == ""  # nothing carries over
    page.wait_for_function("() => document.querySelector('#on-turn').textContent === 'on turn: Bob Brown'")

    # 2. Bob: OMS down from H7 through the M (a second click on the square turns the direction).
    # He announces 38; the rules give less: asked, the rules' score stands.
    page.click("#board button[data-square='7H']")
    page.click("#board button[data-square='7H']")
    page.fill("#word", "OMS")
    assert page.locator("#preview").text_content() == "H7 O(M)S"  # the word whole, as people read it
    page.fill("#claimed", "38")
    page.click("#record-play")
    page.wait_for_selector("#confirm[open]")
    engine = moves(client, gid)[1]["engine"]
    assert engine != 38
    assert "announced 38; the rules give" in page.locator("#confirm-text").text_content()
    answer(page, "(the rules)")
    page.wait_for_function("() => document.querySelector('#message').textContent.includes('set aside')")
    m = moves(client, gid)[1]
    assert (m["position"], m["word"], m["agreed"], m["corrected"]) == ("H7", "O.S", engine, False)
    assert client.get(f"/api/games/{gid}/live").json()["scores"][1] == engine
    assert page.input_value("#claimed") == ""

    # 3. A pass, double-clicked: one question, one pass.
    page.dblclick("#pass")
    answer(page, "Record a pass")
    wait_for(count_is(client, gid, 3))
    page.wait_for_function("() => document.querySelector('#message').textContent === 'recorded: Alice Ames, a pass'")
    page.wait_for_timeout(300)
    assert [mv["kind"] for mv in moves(client, gid)] == ["play", "play", "pass"]

    # 4. Bob: S?N from 9H (the S is on the board), the blank an O from its picker; he announces 38
    # and the director lets it stand: a score correction, the rules' score kept beside it.
    page.click("#board button[data-square='9H']")
    page.fill("#word", "S?N")
    page.select_option("#blanks select", "O")
    assert page.locator("#preview").text_content() == "9H (S)oN"
    page.fill("#claimed", "38")
    page.click("#record-play")
    answer(page, "(as announced)")
    wait_for(lambda: moves(client, gid)[-1]["corrected"])
    m = moves(client, gid)[3]
    assert (m["word"], m["agreed"], m["corrected"]) == (".oN", 38, True) and m["engine"] != 38
    page.wait_for_function("() => document.querySelector('#message').textContent.includes('as announced')")

    # The move list shows names, never nicknames.
    page.wait_for_function("() => document.querySelectorAll('#moves tr').length === 4")
    names = page.locator("#moves tr td:nth-child(2)").all_text_contents()
    assert names == ["Alice Ames", "Bob Brown", "Alice Ames", "Bob Brown"]

    # 5. Undo Bob's last play from the move list: a Void in the log, the play gone from the record.
    page.locator("#moves tr").nth(3).locator("button.undo").click()
    answer(page, "Undo it")
    wait_for(count_is(client, gid, 3))
    log = client.get(f"/api/games/{gid}.json").json()["log"]
    assert log[-1]["kind"] == "void" and log[-1]["target"] == m["seq"] and log[-1]["by"] == "tester"
    assert client.get(f"/api/games/{gid}/live").json()["on_turn"] == 1
    page.wait_for_function("() => document.querySelector('#message').textContent.startsWith('undone: move 4')")  # numbered from 1

    # 6. Undoing the first play under the later ones is refused with the server's reason, in words.
    page.wait_for_function("() => document.querySelectorAll('#moves tr').length === 3")
    page.locator("#moves tr").nth(0).locator("button.undo").click()
    answer(page, "Undo it")
    page.wait_for_function("() => document.querySelector('#message').className === 'error'")
    assert re.match(r"move [01] cannot be voided", message(page)), message(page)
    assert len(moves(client, gid)) == 3
    assert "[object Object]" not in page.content()
    assert page.errors == []
