"""The pages on the demo game (Cesar v Josh, vs_josh.gcg) in headless Debian chromium, as issue 19
found them: five games of the same two players at table 1, two of them live, the moves recorded
with evidence frames and the grid corners a recorder keeps (rendered boards, so the rectified
photos are real warps).

- the console opens the newest live game, tells the games apart in its menu, links the recount
  page, numbers moves from 1, writes words whole, asks for an exchange's count before anything
  else, and shows a typed letter over a different tile before sending it;
- the overlay shows the result and the vowels and consonants as the backend words them, unclipped,
  and a withdrawn phony with its word;
- the recount prints a thumbnail of each move's rectified photo and each correction's change with
  a readable time;
- the replay draws its step buttons without a font, square cells with coordinates, player names
  and a large evidence photo.

TILECAM_PAGE_SHOTS=1 writes docs/pages/operator.png, recount.png and replay.png (1280 wide).
"""
from __future__ import annotations

import os
import re
from pathlib import Path

import cv2
import pytest

from apiserver import AUTH, TOKEN, api, client, wait_for  # noqa: F401  (fixtures)
from browser import chromium_page
from tilecam.api.demo.game import make_demo_game
from tilecam.api.demo.video import boards_after_each_play
from tilecam.models.synth import SceneConfig, render_scene

pytestmark = pytest.mark.slow  # end to end (see pyproject's markers)

DOCS = Path(__file__).resolve().parents[3] / "docs" / "pages"
SHOTS = bool(os.environ.get("TILECAM_PAGE_SHOTS"))
PLAYERS = [("Cesar Del Solar", "cesar"), ("Josh Castellano", "josh")]
SCENE = SceneConfig(out_w_px=960, out_h_px=720, max_tilt_deg=12, hands="never", glare_prob=0.0, fill_min=0.8,
                    fill_max=0.92, style="wood", design="hasbro", labels="full", font="dejavu-sans", line_frac=0.045)


def add_game(service, events: int | None, frames: bool) -> int:
    """A game of the demo record cut to `events` events, each with its rendered frame and corners."""
    game = make_demo_game(events)
    boards = boards_after_each_play(game) if frames else None
    gid = service.create_game(PLAYERS, "naspa", "en", meta={"table": "1"}).id
    for i, ev in enumerate(game.events):
        if frames:
            scene = render_scene(boards[i + 1], 5, SCENE, frame=i)
            ok, jpeg = cv2.imencode(".jpg", scene.image, [cv2.IMWRITE_JPEG_QUALITY, 85])
            service.append(gid, ev, jpeg=jpeg.tobytes(), sidecar={"corners": scene.corners.tolist()})
        else:
            service.append(gid, ev)
    return gid


@pytest.fixture(scope="module")
def games(api):  # noqa: F811
    """Oldest first: finished, live (the phony just withdrawn), live (9 events, photos), finished
    (the whole game, photos), finished."""
    s = api.service
    ids = {"old": add_game(s, None, False), "phony": add_game(s, 6, False), "live": add_game(s, 9, True),
           "full": add_game(s, None, True), "last": add_game(s, None, False)}
    return ids


@pytest.fixture(scope="module")
def page(tmp_path_factory):
    with chromium_page(tmp_path_factory.mktemp("chromium-profile"), 1280, 900) as p:
        yield p


def moves(client, gid):  # noqa: F811
    return client.get(f"/api/games/{gid}/moves").json()


def message(page) -> str:
    return page.locator("#message").text_content()


def test_console_opens_the_newest_live_game_and_checks_before_it_sends(api, client, page, games):  # noqa: F811
    gid = games["live"]
    page.goto(f"{api.url}/operator")
    page.fill("#token", TOKEN)
    page.dispatch_event("#token", "change")
    page.wait_for_function("() => document.querySelectorAll('#game option').length === 5")
    # The newest live game, not the oldest game nor the newest finished one.
    assert page.input_value("#game") == str(gid)
    labels = page.locator("#game option").all_text_contents()
    assert len(set(labels)) == 5, labels
    assert [o.split(" · ")[0] for o in labels] == [f"#{i}" for i in sorted(games.values(), reverse=True)]
    status = dict(zip(page.locator("#game option").evaluate_all("os => os.map((o) => o.value)"),
                      page.locator("#game option").evaluate_all("os => os.map((o) => o.dataset.status)")))
    assert status == {str(games[k]): ("live" if k in ("phony", "live") else "finished") for k in games}
    live_label = labels[[o.split(" · ")[0] for o in labels].index(f"#{gid}")]
    scores = client.get(f"/api/games/{gid}/live").json()["scores"]
    assert re.fullmatch(rf"#{gid} · table 1 · \d{{1,2}} [A-Z][a-z]{{2}} \d\d:\d\d · live · "
                        rf"Cesar Del Solar {scores[0]} – Josh Castellano {scores[1]}", live_label), live_label
    assert page.get_attribute("#recount-link", "href") == f"/recount/{gid}"

    # Moves numbered from 1 as the recount numbers them, words whole, a withdrawn phony named.
    page.wait_for_function("() => document.querySelectorAll('#moves tr').length === 9")
    numbers = page.locator("#moves tr td:nth-child(1)").all_text_contents()
    assert numbers == [str(m["number"]) if "number" in m else str(m["index"] + 1) for m in moves(client, gid)]
    assert numbers[0] == "1"
    texts = page.locator("#moves tr td:nth-child(3)").all_text_contents()
    assert texts[3] == "1H MA(s)TERLy" and texts[7] == "N1 (L)AZY" and texts[8] == "3L OO(Z)E"
    assert "MAZEY" in texts[5] and not any(re.search(r"[A-Za-z]\.|\.[A-Za-z]", t) for t in texts), texts

    # An exchange without its count: asked for first, no question, nothing sent.
    page.click("#exchange")
    page.wait_for_function("() => document.querySelector('#message').textContent.includes('how many tiles')")
    assert not page.locator("#confirm").evaluate("d => d.open")
    assert len(moves(client, gid)) == 9

    # FO?L down from H5: the L would go on the N at H8. Shown on the board and in the preview, not sent.
    page.fill("#position", "H5")
    page.dispatch_event("#position", "input")
    page.fill("#word", "FO?L")
    page.select_option("#blanks select", "O")
    assert page.locator("#board button[data-square='8H']").get_attribute("class").split().count("conflict") == 1
    assert page.locator("#board button.conflict").count() == 1
    preview = page.locator("#preview").text_content()
    assert preview.startswith("H5 FOo") and "H8 has N on the board, not the L typed" in preview
    page.click("#record-play")
    page.wait_for_function("() => document.querySelector('#message').className === 'error'")
    assert message(page).startswith("not sent: H8 has N on the board")
    assert len(moves(client, gid)) == 9
    if SHOTS:
        DOCS.mkdir(parents=True, exist_ok=True)
        page.evaluate("() => { document.activeElement.blur(); window.scrollTo(0, 0); }")
        page.screenshot(path=str(DOCS / "operator.png"))

    # Typed as it reads, the through tile shown in parentheses: no conflict.
    page.fill("#word", "")
    page.fill("#position", "8D")
    page.dispatch_event("#position", "input")
    page.fill("#word", "DJINNIS")
    assert page.locator("#preview").text_content() == "8D (DJINNI)S"
    assert page.locator("#board button.conflict").count() == 0

    # With the count, the exchange is asked about and recorded.
    page.fill("#word", "")
    page.fill("#exchange-count", "3")
    page.click("#exchange")
    page.wait_for_selector("#confirm[open]")
    assert "an exchange of 3 tiles" in page.locator("#confirm-text").text_content()
    page.locator("#confirm-choices button", has_text="Record").click()
    wait_for(lambda: len(moves(client, gid)) == 10)
    assert moves(client, gid)[-1]["kind"] == "exchange"
    # the menu's entry follows the game
    page.wait_for_function(f"() => document.querySelector('#game option[value=\"{gid}\"]').textContent.includes('live')")
    assert page.errors == []


def panel_fits(page) -> None:
    """Every text box of the overlay's panel lies inside the panel, its text inside the box."""
    bad = page.evaluate("""() => {
      const panel = document.querySelector('#panel').getBoundingClientRect();
      return [...document.querySelectorAll('#panel .player:not([hidden]), #panel #result, #panel #last, #panel #unseen, #panel .label')]
        .filter((e) => e.offsetParent !== null)
        .filter((e) => { const r = e.getBoundingClientRect();
          return e.scrollWidth > e.clientWidth + 1 || r.right > panel.right + 1 || r.left < panel.left - 1; })
        .map((e) => e.id || e.className);
    }""")
    assert bad == []


def test_overlay_shows_the_result_the_vowels_in_words_and_a_withdrawn_phony(api, client, page, games):  # noqa: F811
    gid = games["full"]
    page.set_viewport_size({"width": 1280, "height": 900})
    page.goto(f"{api.url}/overlay/{gid}")
    fields = client.get(f"/api/games/{gid}/live").json()["fields"]
    page.wait_for_function("() => document.querySelector('#result').textContent.length > 0", timeout=10_000)
    assert page.inner_text("#result") == fields["result"]
    assert page.locator("#unseen [data-field=vowels_consonants]").text_content() == fields["vowels_consonants"]
    # in words ("1 vowel · 5 consonants") no "V/C" after them; as numbers ("39 / 54") the unit
    assert page.locator("#unseen .vc-unit").is_visible() == (not re.search(r"[a-z]", fields["vowels_consonants"]))
    panel_fits(page)

    gid = games["phony"]
    page.goto(f"{api.url}/overlay/{gid}")
    page.wait_for_function("() => document.querySelector('#last [data-field=last_play]').textContent.length > 0")
    assert "MAZEY" in page.inner_text("#last") and "withdrawn" in page.inner_text("#last")
    panel_fits(page)
    assert page.errors == []


def test_recount_prints_each_moves_photo_and_the_corrections_in_words(api, client, page, games, tmp_path):  # noqa: F811
    gid = games["full"]
    r = client.post(f"/api/games/{gid}/moves/2/corrections", headers=AUTH,
                    json={"kind": "blank", "square": "J1", "letter": "T", "reason": "the photo shows a T"})
    assert r.status_code == 200, r.text
    r = client.post(f"/api/games/{gid}/moves/3/corrections", headers=AUTH,
                    json={"kind": "score", "agreed": 140, "reason": "director's ruling"})
    assert r.status_code == 200, r.text
    rc = client.get(f"/api/games/{gid}/recount").json()
    page.goto(f"{api.url}/recount/{gid}")
    page.wait_for_function("() => document.body.dataset.ready === '1'", timeout=10_000)

    rows = page.locator("#moves tbody tr")
    assert rows.count() == len(rc["moves"]) == 25
    assert page.locator("#moves tbody tr td:nth-child(1)").all_text_contents()[:3] == ["1", "2", "3"]
    assert page.locator("#moves tbody tr td:nth-child(3)").all_text_contents()[3] == "1H MA(t)TERLy"
    # Corrections: a readable time, who, the change (the API's words when it gives them).
    fixes = page.locator("#moves tbody tr[data-index='2'] td.who div").all_text_contents()
    assert len(fixes) == 1 and re.match(r"\d{1,2} [A-Z][a-z]{2} \d\d:\d\d, tester: ", fixes[0]), fixes
    assert "T" in fixes[0] and "the photo shows a T" in fixes[0] and "2026-" not in fixes[0]
    changes = {c["target"]: c["change"] for c in rc.get("corrections", [])}
    if changes:  # the API's words for what changed
        change = changes[rc["moves"][2]["seq"]]
        assert change.startswith("blank at") and fixes[0].endswith(f"tester: {change} (the photo shows a T)"), fixes
    score_fix = page.locator("#moves tbody tr[data-index='3'] td.who div").all_text_contents()
    assert len(score_fix) == 1 and "140" in score_fix[0] and "131" in score_fix[0], score_fix

    # A thumbnail of the rectified photo on every row, loaded, and still there on paper.
    page.wait_for_function("() => [...document.querySelectorAll('img.thumb')].every((i) => i.complete && i.naturalWidth > 0)",
                           timeout=20_000)
    thumbs = page.locator("#moves img.thumb")
    assert thumbs.count() == 25
    assert thumbs.first.evaluate("i => i.src").endswith("frame.jpg?view=board")
    page.emulate_media(media="print")
    assert thumbs.nth(0).is_visible() and thumbs.nth(24).is_visible()
    assert not page.locator("#moves a.raw").first.is_visible()
    box = thumbs.nth(0).bounding_box()
    assert box["width"] >= 80 and box["height"] >= 80  # 24 mm
    evidence = page.locator("#moves td.evidence").first.inner_text()
    assert "photo" not in evidence and "raw" not in evidence
    pdf = page.pdf(format="A4", landscape=True, print_background=True)
    page.emulate_media(media="screen")
    assert pdf.startswith(b"%PDF-") and pdf.count(b"/Subtype /Image") >= 25
    (tmp_path / "recount.pdf").write_bytes(pdf)
    if SHOTS:
        page.screenshot(path=str(DOCS / "recount.png"), clip={"x": 0, "y": 0, "width": 1280, "height": 900})
    assert page.errors == []


def test_replay_draws_its_buttons_square_cells_coordinates_names_and_a_large_photo(api, client, page, games):  # noqa: F811
    gid = games["full"]
    page.set_viewport_size({"width": 1280, "height": 900})
    page.goto(f"{api.url}/replay/{gid}#turn=0")
    page.wait_for_function("() => document.body.dataset.turn === '0'", timeout=10_000)
    # The step buttons are drawn (an SVG each), no glyph a font must hold.
    for b in ("first", "prev", "next", "last"):
        assert page.locator(f"#{b}").inner_text().strip() == ""
        svg = page.locator(f"#{b} svg").bounding_box()
        assert svg["width"] >= 12 and svg["height"] >= 12
        assert page.locator(f"#{b} svg path").count() >= 1
    # Square cells on an empty board (no row squashed), coordinates A-O and 1-15.
    sizes = page.locator("#board .sq").evaluate_all(
        "els => els.map((e) => { const r = e.getBoundingClientRect(); return [r.width, r.height]; })")
    assert len(sizes) == 225 and all(abs(w - h) <= 1 and w >= 20 for w, h in sizes), sizes[:3]
    coords = page.locator("#board .coord").all_text_contents()
    assert coords[1:16] == [chr(65 + i) for i in range(15)]
    assert coords[16:] == [str(i) for i in range(1, 16)]

    page.keyboard.press("ArrowRight")
    page.wait_for_function("() => document.body.dataset.turn === '1'")
    page.locator("#moves li").nth(3).click()
    page.wait_for_function("() => document.body.dataset.turn === '4'")
    label = page.inner_text("#turn-label")
    assert label.startswith("Move 4/25: Josh Castellano 1H MA(t)TERLy") and "josh" not in label
    items = page.locator("#moves li .text").all_inner_texts()
    assert items[0].startswith("Cesar Del Solar: 8D DJINN") and "MAZEY" in items[5]
    sizes = page.locator("#board .sq").evaluate_all(
        "els => els.map((e) => { const r = e.getBoundingClientRect(); return [r.width, r.height]; })")
    assert all(abs(w - h) <= 1 for w, h in sizes)
    # The evidence photo: the rectified board, large beside the board.
    page.wait_for_function("() => document.querySelector('#photo').complete && document.querySelector('#photo').naturalWidth > 0")
    assert page.get_attribute("#photo", "src").endswith("/moves/3/frame.jpg?view=board")
    photo = page.locator("#photo").bounding_box()
    board = page.locator("#board").bounding_box()
    assert photo["width"] >= 600 and photo["x"] > board["x"] + board["width"]
    if SHOTS:
        page.screenshot(path=str(DOCS / "replay.png"))
    assert page.errors == []
