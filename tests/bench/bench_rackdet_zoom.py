"""The learned rack finder's closer look (issue 45, session 16: DetectConfig.zoom_below, zoom_margin,
zoom_max), chosen on TRAINING looks only.

Three sets of training-look stills: bench_rack.py's own 'train' stills (its seeds and racks: seven-tile
racks, racks with a hand, racks of 0 to 6 tiles); as many again from seeds 61000 on ('train_extra',
clear of the bench's 30000-59999 and of the finder's training stills, 100000 on; the same kinds, the
same look draw); and as many from seeds 62000 on each shrunk about the frame's centre to SMALL of its
size and moved a little, its rim the frame's edge drawn out, as the finder's training warp shrinks its
stills ('train_small': small tiles in training looks only; far and side cameras are held out whole).
Held-out looks are not read here: bench_rack.py reports them for the setting chosen.
Each setting is run through the product's finder (vision.rack.RackReader.find, finder 'both', the
classical finder's answer for a still computed once) and through the net alone. Per setting and set:
  right7    seven-tile racks with every slot on its tile and seen
  short     racks of 1-6 tiles likewise; empty: empty racks read as a rack with no slots
  hidden    tiles a hand hides that a seen slot lies on (must be 0); no_slot: those no slot stands on
  no_rack   stills answered "no rack"; zoomed: stills whose slots are the closer look's
  net_ms    the learned finder's CPU time a still (one thread), median and p95

    .venv/bin/python tests/bench/bench_rackdet_zoom.py [--racks 100] [--hand-racks 30] [--short-racks 28]
                                                       [--below 0.5 6 ...] [--margins 1 1.5 2] [--max-zoom 2 3 4]
                                                       [--name NAME]

Every zoom_below x zoom_margin x zoom_max of the lists, and the closer look off. Writes
docs/results/rackdet_zoom_<commit>[_NAME].json.
"""
from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

import cv2
import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_rack import REPO, draw_rack, git_commit  # noqa: E402

import tilecam.vision.rack as rack_mod  # noqa: E402
from tilecam.models.synth import draw_look, render_rack  # noqa: E402
from tilecam.vision.rack import RackConfig, RackReader  # noqa: E402
from tilecam.vision.rackdetect import DetectConfig, RackDetector  # noqa: E402

SETS = {"train": 30000, "train_extra": 61000, "train_small": 62000}
SMALL = (0.45, 0.75)     # train_small: the still shrunk to this share of its size
BELOW = (0.5, 6.0, 8.0, 10.0, 12.0, 16.0, 1000.0)   # 0.5: the unsure alone; 1000: every still with tiles
MARGINS = (1.0, 1.5, 2.0)
MAX_ZOOM = (2.0, 3.0, 4.0)


class _Tiles:
    """RackReader's tile reader as far as finding goes: the tile set's language."""
    lang = "en"
    classes = (".", "?", "A")


def stills(base: int, racks: int, hand_racks: int, short_racks: int):
    """bench_rack.measure's stills from seed ``base`` on, in its order and from its streams."""
    rng = np.random.default_rng(base)
    for i in range(racks):
        seed = base + i
        yield "row", seed, render_rack(draw_rack(rng), seed, draw_look(seed, "train"))
    for i in range(hand_racks):
        seed = base + 5000 + i
        yield "hand", seed, render_rack(draw_rack(rng), seed, draw_look(seed, "train"),
                                        hand=float(rng.uniform(0.15, 0.5)))
    srng = np.random.default_rng(base + 9000)
    for i in range(short_racks):
        seed = base + 9000 + i
        yield "short", seed, render_rack(draw_rack(srng, i % 7), seed, draw_look(seed, "train"))


def shrink(image: np.ndarray, boxes, seed: int):
    """``image`` shrunk about its centre to a SMALL share, moved a little inside the frame (its rim
    the edge drawn out), and the tiles' boxes with it: a training look made small (train_small)."""
    rng = np.random.default_rng([seed, 62])
    h, w = image.shape[:2]
    s = float(rng.uniform(*SMALL))
    sw, sh = int(round(w * s)), int(round(h * s))
    sx, sy = sw / w, sh / h
    ox = int(np.clip(round((w - sw) / 2 + rng.uniform(-0.15, 0.15) * w), 0, w - sw))   # the still whole in the frame
    oy = int(np.clip(round((h - sh) / 2 + rng.uniform(-0.15, 0.15) * h), 0, h - sh))
    small = cv2.resize(image, (sw, sh), interpolation=cv2.INTER_AREA)
    out = cv2.warpAffine(small, np.float32([[1, 0, ox], [0, 1, oy]]), (w, h), flags=cv2.INTER_NEAREST,
                         borderMode=cv2.BORDER_REPLICATE)
    return out, [(x * sx + ox, y * sy + oy, bw * sx, bh * sy) for x, y, bw, bh in boxes]


def centre_in(q, box) -> bool:
    x, y, w, h = box
    cx, cy = q.mean(axis=0)
    return x <= cx <= x + w and y <= cy <= y + h


def score(rows: list[dict], fixes: list, zoomed: list[bool], ms: list[float]) -> dict:
    out = {"right7": 0, "racks7": 0, "short": 0, "short_racks": 0, "empty": 0, "empty_racks": 0,
           "hidden_given": 0, "hidden_no_slot": 0, "hidden_tiles": 0, "no_rack": 0, "zoomed": sum(zoomed),
           "net_ms_median": round(float(np.median(ms)), 1), "net_ms_p95": round(float(np.percentile(ms, 95)), 1)}
    for r, fix in zip(rows, fixes):
        out["no_rack"] += fix is None
        slots = fix.slots if fix is not None else ()
        if r["kind"] == "hand":
            for box, occ in zip(r["boxes"], r["occluded"]):
                if occ:
                    out["hidden_tiles"] += 1
                    out["hidden_given"] += any(s.seen and centre_in(s.quad, box) for s in slots)
                    out["hidden_no_slot"] += not any(centre_in(s.quad, box) for s in slots)
            continue
        if not r["tiles"]:
            out["empty_racks"] += 1
            out["empty"] += fix is not None and not slots
            continue
        ok = fix is not None and len(slots) == len(r["tiles"]) and all(
            s.seen and centre_in(s.quad, b) for s, b in zip(slots, r["boxes"]))
        out["right7" if r["kind"] == "row" else "short"] += ok
        out["racks7" if r["kind"] == "row" else "short_racks"] += 1
    return out


def run(rows: list[dict], cfg: DetectConfig) -> dict:
    det = RackDetector(threads=1, cfg=cfg)
    reader = RackReader(_Tiles(), RackConfig(finder="both"))
    reader._detector = det
    seen: list = []
    detect = det.detect

    def timed(image):   # the net's answer and time, as the product's find asks it
        c0 = time.process_time()
        d = detect(image)
        seen.append((d, (time.process_time() - c0) * 1000.0))
        return d
    det.detect = timed
    both = [reader.find(r["image"]) for r in rows]
    learned, zoomed, ms = [d.fix for d, _ in seen], [d.zoomed for d, _ in seen], [t for _, t in seen]
    return {"both": score(rows, both, zoomed, ms), "learned": score(rows, learned, zoomed, ms)}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--racks", type=int, default=100)
    ap.add_argument("--hand-racks", type=int, default=30)
    ap.add_argument("--short-racks", type=int, default=28)
    ap.add_argument("--below", type=float, nargs="+", default=BELOW, help="zoom_below values")
    ap.add_argument("--margins", type=float, nargs="+", default=MARGINS, help="zoom_margin values")
    ap.add_argument("--max-zoom", type=float, nargs="+", default=MAX_ZOOM, help="zoom_max values")
    ap.add_argument("--name", default="", help="added to the result's file name")
    ap.add_argument("--out", default=str(REPO / "docs" / "results"))
    args = ap.parse_args()
    commit = git_commit()
    cv2.setNumThreads(1)
    data: dict[str, list[dict]] = {}
    classical: dict[int, object] = {}
    for name, base in SETS.items():
        print(f"rendering {name} stills", flush=True)
        data[name] = []
        for kind, seed, sc in stills(base, args.racks, args.hand_racks, args.short_racks):
            image, boxes = shrink(sc.image, sc.boxes, seed) if name == "train_small" else (sc.image, sc.boxes)
            data[name].append({"kind": kind, "image": image, "boxes": boxes, "occluded": sc.occluded,
                               "tiles": sc.tiles})
    # the classical finder does not depend on the learned finder's settings: once a still
    find_rack = rack_mod.find_rack

    def cached(image, cfg):
        key = id(image)
        if key not in classical:
            classical[key] = find_rack(image, cfg)
        return classical[key]
    rack_mod.find_rack = cached
    off = DetectConfig(zoom_below=0.0)      # the closer look off: the finder as before it
    grid = {"off": {s: run(data[s], off) for s in data}}
    print("off", json.dumps({s: grid["off"][s]["both"] for s in data}), flush=True)
    for below in args.below:
        for margin in args.margins:
            for zmax in args.max_zoom:
                cfg = off.model_copy(update={"zoom_below": below, "zoom_margin": margin, "zoom_max": zmax})
                name = f"below {below:g} margin {margin:g} max {zmax:g}"
                grid[name] = {s: run(data[s], cfg) for s in data}
                print(name, json.dumps({s: grid[name][s]["both"] for s in data}), flush=True)

    def key(name):   # no hidden tile seen, then racks right (both finders), then hidden tiles with a slot
        v = [grid[name][s]["both"] for s in data]
        return (-sum(x["hidden_given"] for x in v), sum(x["right7"] + x["short"] + x["empty"] for x in v),
                -sum(x["hidden_no_slot"] for x in v), -sum(x["no_rack"] for x in v))

    best = max(grid, key=key)
    out = {"what": "the learned rack finder's closer look, chosen on training looks "
                   "(tests/bench/bench_rackdet_zoom.py)",
           "commit": commit, "date": time.strftime("%Y-%m-%d"), "sets": SETS,
           "racks_per_set": args.racks, "hand_racks_per_set": args.hand_racks,
           "short_racks_per_set": args.short_racks, "best_on_train": best,
           "shipped": DetectConfig().model_dump(), "grid": grid}
    dest = Path(args.out) / f"rackdet_zoom_{commit}{'_' + args.name if args.name else ''}.json"
    dest.write_text(json.dumps(out, indent=1) + "\n", encoding="utf-8")
    for name, v in grid.items():
        print(f"{name:28s} " + "  ".join(
            f"{s}: 7 {v[s]['both']['right7']}/{v[s]['both']['racks7']} short {v[s]['both']['short']} "
            f"empty {v[s]['both']['empty']} hidden {v[s]['both']['hidden_given']}/{v[s]['both']['hidden_no_slot']} "
            f"none {v[s]['both']['no_rack']} zoomed {v[s]['both']['zoomed']} (net alone 7 {v[s]['learned']['right7']}) "
            f"ms {v[s]['both']['net_ms_p95']}" for s in v))
    print(f"best on train: {best}\nwrote {dest}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
