"""Issue 35: the central's console showed a station's game with every write control and refused only
after "Record a pass" was confirmed (a 409 naming the station, with no link though the central knows
the station's address); a clock press on the central said "game 3 has no clock" while /tournament
showed the station's clock running. Now /api/games names the station and its console, the console
hides its write controls and links the station's console (headless Debian chromium), and every
write the central refuses, the clock's too, names the station and links its console."""
from __future__ import annotations

import os
import uuid
from pathlib import Path

import pytest

from apiserver import AUTH, TOKEN, api, client, new_game  # noqa: F401  (fixtures)
from browser import chromium_page

pytestmark = pytest.mark.slow  # end to end (see pyproject's markers)

STATION_URL = "http://pi-7.local:8000"


@pytest.fixture(scope="module")
def mirror(client):  # noqa: F811
    """A game station pi-7 forwards (its header and a heartbeat with its address): its central id."""
    uid = uuid.uuid4().hex
    r = client.put(f"/api/stations/pi-7/games/{uid}", headers=AUTH, json={
        "players": [{"name": "Ann Ash", "nick": "Ann"}, {"name": "Bo Birch", "nick": "Bo"}],
        "rules": "naspa", "lang": "en", "meta": {"table": "7"}})
    assert r.status_code == 200, r.text
    r = client.post("/api/stations/pi-7/heartbeat", headers=AUTH, json={"games": [uid], "url": STATION_URL, "game": 3})
    assert r.status_code == 200, r.text
    return client.put(f"/api/stations/pi-7/games/{uid}", headers=AUTH, json={
        "players": [{"name": "Ann Ash", "nick": "Ann"}, {"name": "Bo Birch", "nick": "Bo"}],
        "rules": "naspa", "lang": "en", "meta": {"table": "7"}}).json()["game_id"]


def test_the_games_list_names_the_station_and_its_console(client, mirror):  # noqa: F811
    own = new_game(client)
    games = {g["id"]: g for g in client.get("/api/games").json()}
    assert games[mirror]["station"] == "pi-7"
    assert games[mirror]["station_console"] == f"{STATION_URL}/operator?game=3"
    assert games[own]["station"] is None and games[own]["station_console"] is None


@pytest.mark.parametrize("path,body", [("passes", {}), ("clock/press", {}), ("clock/pause", None)],
                         ids=["pass", "clock press", "clock pause"])
def test_a_write_to_the_mirror_is_a_409_linking_the_station_console(client, mirror, path, body):  # noqa: F811
    r = client.post(f"/api/games/{mirror}/{path}", headers=AUTH, **({"json": body} if body is not None else {}))
    assert r.status_code == 409, r.text
    detail = r.json()["detail"]
    assert f"game {mirror} is recorded by station pi-7 at table 7" in detail and \
        f"{STATION_URL}/operator?game=3" in detail, detail


def test_the_console_shows_no_write_control_on_a_mirror_and_links_the_station(api, client, mirror, tmp_path):  # noqa: F811
    own = new_game(client)
    with chromium_page(tmp_path / "profile", 1280, 800) as page:
        page.goto(f"{api.url}/operator?game={mirror}")
        page.fill("#token", TOKEN)
        page.dispatch_event("#token", "change")
        page.wait_for_selector("#mirror-note:not([hidden])")
        note = page.locator("#mirror-note")
        assert note.text_content().startswith(f"Game {mirror} is recorded by station pi-7 at table 7")
        assert note.locator("a").get_attribute("href") == f"{STATION_URL}/operator?game=3"
        for form in ("#play", "#turn", "#challenge", "#clock", "#end", "#players", "#fix"):
            assert not page.locator(form).is_visible(), form
        assert page.locator("#create").is_visible()   # a new game of the central's own stays possible
        page.screenshot(path=str(tmp_path / "mirror.png"))
        if os.environ.get("TILECAM_SHOTS"):
            (Path(os.environ["TILECAM_SHOTS"]) / "mirror.png").write_bytes((tmp_path / "mirror.png").read_bytes())
        page.select_option("#game", str(own))   # a game recorded here: every control is back
        page.wait_for_selector("#mirror-note", state="hidden")
        assert page.locator("#turn").is_visible() and page.locator("#fix").is_visible()
        assert not page.errors, page.errors
