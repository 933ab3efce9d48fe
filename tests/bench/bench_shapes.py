"""Eval: the letters by their shape (issue 36) on looks held out whole, the product's reader.

    python tests/bench/bench_shapes.py [--boards 12] [--out docs/results/shapes.json]

A real edition read its narrow I (a bare stroke, its value at its foot, printed dots above and
below) as L, T or a blank, and its blanks with a printed face as G, O or B. This renders boards in
looks that the tile model never saw in training and that nothing here was tuned on:

  dots_beside   printed dots above and below every letter (`marks=dots`, a factor added for this
                bench and drawn in no training set) with the value close beside the letter's foot
                (`value_place=beside`); blanks plain;
  heart         blanks printed with a heart (`blank_print=heart`, drawn in no training set);
  logo          blanks printed with the maker's logo (`blank_print=logo`, held out of training);
  face          blanks printed with a smiley (`blank_print=face`, a trained look: the control).

Boards hold every I, L, T and blank of the English set (the letters the errors were about) and 30
more tiles from the bag. Each
board is a camera frame (models.synth.render_scene, no hands) read through the product's reader
(vision.load_tile_reader: the classifier fused with the recogniser) with the true corners, with
the shape rules on (the default) and off (the recogniser's stroke and ring characters not counted,
no bare-stroke rule, no printed face taken for a blank). Per look: tiles read right, I read as I,
blanks read as blanks, and letters read as blanks (the rule's cost).
"""
from __future__ import annotations

import argparse
import json
import platform
import sys
import time
from collections import Counter
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_read import git_commit  # noqa: E402
from tilecam.api.settings import Settings  # noqa: E402
from tilecam.models.synth import SceneConfig, render_scene  # noqa: E402
from tilecam.scoring.tiles import DISTRIBUTIONS  # noqa: E402
from tilecam.vision import load_tile_reader  # noqa: E402
from tilecam.vision.rectify import homography_from_corners, warp_board  # noqa: E402

LOOKS = {
    "dots_beside": {"marks": "dots", "value_place": "beside"},
    "heart": {"blank_print": "heart"},
    "logo": {"blank_print": "logo"},
    "face": {"blank_print": "face"},
}
LETTERS = DISTRIBUTIONS["en"].letters


def board(rng: np.random.Generator, others: int = 30) -> list[str]:
    """15 rows holding, at random squares, every I, L, T and blank of the English set (the reader
    holds a board to the set's counts) and `others` more tiles drawn from the rest of the bag."""
    dist = DISTRIBUTIONS["en"]
    bag = [t for t, n in dist.counts.items() for _ in range(n)]
    chosen = [t for t in bag if t in ("I", "L", "T", "?")]
    rest = [t for t in bag if t not in ("I", "L", "T", "?")]
    chosen += [str(t) for t in rng.choice(rest, size=others, replace=False)]
    cells = ["."] * 225
    for sq, t in zip(rng.choice(225, size=len(chosen), replace=False), chosen):
        cells[int(sq)] = t
    return ["".join(cells[r * 15:(r + 1) * 15]) for r in range(15)]


def readers(model: str = ""):
    """(shape rules on, off): the product's reader, and one with [read] shape_rules off; `model`: a
    tile model other than the committed one (a retrained candidate)."""
    from tilecam.vision.classify import ReadConfig
    path = {"model_path": model} if model else {}
    on = load_tile_reader(Settings().model_copy(update={"read": ReadConfig(**path)}), "en")
    off = load_tile_reader(Settings().model_copy(update={"read": ReadConfig(shape_rules=False, **path)}), "en")
    return on, off


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--boards", type=int, default=12, help="boards per look")
    ap.add_argument("--seed", type=int, default=3600)
    ap.add_argument("--out", default=str(REPO / "docs" / "results" / "shapes.json"))
    ap.add_argument("--model", default="", help="a tile model other than the committed one")
    args = ap.parse_args(argv)
    on, off = readers(args.model)
    px = int(on.card["square_px"])
    t0 = time.time()
    results: dict = {}
    for li, (look, factors) in enumerate(LOOKS.items()):
        tallies = {"on": Counter(), "off": Counter()}
        for b in range(args.boards):
            seed = args.seed + 100 * li + b
            truth = board(np.random.default_rng(seed))
            scene = render_scene(truth, seed, SceneConfig(hands="never", **factors))
            h = homography_from_corners(np.float32(scene.corners), px)
            warped = warp_board(scene.image, h, px)
            for name, reader in (("on", on), ("off", off)):
                reader._cache = {}
                read = "".join(reader.read(warped, source=(scene.image, h)).snapshot.board())
                t = tallies[name]
                for want, got in zip("".join(truth), read):
                    if want == ".":
                        continue
                    t["tiles"] += 1
                    t["right"] += got == want
                    if want == "I":
                        t["I"] += 1
                        t["I_right"] += got == "I"
                        t[f"I_as_{got}"] += got != "I"
                    elif want == "?":
                        t["blanks"] += 1
                        t["blank_right"] += got == "?"
                    else:
                        t["letters_not_I"] += 1
                        t["letter_as_blank"] += got == "?"
            print(f"[{time.time() - t0:6.1f} s] {look} board {b + 1}/{args.boards}", flush=True)
        results[look] = {name: {"tiles": t["tiles"], "per_tile": round(t["right"] / max(1, t["tiles"]), 4),
                                "I": f"{t['I_right']}/{t['I']}",
                                "I_misread": {k[5:]: v for k, v in t.items() if k.startswith("I_as_")},
                                "blanks": f"{t['blank_right']}/{t['blanks']}",
                                "letters_read_as_blank": f"{t['letter_as_blank']}/{t['letters_not_I']}"}
                         for name, t in tallies.items()}
        print(look, json.dumps(results[look]), flush=True)
    out = {"what": __doc__.splitlines()[0], "looks": LOOKS, "boards_per_look": args.boards, "seed": args.seed,
           "model": args.model or "models/tiles.onnx", "results": results, "machine": platform.platform(), "commit": git_commit(),
           "date": time.strftime("%Y-%m-%d")}
    Path(args.out).write_text(json.dumps(out, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    print(f"written to {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
