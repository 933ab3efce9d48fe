"""Tile tally: tiles counted against the distribution (the 100-tile check, tile tracking)."""
from __future__ import annotations

from collections import Counter
from typing import Iterable

from .board import Board
from .tiles import BLANK, Distribution

__all__ = ["check_set", "format_pool", "tally", "unseen"]


def tally(board: Board, racks: Iterable[str] = (), dist: Distribution | None = None) -> Counter:
    """Count the tiles on the board plus the given racks; blanks count as '?' whatever they stand for."""
    counted: Counter = Counter(BLANK if t.blank else t.letter for _, t in board.items())
    for rack in racks:
        counted.update(dist.tokens(rack) if dist else rack)
    return counted


def unseen(board: Board, dist: Distribution, rack: str = "") -> Counter:
    """What a player cannot see: the distribution minus the board and their own rack
    (i.e. the bag plus the opponents' racks). Never negative."""
    remaining = dist.bag()
    remaining.subtract(tally(board, [rack] if rack else [], dist))
    return +remaining


def check_set(counted: Counter, dist: Distribution) -> list[str]:
    """The pre-game tile check: what is missing or extra against the distribution ([] = a full set)."""
    problems = []
    for tile in sorted(set(counted) | set(dist.counts)):
        want, have = dist.counts.get(tile, 0), counted.get(tile, 0)
        if have < want:
            problems.append(f"missing {want - have} x {tile}")
        elif have > want:
            problems.append(f"{have - want} extra x {tile}")
    return problems


def format_pool(pool: Counter, dist: Distribution) -> str:
    """Unseen tiles in distribution order, e.g. 'AAEIR?'."""
    order = list(dist.counts)
    return "".join(dist.spell([t] * pool[t]) for t in order if pool.get(t, 0) > 0)
