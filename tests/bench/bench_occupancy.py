"""Eval: occupancy from the board's own looks (vision.occupancy), one real board left out at a time.

    python tests/bench/bench_occupancy.py [--out docs/results/occupancy.json]

Three real boards: ScrabScrap's (German, 126 frames, ../shared/data/scrabscrap, read as
bench_read.py reads them), the 1948 vintage board (English session "2014", 10 photos) and the
red Hasbro family game (session "2015", 43 photos; ../shared/data/english). For each board the
occupancy settings (weight, clip, the network's weight on squares with no ink) are chosen on
the OTHER two boards (the
highest mean per-square accuracy over them, the grid given) and that board is reported with
them: the grid given (true corners; ScrabScrap's grid fitted) and, for the English photos,
through the pipeline (vision.locate.find_board, then vision.classify.to_game, as
bench_english.py does). weight 0 is the reader without the rule, at this commit.

The reader is the product's (vision.load_tile_reader: the classifier fused with the text
recogniser). Only its two networks' outputs are kept between settings (the same crops give the
same outputs), so every setting runs the product's own code from the crops on.

Writes docs/results/occupancy.json (commit, machine, the choices and every board's figures).
"""
from __future__ import annotations

import argparse
import hashlib
import itertools
import json
import os
import platform
import sys
import time
from pathlib import Path

import cv2
import numpy as np

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_english import Tally, camera_turn  # noqa: E402
from bench_read import GROUPS, git_commit, load_frames, truth_label  # noqa: E402
from tilecam.api.settings import load_settings  # noqa: E402
from tilecam.vision import load_tile_reader  # noqa: E402
from tilecam.vision.classify import to_game  # noqa: E402
from tilecam.vision.errors import BoardNotFound  # noqa: E402
from tilecam.vision.occupancy import OccupancyConfig  # noqa: E402
from tilecam.vision.rectify import homography_from_corners, warp_board  # noqa: E402

BOARDS = ("scrabscrap", "2014", "2015")
GRID_SETTINGS = [dict(weight=0.0)] + [dict(weight=w, clip=c, seed_prob=0.8, bare_network_weight=t) for w, c, t in
                                      itertools.product((2.0, 3.0, 4.0), (6.0, 8.0), (0.0, 0.5, 1.0))]


def _key(a: np.ndarray) -> bytes:
    return hashlib.blake2b(np.ascontiguousarray(a).tobytes(), digest_size=16).digest()


def remember(fn):
    """``fn(crops)`` kept per distinct batch of crops: a network's output depends on its input alone."""
    memo = {}

    def call(crops):
        key = _key(crops)
        if key not in memo:
            memo[key] = fn(crops)
        return memo[key]
    return call


def remember_letters(recognizer):
    """The recogniser's ``letter_probs(crops)`` (turn 0) kept per crop: a setting that reads one
    more square reads only that square."""
    from tilecam.vision.recognizer import LetterProbs
    fn, memo = recognizer.letter_probs, {}

    def call(crops, turns=(0,)):
        keys = [_key(c) for c in crops]
        todo = [i for i, k in enumerate(keys) if k not in memo]
        if todo:
            lp = fn(crops[todo])
            for j, i in enumerate(todo):
                memo[keys[i]] = (lp.probs[j], lp.ink[j], lp.letter_mass[j])
        rows = [memo[k] for k in keys]
        return LetterProbs(np.stack([r[0] for r in rows]), np.stack([r[1] for r in rows]),
                           np.stack([r[2] for r in rows]), (0,), 0.0)
    return call


def photos(data: Path, px: int) -> list[dict]:
    """Every frame of the three boards: board, name, truth rows, the grid-given warp and source,
    and for the English photos the pipeline's warp and source (None: board not found)."""
    from tilecam.vision.locate import LocateConfig, find_board
    out = []
    for group, games in GROUPS.items():
        for g in games:
            for name, warped, board, source in load_frames(data / "scrabscrap", g, px)[0]:
                out.append({"board": "scrabscrap", "name": f"{g}/{name}", "warped": warped, "source": source,
                            "truth": ["".join(truth_label(ch) for ch in row) for row in board]})
    english = data / "english"
    for line in (english / "truth.jsonl").read_text(encoding="utf-8").splitlines():
        if not line.strip():
            continue
        row = json.loads(line)
        image = cv2.imread(str(english / "frames" / row["frame"]), cv2.IMREAD_COLOR)
        h = homography_from_corners(np.float32(row["corners"]), px)
        ph = {"board": row["session"], "name": row["frame"], "truth": row["board"],
              "warped": warp_board(image, h, px), "source": (image, h), "cam": None}
        try:
            cam = np.asarray(find_board(image, LocateConfig()).corners, np.float32)
            ch = homography_from_corners(cam, px)
            ph.update(cam=cam, cam_warped=warp_board(image, ch, px), cam_source=(image, ch),
                      turn=camera_turn(cam, np.float32(row["corners"])))
        except BoardNotFound:
            pass
        out.append(ph)
    return out


def run(reader, frames: list[dict], setting: dict, way: str) -> Tally:
    """Read every frame with the occupancy ``setting``; ``way``: "grid" (given) or "pipeline"."""
    reader.cfg = reader.cfg.model_copy(update={"occupancy": OccupancyConfig(**setting)})
    tally = Tally()
    for ph in frames:
        reader._cache.clear()   # each frame read afresh
        if way == "grid":
            pred = None if ph["warped"] is None else reader.read(ph["warped"], source=ph["source"]).board()
        elif ph["cam"] is None:
            pred = None
        else:
            pred = to_game(reader.read(ph["cam_warped"], source=ph["cam_source"]), ph["cam"],
                           reader.cfg.min_orientation_share).board
        tally.add(pred, ph["truth"])
    return tally


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", default=str(REPO / "docs" / "results" / "occupancy.json"))
    args = ap.parse_args(argv)
    cv2.setNumThreads(1)
    data = Path(os.environ.get("TILECAM_SHARED_DATA", REPO.parent / "shared" / "data"))
    t0 = time.time()
    readers = {lang: load_tile_reader(load_settings(read={"recogniser": True}), lang) for lang in ("de", "en")}
    for r in readers.values():
        r.embed = remember(r.embed)
        r.recognizer.letter_probs = remember_letters(r.recognizer)
    px = int(readers["en"].card["square_px"])
    frames = photos(data, px)
    by_board = {b: [f for f in frames if f["board"] == b] for b in BOARDS}
    print(f"[{time.time() - t0:5.0f} s] loaded {len(frames)} frames", flush=True)

    def reader_for(board):
        return readers["de" if board == "scrabscrap" else "en"]

    grid = {}
    for i, setting in enumerate(GRID_SETTINGS):
        for b in BOARDS:
            grid[(i, b)] = run(reader_for(b), by_board[b], setting, "grid").summary()
        print(f"[{time.time() - t0:5.0f} s] setting {i + 1}/{len(GRID_SETTINGS)} {setting}: " +
              ", ".join(f"{b} {grid[(i, b)]['per_square']:.5f}/{grid[(i, b)]['per_tile']:.4f}" for b in BOARDS),
              flush=True)

    result = {"what": "occupancy from the board's own looks, one real board left out", "boards": {}}
    for b in BOARDS:
        others = [o for o in BOARDS if o != b]
        pick = max(range(1, len(GRID_SETTINGS)),
                   key=lambda i: np.mean([grid[(i, o)]["per_square"] for o in others]))
        entry = {"chosen_on": others, "setting": GRID_SETTINGS[pick],
                 "grid_given": {"without": grid[(0, b)], "with": grid[(pick, b)]}}
        if b != "scrabscrap":
            entry["pipeline"] = {"without": run(reader_for(b), by_board[b], GRID_SETTINGS[0], "pipeline").summary(),
                                 "with": run(reader_for(b), by_board[b], GRID_SETTINGS[pick], "pipeline").summary()}
        result["boards"][b] = entry
        print(f"{b}: chosen on {others}: {GRID_SETTINGS[pick]}", flush=True)
        for way in ("grid_given", "pipeline"):
            for k in ("without", "with"):
                if way in entry:
                    x = entry[way][k]
                    print(f"  {way:10} {k:8} square {x['per_square']:.5f} tile {x['per_tile']:.4f} "
                          f"tile->empty {x['tile_to_empty']:.4f} empty->tile {x['empty_to_tile']:.5f} "
                          f"blanks {x['blank_tiles']} read empty {x['blank_to_empty']} {x['confusions']}")
    best_all = max(range(1, len(GRID_SETTINGS)), key=lambda i: np.mean([grid[(i, o)]["per_square"] for o in BOARDS]))
    result["chosen_on_all_three"] = GRID_SETTINGS[best_all]
    result["grid"] = {f"{i}:{b}": {"setting": GRID_SETTINGS[i], "per_square": v["per_square"], "per_tile": v["per_tile"]}
                      for (i, b), v in grid.items()}
    result.update(commit=git_commit(), date=time.strftime("%Y-%m-%d"),
                  machine=f"{platform.machine()} {platform.system()}, {len(os.sched_getaffinity(0))} cpus",
                  seconds=round(time.time() - t0))
    Path(args.out).write_text(json.dumps(result, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    print(f"chosen on all three: {GRID_SETTINGS[best_all]}; written to {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
