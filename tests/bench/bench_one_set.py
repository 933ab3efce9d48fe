"""Bench: the game's tiles as one set (vision.gameset) on the red Hasbro family game, the grid given.

    python tests/bench/bench_one_set.py [--out docs/results/one_set_family.json]

The 43 photos of session 2015 (../shared/data/english) in time order, each warped with its true
corners and read by the product's reader (vision.load_tile_reader: the classifier fused with
the recogniser, the settings' defaults). The truth's tiles stand for the committed ones (occupancy
and the record are taken as right, so only the letters are measured): each photo's readings of
them are added to a `GameTiles`, as `TableReader.learn` adds them, and their looks are taken at the
photo a tile first shows. At the last photo of each stage, the tiles' letters three ways:
  one photo       that photo's reading alone (what a play is committed from);
  summed          every reading so far, summed (GameTiles.readings: what the game's evidence says);
  assignment      the game's assignment under the counts (GameTiles.assign, upper bounds).
Nothing is fitted; it says how much the counts and looks can add on this game beyond the readings.
Writes the JSON with the commit and machine.
"""
from __future__ import annotations

import argparse
import json
import os
import platform
import sys
from pathlib import Path

import cv2
import numpy as np

HERE = Path(__file__).resolve().parent
REPO = HERE.parents[1]
sys.path.insert(0, str(HERE))

from bench_family_game import DATA, git_commit, load_truth  # noqa: E402
from tilecam.api.settings import Settings  # noqa: E402
from tilecam.vision import load_tile_reader  # noqa: E402
from tilecam.scoring.tiles import DISTRIBUTIONS  # noqa: E402
from tilecam.vision.gameset import GameTiles  # noqa: E402
from tilecam.vision.rectify import homography_from_corners, warp_board  # noqa: E402

PX = 40


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", default=str(REPO / "docs" / "results" / "one_set_family.json"))
    args = ap.parse_args(argv)
    truth = load_truth(DATA)
    reader = load_tile_reader(Settings(), "en")
    tiles = GameTiles(reader.classes, DISTRIBUTIONS["en"].counts)
    letters = [c for c in reader.classes if c != "."]
    cols = [reader.classes.index(c) for c in letters]
    stages = []
    for i, row in enumerate(truth):
        image = cv2.imread(str(DATA / "english" / "frames" / row["frame"]))
        h = homography_from_corners(np.array(row["corners"], float), PX)
        warped = warp_board(image, h, PX)
        probs = reader.read(warped, source=(image, h)).snapshot.probs.reshape(225, -1)
        held = {r * 15 + c: ch for r, line in enumerate(row["board"]) for c, ch in enumerate(line) if ch != "."}
        tiles.keep(list(held))
        new = tiles.missing(list(held))
        if new:
            _, _, emb = reader.embed(reader.crops(warped)[new])
            tiles.look(new, emb)
        tiles.read(list(held), probs[list(held)])
        if i + 1 < len(truth) and truth[i + 1]["board"] == row["board"]:
            continue
        one = {sq: letters[int(np.argmax(probs[sq, cols]))] for sq in held}
        summed = tiles.readings()
        squares, assigned, _ = tiles.assign()
        by_assignment = dict(zip(squares, assigned))
        stage = {"photo": i, "frame": row["frame"], "tiles": len(held),
                 "one_photo_right": sum(one[s] == t for s, t in held.items()),
                 "summed_right": sum(summed.get(s) == t for s, t in held.items()),
                 "assignment_right": sum(by_assignment.get(s) == t for s, t in held.items()),
                 "assignment_changed": [[s, summed.get(s), by_assignment.get(s), t] for s, t in held.items()
                                        if by_assignment.get(s) != summed.get(s)]}
        stages.append(stage)
        print(f"photo {i} ({row['frame']}): {len(held)} tiles; one photo {stage['one_photo_right']}, summed "
              f"{stage['summed_right']}, assignment {stage['assignment_right']} right; the assignment changed "
              f"{len(stage['assignment_changed'])}", flush=True)
    out = {"commit": git_commit(), "machine": f"{platform.machine()} {os.cpu_count()} cpus", "stages": stages,
           "total": {k: sum(s[k] for s in stages) for k in ("tiles", "one_photo_right", "summed_right",
                                                             "assignment_right")}}
    print(f"total: {out['total']}")
    Path(args.out).write_text(json.dumps(out, indent=1) + "\n", encoding="utf-8")
    print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
