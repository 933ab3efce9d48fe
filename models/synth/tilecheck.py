"""The tile check as the rules recommend it before a game: every tile face up on the board in four
5x5 blocks in the corners (100 tiles), counted, then cleared into the bag before the first play.

`tile_check_board` is one arrangement; `tile_check_plan` the boards a camera sees while players lay
the check out, hold it, and put it away (with hands over the board while tiles move).
"""
from __future__ import annotations

import numpy as np

from tilecam.scoring import DISTRIBUTIONS

from .layout import SIZE

__all__ = ["BLOCKS", "tile_check_board", "tile_check_plan"]

BLOCKS = ((0, 0), (0, SIZE - 5), (SIZE - 5, 0), (SIZE - 5, SIZE - 5))  # top-left corners of the 5x5 blocks


def tile_check_board(seed: int, lang: str = "en", blocks=(0, 1, 2, 3)) -> list[str]:
    """The language's tiles shuffled into the corner blocks (`blocks`: which of the four are laid
    out), row by row; '?' a blank. A set with more than 100 tiles fills the blocks and leaves the
    rest in the bag."""
    tiles = [t for t, n in DISTRIBUTIONS[lang].counts.items() for _ in range(n)]
    np.random.default_rng(seed).shuffle(tiles)
    cells = [["."] * SIZE for _ in range(SIZE)]
    for b, (r0, c0) in enumerate(BLOCKS):
        if b not in blocks:
            continue
        for i in range(25):
            if b * 25 + i < len(tiles):
                cells[r0 + i // 5][c0 + i % 5] = tiles[b * 25 + i]
    return ["".join(row) for row in cells]


def tile_check_plan(seed: int, lang: str = "en", hold: int = 10, reach: int = 4,
                    pause: bool = True) -> list[tuple[list[str], bool, str]]:
    """Frame by frame: (the board, hands over it, what it is: "laying" | "check" | "clearing" | "clear").
    Two blocks go down under the hands, then all four, the check held still, then (when `pause`)
    two blocks put away and the rest held still, then the board cleared and held empty."""
    empty = ["." * SIZE] * SIZE
    full = tile_check_board(seed, lang)
    half = tile_check_board(seed, lang, blocks=(0, 1))
    rest = tile_check_board(seed, lang, blocks=(2, 3))
    plan = [(half, True, "laying")] * (reach // 2) + [(full, True, "laying")] * (reach - reach // 2)
    plan += [(full, False, "check")] * hold
    if pause:
        plan += [(rest, True, "clearing")] * reach + [(rest, False, "check")] * hold
    plan += [(rest if pause else full, True, "clearing")] * (reach // 2) + [(empty, True, "clearing")] * (reach - reach // 2)
    plan += [(empty, False, "clear")] * hold
    return plan
