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


def turns_to_fit(snap: Snapshot, board, current: int = 0, upright: int | None = None,
                 upright_weight: float = 3.0) -> int:
    """The quarter turns (as np.rot90's k) under which a snapshot read in the camera's orientation
    lies on the committed `board` (a scoring.board.Board): the turn in which the committed tiles
    are read most likely. A turntable board turned between turns is thereby read again in the
    orientation its first play fixed. `upright`: the turn that makes the tiles' letters upright
    (the reader's majority rotation), worth `upright_weight` nats: it decides where the committed
    tiles read the same in more than one turn (a palindrome like TOT across the centre). Ties keep
    `current`."""
    index = {c: i for i, c in enumerate(snap.classes)}
    tiles = [(sq.row, sq.col, index[BLANK_TILE if t.blank else t.letter]) for sq, t in board.items()
             if (BLANK_TILE if t.blank else t.letter) in index]
    if not tiles:
        return current if upright is None else upright % 4
    rows, cols, idx = (np.array(v) for v in zip(*tiles))
    logp = np.log(np.clip(snap.probs, 1e-6, 1.0))
    best, best_score = current % 4, None
    for k in [current % 4] + [k for k in range(4) if k != current % 4]:
        score = float(np.rot90(logp, k=k, axes=(0, 1))[rows, cols, idx].sum())
        if upright is not None and k == upright % 4:
            score += upright_weight
        if best_score is None or score > best_score:
            best, best_score = k, score
    return best
