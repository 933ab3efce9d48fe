"""Training stills for the learned rack finder (models/train_rackdet.py, vision/rackdetect.py).

Rendered rack-camera frames (models.synth.render_rack) in the TRAINING looks only: a factor's
RACK_HELD_OUT options never appear here (draw_look(seed, 'train', broad=True)), so the held-out looks the
bench reports (tests/bench/bench_rack.py 'heldout', 'heldout_all') stay unseen. Issue 45's broad mix
(RACK_BROAD: walnut, flat and tall racks, pro and walnut tiles, more fonts, patterned tables) is drawn
among the training options. Racks of 0 to 7
tiles (half of them full, an empty one now and then), a hand over some tiles in about a third.
Seeds from SEED0 on, clear of the bench's (30000-59999). Each frame is kept at the detector's
input size (vision.rackdetect.INPUT_W x INPUT_H, INTER_AREA as at run time) with its tile quads
scaled to it and which tiles a hand hides.
"""
from __future__ import annotations

import time
from concurrent.futures import ProcessPoolExecutor

import cv2
import numpy as np

from tilecam.vision.rackdetect import INPUT_H, INPUT_W

SEED0 = 100_000
FULL = 0.5     # share of full racks; the rest 0..6 tiles, evenly
HANDS = 0.3    # share of racks (with tiles) with a hand over some


def _bag() -> list[str]:
    from tilecam.scoring import DISTRIBUTIONS
    return [t for t, c in DISTRIBUTIONS["en"].counts.items() for _ in range(c)]


def scene_for(seed: int):
    """The training still of ``seed`` at the renderer's size (models.synth.RackScene): its tiles,
    hand and look (the training options and issue 45's broad mix, draw_look(seed, 'train', broad=True))."""
    from tilecam.models.synth import draw_look, render_rack
    rng = np.random.default_rng([seed, 77])
    n = 7 if rng.random() < FULL else int(rng.integers(0, 7))
    tiles = [str(t) for t in rng.choice(_bag(), n, replace=False)]
    hand = float(rng.uniform(0.15, 0.5)) if n and rng.random() < HANDS else 0.0
    return render_rack(tiles, seed, draw_look(seed, "train", broad=True), hand=hand)


def render_one(seed: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(image at the input size, quads (7, 4, 2) in its pixels padded with nan, hidden (7,) bool)."""
    scene = scene_for(seed)
    n = len(scene.tiles)
    h, w = scene.image.shape[:2]
    img = cv2.resize(scene.image, (INPUT_W, INPUT_H), interpolation=cv2.INTER_AREA)
    quads = np.full((7, 4, 2), np.nan, np.float32)
    hidden = np.zeros(7, bool)
    if n:
        quads[:n] = scene.quads * np.float32([INPUT_W / w, INPUT_H / h])
        hidden[:n] = scene.occluded
    return img, quads, hidden


def render_set(n: int, seed0: int = SEED0, workers: int = 2, log=print) -> dict:
    """``n`` stills from seeds seed0.. (2 processes: the machine's cores), with progress."""
    t0 = time.time()
    imgs, quads, hidden = [], [], []
    with ProcessPoolExecutor(workers) as pool:
        for i, (im, q, hd) in enumerate(pool.map(render_one, range(seed0, seed0 + n), chunksize=16)):
            imgs.append(im)
            quads.append(q)
            hidden.append(hd)
            if (i + 1) % 200 == 0 or i + 1 == n:
                el = time.time() - t0
                log(f"rendered {i + 1}/{n} racks, {el:.0f} s, ETA {el / (i + 1) * (n - i - 1):.0f} s")
    return {"x": np.stack(imgs), "quads": np.stack(quads), "hidden": np.stack(hidden)}
