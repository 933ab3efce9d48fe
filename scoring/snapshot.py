"""A stable board snapshot as the tile reader saw it: per-square class probabilities.

Vision produces it; move decoding consumes it. It lives in scoring so that scoring
never imports vision.

Orientation is decided here, on the probabilities alone; vision's part is what needs pixels
(each tile's rotation probabilities, and the grid corners in the photo). Quarter turns k are
np.rot90's (counter-clockwise): a board whose print lies turned k quarter turns clockwise in the
image is read in game orientation (row 1 at the top, column A at the left) by `turned(k)`.
`board_turns` is the one rule every caller uses (the station, `tilecam read`, self-enrolment): before
the first play `upright_turns` finds k from the letters' rotations; once tiles are committed,
`turns_to_fit` finds it from them. `occupied` is the one test of "does this square hold a tile".
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

__all__ = ["BLANK_TILE", "EMPTY", "Snapshot", "board_turns", "classes_for", "occupied", "turns_to_fit",
           "upright_turns"]

EMPTY = "."
BLANK_TILE = "?"


@dataclass(frozen=True, eq=False)
class Snapshot:
    classes: tuple[str, ...]   # labels of the last axis of probs: EMPTY, BLANK_TILE, then letters
    probs: np.ndarray          # (rows, cols, len(classes)) float32; each square sums to 1
    t: float = 0.0             # seconds since the recording started
    frame_index: int = -1
    meta: dict = field(default_factory=dict)   # e.g. orientation, corners, reader version
    # (rows, cols, 4) probability that a square's letter is turned k quarter turns clockwise, as
    # the reader saw it; None when the reader gives no rotations.
    rotations: np.ndarray | None = None
    # (rows, cols, 2) the class index each reader alone names on a square, the classifier's then
    # the text recogniser's (-1: that reader did not read it). Two readers that fail differently
    # naming one letter is evidence a table can learn from (scoring.trust); None without a second reader.
    readers: np.ndarray | None = None

    def __post_init__(self) -> None:
        # A wrong shape is the producer's bug, so a plain ValueError (no ScoringError) where it is made.
        if self.probs.ndim != 3 or self.probs.shape[2] != len(self.classes):
            raise ValueError(f"probs shape {self.probs.shape} does not match {len(self.classes)} classes")
        if self.rotations is not None and self.rotations.shape != (*self.probs.shape[:2], 4):
            raise ValueError(f"rotations shape {self.rotations.shape} is not {(*self.probs.shape[:2], 4)}")
        if self.readers is not None and self.readers.shape != (*self.probs.shape[:2], 2):
            raise ValueError(f"readers shape {self.readers.shape} is not {(*self.probs.shape[:2], 2)}")

    def turned(self, quarter_turns: int) -> "Snapshot":
        """The snapshot turned k quarter turns counter-clockwise (np.rot90's k): squares move, and
        each letter's rotation goes down by k. meta["quarter_turns"] keeps the total turn from the
        reader's orientation."""
        k = quarter_turns % 4
        if k == 0:
            return self
        rotations = None
        if self.rotations is not None:
            # a letter turned r clockwise is turned r - k once the board turns k counter-clockwise
            rotations = np.ascontiguousarray(np.roll(np.rot90(self.rotations, k, axes=(0, 1)), -k, axis=2))
        meta = {**self.meta, "quarter_turns": (self.meta.get("quarter_turns", 0) + k) % 4}
        readers = None if self.readers is None else np.ascontiguousarray(np.rot90(self.readers, k, axes=(0, 1)))
        return Snapshot(self.classes, np.ascontiguousarray(np.rot90(self.probs, k, axes=(0, 1))), self.t,
                        self.frame_index, meta, rotations, readers)

    def named_by(self, row: int, col: int) -> tuple[str, str]:
        """The letters the classifier and the recogniser each named alone on a square ('' for none)."""
        if self.readers is None:
            return ("", "")
        return tuple(self.classes[i] if i >= 0 else "" for i in self.readers[row, col])

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


def occupied(snap: Snapshot, min_prob: float = 0.5) -> np.ndarray:
    """(rows, cols) whether each square holds a tile: its probability of holding one (anything but
    empty) is above `min_prob`. Every "is this square occupied" in scoring asks this, with its own
    threshold (a new tile in decode, the fusion's flip, the replay's boards)."""
    return 1.0 - snap.probs[..., snap.classes.index(EMPTY)] > min_prob


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


def upright_turns(snap: Snapshot, min_share: float = 0.5, min_lead: float = 2.0) -> int | None:
    """The quarter turns (np.rot90's k) that make the tiles' letters upright, from their rotation
    votes; None without rotations, without lettered tiles, or without a clear majority: the
    winning turn must hold more than `min_share` of the votes and `min_lead` times the runner-up's.

    Each square that reads as a lettered tile votes with its rotation probabilities, weighted by
    its probability of holding one (a blank carries no letter, an empty square no tile)."""
    if snap.rotations is None:
        return None
    classes = list(snap.classes)
    probs = snap.probs.reshape(-1, len(classes))
    lettered = 1.0 - probs[:, classes.index(EMPTY)]
    if BLANK_TILE in classes:
        lettered = lettered - probs[:, classes.index(BLANK_TILE)]
    best = probs.argmax(axis=1)
    blank = classes.index(BLANK_TILE) if BLANK_TILE in classes else -1
    occupied = (best != classes.index(EMPTY)) & (best != blank)
    if not occupied.any():
        return None
    rot = snap.rotations.reshape(-1, 4)[occupied]
    votes = (rot * np.clip(lettered[occupied], 0.0, 1.0)[:, None]).sum(axis=0)
    total = float(votes.sum())
    if total <= 0:
        return None
    order = np.argsort(-votes)
    win, second = float(votes[order[0]]), float(votes[order[1]])
    if win <= min_share * total or win < min_lead * second:
        return None
    return int(order[0])



def board_turns(snap: Snapshot, board=None, current: int | None = None, min_share: float = 0.5,
                min_lead: float = 2.0) -> int | None:
    """The quarter turns (np.rot90's k) that put a snapshot read in the camera's orientation into
    game orientation: the one orientation rule. With tiles committed on `board` (a
    scoring.board.Board), the turn in which they are read most likely (`turns_to_fit`, the letters'
    upright turn breaking ties); before that, the letters' upright turn (`upright_turns`, with its
    `min_share` and `min_lead`), else `current` (None: not known yet)."""
    upright = upright_turns(snap, min_share, min_lead)
    if board is not None and len(board):
        return turns_to_fit(snap, board, current or 0, upright)
    return current if upright is None else upright
