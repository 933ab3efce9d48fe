"""Tile tally: tiles counted against the distribution (the 100-tile check, tile tracking)."""
from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, replace
from typing import Iterable

from .board import Board
from .tiles import BLANK, DISTRIBUTIONS, Distribution

__all__ = ["VOWELS", "Excess", "check_set", "excess", "format_pool", "holding", "kept_back", "over_set", "rack_tiles",
           "tally", "unseen", "vowel_split"]

# The vowels of every tile set (each set says its own: Distribution.vowels); any other letter tile is
# a consonant.
VOWELS = frozenset().union(*(d.vowels for d in DISTRIBUTIONS.values()))


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


def vowel_split(pool: Counter, dist: Distribution | None = None) -> tuple[int, int, int]:
    """(vowels, consonants, blanks) among the tiles of `pool` ({tile: count}) of the set `dist`
    (None: any set's vowels): a blank is neither a vowel nor a consonant, whatever it may stand for."""
    known = dist.vowels if dist is not None else VOWELS
    vowels = sum(n for tile, n in pool.items() if tile in known)
    blanks = pool.get(BLANK, 0)
    return vowels, sum(pool.values()) - vowels - blanks, blanks


@dataclass(frozen=True)
class Excess:
    """More of one tile than the set has: `count` where the set has `limit` (BLANK for blanks)."""

    tile: str
    count: int
    limit: int
    on_board: int | None = None  # how many of them the board holds (over_set says; excess does not know)

    def says(self, what: str | None, made: bool = False) -> str:
        """'the set has 1 Z; this play would make 2' (`what`: 'this play', 'this correction', ...);
        `made`: it is in the record already ('this play makes 2'). Without `what`, what a rack
        beside the board cannot hold (an exchange's tiles, a rack): 'the set has 2 V; both are on
        the board, so no rack can hold VVV' ('could': it is in the record already)."""
        name = ("blank" if self.limit == 1 else "blanks") if self.tile == BLANK else self.tile
        if what is not None or self.on_board is None:
            return f"the set has {self.limit} {name}; {what} {'makes' if made else 'would make'} {self.count}"
        board = self.on_board
        run = (self.tile if len(self.tile) == 1 else f"[{self.tile}]") * max(self.count - board, 1)
        if board == 0:
            where = ""
        elif board == self.limit:
            where = "; it is on the board" if board == 1 else "; both are on the board" if board == 2 \
                else f"; all {board} are on the board"
        else:
            where = f"; {board} {'is' if board == 1 else 'are'} on the board"
        return f"the set has {self.limit} {name}{where}, so no rack {'could' if made else 'can'} hold {run}"


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


def holding(on_board: Counter, held: Counter) -> Counter:
    """What the record holds of each tile in `held` (tiles as tallied, '?' a blank) while a player
    holds them: the board's (`on_board`) and theirs. The other tiles' counts do not move."""
    return Counter({tile: on_board.get(tile, 0) + n for tile, n in held.items() if n > 0})


def over_set(on_board: Counter, held: Counter, dist: Distribution, than: Counter | None = None) -> Excess | None:
    """The set's counts, one rule for every entry kind: the board (`on_board`, tiles as tallied)
    and what a player is known to hold beside it at one moment (`held`: a play's tiles and the
    rest of its rack, an exchange's tiles and its rack, a rack read, the racks at the end) hold no
    more of a tile than the set has. An exchange returns tiles to the bag, so it can only be of
    tiles the set has left beside the board: with both V down, no rack can hold VVV to throw in.
    The first Excess (with how many the board holds), else None; `than` as for `excess` (a
    record already past the set is measured against what it held)."""
    found = excess(holding(on_board, held), dist, than)
    return None if found is None else replace(found, on_board=on_board.get(found.tile, 0))


def rack_tiles(rack: str | None, dist: Distribution) -> Counter:
    """A rack or exchanged tiles as the tally counts them: '?' the blank, case meaning nothing."""
    held: Counter = Counter()
    for tile in dist.tokens(rack) if rack else ():  # by hand, not Counter(iterable): replay calls this often
        held[tile.upper()] += 1
    return held


def kept_back(rack: str | None, placed: Iterable[str], dist: Distribution) -> Counter:
    """The tiles of a known rack that a play of `placed` (tiles as tallied: BLANK for a blank)
    leaves on it; in a rack '?' is the blank and case means nothing."""
    kept = rack_tiles(rack, dist)
    if kept:
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
