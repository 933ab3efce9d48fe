"""vision/locate/periodic.py: sixteen equally spaced lines per axis found inside a rough quad (a
board's rim, wider than its grid), at an angle too, with a quality that says how well they fit."""
from __future__ import annotations

import cv2
import numpy as np
import pytest

from tilecam.vision.locate import LocateConfig
from tilecam.vision.locate.periodic import periodic_fit

UNIT = np.float32([[0, 0], [15, 0], [15, 15], [0, 15]])


def board(grid: np.ndarray, lines: bool = True) -> np.ndarray:
    """A light board on a dark table, its grid `grid`; its rim stands past the grid one square on
    three sides and one and a half on the right (no board is exact)."""
    img = np.full((640, 640), 60, np.uint8)
    hm = cv2.getPerspectiveTransform(UNIT, grid)
    rim = cv2.perspectiveTransform((UNIT + np.float32([[-1, -1], [1.5, -1], [1.5, 1], [-1, 1]])).reshape(-1, 1, 2),
                                   hm).reshape(4, 2)
    cv2.fillConvexPoly(img, np.int32(np.round(rim)), 200)
    for k in range(16) if lines else ():
        for a, b in (((k, 0), (k, 15)), ((0, k), (15, k))):
            pa, pb = cv2.perspectiveTransform(np.float32([[a, b]]), hm)[0]
            cv2.line(img, tuple(np.int32(np.round(pa))), tuple(np.int32(np.round(pb))), 90, 2, cv2.LINE_AA)
    return img, rim


def error_in_squares(found: np.ndarray, grid: np.ndarray) -> float:
    side = float(np.linalg.norm(grid - np.roll(grid, -1, 0), axis=1).mean()) / 15
    return float(np.linalg.norm(found - grid, axis=1).max()) / side


@pytest.mark.parametrize("grid", [
    np.float32([[95, 95], [545, 95], [545, 545], [95, 545]]),     # from straight above
    np.float32([[130, 90], [520, 110], [560, 540], [80, 500]])],  # at an angle
    ids=["above", "angle"])
def test_the_grid_inside_the_rim_is_found(grid):
    img, rim = board(grid)
    corners, quality = periodic_fit(img, rim, LocateConfig())
    assert error_in_squares(corners, grid) < 0.15 and quality > 0.5


def test_a_quad_without_lines_fits_poorly():
    grid = np.float32([[95, 95], [545, 95], [545, 545], [95, 545]])
    lined, rim = board(grid)
    blank, _ = board(grid, lines=False)
    cfg = LocateConfig()
    assert periodic_fit(blank, rim, cfg)[1] < periodic_fit(lined, rim, cfg)[1] - 0.3
