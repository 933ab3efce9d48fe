"""The recount and replay pages in headless Debian chromium, on a real shared game with a
misannounced score (r20_peter.gcg line 19: BRUnCH..Y announced 115, the engine gives 113, then withdrawn).

The screenshots in docs/api.md come from test_demo_pages_browser.py (the demo game, with photos).
"""
from __future__ import annotations

import pytest

from apiserver import api, client, import_gcg  # noqa: F401  (fixtures)
from browser import chromium_page

pytestmark = pytest.mark.slow  # end to end (see pyproject's markers)



@pytest.fixture(scope="module")
def page(tmp_path_factory):
    with chromium_page(tmp_path_factory.mktemp("chromium-profile"), 1280, 900) as p:
        yield p


@pytest.fixture(scope="module")
def peter(client, shared_data):  # noqa: F811
    return import_gcg(client, shared_data / "gcg" / "liwords" / "r20_peter.gcg")


def cells(page, selector: str) -> list[str]:
    return page.locator(selector).all_inner_texts()


def test_recount_page_shows_both_running_totals_names_the_first_discrepancy_and_prints(api, client, page, peter, tmp_path):  # noqa: F811
    rc = client.get(f"/api/games/{peter}/recount").json()
    page.goto(f"{api.url}/recount/{peter}")
    page.wait_for_function("() => document.body.dataset.ready === '1'", timeout=10_000)

    first = page.inner_text("#first")
    assert "move 15" in first and "Peter" in first and "claimed 115, engine 113" in first
    row = page.locator("#moves tbody tr[data-index='14']")
    assert set(row.get_attribute("class").split()) >= {"disc", "first", "apart"}
    assert cells(page, "#moves tbody tr[data-index='14'] td.rec-total") == ["392", "381"]
    assert cells(page, "#moves tbody tr[data-index='14'] td.eng-total") == ["390", "381"]
    # the withdrawal takes back what each column added: both agree again at 277
    assert cells(page, "#moves tbody tr[data-index='15'] td.rec-total") == ["277", "381"]
    assert cells(page, "#moves tbody tr[data-index='15'] td.eng-total") == ["277", "381"]
    assert page.locator("#moves tbody tr").count() == len(rc["moves"])
    assert page.locator("#moves tbody tr.disc").count() == len(rc["discrepancies"]) == 1
    assert cells(page, "#final-recorded td") == [str(v) for v in rc["final"]] == ["364", "503"]
    assert cells(page, "#final-engine td") == ["364", "503"]

    # Peter's scoresheet with the misannounced 115 taken as the engine's 113 from there on:
    # it parts from the record at his 8th turn, and agrees with the engine there.
    sheet = [m["totals"][0] for m in rc["moves"] if m["player"] == 0]
    sheet[7] -= 2  # his 8th turn is the BRUnCH..Y play
    page.select_option("#sheet-player", "0")
    page.fill("#sheet-totals", " ".join(map(str, sheet)))
    page.click("#sheet-form button[type=submit]")
    page.wait_for_function("() => document.querySelector('#sheet-result').textContent.length > 0")
    result = page.inner_text("#sheet-result")
    assert "parts from the record at turn 8" in result and "BRUnCH" in result
    assert page.locator("#sheet-rows tbody tr.mismatch").count() == 1

    # Printing: the print stylesheet hides the form and the navigation, keeps the table and totals.
    page.emulate_media(media="print")
    assert not page.locator("#sheet-form").is_visible() and not page.locator("nav").is_visible()
    assert page.locator("#moves").is_visible() and page.locator("#final-recorded").is_visible()
    pdf = page.pdf(format="A4", landscape=True, print_background=True)
    page.emulate_media(media="screen")
    assert pdf.startswith(b"%PDF-") and pdf.rstrip().endswith(b"%%EOF")
    assert pdf.count(b"/Type /Page") - pdf.count(b"/Type /Pages") >= 1
    (tmp_path / "recount.pdf").write_bytes(pdf)


def test_replay_page_steps_with_the_arrow_keys_and_shows_the_board_at_each_turn(api, client, page, peter):  # noqa: F811
    moves = client.get(f"/api/games/{peter}/moves").json()
    names = [p["name"] for p in client.get(f"/api/games/{peter}").json()["players"]]
    page.goto(f"{api.url}/replay/{peter}#turn=0")
    page.wait_for_function("() => document.body.dataset.turn === '0'", timeout=10_000)
    assert page.locator("#board .sq").count() == 225 and page.locator("#board .tile").count() == 0
    assert page.get_attribute("#gcg", "href") == f"/api/games/{peter}.gcg"
    assert page.get_attribute("#json", "href") == f"/api/games/{peter}.json"

    def at(turn: int) -> None:
        page.wait_for_function(f"() => document.body.dataset.turn === '{turn}'", timeout=10_000)
        board = client.get(f"/api/games/{peter}/board", params={"turn": turn}).json()
        shown = sorted(page.locator("#board .tile").evaluate_all(
            "els => els.map(e => e.dataset.square + ':' + e.textContent)"))
        assert shown == sorted(f"{t['square']}:{t['letter'].upper()}" for t in board["tiles"])
        last = page.locator("#board .tile.last").evaluate_all("els => els.map(e => e.dataset.square)")
        assert sorted(last) == sorted(board["last_play"])
        m = moves[turn - 1]
        current = page.inner_text("#moves li.current .text")
        assert current.startswith(f"{names[m['player']]}: {m['position'] or ''}")  # names, not nicknames
        assert (m.get("shown") or "") in current
        assert [int(x.split()[-1]) for x in cells(page, "#scores span[data-player]")] == board["scores"]

    page.keyboard.press("ArrowRight")
    at(1)
    assert page.locator("#board .tile").count() == 7  # OUTDUEL
    page.keyboard.press("ArrowRight")
    at(2)
    page.keyboard.press("ArrowRight")
    at(3)
    page.keyboard.press("ArrowLeft")
    at(2)
    assert "No evidence photo" in page.inner_text("#photo-note")  # an imported game has none
    page.keyboard.press("End")
    at(len(moves))
    page.keyboard.press("ArrowRight")  # past the end stays at the end
    page.wait_for_timeout(200)
    assert page.evaluate("document.body.dataset.turn") == str(len(moves))
    page.locator("#moves li").nth(14).click()  # the misannounced play, then its withdrawal
    at(15)
    assert page.locator("#moves li.disc").count() == 1
    page.keyboard.press("ArrowRight")
    at(16)
    assert page.locator("#board .tile.last").count() == 0  # a withdrawal places nothing
