"""tilecam verify, run as a user runs it: a subprocess, its exit code and its output."""
from __future__ import annotations

import json
import subprocess
import sys

import pytest

from apiserver import api, client, import_gcg  # noqa: F401  (fixtures)


def verify(*args):
    return subprocess.run([sys.executable, "-m", "tilecam.api.cli", "verify", *map(str, args)],
                          capture_output=True, text=True, timeout=120)


@pytest.fixture(scope="module")
def liwords(shared_data):
    return shared_data / "gcg" / "liwords"


def test_agreeing_record_exits_0(liwords):
    r = verify(liwords / "vs_josh.gcg", "--json")
    assert r.returncode == 0, r.stderr
    report = json.loads(r.stdout)
    assert report["final"] == [457, 397] and report["discrepancies"] == [] and not report["cumulative_findings"]
    assert [p["name"] for p in report["players"]] == ["Cesar", "Josh"]


def test_misscore_exits_1_and_names_the_first_discrepancy(liwords):
    r = verify(liwords / "r20_peter.gcg")
    assert r.returncode == 1
    first = next(ln for ln in r.stdout.splitlines() if "line 19" in ln)   # for a person: where, who, both scores
    assert all(word in first for word in ("Peter", "115", "113")), first


def test_json_report(liwords):
    r = verify(liwords / "r20_peter.gcg", "--json")
    assert r.returncode == 1
    report = json.loads(r.stdout)
    assert report["final"] == [364, 503]
    bad = [m for m in report["moves"] if m["claimed"] != m["engine"]]
    # people read the whole word; GCG's '.' stays in `word` for machines
    assert [(m["claimed"], m["engine"], m["text"]) for m in bad] == [(115, 113, "N1 BRUnCH(IF)Y +YE")]
    assert [(m["number"], m["position"], m["word"], m["shown"]) for m in bad] == [
        (bad[0]["index"] + 1, "N1", "BRUnCH..Y", "BRUnCH(IF)Y")]
    assert report["discrepancies"][0]["line_no"] == 19
    assert all({"claimed", "engine", "agreed", "totals"} <= set(m) for m in report["moves"])


def test_rules_change_what_the_engine_expects(liwords):
    # Under double challenge a 5-point challenge bonus is not in the rules.
    r = verify(liwords / "many_challenges.gcg", "--rules", "naspa", "--json")
    assert r.returncode == 1
    kinds = {d["what"] for d in json.loads(r.stdout)["discrepancies"]}
    assert kinds == {"score"}
    assert verify(liwords / "many_challenges.gcg", "--rules", "naspa-csw").returncode == 0


def test_lexicon_flags_phonies(liwords, enable_path):
    r = verify(liwords / "r20_peter.gcg", "--lexicon", enable_path, "--json")
    moves = json.loads(r.stdout)["moves"]
    assert any(m.get("phonies") for m in moves)


def test_unreadable_file_exits_2_with_the_line(tmp_path):
    bad = tmp_path / "bad.gcg"
    bad.write_text("#player1 a A\n#player2 b B\n>a: QUALM 8D QUALM +52 52\n>b: XYZ 9Z XYZ +1 1\n")
    r = verify(bad)
    assert r.returncode == 2
    assert "line 4" in r.stderr and "board" in r.stderr
    assert "Traceback" not in r.stderr
    missing = verify(tmp_path / "nope.gcg")
    assert missing.returncode == 2 and "cannot read" in missing.stderr


def test_empty_record_is_an_error_not_agreement(tmp_path):
    empty = tmp_path / "empty.gcg"
    empty.write_bytes(b"")
    r = verify(empty)
    assert r.returncode == 2 and "Every score" not in r.stdout
    assert str(empty) in r.stderr and "line 1" in r.stderr and "empty" in r.stderr
    players = tmp_path / "players.gcg"
    players.write_text("#player1 a Ann\n#player2 b Bob\n")
    r = verify(players)
    assert r.returncode == 2 and "no turns" in r.stderr


def test_unicode_separators_stay_inside_their_line(tmp_path):
    # U+2028 and NEL are text inside a line, as in macondo's reader: the note cannot rename player 1
    gcg = tmp_path / "sep.gcg"
    gcg.write_text("#character-encoding UTF-8\n#player1 a Ann\n#player2 b Bob\n>a: QUALM 8D QUALM +52 52\n"
                   "#note nice\u2028#player1 evil Evil\x85more\n", encoding="utf-8")
    r = verify(gcg, "--json")
    assert r.returncode == 0, r.stderr
    assert [(p["nick"], p["name"]) for p in json.loads(r.stdout)["players"]] == [("a", "Ann"), ("b", "Bob")]
    r = verify(gcg)
    assert r.returncode == 0 and "Evil" not in r.stdout


MOVE_KEYS = ("index", "player", "kind", "text", "claimed", "engine", "agreed", "cumulative", "totals")
FOUND_KEYS = ("index", "player", "what", "claimed", "engine", "agreed", "text")


@pytest.mark.parametrize("name", ["r20_peter.gcg", "many_challenges.gcg", "doug_vs_emely.gcg"])
def test_verify_and_the_api_give_one_recount(liwords, client, name):
    # scoring.recount makes both reports: the same game read from the file and from the store.
    r = verify(liwords / name, "--json")
    cli = json.loads(r.stdout)
    gid = import_gcg(client, liwords / name, rules=cli["rules"])
    served = client.get(f"/api/games/{gid}/recount").json()
    assert [[m[k] for k in MOVE_KEYS] for m in served["moves"]] == [[m[k] for k in MOVE_KEYS] for m in cli["moves"]]
    assert [[d[k] for k in FOUND_KEYS] for d in served["discrepancies"]] == \
        [[d[k] for k in FOUND_KEYS] for d in cli["discrepancies"]]
    assert served["final"] == cli["final"] and served["rules"] == cli["rules"]
    assert r.returncode == (1 if cli["discrepancies"] or cli["cumulative_findings"] else 0)
    if name == "r20_peter.gcg":  # the misscore is found both ways, at the same move
        assert [d["what"] for d in served["discrepancies"]] == ["score"]
        assert served["first_discrepancy"]["index"] == cli["first_discrepancy"]["index"]



def test_a_gcg_saved_with_a_byte_order_mark_reads_the_same_in_verify_and_the_api(liwords, client, tmp_path):
    """Windows editors (Notepad) save UTF-8 with a BOM: the file and the upload both read as without it."""
    bom = tmp_path / "vs_josh_bom.gcg"
    bom.write_bytes(b"\xef\xbb\xbf" + (liwords / "vs_josh.gcg").read_bytes())
    r = verify(bom, "--json")
    assert r.returncode == 0, r.stdout + r.stderr
    assert json.loads(r.stdout)["final"] == [457, 397]
    plain = client.get(f"/api/games/{import_gcg(client, liwords / 'vs_josh.gcg')}/recount").json()
    served = client.get(f"/api/games/{import_gcg(client, bom)}/recount").json()
    assert served["final"] == plain["final"] == [457, 397]
    assert [m["text"] for m in served["moves"]] == [m["text"] for m in plain["moves"]]
