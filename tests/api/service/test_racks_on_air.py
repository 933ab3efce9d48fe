"""Racks over real HTTP (issues 30, 43): on air as the request may see them, applied on the server.

Without a token no rack is on air until the game is over (then the rack a stored play or exchange
was made from, tied to the move by its tiles); the broadcast token (read-only) sees each player's rack
live, its sure tiles alone; with `racks=off` or `[racks] on_air = "off"` a hidden rack's letters are in
NO response body the overlay, the OBS fields, the stream, the moves or the exports give (the bytes
are searched); an operator token sees them live; the console's review list and one-click
confirmation; the rack evidence frames."""
from __future__ import annotations

import threading
import time

import httpx
import pytest

from tilecam.api.settings import Settings

from apiserver import AUTH, BROADCAST, LiveServer, client  # noqa: F401  (fixtures)

# Racks no pool or name can spell by chance (the pool is in alphabet order).
FIRST, NOW0, NOW1, LATER = "CATXYZE", "XYZEJKL", "MOWDUGR", "BONKFIV"


def seen(player: int, tiles: str, certainty: float = 0.99) -> dict:
    # marked for review as the station marks it, against [racks] review_below (the service keeps no threshold)
    return {"player": player, "t": 1.5, "tiles": list(tiles), "certainty": [certainty] * len(tiles), "frame": None,
            "review": certainty < 0.9}


@pytest.fixture(scope="module")
def api(tmp_path_factory):
    """A server with the default [racks] on_air ("broadcast")."""
    with LiveServer(tmp_path_factory.mktemp("api") / "games.sqlite3") as server:
        yield server


@pytest.fixture(scope="module")
def game(api, client) -> int:
    r = client.post("/api/games", json={"players": [{"name": "Ann"}, {"name": "Ben"}], "meta": {"table": "9"}},
                    headers=AUTH)
    gid = r.json()["id"]
    api.service.add_rack(gid, seen(0, FIRST), jpeg=b"\xff\xd8first")
    r = client.post(f"/api/games/{gid}/plays", json={"position": "8H", "word": "CAT", "rack": FIRST}, headers=AUTH)
    assert r.status_code == 200, r.text
    api.service.add_rack(gid, seen(0, NOW0), jpeg=b"\xff\xd8now0")
    api.service.add_rack(gid, seen(1, NOW1, certainty=0.4))
    return gid


def sse_bytes(url: str, events: int, then=None, timeout: float = 10.0, headers=None) -> bytes:
    """The raw bytes of a stream up to `events` events; `then()` runs once the first has come."""
    got, done = bytearray(), threading.Event()
    with httpx.Client(timeout=httpx.Timeout(timeout, read=timeout)) as c, \
            c.stream("GET", url, headers=headers or {}) as r:
        assert r.status_code == 200
        deadline = time.monotonic() + timeout
        for chunk in r.iter_bytes():
            got += chunk
            if then is not None and not done.is_set() and got.count(b"\n\n") >= 1:
                done.set()
                threading.Thread(target=then).start()
            if got.count(b"event: update") >= events or time.monotonic() > deadline:
                break
    return bytes(got)


def bodies(client, gid: int, query: str, headers=None, table: int = 9) -> bytes:
    """Every body a page without a token can fetch of the game (exports included), joined."""
    paths = [f"/api/games/{gid}/live", f"/api/games/{gid}/fields", f"/api/games/{gid}/fields/rack1",
             f"/api/games/{gid}/fields/rack2", f"/api/games/{gid}/fields/unseen1", f"/api/games/{gid}/moves",
             f"/api/games/{gid}.gcg", f"/api/games/{gid}.json", f"/api/games/{gid}",
             f"/api/tables/{table}/live", f"/api/tables/{table}/fields/rack1", f"/overlay/{gid}", f"/overlay/{gid}/rack1"]
    out = b""
    for p in paths:
        r = client.get(f"{p}?{query}", headers=headers or {})
        assert r.status_code == 200, (p, r.text)
        out += r.content
    return out


def test_without_a_token_no_rack_is_on_air_while_the_game_goes_on_the_broadcast_token_sees_them_live(client, game):
    """Issue 43, item 5: a move's rack shown after the move still shows its leave, which the player
    holds: no public view shows a rack before the game is over; the broadcaster's overlay (the
    broadcast token; its stream is delayed) shows each player's rack now."""
    live = client.get(f"/api/games/{game}/live").json()
    assert live["racks"] == [None, None] and live["fields"]["rack1"] == live["fields"]["unseen1"] == ""
    found = bodies(client, game, "")
    assert FIRST.encode() not in found and NOW0.encode() not in found and NOW1.encode() not in found
    assert "ACFRTXYZ" not in found.decode()   # nor as a rack is written (sorted)
    move = client.get(f"/api/games/{game}/moves").json()[0]
    assert (move["rack"], move["rack_seq"], move["rack_frame"]) == (None, None, None)
    assert client.get(f"/api/games/{game}/racks/0/frame.jpg").status_code == 404
    # the broadcast token: each player's rack now, its sure tiles (Ben's read at 0.4: none)
    view = f"broadcast={BROADCAST}"
    live = client.get(f"/api/games/{game}/live?{view}").json()
    assert [r["text"] for r in live["racks"]] == [NOW0, "·" * 7]
    assert client.get(f"/api/games/{game}/fields/rack1?{view}").text == NOW0
    assert client.get(f"/api/tables/9/fields/rack1?{view}").text == NOW0
    assert NOW0.encode() in sse_bytes(f"{client.base_url}/api/games/{game}/events?{view}", 1)
    assert NOW1.encode() not in bodies(client, game, view)   # never a letter read unsure
    # the operator: every rack live, as read
    live = client.get(f"/api/games/{game}/live", headers=AUTH).json()
    assert [r["text"] for r in live["racks"]] == [NOW0, NOW1] and live["racks"][1]["review"]
    assert client.get(f"/api/games/{game}/fields/rack1", headers=AUTH).text == NOW0


def test_once_the_game_is_over_every_view_shows_the_racks_moves_were_made_from(api, client):
    gid = client.post("/api/games", json={"players": [{"name": "Ann"}, {"name": "Ben"}], "meta": {"table": "7"}},
                      headers=AUTH).json()["id"]
    api.service.add_rack(gid, seen(0, FIRST), jpeg=b"\xff\xd8first")
    assert client.post(f"/api/games/{gid}/plays", json={"position": "8H", "word": "CAT", "rack": FIRST},
                       headers=AUTH).status_code == 200
    api.service.add_rack(gid, seen(0, NOW0))
    assert FIRST.encode() not in bodies(client, gid, "", table=7)
    r = client.post(f"/api/games/{gid}/end", json={"reason": "the players agreed to stop"}, headers=AUTH)
    assert r.status_code == 200, r.text
    found = bodies(client, gid, "", table=7)
    assert FIRST.encode() in found and client.get(f"/api/games/{gid}/fields/rack1").text == FIRST
    move = client.get(f"/api/games/{gid}/moves").json()[0]
    assert (move["rack"], move["rack_seq"]) == (FIRST, 0)
    assert client.get(move["rack_frame"]).content == b"\xff\xd8first"


def test_racks_off_leaves_no_rack_letter_in_any_response_and_the_stream(client, game, api):
    found = bodies(client, game, "racks=off")
    for rack in (FIRST, NOW0, NOW1):
        assert rack.encode() not in found
    assert client.get(f"/api/games/{game}/racks/0/frame.jpg?racks=off").status_code == 404

    def later():
        api.service.add_rack(game, seen(1, LATER))
    stream = sse_bytes(f"{client.base_url}/api/games/{game}/events?racks=off", 2, then=later)
    assert stream.count(b"event: update") == 2
    for rack in (FIRST, NOW0, NOW1, LATER):
        assert rack.encode() not in stream
    # Ben's rack now: on the operator's stream, never on a page's
    assert LATER.encode() not in sse_bytes(f"{client.base_url}/api/games/{game}/events", 1)
    assert LATER.encode() in sse_bytes(f"{client.base_url}/api/games/{game}/events", 1, headers=AUTH)


def test_racks_delay_is_gone_and_a_page_asking_for_it_is_told_what_to_use(client, game):
    for path in (f"/api/games/{game}/live", f"/overlay/{game}", f"/overlay/table/9", f"/api/games/{game}/moves"):
        r = client.get(f"{path}?racks_delay=1")
        assert r.status_code == 422 and "racks_delay is gone" in r.text and "broadcast" in r.text, (path, r.text)


def test_an_operator_token_sees_the_racks_live_and_a_wrong_one_does_not(client, game):
    assert NOW0.encode() in bodies(client, game, "", headers=AUTH)
    assert client.get(f"/api/games/{game}/racks/1/frame.jpg", headers=AUTH).content == b"\xff\xd8now0"
    # a query can still hide them for an operator; a wrong token is refused, never served as a viewer
    assert NOW0.encode() not in client.get(f"/api/games/{game}/live?racks=off", headers=AUTH).content
    r = client.get(f"/api/games/{game}/live", headers={"Authorization": "Bearer wrong-wrong-wrong-wrong"})
    assert r.status_code == 401 and NOW0.encode() not in r.content


@pytest.mark.parametrize("query", ["racks=maybe", "racks=", "broadcast=" + "x" * 201])
def test_a_bad_racks_query_is_a_422_with_a_message(client, game, query):
    for path in (f"/api/games/{game}/live", f"/overlay/{game}", f"/overlay/{game}/rack1", f"/api/games/{game}/moves"):
        r = client.get(f"{path}?{query}")
        assert r.status_code == 422 and ("racks" in r.text or "broadcast" in r.text), (path, r.text)


def test_the_console_lists_rack_reads_under_review_and_confirms_one_with_one_click(client, game):
    assert client.get(f"/api/games/{game}/racks").status_code == 401
    out = client.get(f"/api/games/{game}/racks", headers=AUTH).json()
    unsure = next(r for r in out["reads"] if r["text"] == NOW1)
    assert unsure["seq"] in out["review"] and unsure["certainty"][0] == 0.4 and unsure["frame"] is None
    r = client.post(f"/api/games/{game}/racks/{unsure['seq']}/confirm", headers=AUTH)
    assert r.status_code == 200, r.text
    assert unsure["seq"] not in r.json()["review"]
    done = next(x for x in r.json()["reads"] if x["seq"] == unsure["seq"])
    assert (done["confirmed_by"], done["fixed"]) == ("tester", False)
    fixed = client.post(f"/api/games/{game}/racks/1/confirm", json={"tiles": "xyzejk?"}, headers=AUTH).json()
    assert next(x for x in fixed["reads"] if x["seq"] == 1)["text"] == "XYZEJK?"
    assert client.get(f"/api/games/{game}/fields/rack1", headers=AUTH).text == "XYZEJK?"
    for body, status in (({"tiles": "AB1"}, 422), ({"tiles": "ABCDEFGHI"}, 422), ({"tile": "A"}, 422),
                         ({"tiles": 7}, 422)):
        r = client.post(f"/api/games/{game}/racks/1/confirm", json=body, headers=AUTH)
        assert r.status_code == status and r.json()["detail"], (body, r.text)
    assert client.post(f"/api/games/{game}/racks/99/confirm", headers=AUTH).status_code == 404
    assert client.post(f"/api/games/{game + 99}/racks/0/confirm", headers=AUTH).status_code == 404


def test_a_streams_entries_carry_no_rack_when_racks_are_hidden(api, client):
    r = client.post("/api/games", json={"players": [{"name": "Cy"}, {"name": "Di"}]}, headers=AUTH)
    gid = r.json()["id"]
    kept = "QJXZVKW"

    def moves():
        api.service.add_rack(gid, seen(0, kept))
        assert client.post(f"/api/games/{gid}/passes", json={"rack": kept}, headers=AUTH).status_code == 200
    hidden = sse_bytes(f"{client.base_url}/api/games/{gid}/events?racks=off", 3, then=moves)
    assert hidden.count(b"event: update") == 3 and b'"kind":"pass"' in hidden and kept.encode() not in hidden
    # a pass leaves the rack in the player's hands: on no page's stream, the operator's only
    assert kept.encode() not in sse_bytes(f"{client.base_url}/api/games/{gid}/events", 1)
    assert kept.encode() in sse_bytes(f"{client.base_url}/api/games/{gid}/events", 1, headers=AUTH)


def test_by_default_racks_are_on_air_to_the_broadcast_token_and_off_means_never_without_the_operator(tmp_path):
    assert Settings().racks.on_air == "broadcast"  # the default
    for on_air in ("broadcast", "off"):
        with LiveServer(tmp_path / f"{on_air}.sqlite3").with_racks_on_air(on_air) as server, \
                httpx.Client(base_url=server.url, timeout=10) as c:
            r = c.post("/api/games", json={"players": [{"name": "Ann"}, {"name": "Ben"}], "meta": {"table": "9"}},
                       headers=AUTH)
            gid = r.json()["id"]
            server.service.add_rack(gid, seen(0, FIRST))
            assert c.post(f"/api/games/{gid}/plays", json={"position": "8H", "word": "CAT", "rack": FIRST},
                          headers=AUTH).status_code == 200
            server.service.add_rack(gid, seen(0, NOW0))
            assert c.post(f"/api/games/{gid}/passes", json={}, headers=AUTH).status_code == 200
            assert FIRST.encode() not in bodies(c, gid, "") and NOW0.encode() not in bodies(c, gid, "")
            broadcast = bodies(c, gid, f"broadcast={BROADCAST}")
            assert (NOW0.encode() in broadcast) == (on_air == "broadcast")
            assert c.post(f"/api/games/{gid}/end", json={"reason": "stop"}, headers=AUTH).status_code == 200
            found = bodies(c, gid, "") + bodies(c, gid, f"broadcast={BROADCAST}")
            assert (FIRST.encode() in found) == (on_air == "broadcast")
            # a page cannot ask for more than the server's setting
            assert c.get(f"/api/games/{gid}/live?racks=on").json()["fields"]["rack1"] == \
                (FIRST if on_air == "broadcast" else "")
            assert NOW0.encode() in c.get(f"/api/games/{gid}/live", headers=AUTH).content  # the operator: live
            assert FIRST.encode() in c.get(f"/api/games/{gid}.gcg", headers=AUTH).content  # and the whole record


def test_a_rack_read_that_breaks_the_counts_is_in_no_live_body_and_waits_in_the_console(api, client):
    """Issue 35, item 3: a read the set cannot hold (two X) is never on air as read."""
    gid = client.post("/api/games", json={"players": [{"name": "Josh"}, {"name": "Ben"}]}, headers=AUTH).json()["id"]
    api.service.add_rack(gid, {**seen(0, "XNUXEEO"), "breaks": "the set has 1 X; the rack read would make 2"})
    live = client.get(f"/api/games/{gid}/live").json()
    assert live["racks"][0] is None and live["fields"]["rack1"] == "" and live["fields"]["unseen1"] == ""
    assert client.get(f"/api/games/{gid}/fields/rack1").text == ""
    assert b"XNUXEEO" not in bodies(client, gid, "")
    console = client.get(f"/api/games/{gid}/racks", headers=AUTH).json()
    assert console["review"] == [0] and console["reads"][0]["breaks"].startswith("the set has 1 X")


def test_off_leaves_every_rack_out_of_the_exports_and_the_gcg_still_loads(tmp_path):
    """[racks] on_air = "off": the .gcg and .json without a token carry no rack at all, the GCG
    written as for a rack nobody saw (a play's own tiles; a stand-in with a '#note rack not seen'
    line), which macondo's and Quackle's rules still load; with the token, the racks."""
    from gcgcheck import check_gcg
    with LiveServer(tmp_path / "off.sqlite3").with_racks_on_air("off") as server, \
            httpx.Client(base_url=server.url, timeout=10) as c:
        gid = c.post("/api/games", json={"players": [{"name": "Ann"}, {"name": "Ben"}]}, headers=AUTH).json()["id"]
        server.service.add_rack(gid, seen(0, FIRST))
        assert c.post(f"/api/games/{gid}/plays", json={"position": "8H", "word": "CAT", "rack": FIRST},
                      headers=AUTH).status_code == 200
        server.service.add_rack(gid, seen(1, LATER))
        assert c.post(f"/api/games/{gid}/passes", json={"rack": LATER}, headers=AUTH).status_code == 200
        assert c.post(f"/api/games/{gid}/plays", json={"position": "9H", "word": "XI", "rack": NOW0},
                      headers=AUTH).status_code == 200
        gcg = c.get(f"/api/games/{gid}.gcg").text
        record = c.get(f"/api/games/{gid}.json").json()
        for rack in (FIRST, LATER, NOW0, "ACETXYZ", "BFIKNOV", "EJKLXYZ"):  # as read, and as a rack is written
            assert rack not in gcg and rack not in str(record), rack
        assert check_gcg(gcg) == [], gcg
        # as the writer writes a rack nobody saw
        assert ">Ann: CAT 8H CAT +10" in gcg and "#note rack not seen: E stands in" in gcg
        assert all(e.get("rack") is None for e in record["log"] + record["events"])
        full = c.get(f"/api/games/{gid}.gcg", headers=AUTH).text
        assert f">Ann: {FIRST} 8H CAT" in full and check_gcg(full) == []
        assert c.get(f"/api/games/{gid}.json", headers=AUTH).json()["events"][0]["rack"] == FIRST


# Sam's turn as the issue saw it: his rack read before the play, the four tiles he kept read while
# the play went down, and his new rack read 1.1 s before the move was saved, all stamped with the
# move before. Letters no other rack or pool spells.
BEFORE, KEPT, NEW = "CATMOWD", "DWOM", "JDWKOML"


def test_a_players_current_rack_is_on_no_public_response_whatever_was_read_when(tmp_path):
    with LiveServer(tmp_path / "sam.sqlite3") as server, \
            httpx.Client(base_url=server.url, timeout=10) as c:
        gid = c.post("/api/games", json={"players": [{"name": "Sam"}, {"name": "Kim"}], "meta": {"table": "9"}},
                     headers=AUTH).json()["id"]
        reads = [server.service.add_rack(gid, seen(0, BEFORE), jpeg=b"\xff\xd8before")]
        for tiles in (KEPT, NEW):
            reads.append(server.service.add_rack(gid, seen(0, tiles), jpeg=b"\xff\xd8" + tiles.encode()))
        assert [r.turn for r in server.service.racks(gid)] == [0, 0, 0]  # all stamped before the move
        assert c.post(f"/api/games/{gid}/plays", json={"position": "8H", "word": "CAT", "rack": "ACDMOTW"},
                      headers=AUTH).status_code == 200

        def public() -> bytes:
            out = bodies(c, gid, "") + sse_bytes(f"{server.url}/api/games/{gid}/events", 1)
            for seq in reads:
                r = c.get(f"/api/games/{gid}/racks/{seq}/frame.jpg")
                out += r.content if r.status_code == 200 else b""
            return out
        found = public()
        assert KEPT.encode() not in found and NEW.encode() not in found and BEFORE.encode() not in found
        assert c.post(f"/api/games/{gid}/passes", json={}, headers=AUTH).status_code == 200  # Kim
        found = public()   # Sam holds DWOM (the leave) and his new tiles: nothing of them is public
        assert BEFORE.encode() not in found and KEPT.encode() not in found and NEW.encode() not in found
        assert c.get(f"/api/games/{gid}/fields/rack1?broadcast={BROADCAST}").text == NEW  # the broadcast: now
        assert c.get(f"/api/games/{gid}/fields/rack1", headers=AUTH).text == NEW  # the operator: what Sam holds
        assert c.post(f"/api/games/{gid}/end", json={"reason": "stop"}, headers=AUTH).status_code == 200
        assert c.get(f"/api/games/{gid}/fields/rack1").text == BEFORE   # over: the rack of his last move
