"""Fit the empty-board reference's likelihood ratio on synthetic renders (never on real photos).

    python tests/bench/fit_reference.py [--boards 40]

Each synthetic board (models.synth.render_topdown, printed premium labels asked for) is rendered
empty and with random tiles from the same seed (same board print), the tiles given height
(models.dataset.raise_tiles), both degraded independently (models.dataset.degrade: exposure,
colour cast, uneven light, blur, noise, JPEG) and warped with their own corner error; the frame
is turned by a random quarter turn. The reference (vision.reference) is the empty render, the
frame's squares are compared to it with the network's P(empty) as the light-fit weight, and
log LR(empty : tile) = a - b * ln(distance) is fitted by logistic regression with the two classes
weighted equally (so the fit is a likelihood ratio, not a posterior). The first half of the
boards fits a, b; the second half reports the reader with and without the reference.

Writes docs/results/fit_reference.json.
"""
from __future__ import annotations

import argparse
import json
import platform
import subprocess
import sys
import time
from pathlib import Path

import cv2
import numpy as np

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO))

from tilecam.models.dataset import degrade, raise_tiles, random_board  # noqa: E402
from tilecam.models.synth import SceneConfig, render_topdown  # noqa: E402
from tilecam.vision.classify import ReadConfig, TileReader  # noqa: E402
from tilecam.vision.rectify import GRID, homography_from_corners, warp_board  # noqa: E402
from tilecam.vision.reference import EmptyBoardRef, ReferenceConfig  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_read import git_commit  # noqa: E402,F401  (one copy; select_self_enroll imports it from here)


def synth_dirty() -> bool:
    out = subprocess.run(["git", "status", "--porcelain", "models/synth"], cwd=REPO, capture_output=True, text=True)
    return bool(out.stdout.strip())


def warp(image, corners, rng, sq, px):
    c = corners.astype(np.float32).copy()
    c += rng.uniform(-1, 1, size=2).astype(np.float32) * 0.08 * sq
    c += rng.uniform(-1, 1, size=(4, 2)).astype(np.float32) * 1.5 * sq / 50.0
    return warp_board(image, homography_from_corners(c, px), px)


def sample(seed: int, px: int):
    """(reference warp, frame warp turned by k, truth board turned by k, k)."""
    rng = np.random.default_rng(seed)
    board = random_board(rng, float(rng.uniform(0.05, 0.6)), 0.05)
    cfg = SceneConfig(label_prob=1.0)
    empty = render_topdown(["." * GRID] * GRID, seed, cfg)
    full = render_topdown(board, seed, cfg)
    image = raise_tiles(full.image, empty.image, rng, 0.035) if rng.random() < 0.7 else full.image
    scale = full.square_px / 50.0
    ref = warp(degrade(empty.image, rng, scale), empty.corners, rng, full.square_px, px)
    frame = warp(degrade(image, rng, scale), full.corners, rng, full.square_px, px)
    k = int(rng.integers(4))
    truth = np.array([["?" if ch.islower() else ch for ch in row] for row in board])
    return ref, np.ascontiguousarray(np.rot90(frame, k)), np.rot90(truth, k), k


def logistic(x: np.ndarray, y: np.ndarray, w: np.ndarray, iters: int = 50) -> np.ndarray:
    """Weighted logistic regression by Newton's method; x (n, d) with a ones column."""
    beta = np.zeros(x.shape[1])
    for _ in range(iters):
        p = 1 / (1 + np.exp(-(x @ beta)))
        g = x.T @ (w * (y - p))
        h = (x * (w * p * (1 - p))[:, None]).T @ x + 1e-6 * np.eye(x.shape[1])
        beta += np.linalg.solve(h, g)
    return beta


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--boards", type=int, default=40)
    ap.add_argument("--seed", type=int, default=70000)
    ap.add_argument("--out", default=str(REPO / "docs" / "results" / "fit_reference.json"))
    args = ap.parse_args(argv)
    cv2.setNumThreads(1)
    reader = TileReader(REPO / "models" / "tiles.onnx", REPO / "models" / "tiles.card.json", lang="en")
    px = int(reader.card["square_px"])
    rows = []
    t0 = time.time()
    for i in range(args.boards):
        ref, frame, truth, k_true = sample(args.seed + i, px)
        read = reader.read(frame)
        p_empty = read.snapshot.probs[..., 0]
        dist, k = EmptyBoardRef.from_frame(ref).distance(frame, p_empty)
        rows.append((ref, frame, truth, dist, k == k_true))
        print(f"board {i + 1}/{args.boards} ({time.time() - t0:.0f} s)", flush=True)
    half = args.boards // 2
    d = np.concatenate([r[3].ravel() for r in rows[:half]])
    y = np.concatenate([(r[2] == ".").ravel() for r in rows[:half]]).astype(np.float64)
    w = np.where(y > 0, 0.5 / y.sum(), 0.5 / (1 - y).sum())
    a, minus_b = logistic(np.stack([np.ones_like(d), np.log(np.maximum(d, 1e-3))], axis=1), y, w * len(y))
    cfg = ReferenceConfig(intercept=round(float(a), 2), slope=round(float(-minus_b), 2))
    print(f"fit on {half} boards: intercept {cfg.intercept}, slope {cfg.slope}")

    def score(use_ref: bool) -> dict:
        n = ok = tiles = tiles_ok = empties = e2t = 0
        for ref, frame, truth, *_ in rows[half:]:
            reader.empty_ref = EmptyBoardRef.from_frame(ref, cfg) if use_ref else None
            pred = np.array([list(r) for r in reader.read(frame).board()])
            n += pred.size
            ok += int((pred == truth).sum())
            tiles += int((truth != ".").sum())
            tiles_ok += int(((pred == truth) & (truth != ".")).sum())
            empties += int((truth == ".").sum())
            e2t += int(((truth == ".") & (pred != ".")).sum())
        reader.empty_ref = None
        return {"squares": n, "per_square": round(ok / n, 5), "per_tile": round(tiles_ok / max(tiles, 1), 5),
                "empty_to_tile": round(e2t / max(empties, 1), 5)}

    turns_right = sum(int(r[4]) for r in rows)
    res = {"what": "empty-board reference: log LR(empty:tile) = intercept - slope * ln(distance), fitted "
                   "by balanced logistic regression on synthetic renders",
           "boards_fit": half, "boards_test": args.boards - half, "seed": args.seed,
           "intercept": cfg.intercept, "slope": cfg.slope,
           "distance_median": {"empty": round(float(np.median(d[y > 0])), 4),
                               "tile": round(float(np.median(d[y == 0])), 4)},
           "test_without_reference": score(False), "test_with_reference": score(True),
           "turn_found": f"{turns_right}/{len(rows)} (any matching turn is fine: the layout is symmetric)",
           "renderer_working_tree_dirty": synth_dirty(),
           "machine": f"{platform.machine()} {platform.system()}", "commit": git_commit(),
           "date": time.strftime("%Y-%m-%d")}
    print(json.dumps(res, indent=1))
    Path(args.out).write_text(json.dumps(res, indent=1) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
