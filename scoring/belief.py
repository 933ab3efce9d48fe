"""Evidence fusion: per-square letter probabilities summed over every snapshot of a square.

The scorekeeper adds each stable snapshot here and decodes the posterior, so a square's
reading rests on all the frames it was seen in, not on the latest one.
"""
from __future__ import annotations

import numpy as np

from .snapshot import EMPTY, Snapshot

__all__ = ["Evidence"]


class Evidence:
    """Per-square evidence summed over every frame in which the square was visible.

    A square's reading is decided from all its frames, not one: log-probabilities add up,
    so one blurred frame cannot overturn twenty clear ones."""

    def __init__(self, classes: tuple[str, ...], size: int = 15) -> None:
        self.classes = classes
        self.log = np.zeros((size, size, len(classes)), dtype=np.float64)
        self.frames = np.zeros((size, size), dtype=np.int32)

    def add(self, snap: Snapshot, visible: np.ndarray | None = None) -> None:
        """Add a frame's reading. A square whose occupancy flips (a tile put down or taken
        back) starts its history afresh: occupancy comes from the latest frame, the letter
        from every frame since the tile appeared."""
        if snap.classes != self.classes:
            raise ValueError("snapshot classes differ from the evidence's")
        mask = np.ones(self.frames.shape, bool) if visible is None else visible.astype(bool)
        e = self.classes.index(EMPTY)
        now_empty = snap.probs[..., e] > 0.5
        was_empty = self.posterior().probs[..., e] > 0.5
        flipped = mask & (self.frames > 0) & (now_empty != was_empty)
        self.log[flipped] = 0.0
        self.frames[flipped] = 0
        self.log[mask] += np.log(np.clip(snap.probs[mask], 1e-6, 1.0))
        self.frames[mask] += 1

    def reset(self, squares) -> None:
        """Forget a square's history (its state changed: a tile placed or taken back)."""
        for sq in squares:
            self.log[sq.row, sq.col] = 0.0
            self.frames[sq.row, sq.col] = 0

    def posterior(self, t: float = 0.0, frame_index: int = -1) -> Snapshot:
        z = self.log - self.log.max(axis=2, keepdims=True)
        p = np.exp(z)
        p /= p.sum(axis=2, keepdims=True)
        return Snapshot(self.classes, p.astype(np.float32), t, frame_index)
