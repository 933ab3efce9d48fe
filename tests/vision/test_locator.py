"""vision/locator.py: the one interface every locator keeps (Located with a 3x3 homography or none),
a fixed camera's corners mapped onto the canonical grid, and a pre-warped source located once."""
from __future__ import annotations

import cv2
import numpy as np
import pytest

from tilecam.vision.locator import FixedBoard, Located, PrewarpedBoard
from tilecam.vision.rectify import grid_corners

SQUARE_PX = 20
CORNERS = np.array([[112.0, 80.0], [530.0, 95.0], [545.0, 470.0], [98.0, 455.0]], np.float32)


def test_a_located_board_has_a_3x3_homography_or_none():
    assert Located("lost", None, 0.0, SQUARE_PX).homography is None
    with pytest.raises(ValueError, match="3x3"):
        Located("tracked", np.eye(2), 1.0, SQUARE_PX)


def test_a_fixed_camera_maps_its_corners_onto_the_grid_whatever_the_frame():
    board = FixedBoard(CORNERS, SQUARE_PX)
    for frame in (np.zeros((600, 640, 3), np.uint8), np.full((600, 640, 3), 255, np.uint8)):
        found = board.update(frame)
        assert (found.state, found.quality, found.square_px) == ("tracked", 1.0, SQUARE_PX)
        mapped = cv2.perspectiveTransform(CORNERS.reshape(-1, 1, 2).astype(np.float64), found.homography)
        assert np.allclose(mapped.reshape(4, 2), grid_corners(SQUARE_PX), atol=1e-3)


def grid_image(side: int = 800, inset: int = 24) -> np.ndarray:
    """A board shown edge to edge: 16 dark grid lines on light squares, ScrabScrap's warps' shape."""
    img = np.full((side, side, 3), 200, np.uint8)
    step = (side - 2 * inset) / 15
    for i in range(16):
        at = round(inset + i * step)
        cv2.line(img, (at, 0), (at, side - 1), (40, 40, 40), 3)
        cv2.line(img, (0, at), (side - 1, at), (40, 40, 40), 3)
    return img


def test_a_prewarped_source_is_located_on_its_first_frame_and_then_stays():
    board = PrewarpedBoard(SQUARE_PX)
    first = board.update(grid_image())
    later = board.update(np.zeros((800, 800, 3), np.uint8))  # a dark frame moves nothing
    assert first.state == later.state == "tracked" and np.array_equal(first.homography, later.homography)
    corner = cv2.perspectiveTransform(np.array([[[24.0, 24.0]]]), first.homography)[0, 0]
    assert np.allclose(corner, grid_corners(SQUARE_PX)[0], atol=SQUARE_PX / 4)  # the grid's top-left
