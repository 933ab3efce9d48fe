"""scoring/board.py: the layouts as data (checked when made), their premiums and centre, and the
board of placed tiles."""
from __future__ import annotations

from collections import Counter

import pytest

from tilecam.scoring.board import LAYOUTS, Board, Direction, Layout, Square, Tile


def premiums(layout: Layout) -> Counter:
    return Counter(layout.premium(Square(r, c)) for r in range(layout.size) for c in range(layout.size))


def test_the_standard_board_has_the_rulebook_s_premium_squares():
    standard = LAYOUTS["standard"]
    assert standard.size == 15 and standard.centre == Square(7, 7)
    assert premiums(standard) == Counter({(1, 1): 164, (2, 1): 24, (3, 1): 12, (1, 2): 17, (1, 3): 8})  # 16 DW + the centre
    assert standard.premium(Square(0, 0)) == (1, 3) and standard.premium(Square(5, 1)) == (3, 1)
    assert standard.premium(Square(7, 7)) == (1, 2) and standard.premium(Square(0, 3)) == (2, 1)


def test_the_super_board_is_21_squares_with_quadruple_premiums():
    big = LAYOUTS["super"]
    assert big.size == 21 and big.centre == Square(10, 10)
    assert big.premium(Square(0, 0)) == big.premium(Square(20, 20)) == (1, 4)
    assert premiums(big)[(4, 1)] > 0


@pytest.mark.parametrize("layout", LAYOUTS.values(), ids=lambda layout: layout.name)
def test_every_layout_is_symmetric_about_its_centre(layout):
    n = layout.size
    for r in range(n):
        for c in range(n):
            assert layout.premium(Square(r, c)) == layout.premium(Square(c, r)) == layout.premium(Square(n - 1 - r, c))


@pytest.mark.parametrize("rows, why", [
    (("*  ", "   "), "rows must all be"),
    (("* x", "   ", "   "), "unknown premium"),
    (("   ", "   ", "   "), "one centre"),
    (("* *", "   ", "   "), "one centre")])
def test_a_layout_that_is_no_board_is_refused_when_made(rows, why):
    with pytest.raises(ValueError, match=why):
        Layout("bad", rows)


def test_contains_is_the_board_s_edge():
    standard = LAYOUTS["standard"]
    assert standard.contains(Square(0, 0)) and standard.contains(Square(14, 14))
    assert not any(standard.contains(sq) for sq in (Square(-1, 0), Square(0, 15), Square(15, 3)))


def test_a_direction_steps_along_itself_and_crosses_to_the_other():
    assert Direction.ACROSS.step == (0, 1) and Direction.DOWN.step == (1, 0)
    assert Direction.ACROSS.cross is Direction.DOWN and Direction.DOWN.cross is Direction.ACROSS


def test_the_board_holds_tiles_and_a_copy_is_its_own():
    board = Board(LAYOUTS["standard"])
    board.put(Square(7, 7), Tile("Q"))
    board.put(Square(7, 8), Tile("U", blank=True))
    copy = board.copy()
    copy.remove(Square(7, 7))
    assert len(board) == 2 and Square(7, 7) in board and board[Square(7, 7)] == Tile("Q")
    assert len(copy) == 1 and copy[Square(7, 7)] is None
    rows = board.rows()
    assert rows[7] == ".......Qu......" and rows[0] == "." * 15  # a blank shows its letter in lower case
    assert board.rows(empty=" ")[7].strip() == "Qu"
