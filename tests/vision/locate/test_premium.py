"""vision/locate/premium.py: the premium squares fit the grid only at its true place."""
from __future__ import annotations

import numpy as np
import pytest

from tilecam.vision.locate import LocateConfig


@pytest.mark.parametrize("seed", [3, 5, 8])
def test_premium_pattern_slides_a_slipped_grid_back(seed):
    """The premium squares fit only at the true place: a grid one or two squares off is slid back."""
    from tilecam.models.synth import SceneConfig, render_scene
    from tilecam.vision.locate.grid import slide
    from tilecam.vision.locate.premium import premium_shift

    board = ["." * 15] * 7 + ["...WORDS.......", "....I..........", "....NOTE......."] + ["." * 15] * 5
    scene = render_scene(board, seed, SceneConfig(hands="always"))
    cfg = LocateConfig()
    truth = scene.corners.astype(np.float32)
    assert premium_shift(scene.image, truth, cfg) == (0, 0)
    for dx, dy in [(1, 0), (0, -1), (-1, 1), (2, 0)]:
        assert premium_shift(scene.image, slide(truth, dx, dy), cfg) == (-dx, -dy), (dx, dy)
