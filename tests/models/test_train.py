"""models/train.py: the parts of training that run without torch (the learning-rate schedule)."""
from __future__ import annotations

import pytest

from tilecam.models.train import one_cycle


def test_the_learning_rate_follows_the_one_cycle_shape_whatever_the_length():
    lr0, b0 = one_cycle(0.0, 3e-3)
    peak, bp = one_cycle(0.15, 3e-3)
    end, be = one_cycle(1.0, 3e-3)
    assert lr0 == pytest.approx(3e-3 / 25) and peak == pytest.approx(3e-3) and end == pytest.approx(3e-3 / 25e4)
    assert (b0, bp, be) == (pytest.approx(0.95), pytest.approx(0.85), pytest.approx(0.95))
    assert one_cycle(1.3, 3e-3)[0] == pytest.approx(end)   # a shortened run past its end stays at the floor
