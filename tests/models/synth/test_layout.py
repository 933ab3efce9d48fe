"""models/synth/layout.py: what the renderer prints on the board and the tiles comes from scoring."""
from __future__ import annotations

import pytest

from tilecam.models.synth import render_topdown
from tilecam.models.synth.layout import LETTER_VALUES, PREMIUM_ROWS

BOARD = ["." * 15] * 7 + ["...QUALMS?ÄÖÜ.."] + [".......A.......", ".......t......."] + ["." * 15] * 5


def test_layout_and_values_come_from_scoring():
    assert PREMIUM_ROWS[7][7] == "*" and PREMIUM_ROWS[0][0] == PREMIUM_ROWS[0][7] == "="
    assert LETTER_VALUES["Q"] == 10 and (LETTER_VALUES["Ä"], LETTER_VALUES["Ö"], LETTER_VALUES["Ü"]) == (6, 8, 6)
    with pytest.raises(ValueError, match=r"\(7, 3\)"):
        render_topdown(BOARD[:7] + ["...#..........."] + BOARD[8:], 0)
