"""BoardFix, the result of board localization, and the manual fallback from given corners."""
from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

from tilecam.vision.errors import BoardNotFound
from tilecam.vision.locate.config import LocateConfig
from tilecam.vision.rectify import homography_from_corners


@dataclass(frozen=True)
class BoardFix:
    """Where the grid is: outer grid corners, image -> canonical homography, fit quality."""

    corners: np.ndarray      # 4x2 float32, clockwise from the corner nearest the image's top-left
    homography: np.ndarray   # 3x3 float64, image -> canonical grid image (square_px per square)
    quality: float           # 0..1, fraction of line pieces where 16 equally spaced lines predict them


def order_corners(corners: np.ndarray) -> np.ndarray:
    """Clockwise (in image coordinates, y down) starting at the corner nearest (0, 0)."""
    c = np.asarray(corners, np.float64).reshape(4, 2)
    centre = c.mean(axis=0)
    ang = np.arctan2(c[:, 1] - centre[1], c[:, 0] - centre[0])
    c = c[np.argsort(ang)]  # increasing angle with y down = clockwise on screen
    start = int(np.argmin((c ** 2).sum(axis=1)))
    return np.roll(c, -start, axis=0).astype(np.float32)


def fix_from_corners(corners, cfg: LocateConfig) -> BoardFix:
    """Manual fallback: 4 clicked or calibrated grid corners in any order -> a fix of quality 1."""
    c = np.asarray(corners, np.float64).reshape(-1, 2)
    if c.shape != (4, 2) or not np.isfinite(c).all():
        raise BoardNotFound("need 4 finite corner points")
    c = order_corners(c)
    if abs(cv2.contourArea(c)) < 1.0 or not cv2.isContourConvex(c.reshape(-1, 1, 2)):
        raise BoardNotFound("corners do not form a convex quadrilateral")
    return BoardFix(c, homography_from_corners(c, cfg.square_px), 1.0)
