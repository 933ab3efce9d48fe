"""Check self-enrollment's settings on synthetic renders (never on real photos).

    python tests/bench/select_self_enroll.py [--boards 30]

Synthetic boards as in tests/bench/fit_reference.py (models.synth renders, printed premium
labels, leaning tiles, camera damage, corner error, a random quarter turn), read plainly and
with vision.enroll.self_enroll at a few confidence thresholds. The default of
SelfEnrollConfig and whether `tilecam read` self-enrolls by default follow from this table.
Writes docs/results/select_self_enroll.json.
"""
from __future__ import annotations

import argparse
import json
import platform
import sys
import time
from pathlib import Path

import cv2
import numpy as np

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from fit_reference import git_commit, sample, synth_dirty  # noqa: E402
from tilecam.vision.classify import TileReader  # noqa: E402
from tilecam.vision.enroll import SelfEnrollConfig, self_enroll  # noqa: E402


def tally(acc: dict, pred: np.ndarray, truth: np.ndarray) -> None:
    acc["squares"] = acc.get("squares", 0) + pred.size
    acc["ok"] = acc.get("ok", 0) + int((pred == truth).sum())
    acc["tiles"] = acc.get("tiles", 0) + int((truth != ".").sum())
    acc["tiles_ok"] = acc.get("tiles_ok", 0) + int(((pred == truth) & (truth != ".")).sum())
    acc["empties"] = acc.get("empties", 0) + int((truth == ".").sum())
    acc["e2t"] = acc.get("e2t", 0) + int(((truth == ".") & (pred != ".")).sum())


def summary(acc: dict) -> dict:
    return {"squares": acc["squares"], "per_square": round(acc["ok"] / acc["squares"], 5),
            "per_tile": round(acc["tiles_ok"] / max(acc["tiles"], 1), 5),
            "empty_to_tile": round(acc["e2t"] / max(acc["empties"], 1), 5)}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--boards", type=int, default=30)
    ap.add_argument("--seed", type=int, default=80000)
    ap.add_argument("--out", default=str(REPO / "docs" / "results" / "select_self_enroll.json"))
    args = ap.parse_args(argv)
    cv2.setNumThreads(1)
    reader = TileReader(REPO / "models" / "tiles.onnx", REPO / "models" / "tiles.card.json", lang="en")
    settings = {"plain": None}
    for conf in (0.9, 0.95, 0.99):
        for min_tiles in (4, 8, 16):
            settings[f"conf {conf}, min_tiles {min_tiles}"] = SelfEnrollConfig(confident_prob=conf,
                                                                               min_tiles=min_tiles)
    accs = {name: {} for name in settings}
    t0 = time.time()
    for i in range(args.boards):
        _, frame, truth, _ = sample(args.seed + i, int(reader.card["square_px"]))
        for name, cfg in settings.items():
            read = reader.read(frame) if cfg is None else self_enroll(reader, frame, cfg)[0]
            tally(accs[name], np.array([list(r) for r in read.board()]), truth)
        print(f"board {i + 1}/{args.boards} ({time.time() - t0:.0f} s): plain "
              f"{accs['plain']['ok'] / accs['plain']['squares']:.4f}, default "
              f"{accs['conf 0.95, min_tiles 8']['ok'] / accs['conf 0.95, min_tiles 8']['squares']:.4f}", flush=True)
    res = {"what": "self-enrollment on synthetic renders: plain reader vs self_enroll settings",
           "boards": args.boards, "seed": args.seed,
           "results": {name: summary(a) for name, a in accs.items()},
           "renderer_working_tree_dirty": synth_dirty(),
           "machine": f"{platform.machine()} {platform.system()}", "commit": git_commit(),
           "date": time.strftime("%Y-%m-%d")}
    print(json.dumps(res, indent=1))
    Path(args.out).write_text(json.dumps(res, indent=1) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
