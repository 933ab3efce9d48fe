"""Board tracking for a fixed camera: reuse the last fix, check it cheaply, re-detect on change.

The per-frame check warps the frame with the last homography onto a small canvas and
measures how much edge response sits on the 32 predicted grid lines versus the mid-squares,
piece by piece. When enough pieces still show their line, the board has not moved. When
they do not, a cold detection decides: found elsewhere = the board moved ('redetected');
found in place or not found = something covers it ('occluded', the last fix is kept).
"""
from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np
from pydantic import BaseModel, ConfigDict, Field

from vision.errors import BoardNotFound
from vision.locate import GRID, LINES, BoardFix, LocateConfig, find_board


class TrackConfig(BaseModel):
    model_config = ConfigDict(extra="forbid")

    locate: LocateConfig = Field(default_factory=LocateConfig, description="settings of the cold detection")
    check_square_px: int = Field(8, description="pixels per square of the canvas the per-frame check uses")
    piece_ratio: float = Field(1.25, description="line over mid-square response a line piece needs to count as seen")
    min_seen_frac: float = Field(0.6, description="share of the reference's seen pieces below which the fix is doubted")
    moved_px: float = Field(3.0, description="corner shift, in image pixels, above which a re-detection counts as a move")


@dataclass(frozen=True)
class TrackResult:
    status: str               # 'tracked' | 'redetected' | 'occluded' | 'lost'
    fix: BoardFix | None
    seen_frac: float = 0.0    # share of line pieces seen by the cheap check (0 when it did not run)


def line_pieces_seen(image: np.ndarray, fix: BoardFix, square_px: int = 8, ratio: float = 1.25) -> float:
    """Share of the 2x16x15 grid-line pieces whose line is brighter in edges than the mid-squares."""
    s = square_px
    n = GRID * s + 1
    scale = np.diag([s / fix.square_px, s / fix.square_px, 1.0])
    small = cv2.warpPerspective(image, scale @ fix.homography, (n, n), flags=cv2.INTER_LINEAR)
    grey = cv2.cvtColor(small, cv2.COLOR_BGR2GRAY) if small.ndim == 3 else small
    grey = grey.astype(np.float32)
    gx = np.abs(cv2.Sobel(grey, cv2.CV_32F, 1, 0, ksize=3))
    gy = np.abs(cv2.Sobel(grey, cv2.CV_32F, 0, 1, ksize=3))
    lines = np.arange(LINES) * s
    mids = (np.arange(GRID) + 0.5).astype(np.float64) * s
    seen = 0
    for g in (gx, gy.T):
        band = g[:GRID * s].reshape(GRID, s, n).mean(axis=1)           # (15 pieces, n)
        # A line may sit a pixel off at this scale: take the best of 3 columns.
        on = np.max(np.stack([band[:, np.clip(lines + d, 0, n - 1)] for d in (-1, 0, 1)]), axis=0)
        off = band[:, mids.astype(int)].mean(axis=1, keepdims=True)
        seen += int((on > ratio * np.maximum(off, 1.0)).sum())
    return seen / (2 * LINES * GRID)


class BoardTracker:
    def __init__(self, cfg: TrackConfig | None = None) -> None:
        self.cfg = cfg or TrackConfig()
        self._fix: BoardFix | None = None
        self._ref_seen = 0.0

    @property
    def fix(self) -> BoardFix | None:
        return self._fix

    def _check(self, image: np.ndarray) -> float:
        return line_pieces_seen(image, self._fix, self.cfg.check_square_px, self.cfg.piece_ratio)

    def update(self, image: np.ndarray) -> TrackResult:
        cfg = self.cfg
        if self._fix is not None:
            seen = self._check(image)
            if seen >= cfg.min_seen_frac * self._ref_seen:
                return TrackResult("tracked", self._fix, seen)
        else:
            seen = 0.0
        try:
            fix = find_board(image, cfg.locate)
        except BoardNotFound:
            if self._fix is None:
                return TrackResult("lost", None, seen)
            return TrackResult("occluded", self._fix, seen)
        if self._fix is None:
            self._fix = fix
            self._ref_seen = self._check(image)
            return TrackResult("redetected", fix, self._ref_seen)
        shift = float(np.abs(fix.corners - self._fix.corners).max())
        new_seen = line_pieces_seen(image, fix, cfg.check_square_px, cfg.piece_ratio)
        if shift > cfg.moved_px:
            self._fix, self._ref_seen = fix, new_seen
            return TrackResult("redetected", fix, new_seen)
        # Found where it was, yet fewer lines show than before: something covers part of it.
        return TrackResult("occluded", self._fix, seen)
