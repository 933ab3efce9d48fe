"""vision/locate/fix.py: the manual fallback. Four grid corners in any order become a fix of
quality 1 whose homography maps them onto the canonical grid; what is no quadrilateral is refused."""
from __future__ import annotations

import cv2
import numpy as np
import pytest

from tilecam.vision.errors import BoardNotFound
from tilecam.vision.locate import LocateConfig, fix_from_corners, order_corners

# a board seen at an angle: TL, TR, BR, BL in the image (y down)
CORNERS = np.float32([[110, 80], [520, 95], [560, 470], [70, 450]])


def test_fix_from_corners_orders_and_maps():
    cfg = LocateConfig(square_px=30)
    pts = [[900, 880], [100, 120], [880, 90], [130, 910]]
    fix = fix_from_corners(pts, cfg)
    assert fix.quality == 1.0
    np.testing.assert_allclose(fix.corners, [[100, 120], [880, 90], [900, 880], [130, 910]])
    mapped = cv2.perspectiveTransform(fix.corners.reshape(-1, 1, 2).astype(np.float64), fix.homography)
    np.testing.assert_allclose(mapped.reshape(4, 2), [[0, 0], [450, 0], [450, 450], [0, 450]], atol=1e-3)
    with pytest.raises(BoardNotFound):
        fix_from_corners([[0, 0], [1, 1], [2, 2]], cfg)


def test_order_corners_starts_nearest_top_left():
    c = order_corners(np.array([[50, 0], [100, 50], [50, 100], [0, 50]], np.float32))
    # a diamond: (0, 50) and (50, 0) are equally near; clockwise order is kept either way
    assert c.shape == (4, 2)
    d = np.diff(np.vstack([c, c[:1]]), axis=0)
    cross = d[:-1, 0] * d[1:, 1] - d[:-1, 1] * d[1:, 0]
    assert np.all(cross > 0)  # clockwise on screen (y down)


@pytest.mark.parametrize("order", [(0, 1, 2, 3), (2, 0, 3, 1), (3, 2, 1, 0), (1, 3, 0, 2)])
def test_corners_in_any_order_come_out_clockwise_from_the_top_left(order):
    assert np.array_equal(order_corners(CORNERS[list(order)]), CORNERS)


def test_a_board_turned_near_45_degrees_starts_at_the_corner_nearest_the_image_s_top_left():
    diamond = np.float32([[300, 50], [550, 300], [300, 550], [40, 300]])  # top, right, bottom, left
    assert np.array_equal(order_corners(diamond), diamond[[3, 0, 1, 2]])


@pytest.mark.parametrize("corners", [
    [[0, 0], [10, 0], [10, 10], [0, float("nan")]],            # not finite
    [[0, 0], [10, 0], [20, 0], [30, 0]],                       # on one line
    [[0, 0], [100, 0], [50, 10], [50, 100]]],                  # not convex
    ids=["nan", "line", "dart"])
def test_what_is_no_board_quadrilateral_is_refused(corners):
    with pytest.raises(BoardNotFound):
        fix_from_corners(corners, LocateConfig())
