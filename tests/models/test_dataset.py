"""models/dataset.py: training crops built from a spec, reproducibly, with held-out render options
never drawn."""
from __future__ import annotations

import numpy as np
import pytest

from tilecam.models.dataset import DataSpec, build
from tilecam.models.train import parse_render_holdout


def test_a_held_out_option_is_never_drawn_and_builds_are_reproducible():
    held = parse_render_holdout("braille=dots,legend=coordinates,legend=text")
    assert held == {"braille": ("dots",), "legend": ("coordinates", "text")}
    spec = DataSpec(boards=2, seed=3, square_px=(26, 30), render=(("braille", ("none",)), ("legend", ("none",))))
    a, b = build(spec), build(spec)
    assert all(np.array_equal(a[k], b[k]) for k in ("x", "y", "rot"))
    other = build(DataSpec(boards=2, seed=3, square_px=(26, 30), render=(("braille", ("dots",)),
                                                                            ("legend", ("none",)))))
    assert not np.array_equal(a["x"], other["x"])
    with pytest.raises(SystemExit, match="nothing of braille"):
        parse_render_holdout("braille=none,braille=dots")
    with pytest.raises(SystemExit, match="not a factor"):
        parse_render_holdout("braille=stars")
