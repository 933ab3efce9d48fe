"""models/synth/tilecheck.py: the tile check as the rules recommend it (the set face up in four
5x5 corner blocks), and the boards a camera sees while players lay it out, hold it and clear it."""
from __future__ import annotations

from collections import Counter

from tilecam.models.synth.tilecheck import BLOCKS, tile_check_board, tile_check_plan
from tilecam.scoring import DISTRIBUTIONS


def tiles(board: list[str]) -> Counter:
    return Counter(ch for row in board for ch in row if ch != ".")


def in_blocks(board: list[str], blocks) -> bool:
    """Every tile inside one of the given corner blocks."""
    inside = {(r0 + i, c0 + j) for b in blocks for (r0, c0) in [BLOCKS[b]] for i in range(5) for j in range(5)}
    return all((r, c) in inside for r, row in enumerate(board) for c, ch in enumerate(row) if ch != ".")


def test_the_check_lays_out_the_whole_english_set_in_the_four_corners():
    board = tile_check_board(3)
    assert len(board) == 15 and all(len(row) == 15 for row in board)
    assert tiles(board) == Counter(DISTRIBUTIONS["en"].counts) and in_blocks(board, range(4))
    assert board == tile_check_board(3) and board != tile_check_board(4)  # seeded


def test_a_set_of_more_than_100_tiles_leaves_the_rest_in_the_bag():
    board = tile_check_board(0, "de")
    assert sum(tiles(board).values()) == 100 and not tiles(board) - Counter(DISTRIBUTIONS["de"].counts)


def test_some_blocks_only():
    half = tile_check_board(3, blocks=(0, 1))
    assert sum(tiles(half).values()) == 50 and in_blocks(half, (0, 1))
    assert tiles(half) + tiles(tile_check_board(3, blocks=(2, 3))) == tiles(tile_check_board(3))


def test_the_plan_lays_holds_clears_with_hands_only_while_tiles_move():
    plan = tile_check_plan(1, hold=3, reach=2)
    phases = [what for _, _, what in plan]
    assert phases == ["laying"] * 2 + ["check"] * 3 + ["clearing"] * 2 + ["check"] * 3 + ["clearing"] * 2 + ["clear"] * 3
    assert all(hands == (what in ("laying", "clearing")) for _, hands, what in plan)
    assert plan[2][0] == tile_check_board(1) and plan[-1][0] == ["." * 15] * 15
    assert sum(tiles(plan[7][0]).values()) == 50  # half put away, the rest held still
    without_pause = [what for _, _, what in tile_check_plan(1, hold=3, reach=2, pause=False)]
    assert without_pause == ["laying"] * 2 + ["check"] * 3 + ["clearing"] * 2 + ["clear"] * 3
