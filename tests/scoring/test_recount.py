"""scoring/recount.py: per event the claimed, engine and agreed scores with every player's total,
the discrepancies in order (a score announced wrongly, a ruling against both, more of a tile than
the set has), a player's scoresheet held against the record, and all of it as one JSON report."""
from __future__ import annotations

from dataclasses import replace

from tilecam.scoring.gcg import read_gcg, record_from_gcg
from tilecam.scoring.recount import discrepancies, recount_lines, report_json, scoresheet
from tilecam.scoring.rules import get_profile
from tilecam.scoring.tiles import DISTRIBUTIONS

GCG = """#player1 a Ann
#player2 b Bob
>a: ACTXYZQ 8H CAT +12 12
>b: DOGSEEN I7 D.G +9 9
>a: XYZQEEE - +0 12
"""
# CAT on the centre is 10 (announced 12); D(A)G down through the A is 9


def record():
    rec, _, _ = record_from_gcg(read_gcg(GCG), get_profile("naspa"), DISTRIBUTIONS["en"])
    return rec


def test_each_event_with_its_scores_and_every_player_s_total_after_it():
    lines = recount_lines(record(), line_nos=[3, 4, 5])
    assert [(ln.claimed, ln.engine, ln.agreed, ln.totals) for ln in lines] == [
        (12, 10, 12, (12, 0)), (9, 9, 9, (12, 9)), (None, None, 0, (12, 9))]
    assert [(ln.position, ln.word, ln.shown) for ln in lines[:2]] == [("8H", "CAT", "CAT"), ("I7", "D.G", "D(A)G")]
    assert [ln.line_no for ln in lines] == [3, 4, 5] and [ln.number for ln in lines] == [1, 2, 3]
    assert lines[2].kind == "pass" and lines[2].position is None


def test_the_discrepancies_first_one_first():
    lines = recount_lines(record())
    found = discrepancies(lines)
    assert [(d.index, d.what, d.claimed, d.engine) for d in found] == [(0, "score", 12, 10)]
    play = lines[1]  # 9 announced, 9 by the engine
    ruled = replace(play, agreed=7)                        # a ruling against both
    unannounced = replace(play, claimed=None)              # nothing said: the engine's score stands
    over = replace(lines[2], over_set="the set has 1 Q")   # a pass with a rack the set cannot hold
    assert [(d.index, d.what) for d in discrepancies([ruled, unannounced, over])] == [(1, "correction"), (2, "tiles")]


def test_a_scoresheet_held_against_the_record_shows_a_missing_turn():
    rows = scoresheet(recount_lines(record()), 0, [12, 12, 20])
    assert [(r.turn, r.index, r.sheet, r.record, r.agrees) for r in rows] == [
        (1, 0, 12, 12, True), (2, 2, 12, 12, True), (3, None, 20, None, False)]
    assert [r.agrees for r in scoresheet(recount_lines(record()), 1, [10])] == [False]


def test_the_report_in_one_json_object():
    report = report_json(record())
    assert report["final"] == [12, 9] and report["first_discrepancy"]["number"] == 1
    assert [m["number"] for m in report["moves"]] == [1, 2, 3] and report["moves"][1]["totals"] == [12, 9]
    assert [p["name"] for p in report["players"]] == ["Ann", "Bob"] and report["turns"] is None
