"""How well a game joined under way is decoded (issue 27): real games' boards split into the plays that laid them.

    python tests/bench/bench_join.py [--games tune|rendered|all] [--plays 4 5 6 7 8 10 14] [--lexicon FILE]
                                     [--out /tmp/join.json]

Each GCG game of ../shared/data/gcg, after N plays that stand, is read as one snapshot (every tile
at 0.95, a blank as a blank tile) and given to scoring.join.explain on an empty board, as a station
started late sees it. Per play: split as played (its squares), and exact (its squares and the score
it made in the order the join lays it). Games "tune" are those the rendered videos of
tests/bench/bench_record.py do not record (the join's costs are chosen on them), "rendered" the
twelve they do (40-43, 50-57 in sorted order). Also the CPU time of explain on each game's final
board (95-100 tiles).
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

from tilecam.scoring.board import Board, LAYOUTS, Square  # noqa: E402
from tilecam.scoring.game import Game  # noqa: E402
from tilecam.scoring.gcg import read_gcg, record_from_gcg  # noqa: E402
from tilecam.scoring.join import explain  # noqa: E402
from tilecam.scoring.lexicon import Lexicon  # noqa: E402
from tilecam.scoring.placement import score_placement  # noqa: E402
from tilecam.scoring.rules import get_profile  # noqa: E402
from tilecam.scoring.snapshot import Snapshot, classes_for  # noqa: E402
from tilecam.scoring.tiles import DISTRIBUTIONS  # noqa: E402

DATA = Path(os.environ.get("TILECAM_SHARED_DATA", REPO.parent / "shared" / "data"))
EN = DISTRIBUTIONS["en"]
CLASSES = classes_for(EN.letters)
RENDERED = {40, 41, 42, 43, 50, 51, 52, 53, 54, 55, 56, 57}   # bench_record.LOST_VIDEOS' games


def boards(path: Path, ns: set[int]) -> dict[int, tuple[list[str], list]]:
    """The game's board after each of `ns` plays that stand, with (squares, score) per play; and
    under key 0 its final board."""
    profile = get_profile("naspa-csw")
    record, _, _ = record_from_gcg(read_gcg(path.read_bytes()), profile, EN)
    game, laid, out = Game(profile, EN), [], {}
    for ev in record.events:
        score = score_placement(game.state.board, ev.placement, EN, validate=False).score \
            if ev.kind == "play" else None
        game.append(ev)
        if ev.kind == "play":
            laid.append((frozenset(t.square for t in ev.placement.tiles), score))
        elif ev.kind == "phony_withdrawn":
            laid.pop()
        if len(laid) in ns and len(laid) not in out:
            out[len(laid)] = (game.state.board.rows(), list(laid))
    out[0] = (game.state.board.rows(), list(laid))
    return out


def decode(rows: list[str], lexicon) -> tuple[list | None, float]:
    squares = [Square(r, c) for r, row in enumerate(rows) for c, ch in enumerate(row) if ch != "."]
    snap = Snapshot.from_board(rows, CLASSES, 0.95)
    t0 = time.process_time()
    plays = explain(Board(LAYOUTS["standard"]), snap, EN, squares, lexicon)
    return plays, time.process_time() - t0


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--games", default="tune", choices=("tune", "rendered", "all"))
    ap.add_argument("--plays", type=int, nargs="*", default=[4, 5, 6, 7, 8, 10, 14])
    ap.add_argument("--lexicon", help="a word list given to explain (ENABLE is for tests only)")
    ap.add_argument("--out", default=str(REPO / "docs" / "results" / "join.json"))
    args = ap.parse_args()
    lexicon = Lexicon.from_file(args.lexicon) if args.lexicon else None
    rows_out, per_n, final_ms = [], {}, []
    for i, path in enumerate(sorted((DATA / "gcg").rglob("*.gcg"))):
        if args.games != "all" and (i in RENDERED) != (args.games == "rendered"):
            continue
        got = boards(path, set(args.plays))
        for n, (rows, laid) in sorted(got.items()):
            plays, cpu = decode(rows, lexicon)
            if n == 0:
                final_ms.append((round(cpu * 1000, 1), path.name, sum(len(sq) for sq, _ in laid)))
                continue
            board, made = Board(LAYOUTS["standard"]), set()
            for p in plays or []:
                made.add((frozenset(t.square for t in p.placement.tiles),
                          score_placement(board, p.placement, EN, validate=False).score))
                for t in p.placement.tiles:
                    board.put(t.square, t.tile)
            split = {sq for sq, _ in made}
            row = {"game": path.name, "plays": n, "split": sum(sq in split for sq, _ in laid),
                   "exact": sum(pl in made for pl in laid), "explained": plays is not None,
                   "ms_cpu": round(cpu * 1000, 1)}
            rows_out.append(row)
            agg = per_n.setdefault(n, {"plays": 0, "split": 0, "exact": 0, "boards": 0, "boards_whole": 0})
            agg["plays"] += n
            agg["split"] += row["split"]
            agg["exact"] += row["exact"]
            agg["boards"] += 1
            agg["boards_whole"] += row["split"] == n
    total = {k: sum(a[k] for a in per_n.values()) for k in ("plays", "split", "exact", "boards", "boards_whole")}
    final_ms.sort()
    summary = {"games": args.games, "lexicon": args.lexicon and Path(args.lexicon).name, **total,
               "per_plays": per_n, "unexplained": sum(not r["explained"] for r in rows_out),
               "final_board_ms_cpu_median": final_ms[len(final_ms) // 2][0] if final_ms else None,
               "final_board_ms_cpu_max": final_ms[-1] if final_ms else None}
    print(json.dumps(summary, indent=1))
    commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=REPO, capture_output=True,
                            text=True).stdout.strip()
    Path(args.out).write_text(json.dumps({"summary": summary, "commit": commit,
                                          "machine": f"{platform.machine()} {os.cpu_count()} cpus",
                                          "boards": rows_out}, indent=1) + "\n")
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
