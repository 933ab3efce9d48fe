"""vision/locate/lines.py: the fitted grid's line pieces. (The refinement on a real bench scene is
tested with the whole search, tests/vision/locate/test_search.py, beside the bench scenes it reads.)"""
from __future__ import annotations

import cv2
import numpy as np


def test_outer_band_does_not_pull_the_grid_edge():
    """A board may frame its grid with a band of its own (a coloured outline, the rim's print):
    with the outer lines' offsets free, strong pieces found on it 0.12 square outside the last
    line (bench seed 1289: 0.19) do not move the edge the 14 inner lines' pitch gives."""
    from tilecam.vision.locate.lines import fit_homography_to_lines

    sq = 32
    rng = np.random.default_rng(0)
    rows = []
    for axis in (0, 1):
        for k in range(16):
            outer = k in (0, 15)
            shift = (-0.12 if k == 0 else 0.12 if k == 15 else 0.0) * sq
            for j in range(15):
                if outer or rng.random() < 0.4:  # faint inner lines, half hidden by tiles; a strong band
                    rows.append(((j + 1.5) * sq, (k + 1) * sq + shift + rng.normal(0, 0.02 * sq), k, axis,
                                 1.0 if outer else 0.3))
    g = fit_homography_to_lines(np.array(rows), sq, 0.08, free_outer=True)
    # g maps warp coordinates in squares (the one-square margin removed) to line numbers
    corners = np.float64([[0, 0], [15, 0], [15, 15], [0, 15]]).reshape(-1, 1, 2)
    mapped = cv2.perspectiveTransform(corners, g).reshape(4, 2)
    np.testing.assert_allclose(mapped, [[0, 0], [15, 0], [15, 15], [0, 15]], atol=0.05)  # as lines: 0.13


def test_line_width_follows_the_blur():
    """The fit's line pieces switch to ridges of the lines' own width only where the lines are
    blurred: a sharp printed line measures under the piece tolerance, the same line out of focus
    over it."""
    from tilecam.vision.locate.lines import line_half_width

    sq = 32
    n = 17 * sq
    img = np.full((n, n), 120, np.float32)
    rng = np.random.default_rng(0)
    for k in range(16):
        p = (k + 1) * sq
        img[:, p - 1:p + 1] = img[p - 1:p + 1, :] = 200
    for _ in range(40):  # tiles over some squares
        r, c = rng.integers(1, 16, 2) * sq
        img[r + 3:r + sq - 2, c + 3:c + sq - 2] = 220
    sharp = line_half_width(cv2.GaussianBlur(img, (0, 0), 0.7), sq)
    soft = line_half_width(cv2.GaussianBlur(img, (0, 0), 3.0), sq)
    assert sharp < 0.08 * sq < soft
