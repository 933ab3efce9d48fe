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


def warp_board(image: np.ndarray, homography: np.ndarray, square_px: int, out_px: int | None = None) -> np.ndarray:
    """The canonical top-down grid image, (15*square_px)^2 pixels; the one warp (training's too).

    ``out_px``: the same view shrunk to out_px^2 pixels in the warp itself (area sampling), for a
    cheap per-frame look (the stability gate)."""
    h = np.asarray(homography, np.float64)
    n = GRID * int(square_px)
    if out_px is None:
        return cv2.warpPerspective(image, h, (n, n), flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
    scale = np.diag([out_px / n, out_px / n, 1.0])
    return cv2.warpPerspective(image, scale @ h, (int(out_px), int(out_px)), flags=cv2.INTER_AREA,
                               borderMode=cv2.BORDER_REPLICATE)


def warp_board_framed(image: np.ndarray, corners, square_px: int, margin_px: int,
                      fill: tuple[int, int, int] = (90, 90, 90)) -> np.ndarray:
    """The board whose outer grid corners are `corners` (in the image; the first becomes the
    top-left) warped upright at `square_px` a square, with `margin_px` of the photo kept round the
    grid (tiles lean, and an edge row's tops stand past the line); beyond the photo, `fill`.
    Square A1's top-left corner lands at (margin_px, margin_px). An evidence photo's board view."""
    grid = homography_from_corners(np.asarray(corners, np.float32), square_px)
    shift = np.array([[1, 0, margin_px], [0, 1, margin_px], [0, 0, 1]], np.float64)
    side = GRID * int(square_px) + 2 * int(margin_px)
    return cv2.warpPerspective(image, shift @ grid, (side, side), flags=cv2.INTER_LINEAR,
                               borderMode=cv2.BORDER_CONSTANT, borderValue=fill)


def image_corners(homography: np.ndarray, square_px: float) -> np.ndarray:
    """The 4 outer grid corners in the image (TL, TR, BR, BL of the canonical grid image)."""
    inv = np.linalg.inv(np.asarray(homography, np.float64))
    return cv2.perspectiveTransform(grid_corners(square_px)[:, None].astype(np.float64), inv)[:, 0]


def turn_corners(corners: np.ndarray, quarter_turns: int) -> np.ndarray:
    """Corners TL, TR, BR, BL of the grid image as those of the board turned by k quarter turns
    (np.rot90's k, as scoring.snapshot.Snapshot.turned): the turned board's corner i is the
    image's corner i + k."""
    return np.roll(np.asarray(corners).reshape(4, 2), -(quarter_turns % 4), axis=0)


def game_squares(size: int, quarter_turns: int) -> np.ndarray:
    """For each square of the grid image (row-major), the square of the board turned by k quarter
    turns (np.rot90's k) that it shows, row-major: image square i holds game square out[i]."""
    return np.rot90(np.arange(size * size).reshape(size, size), k=-(quarter_turns % 4)).ravel()


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
