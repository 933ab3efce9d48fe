"""vision/locate/fix.py: the manual fallback. Four grid corners in any order become a fix of
quality 1 whose homography maps them onto the canonical grid; what is no quadrilateral is refused."""
from __future__ import annotations

import cv2
import numpy as np
import pytest

from tilecam.vision.errors import BoardNotFound
from tilecam.vision.locate.config import LocateConfig
from tilecam.vision.locate.fix import fix_from_corners, order_corners
from tilecam.vision.rectify import grid_corners

# a board seen at an angle: TL, TR, BR, BL in the image (y down)
CORNERS = np.float32([[110, 80], [520, 95], [560, 470], [70, 450]])


@pytest.mark.parametrize("order", [(0, 1, 2, 3), (2, 0, 3, 1), (3, 2, 1, 0), (1, 3, 0, 2)])
def test_corners_in_any_order_come_out_clockwise_from_the_top_left(order):
    assert np.array_equal(order_corners(CORNERS[list(order)]), CORNERS)


def test_a_board_turned_near_45_degrees_starts_at_the_corner_nearest_the_image_s_top_left():
    diamond = np.float32([[300, 50], [550, 300], [300, 550], [40, 300]])  # top, right, bottom, left
    assert np.array_equal(order_corners(diamond), diamond[[3, 0, 1, 2]])


def test_the_fix_maps_the_corners_onto_the_canonical_grid():
    cfg = LocateConfig()
    fix = fix_from_corners(CORNERS[::-1].tolist(), cfg)  # a list, counter-clockwise: as clicked
    assert fix.quality == 1.0 and np.array_equal(fix.corners, CORNERS)
    mapped = cv2.perspectiveTransform(CORNERS.reshape(-1, 1, 2).astype(np.float64), fix.homography).reshape(4, 2)
    assert np.allclose(mapped, grid_corners(cfg.square_px), atol=1e-3)


@pytest.mark.parametrize("corners", [
    [[0, 0], [10, 0], [10, 10]],                               # three
    [[0, 0], [10, 0], [10, 10], [0, float("nan")]],            # not finite
    [[0, 0], [10, 0], [20, 0], [30, 0]],                       # on one line
    [[0, 0], [100, 0], [50, 10], [50, 100]]],                  # not convex
    ids=["three", "nan", "line", "dart"])
def test_what_is_no_board_quadrilateral_is_refused(corners):
    with pytest.raises(BoardNotFound):
        fix_from_corners(corners, LocateConfig())
