"""Rectification: corners -> homography -> back, and the shared square crops."""
from __future__ import annotations

import cv2
import numpy as np
from hypothesis import given, settings, strategies as st

from tilecam.vision.rectify import GRID, grid_corners, homography_from_corners, square_crops, warp_board


@settings(derandomize=True, max_examples=200, deadline=None)
@given(side=st.floats(200, 1500), jitter=st.lists(st.floats(-80, 80), min_size=8, max_size=8),
       offset=st.tuples(st.floats(0, 500), st.floats(0, 500)), square_px=st.integers(8, 80))
def test_corners_roundtrip_within_half_a_pixel(side, jitter, offset, square_px):
    base = np.array([[0, 0], [1, 0], [1, 1], [0, 1]], np.float64) * side
    corners = base + np.array(jitter).reshape(4, 2) + np.array(offset)
    h = homography_from_corners(corners, square_px)
    there = cv2.perspectiveTransform(corners.reshape(-1, 1, 2), h).reshape(4, 2)
    np.testing.assert_allclose(there, grid_corners(square_px), atol=0.5)
    back = cv2.perspectiveTransform(there.reshape(-1, 1, 2), np.linalg.inv(h)).reshape(4, 2)
    np.testing.assert_allclose(back, corners, atol=0.5)


def test_warp_and_crops_have_the_canonical_shape():
    image = np.zeros((500, 600, 3), np.uint8)
    h = homography_from_corners(np.array([[50, 40], [550, 60], [540, 470], [60, 450]]), 20)
    warped = warp_board(image, h, 20)
    assert warped.shape == (GRID * 20, GRID * 20, 3)
    crops = square_crops(warped, 20)
    assert crops.shape == (GRID * GRID, 20, 20, 3)
    grey = square_crops(warped[..., 0], 20, margin_frac=0.0)
    assert grey.shape == (GRID * GRID, 20, 20, 3)


def test_crop_index_is_row_major():
    warped = np.zeros((GRID * 10, GRID * 10), np.uint8)
    warped[3 * 10:4 * 10, 7 * 10:8 * 10] = 255  # square (row 3, col 7)
    crops = square_crops(warped, 10, margin_frac=0.0)
    assert int(crops.reshape(GRID * GRID, -1).mean(axis=1).argmax()) == 3 * GRID + 7


def test_the_framed_warp_keeps_photo_round_the_grid_and_puts_a1_at_the_margin():
    """The evidence photo's board view (vision.rectify.warp_board_framed, called by the route
    /moves/{i}/frame.jpg?view=board through vision.draw.board_evidence): the grid where it belongs,
    the photo round it kept, beyond the photo the fill."""
    from tilecam.vision.rectify import warp_board_framed
    image = np.full((400, 400, 3), 200, np.uint8)
    image[100:300, 100:300] = 40                       # the board, 200 px a side at (100, 100)
    image[100:110, 100:110] = (0, 0, 255)              # A1's corner, red
    out = warp_board_framed(image, [[100, 100], [300, 100], [300, 300], [100, 300]], 10, 20)
    assert out.shape == (GRID * 10 + 40, GRID * 10 + 40, 3)
    assert tuple(out[22, 22]) == (0, 0, 255)             # A1 just inside the margin
    assert out[5, 5].tolist() == [200, 200, 200]        # the photo round the grid (the table)
    far = warp_board_framed(image, [[100, 100], [300, 100], [300, 300], [100, 300]], 10, 150)
    assert far[2, 2].tolist() == [90, 90, 90]           # past the photo's edge: the fill
