"""Issue 35: a station without clock presses credits each play to the player on turn, and an
exchange nobody saw gives every later play, and the result, to the other player. Every output that
shows a result says the turns were inferred: /live (its `hedge`, the winner, spread and result
fields), /fields, the GCG (a note on each such play and the game's description), the JSON export,
the game's summary, the recount (with no discrepancy found), `tilecam verify` on the GCG and the
record and demo commands' last lines. A game whose turns a press settled says nothing of the kind."""
from __future__ import annotations

import argparse
import json
import subprocess
import sys

from apiserver import AUTH, api, client, new_game  # noqa: F401  (fixtures)
from gcgcheck import check_gcg
from test_app_turns import CAT, COW, TON, Station

HEDGE = "turns inferred at moves 2-3 (no clock press seen): who played which move is a guess"


def ended_without_presses(api, client, table):  # noqa: F811
    """CAT, COW, TON seen without a press (TON was Josh's, after Cesar's unseen exchange: it goes to
    Cesar), then the director ends the game."""
    gid = new_game(client, "Cesar", "Josh", table=table)
    station = Station(api, gid)
    for rows in (CAT, COW, TON):
        assert station.see(rows).status == "play"
    r = client.post(f"/api/games/{gid}/end", json={"reason": "time called"}, headers=AUTH)
    assert r.status_code == 200, r.text
    return gid


def test_the_result_on_air_and_in_every_export_says_the_turns_were_inferred(api, client):  # noqa: F811
    gid = ended_without_presses(api, client, 71)
    live = client.get(f"/api/games/{gid}/live").json()
    assert live["ended"] and live["hedge"] == HEDGE
    scores = live["scores"]
    winner = "Cesar" if scores[0] > scores[1] else "Josh"
    spread = abs(scores[0] - scores[1])
    fields = client.get(f"/api/games/{gid}/fields").json()
    assert (fields["winner"], fields["spread"], fields["result"]) == (
        f"{winner} (turns inferred)", f"+{spread} (turns inferred)", f"{winner} wins by {spread} (turns inferred)")
    assert client.get(f"/api/games/{gid}/fields/result").text == f"{winner} wins by {spread} (turns inferred)"
    assert client.get("/api/tables/71/fields/winner").text == f"{winner} (turns inferred)"

    recount = client.get(f"/api/games/{gid}/recount").json()
    assert recount["first_discrepancy"] is None and recount["turns"] == HEDGE  # agreeing scores prove nothing here
    assert client.get(f"/api/games/{gid}").json()["turns"] == HEDGE
    assert client.get(f"/api/games/{gid}.json").json()["game"]["turns"] == HEDGE

    gcg = client.get(f"/api/games/{gid}.gcg").text
    lines = gcg.splitlines()
    assert any(ln.startswith("#description") and HEDGE in ln for ln in lines), gcg
    notes = [lines[i + 1] if i + 1 < len(lines) else "" for i, ln in enumerate(lines) if ln.startswith(">")]
    assert [n.startswith("#note turn inferred:") for n in notes] == [False, True, True], gcg
    assert check_gcg(gcg) == []


def test_the_gcg_keeps_the_doubt_through_verify_and_an_import(api, client, tmp_path):  # noqa: F811
    gid = ended_without_presses(api, client, 72)
    path = tmp_path / "inferred.gcg"
    path.write_text(client.get(f"/api/games/{gid}.gcg").text, encoding="utf-8")
    r = subprocess.run([sys.executable, "-m", "tilecam.api.cli", "verify", str(path)],
                       capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    out = r.stdout.splitlines()
    assert out[-2] == f"Not sure who played which move: {HEDGE}."
    assert out[-1].startswith("Final: Cesar ") and out[-1].endswith(" (turns inferred)")
    r = subprocess.run([sys.executable, "-m", "tilecam.api.cli", "verify", "--json", str(path)],
                       capture_output=True, text=True, timeout=120)
    assert json.loads(r.stdout)["turns"] == HEDGE

    r = client.post("/api/games/gcg", params={"rules": "naspa"}, content=path.read_bytes(),
                    headers={**AUTH, "Content-Type": "text/plain"})
    assert r.status_code == 201, r.text
    back = r.json()["id"]
    assert [m["turn_inferred"] for m in client.get(f"/api/games/{back}/moves").json()] == [False, True, True]
    assert client.get(f"/api/games/{back}/recount").json()["turns"] == HEDGE
    again = client.get(f"/api/games/{back}.gcg").text
    assert again.count(HEDGE) == 1  # said again from the flags, not twice


def test_turns_a_press_settled_carry_no_hedge(api, client):  # noqa: F811
    gid = new_game(client, "Cesar", "Josh", table=73)
    station = Station(api, gid)
    station.see(CAT)
    station.see(CAT, player=0, pressed=True)
    station.see(COW)
    station.see(COW, player=1, pressed=True)
    assert client.post(f"/api/games/{gid}/end", json={"reason": "time called"}, headers=AUTH).status_code == 200
    live = client.get(f"/api/games/{gid}/live").json()
    assert live["hedge"] is None and live["turns_inferred"] == []
    assert "inferred" not in json.dumps(live["fields"]) and live["fields"]["result"].startswith("Cesar wins by ")
    assert client.get(f"/api/games/{gid}/recount").json()["turns"] is None
    gcg = client.get(f"/api/games/{gid}.gcg").text
    assert "inferred" not in gcg


def test_the_record_and_demo_summaries_say_it(api, client, capsys):  # noqa: F811
    from tilecam.api.commands.demo import _summary
    from tilecam.api.commands.record import _report
    from tilecam.scoring.game import Game

    gid = ended_without_presses(api, client, 74)
    args = argparse.Namespace(store_shown="games.sqlite3", gcg=None, json=None, serve_hint="--db games.sqlite3")
    _report(api.service, gid, args)
    out = capsys.readouterr().out.splitlines()
    assert out[0].startswith(f"game {gid} in games.sqlite3: ") and out[0].endswith(f"; {HEDGE}"), out
    assert "nothing to review" not in "\n".join(out)
    true = Game(api.service.load(gid).profile, api.service.load(gid).dist)
    _summary(api.service, gid, true, None)
    [line] = capsys.readouterr().out.splitlines()
    assert line.startswith("recorded 3 turns; ") and line.endswith(f"; {HEDGE}"), line
