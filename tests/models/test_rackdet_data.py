"""models/rackdet_data.py: a training still for the rack finder, seeded: the image at the net's
input size, one quad per tile in its pixels (the empty slots nan), which tiles a hand hides."""
from __future__ import annotations

import numpy as np

from tilecam.models.rackdet_data import render_one
from tilecam.vision.rackdetect import INPUT_H, INPUT_W


def test_a_still_is_seeded_and_its_quads_are_its_tiles():
    counts = set()
    for seed in range(100_000, 100_012):
        img, quads, hidden = render_one(seed)
        again = render_one(seed)
        assert np.array_equal(img, again[0]) and np.array_equal(quads, again[1], equal_nan=True)
        assert img.shape == (INPUT_H, INPUT_W, 3) and quads.shape == (7, 4, 2) and hidden.shape == (7,)
        placed = ~np.isnan(quads).any(axis=(1, 2))
        n = int(placed.sum())
        counts.add(n)
        assert placed[:n].all() and not hidden[n:].any()  # tiles first, the rest padding
        inside = quads[:n]
        assert (inside[..., 0] >= -1).all() and (inside[..., 0] <= INPUT_W + 1).all()
        assert (inside[..., 1] >= -1).all() and (inside[..., 1] <= INPUT_H + 1).all()
    assert 7 in counts and len(counts) > 1  # full racks and shorter ones
