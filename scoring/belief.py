"""The board belief: per-square letter probabilities fused over every snapshot of a square.

The scorekeeper adds each stable snapshot here once and decodes the posterior, so a square's
reading rests on all the frames it was seen in, not on the latest one. ("Evidence" in tilecam is
the photo an entry was read from; this is what the frames, together, say each square holds.)
"""
from __future__ import annotations

import numpy as np

from .snapshot import Snapshot, occupied

__all__ = ["BoardBelief"]


class BoardBelief:
    """Per-square evidence summed over every frame in which the square was visible.

    A square's reading is decided from all its frames, not one: log-probabilities add up,
    so one blurred frame cannot overturn twenty clear ones."""

    def __init__(self, classes: tuple[str, ...], size: int = 15) -> None:
        self.classes = classes
        self.log = np.zeros((size, size, len(classes)), dtype=np.float64)
        self.frames = np.zeros((size, size), dtype=np.int32)
        # each square's readers as its latest frame with them named (Snapshot.readers); -1 unread
        self.readers = np.full((size, size, 2), -1, dtype=np.int16)

    def add(self, snap: Snapshot, visible: np.ndarray | None = None) -> None:
        """Add a frame's reading. A square whose occupancy flips (a tile put down or taken
        back) starts its history afresh: occupancy comes from the latest frame, the letter
        from every frame since the tile appeared."""
        if snap.classes != self.classes:
            raise ValueError("snapshot classes differ from the belief's")
        mask = np.ones(self.frames.shape, bool) if visible is None else visible.astype(bool)
        flipped = mask & (self.frames > 0) & (occupied(snap) != occupied(self.posterior()))
        self.log[flipped] = 0.0
        self.frames[flipped] = 0
        self.readers[flipped] = -1
        self.log[mask] += np.log(np.clip(snap.probs[mask], 1e-6, 1.0))
        self.frames[mask] += 1
        if snap.readers is not None:
            named = mask & (snap.readers >= 0).any(axis=2)
            self.readers[named] = snap.readers[named]

    def forget(self, squares) -> None:
        """The squares' history dropped (what it said was found wrong: a reading the tile counts
        contradict); their next frames decide them afresh."""
        for sq in squares:
            self.log[sq.row, sq.col] = 0.0
            self.frames[sq.row, sq.col] = 0
            self.readers[sq.row, sq.col] = -1

    def posterior(self, t: float = 0.0, frame_index: int = -1) -> Snapshot:
        z = self.log - self.log.max(axis=2, keepdims=True)
        p = np.exp(z)
        p /= p.sum(axis=2, keepdims=True)
        return Snapshot(self.classes, p.astype(np.float32), t, frame_index, readers=self.readers.copy())
