"""Every real game record in ../shared/data/gcg replays with every recorded score reproduced."""
from __future__ import annotations

import pytest

from conftest import shared_data_dir
from gcgcheck import check_gcg
from tilecam.scoring.gcg import read_gcg, record_from_gcg, write_gcg
from tilecam.scoring.game import replay
from tilecam.scoring.rules import get_profile
from tilecam.scoring.tiles import DISTRIBUTIONS

GCG_FILES = sorted((shared_data_dir() / "gcg").rglob("*.gcg"))
# The one known misscore: the blank n of BRUnCH..Y was counted as a 1-point N.
KNOWN_MISSCORES = {"r20_peter.gcg": [("score", ">Peter: ?BCHRUY N1 BRUnCH..Y", 115, 113)]}
EN = DISTRIBUTIONS["en"]


def test_shared_games_present(shared_data):
    assert len(GCG_FILES) >= 67, f"expected the 67 liwords games under {shared_data / 'gcg'}"


def _rules(gcg) -> str:
    # The 2019 NSC / Hood River games are CSW games with 5 points per challenged word.
    return "naspa-csw" if any(t.kind == "challenge" for t in gcg.turns) else "naspa"


@pytest.mark.parametrize("path", GCG_FILES, ids=lambda p: p.name)
def test_every_recorded_score_reproduces(path):
    gcg = read_gcg(path.read_bytes())
    rules = _rules(gcg)
    record, findings, _ = record_from_gcg(gcg, get_profile(rules), EN, rules=rules)
    got = [(f.what, f.text.split(" +")[0].split(" -")[0].strip(), f.recorded, f.engine) for f in findings]
    assert got == KNOWN_MISSCORES.get(path.name, [])
    # Every recorded cumulative is reproduced by the log (agreed scores), line by line.
    assert [e.cumulative for e in record.events] == [t.cumulative for t in gcg.turns]
    state = replay(record.events, get_profile(rules), EN)
    assert state.ended, "every shared game is complete"
    assert state.bag == 0 or state.end_reason == "zeros"


@pytest.mark.parametrize("path", GCG_FILES, ids=lambda p: p.name)
def test_write_then_read_gives_the_same_log(path):
    gcg = read_gcg(path.read_bytes())
    rules = _rules(gcg)
    profile = get_profile(rules)
    record, _, _ = record_from_gcg(gcg, profile, EN, rules=rules)
    text = write_gcg(record, profile, EN)
    again, findings, _ = record_from_gcg(read_gcg(text), profile, EN, rules=rules)
    assert again.events == record.events
    assert check_gcg(text) == []  # and macondo, Woogles and Quackle load it
    assert again.players == record.players
