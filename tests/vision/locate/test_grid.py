"""vision/locate/grid.py: a grid given by its four outer corners, warped with a margin of whole
squares, and slid along its own axes by whole squares (also when seen at an angle)."""
from __future__ import annotations

import cv2
import numpy as np

from tilecam.vision.locate.grid import grid_warp, slide

SQUARE = np.float32([[100, 100], [400, 100], [400, 400], [100, 400]])  # 15 squares of 20 px
ANGLED = np.float32([[110, 80], [520, 95], [560, 470], [70, 450]])


def test_a_slide_moves_the_grid_by_whole_squares():
    assert np.allclose(slide(SQUARE, 1, 0), SQUARE + [20, 0], atol=1e-3)
    assert np.allclose(slide(SQUARE, -2, 3), SQUARE + [-40, 60], atol=1e-3)
    assert np.allclose(slide(ANGLED, 0, 0), ANGLED, atol=1e-3)


def test_a_slide_at_an_angle_follows_the_grid_s_own_lines():
    there, back = slide(ANGLED, 2, 1), slide(slide(ANGLED, 2, 1), -2, -1)
    assert np.allclose(back, ANGLED, atol=1e-2)
    unit = np.float32([[0, 0], [15, 0], [15, 15], [0, 15]])
    h = cv2.getPerspectiveTransform(ANGLED, unit)  # in the grid's own squares the move is (2, 1)
    moved = cv2.perspectiveTransform(there.reshape(-1, 1, 2), h).reshape(4, 2)
    assert np.allclose(moved, unit + [2, 1], atol=1e-3)


def test_the_warp_puts_the_grid_inside_its_margin():
    img = np.zeros((500, 500, 3), np.uint8)
    cv2.rectangle(img, (100, 100), (400, 400), (255, 255, 255), -1)  # the board, white
    hw, warp = grid_warp(img, SQUARE, sq=10, m=2)
    assert warp.shape[:2] == (190, 190)  # (15 + 2 * 2) squares of 10 px
    corners = cv2.perspectiveTransform(SQUARE.reshape(-1, 1, 2), hw).reshape(4, 2)
    assert np.allclose(corners, [[20, 20], [170, 20], [170, 170], [20, 170]], atol=1e-3)
    assert warp[95, 95].min() == 255 and warp[5, 5].max() == 0  # the board inside, the table in the margin
