"""A stable board snapshot as the tile reader saw it: per-square class probabilities.

Vision produces it; move decoding consumes it. It lives in scoring so that scoring
never imports vision.
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

EMPTY = "."
BLANK_TILE = "?"


@dataclass(frozen=True, eq=False)
class Snapshot:
    classes: tuple[str, ...]   # labels of the last axis of probs: EMPTY, BLANK_TILE, then letters
    probs: np.ndarray          # (rows, cols, len(classes)) float32; each square sums to 1
    t: float = 0.0             # seconds since the recording started
    frame_index: int = -1
    meta: dict = field(default_factory=dict)   # e.g. orientation, corners, reader version

    def __post_init__(self) -> None:
        if self.probs.ndim != 3 or self.probs.shape[2] != len(self.classes):
            raise ValueError(f"probs shape {self.probs.shape} does not match {len(self.classes)} classes")

    @property
    def size(self) -> int:
        return self.probs.shape[0]

    def best(self) -> np.ndarray:
        """(rows, cols) index of the most likely class per square."""
        return self.probs.argmax(axis=2)

    def confidence(self) -> np.ndarray:
        """(rows, cols) probability of the most likely class."""
        return self.probs.max(axis=2)

    def board(self) -> list[str]:
        """The most likely reading as strings ('.' empty, '?' blank tile). Multi-letter tiles
        (CH) print their first letter; use best() and classes for exact labels."""
        best = self.best()
        return ["".join(self.classes[i][0] for i in row) for row in best]

    @classmethod
    def from_board(cls, rows: list[str], classes: tuple[str, ...], confidence: float = 1.0,
                   **kw) -> "Snapshot":
        """A snapshot that reads `rows` with the given confidence (the rest spread evenly)."""
        n, k = len(rows), len(classes)
        index = {c: i for i, c in enumerate(classes)}
        probs = np.full((n, n, k), (1.0 - confidence) / max(k - 1, 1), dtype=np.float32)
        for r, row in enumerate(rows):
            for c, ch in enumerate(row):
                label = ch.upper() if ch not in (EMPTY, BLANK_TILE) else ch
                if ch.islower():
                    label = BLANK_TILE  # a blank on the board looks like a blank tile
                probs[r, c, :] = (1.0 - confidence) / max(k - 1, 1)
                probs[r, c, index[label]] = confidence
        return cls(classes, probs, **kw)


def classes_for(letters) -> tuple[str, ...]:
    """The class labels for an alphabet: empty square, blank tile, then each letter."""
    return (EMPTY, BLANK_TILE, *letters)
