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
