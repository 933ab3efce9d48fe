"""What the rack cameras saw leaves the server only as the rules let a rack out (issue 43), over
real HTTP, every body a viewer without the operator's token can fetch searched:

- item 1: what a rack read said of a move (`rack_note`) quotes the read; without the operator's
  token it is rendered from the typed fields alone, never naming a tile of the read;
- item 4: an exchange whose tiles only the rack cameras saw (`Exchange.tiles_from_racks`) keeps its
  count alone where racks are not shown (`[racks] on_air = "off"`: ever; the default: until the game
  is over), and its GCG line (`-5`) still loads in macondo's and Quackle's rules;
- item 5: the broadcast token reads racks and nothing else: no write, no console data, a wrong
  one refused and counted with the operator's; never printed by `tilecam serve`.
"""
from __future__ import annotations

import httpx
import pytest

from apiserver import AUTH, BROADCAST, LiveServer
from gcgcheck import check_gcg
from tilecam.api.security import TokenGuard
from tilecam.scoring.events import Exchange
from tilecam.scoring.gcg.notation import placement_from_gcg, played_tiles
from tilecam.scoring.racks import RackBook, RackSeen, RackTrust

B = f"broadcast={BROADCAST}"
READ = ("D", "M", "J", "G", "O", "O", "I")   # the M read at 0.5: the D.JGOOI; read under 0.9: M
EXCHANGED = "EEHSW"


def bodies(c: httpx.Client, gid: int, query: str = "") -> str:
    """Every body a viewer with `query` (none, or the broadcast token) gets of the game, the stream's
    first event included, joined."""
    out = []
    for p in (f"/api/games/{gid}/live", f"/api/games/{gid}/fields", f"/api/games/{gid}/fields/last_play",
              f"/api/games/{gid}/moves", f"/api/games/{gid}/recount", f"/api/games/{gid}.gcg",
              f"/api/games/{gid}.json", "/api/tables/5/live", "/api/tables/5/fields/last_play"):
        r = c.get(f"{p}?{query}")
        assert r.status_code == 200, (p, r.text)
        out.append(r.text)
    with c.stream("GET", f"/api/games/{gid}/events?{query}") as r:
        got = ""
        for chunk in r.iter_text():
            got += chunk
            if "\n\n" in got:
                break
    return "\n".join(out + [got])


def unsure_play(server: LiveServer, gid: int) -> str:
    """Ann's XU, its tiles not on the read before it (an M read unsurely), as the scorekeeper
    commits it: the note scoring's own judge writes. Returns that note."""
    service = server.service
    service.add_rack(gid, {"player": 0, "t": 1.0, "tiles": list(READ), "certainty": [0.99, 0.5] + [0.99] * 5,
                           "frame": None, "review": True})
    game = service.load(gid).game_at()
    placement = placement_from_gcg(game, "8H", "XU")
    book = RackBook(game.dist, 2, RackTrust(0.9))
    judged = book.judge(RackSeen(0, 1.0, READ, (0.99, 0.5) + (0.99,) * 5), played_tiles(placement, game.dist),
                        game.state.board)
    assert judged.review and "D.JGOOI" in judged.note and ": M" in judged.note   # the words quote the read
    service.append(gid, game.play(0, placement, certainty=0.97, review=True, not_from_rack=True,
                                  rack_note=judged.note))
    return judged.note


def rack_exchange(server: LiveServer, gid: int) -> None:
    """Ben's exchange of EEHSW, told by the rack cameras alone (no press named the tiles)."""
    game = server.service.load(gid).game_at()
    server.service.append(gid, game.exchange(1, 5, EXCHANGED, "EEHSWAB", "the rack camera saw 5 tiles leave the rack",
                                             tiles_from_racks=True))


def new_game(c: httpx.Client) -> int:
    r = c.post("/api/games", json={"players": [{"name": "Ann"}, {"name": "Ben"}], "meta": {"table": "5"}},
               headers=AUTH)
    assert r.status_code == 201, r.text
    return r.json()["id"]


@pytest.mark.parametrize("on_air", ["broadcast", "off"])
def test_an_unsure_read_s_note_names_no_tile_without_the_operator_s_token(tmp_path, on_air):
    with LiveServer(tmp_path / "g.sqlite3").with_racks_on_air(on_air) as server, \
            httpx.Client(base_url=server.url, timeout=10) as c:
        gid = new_game(c)
        note = unsure_play(server, gid)
        for over in (False, True):
            if over:
                assert c.post(f"/api/games/{gid}/end", json={"reason": "stop"}, headers=AUTH).status_code == 200
            for query in ("", B):
                found = bodies(c, gid, query)
                assert "D.JGOOI" not in found and "read under" not in found and "DJGOOI" not in found, (over, query)
        # after the game, a view that shows racks says a rack read had something to say, in no tile of it
        move = c.get(f"/api/games/{gid}/moves").json()[0]
        assert move["note"] == ("rack not seen with this play's tiles: they were not all on the rack read"
                                if on_air == "broadcast" else "")
        # the operator: the words as scoring wrote them
        assert c.get(f"/api/games/{gid}/moves", headers=AUTH).json()[0]["note"] == note
        assert "D.JGOOI" in c.get(f"/api/games/{gid}.gcg", headers=AUTH).text
        assert check_gcg(c.get(f"/api/games/{gid}.gcg").text) == []


@pytest.mark.parametrize("on_air", ["broadcast", "off"])
def test_an_exchange_only_the_rack_cameras_saw_keeps_its_count_alone_where_racks_are_not_shown(tmp_path, on_air):
    with LiveServer(tmp_path / "g.sqlite3").with_racks_on_air(on_air) as server, \
            httpx.Client(base_url=server.url, timeout=10) as c:
        gid = new_game(c)
        assert c.post(f"/api/games/{gid}/plays", json={"position": "8H", "word": "CAT"}, headers=AUTH).status_code == 200
        rack_exchange(server, gid)
        # a typed exchange stays as typed: the operator named its tiles
        assert c.post(f"/api/games/{gid}/exchanges", json={"tiles": "QV"}, headers=AUTH).status_code == 200
        for over in (False, True):
            if over:
                assert c.post(f"/api/games/{gid}/end", json={"reason": "stop"}, headers=AUTH).status_code == 200
            shown = on_air == "broadcast" and over
            for query in ("",) + ((B,) if on_air == "off" else ()):
                found = bodies(c, gid, query)
                assert (EXCHANGED in found) == shown and "QV" in found, (over, query)
                gcg = c.get(f"/api/games/{gid}.gcg?{query}").text
                assert check_gcg(gcg) == [], gcg
                if not shown:
                    assert ">Ben: " in gcg and " -5 +0 " in gcg
                    move = c.get(f"/api/games/{gid}/moves?{query}").json()[1]
                    assert move["text"] == "exchange 5" and move["kind"] == "exchange"
        # the broadcast token sees it live with the default; the operator always
        assert (EXCHANGED in bodies(c, gid, B)) == (on_air == "broadcast")
        assert EXCHANGED in c.get(f"/api/games/{gid}/moves", headers=AUTH).text
        assert f"-{EXCHANGED}" in c.get(f"/api/games/{gid}.gcg", headers=AUTH).text


def test_an_exchange_s_old_words_still_say_the_rack_cameras_saw_it():
    """A log from before issue 43 kept no `tiles_from_racks`: the words the camera wrote then say it."""
    from tilecam.scoring.events import from_json
    old = {"kind": "exchange", "player": 1, "count": 4, "tiles": "IOUU", "cumulative": 0, "rack": None,
           "note": "the rack camera saw IOUU leave the rack and others come while the board did not change "
                   "(no clock press): an exchange", "rack_note": ""}
    assert from_json(old).tiles_from_racks
    assert not from_json({**old, "note": ""}).tiles_from_racks
    assert isinstance(from_json(old), Exchange)


# ---- the broadcast token ------------------------------------------------------------------------

@pytest.fixture()
def strict(tmp_path):
    with LiveServer(tmp_path / "games.sqlite3") as server, httpx.Client(base_url=server.url, timeout=10) as c:
        server.app.state.guard = TokenGuard(max_failures=3, initial_s=30.0, max_s=60.0)
        yield server, c


def test_the_broadcast_token_reads_racks_and_nothing_else(strict):
    server, c = strict
    gid = new_game(c)
    server.service.add_rack(gid, {"player": 0, "t": 1.0, "tiles": list("CATXYZE"), "certainty": [0.99] * 7,
                                  "frame": None}, jpeg=b"\xff\xd8now")
    assert c.get(f"/api/games/{gid}/fields/rack1?{B}").text == "CATXYZE"
    assert c.get(f"/api/games/{gid}/fields/rack1").text == ""
    as_bearer = {"Authorization": f"Bearer {BROADCAST}"}
    # no write, no console: neither as a query nor as a bearer token
    assert c.post(f"/api/games?{B}", json={"players": [{"name": "A"}, {"name": "B"}]}).status_code == 401
    assert c.post(f"/api/games/{gid}/passes?{B}", json={}).status_code == 401
    assert c.get(f"/api/games/{gid}/racks?{B}").status_code == 401
    assert c.get(f"/api/token?{B}").status_code == 401
    # the rack evidence photos are the console's while the rack is held
    assert c.get(f"/api/games/{gid}/racks/0/frame.jpg?{B}").status_code == 404
    assert c.get(f"/api/games/{gid}/racks/0/frame.jpg", headers=AUTH).status_code == 200
    # as a bearer token it is a wrong operator token: refused and counted, as is a wrong broadcast token
    assert c.post(f"/api/games/{gid}/passes", json={}, headers=as_bearer).status_code == 401
    assert c.get(f"/api/games/{gid}/live?broadcast=not-the-broadcast-token").status_code == 401
    assert c.get(f"/overlay/{gid}?broadcast=x").status_code == 200   # the page holds nothing: its calls check
    assert c.get(f"/api/games/{gid}/fields/rack1?broadcast=guess-guess-guess").status_code == 401
    r = c.get(f"/api/games/{gid}/fields/rack1?{B}")   # three wrong: even the right one waits
    assert r.status_code == 429 and r.headers["retry-after"] == "30" and "CATXYZE" not in r.text
    assert c.get(f"/api/games/{gid}/live", headers=AUTH).status_code == 429   # one back-off for every token
    assert c.get(f"/api/games/{gid}/live").status_code == 200   # no token: the public view, never held up


def test_config_show_never_prints_the_broadcast_token():
    from tilecam.api.commands.config import settings_toml
    from tilecam.api.settings import AuthSettings, Settings
    text = settings_toml(Settings(auth=AuthSettings(broadcast_token=BROADCAST)))
    assert BROADCAST not in text and f"# broadcast_token = \"...\"   ({len(BROADCAST)} characters, hidden)" in text
