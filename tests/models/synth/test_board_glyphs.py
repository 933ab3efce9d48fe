"""models/synth/board.py: a tile's letter and value as drawn (the whole renderer's looks:
test_looks_factors.py; its truth against its pixels: test_scene.py)."""
from __future__ import annotations

import numpy as np

from tilecam.models.synth import available_fonts
from tilecam.models.synth.board import _glyph_masks


def test_a_narrow_i_gets_its_value_close_beside_it():
    font = str(available_fonts()["dejavu-sans"])
    letter, value = _glyph_masks(font, "I", 60, True, 0.6, -0.12, -0.03, "beside", 0.24, 0, 0.0)
    lx = np.flatnonzero(letter.max(axis=0) > 0.5)
    vx = np.flatnonzero(value.max(axis=0) > 0.5)
    assert len(vx) and 0 < vx[0] - lx[-1] < 0.12 * 60
    _, none = _glyph_masks(font, "I", 60, True, 0.6, -0.12, -0.03, "none", 0.24, 0, 0.0)
    assert not none.any()
