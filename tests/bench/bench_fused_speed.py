"""Speed of the fused reader (vision.fuse.FusedTileReader, as vision.build_reader builds it) on one core.

    OMP_NUM_THREADS=1 python tests/bench/bench_fused_speed.py

  read_full_board   the read `tilecam read` does on the English photo with the most tiles (true
                    corners): warp, classifier, recogniser on every square that may hold a tile
                    (cache empty), fusion; median of 5 (the model loading is not counted).
  snapshot_7_new    the recorder's read (vision.reader.TableReader.read) of the same frame after a
                    first read, with 7 occupied squares' cached readings dropped, as if 7 tiles had
                    just been laid: the recogniser reads those 7 only; median of 9.
  snapshot_still    the same with nothing changed (every reading from the cache).
Writes docs/results/fused_speed.json.
"""
from __future__ import annotations

import json
import os
import sys
import time
from pathlib import Path

import cv2
import numpy as np

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_read import git_commit  # noqa: E402
from tilecam.api.settings import Settings  # noqa: E402
from tilecam.vision import build_reader, load_tile_reader  # noqa: E402
from tilecam.scoring.board import LAYOUTS, Board  # noqa: E402
from tilecam.vision.locator import Located  # noqa: E402
from tilecam.vision.rectify import homography_from_corners, warp_board  # noqa: E402

EN = Path(os.environ.get("TILECAM_SHARED_DATA", REPO.parent / "shared" / "data")) / "english"


def main() -> int:
    cv2.setNumThreads(1)
    rows = [json.loads(x) for x in (EN / "truth.jsonl").read_text(encoding="utf-8").splitlines() if x.strip()]
    row = max(rows, key=lambda r: sum(ch != "." for line in r["board"] for ch in line))
    tiles = sum(ch != "." for line in row["board"] for ch in line)
    image = cv2.imread(str(EN / "frames" / row["frame"]), cv2.IMREAD_COLOR)
    settings = Settings()
    reader = load_tile_reader(settings, "en")
    px = int(reader.card["square_px"])
    h = homography_from_corners(np.float32(row["corners"]), px)
    full = []
    for _ in range(5):
        reader._cache.clear()
        t = time.perf_counter()
        read = reader.read(warp_board(image, h, px), source=(image, h))
        full.append(1000 * (time.perf_counter() - t))
    info = read.snapshot.meta["recogniser"]

    table = build_reader(settings, "en")
    sq = settings.reader.square_px
    located = Located("tracked", homography_from_corners(np.float32(row["corners"]), sq), 1.0, sq)
    board = Board(LAYOUTS["standard"])
    table.read(image, located, board)
    cache = table.tile_reader._cache
    occupied = sorted(cache)
    rng = np.random.default_rng(7)
    seven, still = [], []
    for _ in range(9):
        for k in rng.choice(occupied, 7, replace=False):
            cache.pop(int(k), None)
        t = time.perf_counter()
        view = table.read(image, located, board)
        seven.append(1000 * (time.perf_counter() - t))
        assert view.snapshot.meta["recogniser"]["read"] == 7, view.snapshot.meta["recogniser"]
        t = time.perf_counter()
        table.read(image, located, board)
        still.append(1000 * (time.perf_counter() - t))
    res = {"photo": row["frame"], "image_px": list(image.shape[:2]), "tiles": tiles,
           "read_full_board_ms": round(float(np.median(full)), 1), "read_full_board_recogniser": info,
           "snapshot_7_new_ms": round(float(np.median(seven)), 1),
           "snapshot_still_ms": round(float(np.median(still)), 1),
           "load_average_1min": round(os.getloadavg()[0], 2),
           "note": "one onnxruntime thread per session, cv2.setNumThreads(1); medians; machine shared (2 cores)",
           "commit": git_commit(), "date": time.strftime("%Y-%m-%d")}
    out = REPO / "docs" / "results" / "fused_speed.json"
    out.write_text(json.dumps(res, indent=1) + "\n", encoding="utf-8")
    print(json.dumps(res, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
