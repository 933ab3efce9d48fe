"""Every real frame of every language against the committed baseline (issue 44): a reader rule tuned
on one set must not break another. tests/bench/bench_real_letters.py reads the 126 German ScrabScrap
frames and the 53 English photos with the product's reader (about a minute of CPU) and fails on any
square right in docs/results/real_letters_baseline.json and wrong now. The test never writes the
baseline (the bench's --write-baseline does, after a reviewed change)."""
from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "bench"))

from bench_real_letters import BASELINE, SETS, compare, read_all  # noqa: E402


@pytest.mark.slow
def test_no_real_square_right_before_is_wrong_now(shared_data):
    baseline = json.loads(BASELINE.read_text(encoding="utf-8"))
    assert set(baseline["reads"]) == set(SETS)   # every language the bench knows is in the baseline
    reads = read_all(shared_data, log=lambda _: None)
    lost, _ = compare(baseline, reads)
    assert not lost, f"{len(lost)} real squares read right at {baseline['commit']} are wrong now:\n" + "\n".join(lost)


def test_compare_names_each_square_lost_and_gained():
    truth = "O" + "." * 224
    baseline = {"commit": "x", "reads": {"german": {"g/f": {"truth": truth, "read": truth}},
                                         "english": {"e": {"truth": truth, "read": "D" + "." * 224}}}}
    now = {"german": {"g/f": {"truth": truth, "read": "Ö" + "." * 224}}, "english": {"e": {"truth": truth, "read": truth}}}
    lost, gained = compare(baseline, now)
    assert lost == ["german g/f 1A: O was read right, now Ö"]
    assert gained == ["english e 1A: O now right (was D)"]
    assert compare(baseline, {"english": now["english"]})[0] == ["german g/f: not read now"]
