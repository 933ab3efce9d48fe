"""A grid given by its four outer corners: its 16 lines, its warp with a margin, a slide by whole squares."""
from __future__ import annotations

import cv2
import numpy as np

from tilecam.vision.rectify import GRID

LINES = GRID + 1


def grid_warp(img: np.ndarray, corners: np.ndarray, sq: int, m: int) -> tuple[np.ndarray, np.ndarray]:
    """The grid warped to sq px per square with m squares of margin: (homography, warp)."""
    n = (GRID + 2 * m) * sq
    a, b = m * sq, n - m * sq
    dst = np.float32([[a, a], [b, a], [b, b], [a, b]])
    hw = cv2.getPerspectiveTransform(np.asarray(corners, np.float32), dst)
    return hw, cv2.warpPerspective(img, hw, (n, n), flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)


def slide(corners: np.ndarray, dx: int, dy: int) -> np.ndarray:
    """The grid moved by whole squares along its own axes (corners TL, TR, BR, BL of the fit)."""
    unit = np.float32([[0, 0], [GRID, 0], [GRID, GRID], [0, GRID]])
    h = cv2.getPerspectiveTransform(unit, np.asarray(corners, np.float32))
    return cv2.perspectiveTransform((unit + np.float32([dx, dy])).reshape(-1, 1, 2), h).reshape(4, 2)
