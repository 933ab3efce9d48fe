"""/tournament in headless Debian chromium, as a director uses it: nine tables of real games (shared
liwords records, cut mid-game) with a clock running, a misannounced score, a play under review, a
silent station, finished games and a second round at one table; the page follows new moves and
new games, its links open the table's recount and console, and it prints.
TILECAM_SCREENSHOTS=1 writes docs/pages/tournament.png (commit it when it changes).
"""
from __future__ import annotations

import os
import re
import time
from pathlib import Path

import pytest
from apiserver import AUTH, api, client, new_game  # noqa: F401  (fixtures: a server and database per module)
from browser import chromium_page
from tilecam.scoring.board import Direction, Square
from tilecam.scoring.placement import PlacedTile, Placement

pytestmark = pytest.mark.slow  # a real browser
SHOT = Path(__file__).resolve().parents[3] / "docs" / "pages" / "tournament.png"
WAIT = 10_000  # ms; the page asks every 2 s


@pytest.fixture(scope="module")
def page(tmp_path_factory):
    with chromium_page(tmp_path_factory.mktemp("chromium-profile"), 1366, 900) as p:
        yield p


def imported(client, api, path: Path, table: int, turns: int | None = None, rules: str = "naspa") -> int:
    """A shared record at `table`, cut after `turns` of its lines (the whole game when None)."""
    lines = path.read_text(encoding="utf-8").splitlines()
    if turns is not None:
        moves = [i for i, ln in enumerate(lines) if ln.startswith(">")]
        lines = lines[:moves[turns - 1] + 1]
    r = client.post("/api/games/gcg", params={"rules": rules}, content="\n".join(lines).encode(),
                    headers={**AUTH, "Content-Type": "text/plain"})
    assert r.status_code == 201, r.text
    gid = r.json()["id"]
    api.service.set_meta(gid, {"table": str(table)})
    return gid


def heard(api, gid: int, station: str, silent_s: float) -> None:
    api.service.set_meta(gid, {"station": station, "station_heard_at": str(time.time() - silent_s)})


@pytest.fixture(scope="module")
def room(api, client, shared_data):
    gcg = shared_data / "gcg" / "liwords"
    g = {}
    g[1] = imported(client, api, gcg / "many_double_words_covered.gcg", 1, 14)
    r = client.post(f"/api/games/{g[1]}/clock", json={}, headers=AUTH)
    assert r.status_code == 201, r.text
    assert client.post(f"/api/games/{g[1]}/clock/press", json={}, headers=AUTH).status_code == 200
    g[2] = imported(client, api, gcg / "josh_nationals_round_24.gcg", 2, 9, "naspa-csw")
    heard(api, g[2], "pi-02", 3)
    g[3] = imported(client, api, gcg / "r20_peter.gcg", 3, 15)  # BRUnCH..Y announced 115, the engine gives 113
    heard(api, g[3], "pi-03", 5)
    g[4] = imported(client, api, gcg / "every_e.gcg", 4)
    g[5] = new_game(client, "Wellington Jighere", "Lewis MacKay", table=5)
    pl = Placement(tuple(PlacedTile(Square(7, 6 + i), ch) for i, ch in enumerate("QUIRT")), Direction.ACROSS)
    api.service.build(g[5], lambda game: game.play(0, pl, certainty=0.41, review=True))  # the camera unsure
    g[6] = imported(client, api, gcg / "all_triple_words_covered.gcg", 6, 20, "naspa-csw")
    heard(api, g[6], "pi-06", 605)  # silent for ten minutes
    g[7] = imported(client, api, gcg / "josh_nationals_round_7.gcg", 7)
    g[8] = new_game(client, "Nigel Richards", "Jackson Smylie", table=8)
    first9 = imported(client, api, gcg / "combined_low_scoring.gcg", 9)
    g[9] = imported(client, api, gcg / "vs_josh.gcg", 9, 12)  # round 2 at table 9
    assert first9 < g[9]
    return g


def rows(page) -> dict[int, dict]:
    got = page.locator("#tables tbody tr").evaluate_all(
        "trs => trs.map(tr => ({table: +tr.dataset.table, game: +tr.dataset.game, flags: tr.dataset.flags,"
        " text: tr.innerText}))")
    return {r["table"]: r for r in got}


def polled(page, after: int = 0) -> int:
    page.wait_for_function(f"() => Number(document.body.dataset.polls || 0) > {after}", timeout=WAIT)
    return int(page.evaluate("document.body.dataset.polls"))


def test_the_director_sees_every_table_and_what_needs_attention(api, client, page, room):
    page.goto(f"{api.url}/tournament")
    polled(page)
    api_rows = {t["table"]: t for t in client.get("/api/tables").json()["tables"]}
    shown = rows(page)
    assert sorted(shown) == sorted(api_rows) == list(range(1, 10))
    for n, t in api_rows.items():
        assert shown[n]["game"] == t["game_id"] == room[n] and shown[n]["flags"] == " ".join(t["flags"]), n
    assert {n for n, t in api_rows.items() if t["flags"]} == {3, 5, 6}
    assert page.inner_text("#count") == "9 tables"
    attention = page.inner_text("#attention")
    assert attention == "3 need attention: table 3 (score), table 5 (review), table 6 (station)"

    # Each flag says what to act on.
    assert "SCORE" in shown[3]["text"].upper() and "move 15, Peter: claimed 115, engine 113" in shown[3]["text"]
    assert "move 1: camera unsure or a tile not yet learned, confirm in the console" in shown[5]["text"]
    assert re.search(r"pi-06 silent 10 min 0[5-9] s", shown[6]["text"])
    assert re.search(r"pi-02 · heard \d+ s ago", shown[2]["text"]) and "–" in shown[2]["flags"] + shown[2]["text"]
    # Players, scores, the player on turn, the last play with its word whole, the round.
    t2 = api_rows[2]
    who = page.locator("#table-2 td.who div").all_inner_texts()
    assert who == t2["players"] and t2["on_turn"] is not None
    assert page.locator("#table-2 td.who div").nth(t2["on_turn"]).get_attribute("class") == "on-turn"
    assert page.locator("#table-2 td.score div").all_inner_texts() == [str(x) for x in t2["scores"]]
    assert page.inner_text("#table-2 td.last") == t2["last_play"]
    assert page.inner_text("#table-2 td.last .word") == t2["last_played"]["word"]
    assert "round 2" in page.inner_text("#table-9 td.no") and "round" not in page.inner_text("#table-8 td.no")
    assert api_rows[4]["ended"] and api_rows[4]["result"] in page.inner_text("#table-4 td.last")
    assert page.locator("#table-4 td.who .on-turn").count() == 0
    # The clock at table 1 runs down by itself between polls.
    running = page.locator("#table-1 td.clock .running")
    assert running.count() == 1 and re.fullmatch(r"2[45]:\d\d", running.inner_text())
    before = running.inner_text()
    page.wait_for_function(f"() => document.querySelector('#table-1 td.clock .running').textContent !== '{before}'",
                           timeout=WAIT)
    # no clock there: said, not a blank cell (issue 35)
    assert page.locator("#table-2 td.clock div").all_inner_texts() == ["no clock"]
    assert page.errors == []

    if os.environ.get("TILECAM_SCREENSHOTS"):
        SHOT.parent.mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(SHOT), full_page=True)
        print(f"tournament screenshot: {SHOT}")


def test_the_page_follows_moves_new_games_and_stations(api, client, page, room):
    page.goto(f"{api.url}/tournament")
    n = polled(page)
    link = page.locator("#table-2 a[data-link=recount]")
    handle = link.element_handle()
    # A move at table 8, a new round at table 7, a station heard from again: no reload needed.
    r = client.post(f"/api/games/{room[8]}/plays", json={"position": "8H", "word": "ZAX"}, headers=AUTH)
    assert r.status_code == 200, r.text
    nxt = new_game(client, "Next Round", "Player Two", table=7)
    heard(api, room[6], "pi-06", 0)
    page.wait_for_function(f"() => document.querySelector('#table-7').dataset.game === '{nxt}'", timeout=WAIT)
    page.wait_for_function("() => document.querySelector('#table-8 td.last').innerText.startsWith('Nigel Richards: 8H ZAX')",
                           timeout=WAIT)
    page.wait_for_function("() => document.querySelector('#table-6').dataset.flags === ''", timeout=WAIT)
    assert page.locator("#table-7 td.who div").all_inner_texts() == ["Next Round", "Player Two"]
    assert page.inner_text("#attention") == "2 need attention: table 3 (score), table 5 (review)"
    # An unchanged row is left alone, so a link is never pulled from under the pointer.
    assert polled(page, n) > n and handle.evaluate("a => a.isConnected")
    assert page.errors == []


def test_only_the_flagged_tables_then_a_link_to_the_recount_and_the_console(api, client, page, room):
    page.goto(f"{api.url}/tournament")
    polled(page)
    page.check("#only-flagged")
    page.wait_for_function("() => document.querySelectorAll('#tables tbody tr').length === 2", timeout=WAIT)
    assert sorted(rows(page)) == [3, 5] and page.url.endswith("/tournament?flagged=true")

    with page.context.expect_page() as opened:
        page.click("#table-3 a[data-link=recount]")
    recount = opened.value
    recount.wait_for_function("() => document.body.dataset.ready === '1'", timeout=WAIT)
    assert recount.url == f"{api.url}/recount/{room[3]}"
    assert "claimed 115, engine 113" in recount.inner_text("#first")
    recount.close()

    with page.context.expect_page() as opened:
        page.click("#table-5 a[data-link=operator]")
    console = opened.value
    console.wait_for_function(f"() => document.getElementById('game').value === '{room[5]}'", timeout=WAIT)
    assert "Wellington Jighere" in console.inner_text("#game option:checked")
    console.close()
    assert page.get_attribute("#table-5 a[data-link=overlay]", "href") == "/overlay/table/5"
    assert page.get_attribute("#table-5 a[data-link=replay]", "href") == f"/replay/{room[5]}"

    # Printed: the table with its flags; the links and the controls stay on screen.
    page.uncheck("#only-flagged")
    page.wait_for_function("() => document.querySelectorAll('#tables tbody tr').length === 9", timeout=WAIT)
    page.emulate_media(media="print")
    assert page.locator("#tables").is_visible() and page.locator("#table-3 .flag.score").is_visible()
    assert not page.locator("nav").is_visible() and not page.locator("#table-3 td.links").is_visible()
    pdf = page.pdf(format="A4", landscape=True, print_background=True)
    page.emulate_media(media="screen")
    assert pdf.startswith(b"%PDF-")
    assert page.errors == []


def test_a_bad_filter_is_a_422_and_the_page_says_when_the_server_is_gone(api, client, page, room):
    r = client.get("/tournament", params={"tables": "12-3"})
    assert r.status_code == 422 and "'12-3' is not a table" in r.json()["detail"]
    page.goto(f"{api.url}/tournament?tables=1-3")
    polled(page)
    assert sorted(rows(page)) == [1, 2, 3]
    page.route("**/api/tables*", lambda route: route.abort())
    page.wait_for_function("() => document.getElementById('status').textContent.startsWith('cannot reach the server')",
                           timeout=WAIT)
    assert sorted(rows(page)) == [1, 2, 3]  # the last state stays, marked
    page.unroute("**/api/tables*")
