"""vision/locate/quads.py: rough board quadrilaterals, here the line segments' vanishing points."""
from __future__ import annotations

import cv2
import numpy as np

from tilecam.vision.locate import LocateConfig


def test_segment_quad_finds_a_steep_board():
    """A grazing view whose grid lines converge by ~35 degrees, on a striped floor: the
    vanishing-point quad of the line segments holds the grid (the periodic fit then finds it)."""
    from tilecam.vision.locate.quads import segment_quad

    cfg = LocateConfig()
    w, h = 640, 480
    img = np.full((h, w, 3), 90, np.uint8)
    for x in range(0, w, 7):  # floor texture in one direction
        cv2.line(img, (x, 0), (x + 200, h), (70, 70, 70), 1)
    grid = np.float32([[0, 0], [15, 0], [15, 15], [0, 15]])
    quad = np.float32([[200, 80], [440, 80], [600, 420], [40, 420]])  # sides converge strongly
    hm = cv2.getPerspectiveTransform(grid, quad)
    board = cv2.warpPerspective(np.full((15, 15), 1, np.uint8), hm, (w, h), flags=cv2.INTER_NEAREST)
    img[board > 0] = (190, 210, 220)
    for k in range(16):
        for a, b in (((k, 0), (k, 15)), ((0, k), (15, k))):
            pa, pb = cv2.perspectiveTransform(np.float32([[a, b]]), hm)[0]
            cv2.line(img, tuple(np.int32(pa)), tuple(np.int32(pb)), (60, 60, 60), 2)
    found = segment_quad(img, cfg)
    assert found is not None
    side = float(np.linalg.norm(quad - np.roll(quad, -1, 0), axis=1).mean()) / 15
    err = min(float(np.linalg.norm(np.roll(found, k, 0) - quad, axis=1).max()) for k in range(4))
    assert err < 1.0 * side
