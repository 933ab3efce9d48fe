"""The premium-square pattern: the whole-square slide at which the board's premium colours fit best."""
from __future__ import annotations

import numpy as np

from tilecam.scoring import LAYOUTS
from tilecam.vision.locate.config import LocateConfig
from tilecam.vision.locate.grid import grid_warp
from tilecam.vision.rectify import GRID

# Premium squares by kind (0 plain, 1 double word and the star, 2 triple word, 3 triple letter,
# 4 double letter): every Scrabble board prints them in its own colours at the same places.
PREMIUM_KIND = np.array([[{" ": 0, "-": 1, "*": 1, "=": 2, '"': 3, "'": 4}[ch] for ch in row]
                         for row in LAYOUTS["standard"].rows], np.int64)
_KIND_ONEHOT = np.eye(5)[PREMIUM_KIND.ravel()]                  # (225, 5)
_KIND_COUNTS = _KIND_ONEHOT.sum(axis=0)


def _premium_fits(cells: np.ndarray, m: int) -> np.ndarray:
    """How well the premium kinds explain the square colours (R^2: high where the premium squares
    of each kind share a colour, as on the grid's true place), for every 15x15 window of a
    (15+2m)x(15+2m) array of square colours at once: fits[m + dy, m + dx] is the fit of the grid
    slid by (dx, dy)."""
    k = 2 * m + 1
    win = np.lib.stride_tricks.sliding_window_view(cells, (GRID, GRID), axis=(0, 1))  # (k, k, ch, 15, 15)
    x = win.reshape(k * k, cells.shape[-1], GRID * GRID).astype(np.float64)
    mean = x.mean(axis=2)
    total = ((x - mean[..., None]) ** 2).sum(axis=(1, 2))
    sums = x @ _KIND_ONEHOT                                                          # (k*k, ch, 5)
    between = ((sums ** 2) / _KIND_COUNTS).sum(axis=(1, 2)) - x.shape[2] * (mean ** 2).sum(axis=1)
    fits = np.where(total > 1e-6, between / np.maximum(total, 1e-6), 0.0)
    return fits.reshape(k, k)


def premium_shift(image: np.ndarray, corners: np.ndarray, cfg: LocateConfig) -> tuple[int, int]:
    """The whole-square slide (dx, dy) at which the board's premium-square pattern fits clearly
    better than at the given grid, else (0, 0).

    Line pieces cannot tell a grid from the same grid one square over when an arm hides the
    outer row on one side and the rim on the other side looks like one more row. The premium
    squares can: the layout is the same on every board, and only the true place puts all
    triple words on one colour, all double letters on another, and so on."""
    m, sq = cfg.max_shift_squares - 1, 12
    _, warp = grid_warp(image, corners, sq, m)
    k = GRID + 2 * m
    lo, hi = sq // 4, sq - sq // 4  # the middle of each square: no lines, little tile lean
    cells = warp.reshape(k, sq, k, sq, -1)[:, lo:hi, :, lo:hi].mean(axis=(1, 3))
    fits = _premium_fits(cells, m)
    iy, ix = np.unravel_index(int(fits.argmax()), fits.shape)   # the first best, dy then dx
    top = float(fits[iy, ix])
    if (ix, iy) != (m, m) and top >= cfg.premium_min_fit and top >= float(fits[m, m]) + cfg.premium_margin:
        return int(ix - m), int(iy - m)
    return 0, 0
