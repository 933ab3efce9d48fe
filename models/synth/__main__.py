"""python -m tilecam.models.synth --n 20 --seed 0 --out DIR: random plausible boards rendered as camera
frames, with truth.jsonl (frame, board, corners, size) beside them."""
from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

import cv2
import numpy as np
from tqdm import tqdm

from tilecam.scoring import DISTRIBUTIONS

from . import SceneConfig, render_scene


def _bag(name: str = "en") -> str:
    """The set's letter tiles, one character each (no blanks), cheapest first and the commonest
    first within a value (EEEE...AAAA...QZ): the order seeded renders have always drawn from."""
    dist = DISTRIBUTIONS[name]
    letters = sorted(sorted(dist.letters), key=lambda t: (dist.values[t], -dist.counts[t]))
    return "".join(t * dist.counts[t] for t in letters)


LETTERS = _bag()


def random_board(rng: np.random.Generator, fill: float) -> list[str]:
    """Words of random letters laid along lines through the centre, like a game in progress."""
    grid = [["."] * 15 for _ in range(15)]
    target = int(fill * 225)
    r, c, across = 7, int(rng.integers(3, 8)), True
    placed = 0
    while placed < target:
        length = int(rng.integers(2, 8))
        for i in range(length):
            rr, cc = (r, c + i) if across else (r + i, c)
            if 0 <= rr < 15 and 0 <= cc < 15 and grid[rr][cc] == ".":
                ch = LETTERS[int(rng.integers(len(LETTERS)))]
                # Blanks on a board are designated (lower case); rarely one is left undesignated.
                blank = rng.random() < 0.02
                grid[rr][cc] = (ch.lower() if rng.random() < 0.8 else "?") if blank else ch
                placed += 1
        # Next word crosses a random tile already down.
        tiles = [(i, j) for i in range(15) for j in range(15) if grid[i][j] != "."]
        r, c = tiles[int(rng.integers(len(tiles)))]
        across = not across
        back = int(rng.integers(0, 3))
        r, c = (r, c - back) if across else (r - back, c)
        if len(tiles) >= 200:
            break
    return ["".join(row) for row in grid]


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, default=20)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--out", required=True)
    ap.add_argument("--hands", default="random", choices=["random", "always", "never"])
    args = ap.parse_args(argv)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    rng = np.random.default_rng(args.seed)
    render_s: list[float] = []
    with (out / "truth.jsonl").open("w", encoding="utf-8") as fh:
        for i in tqdm(range(args.n), desc="render", unit="scene", file=sys.stderr):
            board = random_board(rng, float(rng.uniform(0, 0.6)))
            t = time.perf_counter()
            scene = render_scene(board, args.seed * 100000 + i, SceneConfig(hands=args.hands))
            render_s.append(time.perf_counter() - t)
            name = f"synth-{i:05d}.jpg"
            cv2.imwrite(str(out / name), scene.image, [cv2.IMWRITE_JPEG_QUALITY, 95])
            fh.write(json.dumps({"frame": name, "board": board, "corners": scene.corners.round(2).tolist(),
                                 "size": [scene.image.shape[1], scene.image.shape[0]],
                                 "design": scene.design, "style": scene.style, "font": scene.font},
                                ensure_ascii=False) + "\n")
    if render_s:
        ms = np.array(render_s) * 1000
        print(f"render_scene: median {np.median(ms):.0f} ms, max {ms.max():.0f} ms per scene "
              f"({scene.image.shape[1]}x{scene.image.shape[0]})")
    print(f"wrote {args.n} frames and truth.jsonl to {out.resolve()}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
