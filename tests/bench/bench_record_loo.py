"""Bench: the ScrabScrap games recorded one by one, each reported with every choice made on the OTHER games.

    python tests/bench/bench_record_loo.py [--games game06 ...] [--out docs/results/record_loo.json]

Each of the five real dev games (../shared/data/scrabscrap, one photo per clock press) is recorded
as bench_record.py's part A records it (`scrabscrap`: the settings' defaults, no enrolment). What
the recorder decides does not depend on `[decode] review_below` (it only flags a play for review),
so the threshold is chosen after the fact, leave one game out: for each game, the candidates of
bench_record.review_sweep are tried on the other four games' (certainty, right) pairs, and the
lowest candidate under which none of their unflagged plays is wrong is taken (the most right among
the unflagged when no candidate gets there); the game is then reported under it: plays exact,
flagged, unflagged wrong. The settings' own review_below (chosen earlier on these games with the
rendered ones) is reported beside it.

The recorder's other thresholds were fixed before this bench (docs/recording.md says where each
came from); the count-gated learning of issue 28 adds none (the tile counts are rules, not fitted).

Writes docs/results/record_loo.json with the commit and machine.
"""
from __future__ import annotations

import argparse
import json
import os
import platform
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parents[1]
sys.path.insert(0, str(HERE))

import cv2  # noqa: E402

from bench_record import review_sweep, scrabscrap  # noqa: E402
from tilecam.api.settings import Settings  # noqa: E402

CANDIDATES = [0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 0.95, 0.98, 0.99, 0.995, 0.999]


def choose_review_below(pairs: list) -> float:
    """The lowest candidate under which every unflagged play of `pairs` is right; else the candidate
    with the most right among the unflagged (ties: the lower)."""
    sweep = review_sweep(pairs, CANDIDATES)
    clean = [row["review_below"] for row in sweep if row["unflagged_wrong"] == 0]
    if clean:
        return min(clean)
    return max(sweep, key=lambda row: (row["unflagged_right"], -row["review_below"]))["review_below"]


def under(pairs: list, threshold: float) -> dict:
    """Plays flagged and unflagged wrong with `threshold` as review_below."""
    flagged = [ok for c, ok in pairs if c is not None and c < threshold]
    kept = [ok for c, ok in pairs if c is None or c >= threshold]
    return {"plays": len(pairs), "flagged": len(flagged), "unflagged_wrong": sum(1 for ok in kept if not ok)}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--games", nargs="*", default=["game06", "game07", "game08", "game05", "game12"])
    ap.add_argument("--out", default=str(REPO / "docs" / "results" / "record_loo.json"))
    ap.add_argument("--oracle", action="store_true",
                    help="a person confirms each flagged play that is right and corrects the others, after "
                         "its photo (bench_record.Oracle): how flags fall over a game as trust is earned")
    ap.add_argument("--carry", action="store_true",
                    help="the games one after another at one table (game08, the same game as game07, left "
                         "out): what a game learned is the next one's start, as a station carries it")
    ap.add_argument("--learn-table", choices=("on", "off"), default=None,
                    help="[decode] learn_table for this run (default: the settings')")
    args = ap.parse_args(argv)
    cv2.setNumThreads(1)
    learn = None if args.learn_table is None else args.learn_table == "on"
    results = {}
    given: frozenset = frozenset()
    games = [g for g in args.games if not (args.carry and g == "game08")]
    for game in games:
        r = scrabscrap(game, oracle=args.oracle, learn_table=learn, given=given if args.carry else frozenset())
        results[game] = r
        given = frozenset(r["learned"])
        t = r["table"]
        print(f"{game}: {r['right']}/{r['moves']} moves exactly right; camera plays as committed: {t['flagged']}/"
              f"{t['plays']} flagged, {t['unflagged_wrong']} unflagged wrong ({t['wrong']} wrong); flagged share "
              f"{t['flagged_share_first_half']} first half, {t['flagged_share_second_half']} second; "
              f"{t['confirmed']} confirmed, {t['corrected']} corrected; {t['flags']}", flush=True)
    default = Settings().decode.review_below
    rows = []
    for game, r in results.items():
        others = [p for g, o in results.items() if g != game for p in o["reading"]["certainties"]]
        chosen = choose_review_below(others)
        mine = r["reading"]["certainties"]
        rows.append({"game": game, "moves": r["moves"], "right": r["right"],
                     "plays": len(mine), "plays_right": sum(ok for _, ok in mine),
                     "review_below_chosen_on_others": chosen, "left_out": under(mine, chosen),
                     "settings_review_below": default, "with_settings": under(mine, default),
                     "final_exact": r["final"]["exact"], "recorded": r["recorded"], "rows": r["rows"],
                     "table": r["table"]})
        lo = rows[-1]["left_out"]
        print(f"{game}: review_below {chosen} (chosen on the others): {lo['flagged']}/{lo['plays']} plays flagged, "
              f"{lo['unflagged_wrong']} unflagged wrong; with the settings' {default}: "
              f"{rows[-1]['with_settings']}", flush=True)
    total = {k: sum(row[k] for row in rows) for k in ("moves", "right", "plays", "plays_right")}
    total.update({k: sum(row["left_out"][k] for row in rows) for k in ("flagged", "unflagged_wrong")})
    total["with_settings"] = {k: sum(row["with_settings"][k] for row in rows) for k in ("flagged", "unflagged_wrong")}
    total["table"] = {k: sum(row["table"][k] for row in rows)
                      for k in ("plays", "flagged", "unflagged_wrong", "wrong", "confirmed", "corrected")}
    print(f"total: {total}")
    commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=REPO, capture_output=True,
                            text=True).stdout.strip()
    dirty = bool(subprocess.run(["git", "status", "--porcelain", "--", "vision", "scoring", "api"], cwd=REPO,
                                capture_output=True, text=True).stdout.strip())
    out = {"commit": commit, "tree_dirty": dirty, "oracle": args.oracle, "carry": args.carry,
           "learn_table": args.learn_table, "machine": f"{platform.machine()} {os.cpu_count()} cpus",
           "total": total, "games": rows}
    Path(args.out).write_text(json.dumps(out, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
