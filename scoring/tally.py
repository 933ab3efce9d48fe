"""Tile tally: tiles counted against the distribution (the 100-tile check, tile tracking)."""
from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from typing import Iterable

from .board import Board
from .tiles import BLANK, Distribution

__all__ = ["VOWELS", "Excess", "check_set", "excess", "format_pool", "kept_back", "tally", "unseen", "vowel_split"]

# The vowels of every tile set, accented ones included; any other letter tile is a consonant.
VOWELS = frozenset("AEIOUÄÖÜÁÉÍÓÚÀÈÌÒÙÂÊÎÔÛĄĘÓ")


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


def vowel_split(pool: Counter) -> tuple[int, int, int]:
    """(vowels, consonants, blanks) among the tiles of `pool` ({tile: count}): a blank is neither
    a vowel nor a consonant, whatever it may stand for."""
    vowels = sum(n for tile, n in pool.items() if tile in VOWELS)
    blanks = pool.get(BLANK, 0)
    return vowels, sum(pool.values()) - vowels - blanks, blanks


@dataclass(frozen=True)
class Excess:
    """More of one tile than the set has: `count` where the set has `limit` (BLANK for blanks)."""

    tile: str
    count: int
    limit: int

    def says(self, what: str, made: bool = False) -> str:
        """'the set has 1 Z; this play would make 2' (`what`: 'this play', 'this correction', ...);
        `made`: it is in the record already ('this play makes 2')."""
        name = ("blank" if self.limit == 1 else "blanks") if self.tile == BLANK else self.tile
        return f"the set has {self.limit} {name}; {what} {'makes' if made else 'would make'} {self.count}"


def excess(counted: Counter, dist: Distribution, than: Counter | None = None) -> Excess | None:
    """The first tile (in the set's order) of which `counted` holds more than the set has: the one
    rule that no record, play or correction may break. Given `than` (what the record held before),
    only a tile that `counted` holds more of than `than` does: a record already past the set (read
    from a file, stored before this rule) may still be corrected, but never made worse."""
    for tile, limit in dist.counts.items():
        n = counted.get(tile, 0)
        if n > limit and (than is None or n > than.get(tile, 0)):
            return Excess(tile, n, limit)
    return None


def kept_back(rack: str | None, placed: Iterable[str], dist: Distribution) -> Counter:
    """The tiles of a known rack that a play of `placed` (tiles as tallied: BLANK for a blank)
    leaves on it; in a rack '?' is the blank and case means nothing."""
    kept: Counter = Counter()
    if rack:  # counted by hand, not Counter(iterable): replaying a record calls this once a play
        for tile in dist.tokens(rack):
            kept[tile.upper()] += 1
        for tile in placed:
            if kept[tile] > 0:
                kept[tile] -= 1
    return +kept


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
