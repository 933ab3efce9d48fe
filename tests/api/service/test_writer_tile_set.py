"""Issue 26, item 1, over real HTTP: no write puts more of a tile in a record than the set has
(typed plays, letter and blank corrections, a runner-up taken, a re-entered play, a GCG import;
issue 35, item 2: exchanges and a pass's rack);
the refusal is a 4xx naming the tile and both counts, and nothing changes (/unseen included).
The recount and `tilecam verify` flag a record that does (one stored before this rule, a file)."""
from __future__ import annotations

import subprocess
import sys

from gcgcheck import check_gcg
from apiserver import AUTH, api, client, new_game  # noqa: F401  (fixtures)
from tilecam.scoring.game import Game
from tilecam.scoring.gcg import placement_from_gcg
from tilecam.scoring.rules import get_profile
from tilecam.scoring.tiles import DISTRIBUTIONS


def post(client, path, body):
    return client.post(path, json=body, headers=AUTH)


def state(client, gid):
    """Everything a refused write must leave as it was."""
    return (client.get(f"/api/games/{gid}/moves").json(), client.get(f"/api/games/{gid}/unseen").json(),
            client.get(f"/api/games/{gid}/board").json(), client.get(f"/api/games/{gid}.gcg").text)


def refused(r, message):
    assert 400 <= r.status_code < 500, (r.status_code, r.text)
    assert message in r.json()["detail"], r.json()["detail"]


def test_the_issues_examples_are_refused_and_change_nothing(client):
    gid = new_game(client)
    assert post(client, f"/api/games/{gid}/plays", {"position": "8E", "word": "VIVA"}).status_code == 200
    assert post(client, f"/api/games/{gid}/plays", {"position": "G8", "word": "VEX"}).status_code == 200
    before = state(client, gid)
    assert before[1]["count"] == 94 and before[1]["tiles"].get("V") is None

    fixes = f"/api/games/{gid}/moves/1/corrections"
    refused(post(client, fixes, {"kind": "letter", "square": "G9", "letter": "V"}),
            "the set has 2 V; this correction would make 3")
    # the review queue's runner-up is a re-entered play (the console's "take" button)
    refused(post(client, fixes, {"kind": "play", "position": "G8", "word": ".VX", "reason": "runner-up reading taken"}),
            "the set has 2 V; this correction would make 3")
    refused(post(client, f"/api/games/{gid}/plays", {"position": "H8", "word": "AVE"}),
            "the set has 2 V; this play would make 3")
    refused(post(client, f"/api/games/{gid}/plays", {"position": "H8", "word": "AzE", "rack": "V?EINRS"}),
            "the set has 2 V; this play with its rack would make 3")
    assert state(client, gid) == before
    # a blank standing for V is a blank: that play goes in
    assert post(client, f"/api/games/{gid}/plays", {"position": "H8", "word": "AvE"}).status_code == 200

    gid = new_game(client)
    refused(post(client, f"/api/games/{gid}/plays", {"position": "8D", "word": "ZZZZZZZ"}),
            "the set has 1 Z; this play would make 7")
    unseen = client.get(f"/api/games/{gid}/unseen").json()
    assert (unseen["count"], unseen["bag"], client.get(f"/api/games/{gid}/moves").json()) == (100, 86, [])


def test_blanks_count_whatever_they_stand_for(client):
    gid = new_game(client)
    assert post(client, f"/api/games/{gid}/plays", {"position": "8F", "word": "bOa"}).status_code == 200
    refused(post(client, f"/api/games/{gid}/plays", {"position": "G7", "word": "z."}),
            "the set has 2 blanks; this play would make 3")
    refused(client.get(f"/api/games/{gid}/unseen", params={"rack": "?"}),
            "the set has 2 blanks; this rack would make 3")
    assert client.get(f"/api/games/{gid}/unseen").json()["blanks"] == 0


GCG = """#character-encoding UTF-8
#player1 a Alice
#player2 b Bob
>a: ZZZZZZZ 8D ZZZZZZZ +210 210
>b: AEINRST 9C ANTSIER +70 70
"""


def test_a_gcg_import_beyond_the_set_is_refused_and_no_game_is_left(client):
    games = len(client.get("/api/games").json())
    r = client.post("/api/games/gcg", content=GCG.encode(), headers={**AUTH, "Content-Type": "text/plain"})
    refused(r, "line 4")
    assert "the set has 1 Z; this play would make 7" in r.json()["detail"]
    assert len(client.get("/api/games").json()) == games


def test_the_recount_flags_a_stored_record_past_the_set(api, client):
    # A record stored before this rule (or by an older station): the store takes what it is given.
    gid = new_game(client)
    g = Game(get_profile("naspa"), DISTRIBUTIONS["en"], within_set=False)
    for i, (pos, word) in enumerate((("8E", "VIVA"), ("G8", ".VX"))):
        g.play(i % 2, placement_from_gcg(g, pos, word))
    for seq, ev in enumerate(g.events):
        api.service.store.append(gid, ev, seq)
    rc = client.get(f"/api/games/{gid}/recount").json()
    assert rc["moves"][1]["over_set"] == "the set has 2 V; this play makes 3"
    first = rc["first_discrepancy"]
    assert (first["what"], first["number"], first["over_set"]) == ("tiles", 2, "the set has 2 V; this play makes 3")
    # the unseen pool never goes negative, and the record can be mended by a correction
    assert client.get(f"/api/games/{gid}/unseen").json()["tiles"].get("V") is None
    r = post(client, f"/api/games/{gid}/moves/1/corrections", {"kind": "letter", "square": "G9", "letter": "E"})
    assert r.status_code == 200, r.text
    assert client.get(f"/api/games/{gid}/recount").json()["first_discrepancy"] is None


def test_verify_flags_a_gcg_past_the_set_and_exits_1(tmp_path):
    path = tmp_path / "zzz.gcg"
    path.write_text(GCG)
    r = subprocess.run([sys.executable, "-m", "tilecam.api.cli", "verify", str(path)],
                       capture_output=True, text=True, timeout=120)
    assert r.returncode == 1, r.stderr
    assert all(word in r.stdout for word in ("line 4", "Alice", "1 Z")), r.stdout


def test_a_catalan_game_with_its_digraph_tiles_over_http(client, tmp_path):
    """Issue 28, item 4: a game on one of the sets added (Catalan's L·L, NY and QU are single
    tiles), its GCG under macondo's name, and `verify` reading it back by that name."""
    gid = new_game(client, lang="ca")
    r = post(client, f"/api/games/{gid}/plays", {"position": "8G", "word": "CA[L·L]"})
    assert r.status_code == 200, r.text
    assert r.json()["live"]["scores"] == [26, 0]
    refused(post(client, f"/api/games/{gid}/plays", {"position": "I7", "word": "[L·L]."}),
            "the set has 1 L·L; this play would make 2")
    unseen = client.get(f"/api/games/{gid}/unseen").json()
    assert unseen["count"] == 97 and "L·L" not in unseen["tiles"] and unseen["tiles"]["NY"] == 1
    gcg = client.get(f"/api/games/{gid}.gcg").text
    assert "#tile-distribution catalan" in gcg and " 8G CA[L·L] +26 26" in gcg
    path = tmp_path / "ca.gcg"
    path.write_text(gcg)
    r = subprocess.run([sys.executable, "-m", "tilecam.api.cli", "verify", str(path)],
                       capture_output=True, text=True, timeout=120)
    assert r.returncode == 0 and "tiles ca" in r.stdout, r.stdout + r.stderr


def test_exchanges_of_tiles_the_set_cannot_supply_are_a_409_and_change_nothing(client):
    """Issue 35, item 2: with both V on the board, an exchange of VVV (then of ZZ) was a 200."""
    gid = new_game(client)
    assert post(client, f"/api/games/{gid}/plays", {"position": "8E", "word": "VIVA"}).status_code == 200
    assert post(client, f"/api/games/{gid}/plays", {"position": "G8", "word": "VEX"}).status_code == 200
    before = state(client, gid)
    exchanges = f"/api/games/{gid}/exchanges"
    r = post(client, exchanges, {"tiles": "VVV"})
    assert r.status_code == 409, r.text
    assert r.json()["detail"] == "the set has 2 V; both are on the board, so no rack can hold VVV"
    r = post(client, exchanges, {"tiles": "ZZ"})
    assert (r.status_code, r.json()["detail"]) == (409, "the set has 1 Z, so no rack can hold ZZ")
    r = post(client, exchanges, {"tiles": "AE", "rack": "AEVRSTU"})  # the rack it came from, too
    assert r.status_code == 409 and "so no rack can hold V" in r.json()["detail"]
    r = post(client, f"/api/games/{gid}/passes", {"rack": "VEINRST"})  # a pass's rack, the same rule
    assert r.status_code == 409 and "so no rack can hold V" in r.json()["detail"]
    assert state(client, gid) == before
    assert sum(ln.startswith(">") for ln in before[3].splitlines()) == 2  # the two plays, no exchange
    # what the set can still supply goes in, and the GCG says so
    assert post(client, exchanges, {"tiles": "ZEE"}).status_code == 200
    gcg = client.get(f"/api/games/{gid}.gcg").text
    assert " ZEE -ZEE +0 " in gcg and check_gcg(gcg) == []  # macondo can set that rack
    # a correction into such an exchange is refused the same way
    r = post(client, f"/api/games/{gid}/moves/2/corrections", {"kind": "exchange", "count": 3, "tiles": "VVV"})
    assert r.status_code == 409 and "the set has 2 V; this correction would make 5" in r.json()["detail"]


EXCHANGE_GCG = """#character-encoding UTF-8
#player1 a Alice
#player2 b Bob
>a: AIVVXAE 8E VIVA +20 20
>b: EEINRST -EE +0 0
>a: AEVVVRS -VVV +0 20
"""


def test_verify_flags_an_exchange_the_set_cannot_supply_and_the_import_refuses_it(client, tmp_path):
    path = tmp_path / "vvv.gcg"
    path.write_text(EXCHANGE_GCG)
    r = subprocess.run([sys.executable, "-m", "tilecam.api.cli", "verify", str(path)],
                       capture_output=True, text=True, timeout=120)
    assert r.returncode == 1, r.stdout + r.stderr
    assert ("First discrepancy: line 6 (Alice): the set has 2 V; both are on the board, so no rack could "
            "hold VVV") in r.stdout
    r = client.post("/api/games/gcg", content=EXCHANGE_GCG.encode(), headers={**AUTH, "Content-Type": "text/plain"})
    refused(r, "line 6")
    assert "no rack can hold VVV" in r.json()["detail"]
