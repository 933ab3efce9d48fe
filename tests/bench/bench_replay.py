"""Benchmark: time to read and replay every shared GCG game (target: 100 games < 1 s on one core).

    python tests/bench/bench_replay.py [--repeat 5]

Writes docs/results/replay.json with the machine and commit, and prints a summary.
"""
from __future__ import annotations

import argparse
import json
import os
import platform
import subprocess
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO))

from tilecam.scoring.game import replay  # noqa: E402
from tilecam.scoring.gcg import read_gcg, record_from_gcg  # noqa: E402
from tilecam.scoring.rules import get_profile  # noqa: E402
from tilecam.scoring.tiles import DISTRIBUTIONS  # noqa: E402


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=5)
    args = ap.parse_args()
    data = Path(os.environ.get("TILECAM_SHARED_DATA", REPO.parent / "shared" / "data"))
    files = sorted((data / "gcg").rglob("*.gcg"))
    blobs = [f.read_bytes() for f in files]
    en = DISTRIBUTIONS["en"]
    full, pure = [], []
    for _ in range(args.repeat):
        t0 = time.perf_counter()
        records = []
        for blob in blobs:
            gcg = read_gcg(blob)
            rules = "naspa-csw" if any(t.kind == "challenge" for t in gcg.turns) else "naspa"
            records.append((record_from_gcg(gcg, get_profile(rules), en, rules=rules)[0], rules))
        full.append(time.perf_counter() - t0)
        t0 = time.perf_counter()
        for record, rules in records:
            replay(record.events, get_profile(rules), en)
        pure.append(time.perf_counter() - t0)
    n = len(files)
    events = sum(len(r.events) for r, _ in records)
    result = {
        "games": n,
        "events": events,
        "read_and_replay_s_per_100_games": round(min(full) / n * 100, 4),
        "replay_only_s_per_100_games": round(min(pure) / n * 100, 4),
        "repeat": args.repeat,
        "machine": f"{platform.machine()} {platform.processor() or ''} {os.cpu_count()} cpus".strip(),
        "python": platform.python_version(),
        "commit": subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=REPO,
                                 capture_output=True, text=True).stdout.strip(),
    }
    out = REPO / "docs" / "results" / "replay.json"
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(result, indent=2) + "\n")
    print(f"{n} games, {events} events: read+replay {result['read_and_replay_s_per_100_games']} s "
          f"per 100 games, replay only {result['replay_only_s_per_100_games']} s per 100 games "
          f"(best of {args.repeat}, one core)")
    print(f"wrote {out}")


if __name__ == "__main__":
    main()
