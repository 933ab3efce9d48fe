"""The board belief: per-square letter probabilities fused over every snapshot of a square.

The scorekeeper adds each stable snapshot here once and decodes the posterior, so a square's
reading rests on all the frames it was seen in, not on the latest one. ("Evidence" in tilecam is
the photo an entry was read from; this is what the frames, together, say each square holds.)
"""
from __future__ import annotations

import numpy as np

from .snapshot import BLANK_TILE, EMPTY, Snapshot, occupied

__all__ = ["BoardBelief", "kind_then_letter", "lettered_log"]


class BoardBelief:
    """Per-square evidence summed over every frame in which the square was visible.

    A square's reading is decided from all its frames, not one: log-probabilities add up,
    so one blurred frame cannot overturn twenty clear ones.

    Two questions, summed apart: what the square holds (empty, a blank, a lettered tile) and, if a
    lettered tile, which letter. One sum over all classes makes frames that disagree on the letter
    (one frame read at a wrong turn: M as R) vote the class none of them excludes: the blank, which
    every frame gives a little. A frame that reads any letter says the tile bears one; two frames
    reading two letters still agree on that (a white board's M, read M then R, became a blank at
    0.90, and the game's two blanks were gone for the plays that held them)."""

    def __init__(self, classes: tuple[str, ...], size: int = 15) -> None:
        self.classes = classes
        self.log = np.zeros((size, size, len(classes)), dtype=np.float64)
        self._letters = np.array([i for i, c in enumerate(classes) if c not in (EMPTY, BLANK_TILE)], int)
        # summed log P(a lettered tile) of each frame: the letters' mass
        self.lettered = np.zeros((size, size), dtype=np.float64)
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
        self.lettered[flipped] = 0.0
        self.frames[flipped] = 0
        self.readers[flipped] = -1
        self.log[mask] += np.log(np.clip(snap.probs[mask], 1e-6, 1.0))
        self.lettered[mask] += lettered_log(snap.probs[mask], self._letters)
        self.frames[mask] += 1
        if snap.readers is not None:
            named = mask & (snap.readers >= 0).any(axis=2)
            self.readers[named] = snap.readers[named]

    def forget(self, squares) -> None:
        """The squares' history dropped (what it said was found wrong: a reading the tile counts
        contradict); their next frames decide them afresh."""
        for sq in squares:
            self.log[sq.row, sq.col] = 0.0
            self.lettered[sq.row, sq.col] = 0.0
            self.frames[sq.row, sq.col] = 0
            self.readers[sq.row, sq.col] = -1

    def posterior(self, t: float = 0.0, frame_index: int = -1) -> Snapshot:
        p = kind_then_letter(self.log, self.lettered, self._letters)
        return Snapshot(self.classes, p.astype(np.float32), t, frame_index, readers=self.readers.copy())


def lettered_log(probs: np.ndarray, letters: np.ndarray) -> np.ndarray:
    """log P(a lettered tile) of readings (..., K): their letters' mass, what `kind_then_letter` sums."""
    return np.log(np.clip(np.asarray(probs, np.float64)[..., letters].sum(axis=-1), 1e-6, 1.0))


def kind_then_letter(log: np.ndarray, lettered: np.ndarray, letters: np.ndarray) -> np.ndarray:
    """Probabilities (..., K) from readings summed over frames in two questions: `log` (..., K) the
    summed log-probabilities of each class, `lettered` (...) the summed `lettered_log`, `letters` the
    letter classes' indices. What the square holds (each other class by its own sum, a lettered tile
    by `lettered`), then which letter (the letters' sums among themselves) shares P(a lettered tile).
    One reading, or readings that agree, come out as one sum would have them; readings naming two
    letters agree on a lettered tile and never vote for the class neither excluded (the blank)."""
    if not len(letters):
        return _normalised(log)
    kind = np.array(log, np.float64, copy=True)
    kind[..., letters] = -np.inf
    kind[..., letters[0]] = lettered
    p = _normalised(kind)
    p[..., letters] = p[..., letters[:1]] * _normalised(np.asarray(log, np.float64)[..., letters])
    return p


def _normalised(log: np.ndarray) -> np.ndarray:
    p = np.exp(log - log.max(axis=-1, keepdims=True))
    return p / p.sum(axis=-1, keepdims=True)
