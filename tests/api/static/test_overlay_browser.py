"""End to end in headless Debian chromium: the overlay shows a move fed through the API without a reload.

Chromium is Debian's (/usr/bin/chromium, installed by `make test`), driven by playwright; no browser
download. The screenshot goes to $TILECAM_ARTIFACTS (default: a temporary folder) and its path is printed.
"""
from __future__ import annotations

import os
from pathlib import Path

import pytest

from apiserver import AUTH, api, client, import_gcg, new_game  # noqa: F401  (fixtures)
from browser import chromium_page
from tilecam.scoring.gcg import read_gcg

pytestmark = pytest.mark.slow  # end to end (see pyproject's markers)

GAME = "doug_vs_emely.gcg"
TURNS_BEFORE = 11  # the record up to here is loaded first; turn 12 is fed while the page watches


@pytest.fixture(scope="module")
def browser_page(tmp_path_factory):
    with chromium_page(tmp_path_factory.mktemp("chromium-profile"), 1160, 720) as page:
        yield page


def artifacts_dir(tmp_path_factory) -> Path:
    env = os.environ.get("TILECAM_ARTIFACTS")
    path = Path(env) if env else tmp_path_factory.mktemp("artifacts")
    path.mkdir(parents=True, exist_ok=True)
    return path


def test_overlay_shows_a_new_move_without_reload(api, client, browser_page, shared_data, tmp_path_factory):
    path = shared_data / "gcg" / "liwords" / GAME
    text = path.read_text(encoding="latin-1")
    turns = read_gcg(text).turns
    nxt = turns[TURNS_BEFORE]
    assert nxt.kind == "play"
    # The record up to TURNS_BEFORE turns: header lines, then that many turn lines.
    lines = text.splitlines()
    partial = tmp_path_factory.mktemp("gcg") / GAME
    partial.write_text("\n".join(lines[:nxt.line_no - 1]) + "\n", encoding="utf-8")
    gid = import_gcg(client, partial)

    page = browser_page
    page.goto(f"{api.url}/overlay/{gid}")
    page.wait_for_function(f"() => document.body.dataset.seq === '{TURNS_BEFORE - 1}'", timeout=10_000)
    assert page.locator(".sq").count() == 225 and page.locator(".coord").count() == 31
    assert page.locator(".player:visible").count() == 2  # the third and fourth seats stay hidden
    before = page.locator(".tile").count()
    page.evaluate("window.__sameDocument = true")  # gone if the page reloads

    r = client.post(f"/api/games/{gid}/plays", headers=AUTH,
                    json={"position": nxt.position, "word": nxt.word, "claimed": nxt.score})
    assert r.status_code == 200, r.text
    live = r.json()["live"]
    page.wait_for_function(f"() => document.body.dataset.seq === '{TURNS_BEFORE}'", timeout=10_000)

    assert page.evaluate("window.__sameDocument") is True
    highlighted = page.locator(".tile.last")
    assert sorted(highlighted.evaluate_all("els => els.map(e => e.dataset.square)")) == sorted(live["last_play"])
    assert page.locator(".tile").count() == before + len(live["last_play"])
    assert page.inner_text("[data-field=p1_score]") == str(live["scores"][0])
    assert page.inner_text("[data-field=p2_score]") == str(live["scores"][1])
    assert page.inner_text("#last [data-field=last_play]") == live["fields"]["last_play"]
    assert page.inner_text("#pool") == live["fields"]["unseen_tiles"]

    shot = artifacts_dir(tmp_path_factory) / "overlay.png"
    page.screenshot(path=str(shot))
    print(f"overlay screenshot: {shot}")
    assert shot.stat().st_size > 10_000


def test_overlay_field_page_updates_in_the_browser(api, client, browser_page):
    players = [{"name": "Wellington Jighere"}, {"name": "Lewis MacKay"}]
    r = client.post("/api/games", headers=AUTH, json={"players": players})
    gid = r.json()["id"]
    page = browser_page
    page.goto(f"{api.url}/overlay/{gid}/p1_score")
    page.wait_for_function("() => document.body.dataset.seq === '-1'", timeout=10_000)
    assert page.inner_text("#field") == "0"
    client.post(f"/api/games/{gid}/plays", headers=AUTH, json={"position": "8H", "word": "ZAX"})
    page.wait_for_function("() => document.getElementById('field').textContent === '38'", timeout=10_000)


def test_operator_console_records_a_play_and_shows_the_engines_reason(api, browser_page):
    from apiserver import TOKEN

    page = browser_page
    page.goto(f"{api.url}/operator")
    page.fill("#token", TOKEN)
    page.dispatch_event("#token", "change")
    page.fill("#create [name=p1]", "Ann")
    page.fill("#create [name=p2]", "Ben")
    page.click("#create button")
    page.wait_for_function("() => document.getElementById('message').textContent.includes('created')", timeout=10_000)
    page.fill("#play [name=position]", "8H")
    page.fill("#play [name=word]", "ZAX")
    page.click("#play button")
    page.wait_for_selector("#moves tr", timeout=10_000)
    assert "8H ZAX" in page.inner_text("#moves") and "38" in page.inner_text("#scores")
    # the console clears the form once the entry is in: filled before that, the clear wipes Z9
    page.wait_for_function("() => document.querySelector('#play [name=position]').value === ''", timeout=10_000)
    page.fill("#play [name=position]", "Z9")
    page.fill("#play [name=word]", "ZAX")  # the console clears the form after each entry
    page.click("#play button")
    page.wait_for_function("() => document.getElementById('message').className === 'error'", timeout=10_000)
    assert page.inner_text("#message") == "coordinate 'Z9' is off the 15x15 board"


def test_overlay_shows_three_and_four_players(api, client, browser_page):
    players = [{"name": "Ann"}, {"name": "Ben"}, {"name": "Cy"}, {"name": "Di"}]
    page = browser_page
    for n in (4, 3):
        r = client.post("/api/games", headers=AUTH, json={"players": players[:n], "rules": "box"})
        gid = r.json()["id"]
        client.post(f"/api/games/{gid}/plays", headers=AUTH, json={"position": "8H", "word": "ZAX"})
        page.goto(f"{api.url}/overlay/{gid}")
        page.wait_for_function("() => document.body.dataset.seq === '0'", timeout=10_000)
        seats = page.locator(".player:visible")
        assert seats.count() == n
        assert seats.locator(".name").all_inner_texts() == [p["name"] for p in players[:n]]
        assert seats.locator(".score").all_inner_texts() == ["38"] + ["0"] * (n - 1)
        assert page.locator(".player.on-turn").get_attribute("id") == "p1"
        # Player 2 challenges ZAX and loses their turn; player 1 passes: player 3 is on turn.
        client.post(f"/api/games/{gid}/challenges", headers=AUTH, json={"outcome": "valid", "challenger": 2})
        client.post(f"/api/games/{gid}/passes", headers=AUTH, json={})
        page.wait_for_function("() => document.body.dataset.seq === '2'", timeout=10_000)
        on_turn = page.locator(".player.on-turn").get_attribute("id")
        assert on_turn == ("p3" if n == 4 else "p0")


def test_operator_console_runs_a_four_player_game_and_marks_an_undecided_blank(api, client, browser_page):
    from apiserver import TOKEN
    from tilecam.scoring.board import Direction, Square
    from tilecam.scoring.placement import PlacedTile, Placement

    page = browser_page
    page.goto(f"{api.url}/operator")
    page.fill("#token", TOKEN)
    page.dispatch_event("#token", "change")
    for i, name in enumerate(["Ann", "Ben", "Cy", "Di"], start=1):
        page.fill(f"#create [name=p{i}]", name)
    page.select_option("#create [name=rules]", "box")
    page.click("#create button")
    page.wait_for_function("() => document.getElementById('message').textContent.includes('created')", timeout=10_000)
    gid = page.input_value("#game")
    page.wait_for_function("() => document.querySelectorAll('#time select option').length === 4", timeout=10_000)
    assert page.locator("#challenge select option").all_inner_texts() == ["next player", "1: Ann", "2: Ben",
                                                                          "3: Cy", "4: Di"]
    assert page.locator("#end input[name=r4]").is_visible()

    # A play whose blank the GCG writer had to guess, as an import of such a record holds it.
    qat = Placement((PlacedTile(Square(7, 6), "Q"), PlacedTile(Square(7, 7), "A"),
                     PlacedTile(Square(7, 8), "T", True)), Direction.ACROSS)
    api.service.build(int(gid), lambda g: g.play(0, qat, blank_guessed=True))
    page.wait_for_selector("#moves tr.undecided .undecided-mark", timeout=10_000)
    assert page.inner_text("#scores") == "Ann 22 – Ben 0 – Cy 0 – Di 0"
    page.click("#moves tr.undecided button")
    assert page.input_value("#fix [name=number]") == "1" and page.input_value("#fix [name=kind]") == "blank"
    page.fill("#fix [name=a]", "8I")
    page.fill("#fix [name=b]", "T")
    page.click("#fix button")
    page.wait_for_function("() => document.getElementById('message').textContent === 'move 1 corrected'",
                           timeout=10_000)
    page.wait_for_function("() => !document.querySelector('#moves tr.undecided')"
                           " && document.querySelectorAll('#moves tr').length === 1", timeout=10_000)
    assert client.get(f"/api/games/{gid}/moves").json()[0]["blank_undecided"] is False

    # The end form sends one rack per player the game has (four here). (Not a Q: the set's one Q is on
    # the board, and a rack holding a second is refused since issue 35.)
    page.fill("#end [name=r1]", "Z")
    page.fill("#end [name=r4]", "EE")
    page.fill("#end [name=reason]", "time is up")
    page.click("#end button")
    page.click("#confirm-choices button[value=yes]")  # the console asks before it ends a game
    page.wait_for_function("() => document.getElementById('scores').textContent.endsWith('(ended)')", timeout=10_000)
    assert page.inner_text("#scores") == "Ann 12 – Ben 0 – Cy 0 – Di -2 (ended)"


def test_overlay_marks_a_blank_whose_letter_was_not_read(api, client, browser_page):
    gid = new_game(client)
    r = client.post(f"/api/games/{gid}/plays", headers=AUTH, json={"position": "8G", "word": "QA?"})
    assert r.status_code == 200, r.text
    assert client.get(f"/api/games/{gid}/moves").json()[0]["blank_undecided"] is True
    page = browser_page
    page.goto(f"{api.url}/overlay/{gid}")
    page.wait_for_selector(".tile.undecided", timeout=10_000)
    tile = page.locator(".tile.undecided")
    assert tile.count() == 1 and tile.get_attribute("data-square") == "8I" and tile.inner_text() == "?"
    assert page.locator(".tile.undecided .pts").count() == 0      # a blank shows no points
    # once the operator names the letter, the mark goes and the tile shows it
    r = client.post(f"/api/games/{gid}/moves/0/corrections", headers=AUTH,
                    json={"kind": "blank", "square": "8I", "letter": "T", "reason": "read on the table"})
    assert r.status_code == 200, r.text
    page.wait_for_function("() => !document.querySelector('.tile.undecided')", timeout=10_000)
    assert page.inner_text(".tile[data-square='8I']") == "T"


def test_overlay_clock_counts_down_by_itself_and_shows_overtime(api, client, browser_page):
    gid = new_game(client)
    assert client.post(f"/api/games/{gid}/clock", headers=AUTH, json={}).status_code == 201
    assert client.post(f"/api/games/{gid}/clock/press", headers=AUTH, json={"player": 1}).status_code == 200
    page = browser_page
    page.goto(f"{api.url}/overlay/{gid}")
    page.wait_for_function("() => document.body.dataset.seq === '-1'", timeout=10_000)
    clock = "document.querySelector('#p0 .clock')"
    # Nothing is sent after the press: the page ticks the running clock down itself.
    page.wait_for_function(f"() => {clock}.textContent === '24:58'", timeout=10_000)
    assert page.inner_text("#p1 .clock") == "25:00"
    assert "running" in page.get_attribute("#p0 .clock", "class")
    assert page.locator("#p2 .clock").is_hidden()            # seat 3 of a two-player game

    # Half a second before the flag (the service's steady time moved on), then into overtime.
    service = api.service
    saved = service.steady
    now = saved()
    left_s = service.game_clock(gid).remaining(0, now)
    service.steady = lambda: now + left_s - 0.5
    try:
        client.post(f"/api/games/{gid}/clock/pause", headers=AUTH)
        client.post(f"/api/games/{gid}/clock/resume", headers=AUTH)   # the page gets the state as of now
        page.wait_for_function(f"() => {clock}.textContent === '-0:01'", timeout=10_000)
        assert "overtime" in page.get_attribute("#p0 .clock", "class")
    finally:
        service.steady = saved


def test_clock_field_page_ticks(api, client, browser_page):
    gid = new_game(client)
    client.post(f"/api/games/{gid}/clock", headers=AUTH, json={"minutes": 3})
    client.post(f"/api/games/{gid}/clock/press", headers=AUTH, json={})
    page = browser_page
    page.goto(f"{api.url}/overlay/{gid}/p1_clock")
    page.wait_for_function("() => document.getElementById('field').textContent === '2:58'", timeout=10_000)


def test_operator_console_pauses_the_clock(api, client, browser_page):
    from apiserver import TOKEN

    gid = new_game(client, "Cat", "Dan")
    page = browser_page
    page.goto(f"{api.url}/operator")
    page.fill("#token", TOKEN)
    page.dispatch_event("#token", "change")
    page.wait_for_function(f"() => [...document.getElementById('game').options].some((o) => o.value === '{gid}')",
                           timeout=10_000)
    page.select_option("#game", str(gid))
    page.click("#clock button[value=start]")
    page.wait_for_function("() => document.getElementById('message').textContent.startsWith('clock started')",
                           timeout=10_000)
    page.click("#clock button[value=press]")
    page.wait_for_function("() => document.getElementById('message').textContent === \"player 1's clock runs\"",
                           timeout=10_000)
    page.click("#clock-pause")
    page.wait_for_function("() => document.getElementById('message').textContent === 'clock paused'",
                           timeout=10_000)
    assert client.get(f"/api/games/{gid}/live").json()["clock"]["paused"] is True
    page.wait_for_function("() => document.querySelector('#clock [data-field=p1_clock]').textContent !== ''",
                           timeout=10_000)
