"""The grid of a frame that already shows the board from above, edge to edge (ScrabScrap's
800x800 warps, ``--prewarped``): no search, the 16 lines fitted to the darkness profile."""
from __future__ import annotations

import cv2
import numpy as np

from tilecam.vision.rectify import GRID


def prewarped_corners(image: np.ndarray, inset_frac: float = 0.03,
                      search_frac: float = 0.02) -> np.ndarray:
    """Grid corners of an image that already shows the board from above, edge to edge
    (ScrabScrap's 800x800 warps): the 16 grid lines are fitted to the darkness profile along
    each axis, searching offsets near ``inset_frac`` of the side and a period near side/15.5."""
    gray = cv2.cvtColor(image, cv2.COLOR_BGR2GRAY) if image.ndim == 3 else image
    gray = gray.astype(np.float32)
    fits = []
    for axis, size in ((0, gray.shape[1]), (1, gray.shape[0])):
        # median across the board: a hand or a row of tiles covers less than half of it;
        # minus a running mean: only line-sized dips count, not lighting or tile blocks
        profile = np.median(gray, axis=axis)
        k = max(3, int(size / GRID / 2) | 1)
        profile = profile - np.convolve(np.pad(profile, k // 2, mode="edge"), np.ones(k) / k, "valid")
        xs = np.arange(size, dtype=np.float64)
        offsets = np.arange(max(0.0, (inset_frac - search_frac) * size),
                            (inset_frac + search_frac) * size, 0.25)
        nominal = size * (1 - 2 * inset_frac) / GRID
        periods = np.arange(0.96 * nominal, 1.04 * nominal, 0.05)
        o, p = np.meshgrid(offsets, periods, indexing="ij")
        lines = o[..., None] + p[..., None] * np.arange(GRID + 1)
        valid = lines[..., -1] < size - 1
        score = np.interp(lines, xs, profile).mean(axis=-1)
        score[~valid] = np.inf
        i, j = np.unravel_index(np.argmin(score), score.shape)
        fits.append((offsets[i], offsets[i] + GRID * periods[j]))
    (x0, x1), (y0, y1) = fits
    return np.array([[x0, y0], [x1, y0], [x1, y1], [x0, y1]], np.float32)
