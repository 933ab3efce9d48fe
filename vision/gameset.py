"""The game's tiles are one set, all game long (issue 28).

Every tile a game commits is one physical tile of one bag: each letter has at most its count of
them (a blank is a tile of its own, '?', whatever letter it stands for). ``GameTiles`` keeps every
committed tile of the game, by square: its look (a unit embedding in the network's space, from the
snapshot it was committed at) and the readers' evidence (the log-probabilities over the tile
classes, summed over every snapshot since). When more of a tile is recorded, or read, than the bag
has, a reading was wrong (the record keeps within the set, so a misread mostly shows in the
readings: an X read as Z beside the game's Z, one of them committed as something else); the tiles
are then assigned to letters under the counts (the tile check's assignment,
``vision.enroll.assign_counts``, with the counts as upper bounds), and the committed tiles in doubt
that the assignment gives another tile are what changed:
the recorder re-decides the plays they belong to (a camera correction on the review queue), and
the reader reads those squares with the assigned letter from then on. The same counts gate what
the table learns: a label the counts contradict is never taught.

numpy only: the tile reader's outputs come in as arrays; no scoring import (the distribution
comes in as a mapping).
"""
from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from typing import Mapping, Sequence

import numpy as np

from tilecam.scoring import BLANK_TILE, kind_then_letter, lettered_log

from .enroll import EMPTY, EnrollConfig, assign_counts

__all__ = ["GameTiles", "Retile", "over_counts"]


@dataclass(frozen=True)
class Retile:
    """A committed tile the game's assignment reads as another tile: `square` the board square
    index (row * size + col, game orientation), `was` the record's tile, `now` the assigned one
    ('?' a blank), `prob` the assignment's soft weight on it."""

    square: int
    was: str
    now: str
    prob: float


def over_counts(tiles: Sequence[str], distribution: Mapping[str, int]) -> set[str]:
    """The tiles (letters, '?') the record holds more of than the bag has: the counts contradict it."""
    held = Counter(tiles)
    return {t for t, n in held.items() if n > int(distribution.get(t, 0))}


class GameTiles:
    """The committed tiles of one game with their looks and readings (see the module).

    `classes`: the reader's classes (EMPTY among them); `distribution`: tile -> count;
    `min_prob`: a committed tile is re-assigned only when the assignment's soft weight on the
    new tile is at least this (a count says *that* a reading is wrong; the looks and readings
    must agree on *which* and *what*)."""

    def __init__(self, classes: Sequence[str], distribution: Mapping[str, int], cfg: EnrollConfig | None = None,
                 min_prob: float = 0.5) -> None:
        self.classes = list(classes)
        self.tile_classes = [c for c in self.classes if c != EMPTY]
        self._cols = [self.classes.index(c) for c in self.tile_classes]
        self.counts = np.array([max(int(distribution.get(c, 0)), 0) for c in self.tile_classes], np.float64)
        self.distribution = dict(distribution)
        self.cfg = cfg or EnrollConfig()
        self.min_prob = min_prob
        self._emb: dict[int, np.ndarray] = {}
        self._log: dict[int, np.ndarray] = {}
        self._lettered: dict[int, float] = {}   # summed log P(a lettered tile) (scoring.lettered_log)
        self._letters = np.array([i for i, c in enumerate(self.tile_classes) if c != BLANK_TILE], int)
        self._pinned: dict[int, str] = {}   # tiles an operator named: their word, never re-assigned

    def __len__(self) -> int:
        return len(self._emb)

    def keep(self, squares: Sequence[int]) -> None:
        """Forget tiles no longer on the board (a phony withdrawn, a play voided)."""
        gone = set(self._emb) - set(int(s) for s in squares)
        for sq in gone:
            self._emb.pop(sq, None)
            self._log.pop(sq, None)
            self._lettered.pop(sq, None)
            self._pinned.pop(sq, None)

    def pin(self, square: int, tile: str) -> None:
        """An operator named this tile: the assignment takes it as known, and never re-assigns it."""
        self._pinned[int(square)] = tile

    def look(self, squares: Sequence[int], embeddings: np.ndarray) -> None:
        """The looks of newly committed tiles (unit embeddings, one row per square); a tile
        already known keeps its first look (the snapshot it was committed at)."""
        for sq, e in zip(squares, np.asarray(embeddings, np.float64)):
            if int(sq) not in self._emb:
                self._emb[int(sq)] = e / max(float(np.linalg.norm(e)), 1e-9)

    def missing(self, squares: Sequence[int]) -> list[int]:
        """Of `squares`, those whose look is not known yet."""
        return [int(s) for s in squares if int(s) not in self._emb]

    def read(self, squares: Sequence[int], probs: np.ndarray) -> None:
        """One snapshot's readings of committed tiles ((n, K) over `classes`), added to their evidence."""
        p = np.asarray(probs, np.float64)[:, self._cols]
        p = p / np.maximum(p.sum(axis=1, keepdims=True), 1e-12)
        for sq, row, lettered in zip(squares, np.log(p + 1e-6), lettered_log(p, self._letters)):
            sq = int(sq)
            self._log[sq] = self._log.get(sq, 0.0) + row
            self._lettered[sq] = self._lettered.get(sq, 0.0) + float(lettered)

    def _summed(self, sq: int) -> np.ndarray:
        """A tile's readings over the game as probabilities over `tile_classes`, summed as the board
        belief sums them (scoring.kind_then_letter): reads naming two letters never make it a blank."""
        return kind_then_letter(self._log[sq], np.float64(self._lettered[sq]), self._letters)

    def assign(self) -> tuple[list[int], list[str], np.ndarray]:
        """Every known tile assigned under the counts (upper bounds): (squares, tiles, soft weights
        (n, L)); a tile the counts leave no room for is '' (more tiles than the bag)."""
        squares = sorted(sq for sq in self._emb if sq in self._log)
        if not squares:
            return [], [], np.zeros((0, len(self.tile_classes)))
        p = np.stack([self._summed(sq) for sq in squares])
        for i, sq in enumerate(squares):
            if self._pinned.get(sq) in self.tile_classes:
                p[i] = np.where(np.arange(len(self.tile_classes)) == self.tile_classes.index(self._pinned[sq]),
                                1.0, np.exp(-30.0))
        emb = np.stack([self._emb[sq] for sq in squares])
        assigned, soft = assign_counts(p, emb, self.counts, self.cfg, upper_bounds=True)
        return squares, [self.tile_classes[j] if j >= 0 else "" for j in assigned], soft

    def evidence(self) -> dict[int, np.ndarray]:
        """Each known tile's readings over the game as probabilities over `tile_classes`."""
        return {sq: self._summed(sq) for sq in self._log}

    def readings(self) -> dict[int, str]:
        """What the readers say each known tile is (the most likely tile over all its reads)."""
        return {sq: self.tile_classes[int(np.argmax(self._summed(sq)))] for sq in self._log}

    def doubtful(self, committed: Mapping[int, str]) -> set[int]:
        """The committed squares the counts put in doubt: the record holds more of their tile than
        the bag has, or the readers read more of the tile they read there than the bag has (the
        record keeps within the set, so a misread shows as readings over a count: an X read Z beside
        the game's Z, one of them committed as something else)."""
        over_record = over_counts(list(committed.values()), self.distribution)
        read = {sq: t for sq, t in self.readings().items() if sq in committed}
        over_read = over_counts(list(read.values()), self.distribution)
        return {sq for sq, t in committed.items() if t in over_record or read.get(sq) in over_read}

    def contradicted(self, committed: Mapping[int, str]) -> list[Retile]:
        """The committed tiles (square -> tile, '?' a blank) the counts say were misread: of the
        tiles in doubt (``doubtful``), those the assignment under the counts gives another tile
        with at least `min_prob`. Nothing when no count is exceeded."""
        doubt = self.doubtful(committed) - set(self._pinned)
        if not doubt:
            return []
        squares, tiles, soft = self.assign()
        out = []
        for i, (sq, now) in enumerate(zip(squares, tiles)):
            was = committed.get(sq)
            if sq in doubt and now and now != was:
                prob = float(soft[i, self.tile_classes.index(now)])
                if prob >= self.min_prob:
                    out.append(Retile(sq, was, now, round(prob, 4)))
        return out

    def agrees(self, committed: Mapping[int, str]) -> set[int]:
        """The committed squares whose tile the assignment under the counts confirms with at least
        `min_prob`, out of doubt (what a finished board may teach whatever one read says)."""
        doubt = self.doubtful(committed)
        squares, tiles, soft = self.assign()
        return {sq for i, (sq, now) in enumerate(zip(squares, tiles))
                if committed.get(sq) == now and sq not in doubt
                and soft[i, self.tile_classes.index(now)] >= self.min_prob}
