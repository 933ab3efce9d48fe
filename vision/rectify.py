"""Rectification: image -> canonical top-down grid image -> 225 square crops.

The canonical grid image has ``square_px`` pixels per square and the 15x15 grid spans
(0, 0)..(15*square_px, 15*square_px). ``square_crops`` is the ONE crop function shared by
inference (vision) and training (models/): both must cut squares identically.
"""
from __future__ import annotations

import cv2
import numpy as np

GRID = 15


def grid_corners(square_px: float) -> np.ndarray:
    """The 4 outer grid corners in the canonical image, clockwise from top-left."""
    s = GRID * float(square_px)
    return np.array([[0, 0], [s, 0], [s, s], [0, s]], np.float32)


def homography_from_corners(corners: np.ndarray, square_px: float) -> np.ndarray:
    """Homography mapping image points to the canonical grid image.

    ``corners`` are the 4 outer grid corners in the image, in the order that should become
    top-left, top-right, bottom-right, bottom-left of the canonical image.
    """
    src = np.asarray(corners, np.float64).reshape(4, 2)
    dst = grid_corners(square_px).astype(np.float64)
    h = cv2.getPerspectiveTransform(src.astype(np.float32), dst.astype(np.float32))
    return (h / h[2, 2]).astype(np.float64)


def warp_board(image: np.ndarray, homography: np.ndarray, square_px: int) -> np.ndarray:
    """The canonical top-down grid image, (15*square_px)^2 pixels."""
    n = GRID * int(square_px)
    return cv2.warpPerspective(image, np.asarray(homography, np.float64), (n, n),
                               flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)


def square_crops(warped: np.ndarray, square_px: int, margin_frac: float = 0.1) -> np.ndarray:
    """225 crops, row-major (index = row*15 + col), each s x s with s = square_px.

    Each crop is the square grown by ``margin_frac`` of a square on every side (tiles stand
    up and lean, so their tops spill over the grid line) and resized back to s x s.
    Grey images are returned as 3 channels so callers see one layout.
    """
    s = int(square_px)
    if warped.ndim == 2:
        warped = cv2.cvtColor(warped, cv2.COLOR_GRAY2BGR)
    m = int(round(margin_frac * s))
    # Pad by replication so border squares get the same margin as inner ones.
    padded = cv2.copyMakeBorder(warped, m, m, m, m, cv2.BORDER_REPLICATE) if m > 0 else warped
    side = s + 2 * m
    out = np.empty((GRID * GRID, s, s, 3), warped.dtype)
    for r in range(GRID):
        for c in range(GRID):
            crop = padded[r * s:r * s + side, c * s:c * s + side]
            if side != s:
                crop = cv2.resize(crop, (s, s), interpolation=cv2.INTER_AREA)
            out[r * GRID + c] = crop
    return out
