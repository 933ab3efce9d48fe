"""A letter for every blank nobody named, so a play can be written down.

An undecided blank is `PlacedTile(square, BLANK, blank=True)`: the tile reader saw a blank and
neither the lexicon nor the operator said what it stands for (`scoring.decode` leaves it so;
`Play.blank_undecided` recognises it). The event log keeps it that way; only an export that must
name a letter (GCG: in a play a blank is always the lower-case letter it stands for) asks here.
"""
from __future__ import annotations

from dataclasses import dataclass

from .board import Board, Square
from .lexicon import Lexicon, infer_blanks
from .placement import PlacedTile, Placement, score_placement
from .tiles import BLANK, Distribution

__all__ = ["Designation", "designate", "undecided_squares"]


@dataclass(frozen=True)
class Designation:
    placement: Placement          # every blank with a letter
    decided: bool                 # the lexicon left exactly this choice (or nothing was undecided)
    candidates: int               # designations the lexicon accepts (0 without a lexicon)


def undecided_squares(placement: Placement) -> tuple[Square, ...]:
    return tuple(t.square for t in placement.tiles if t.blank and t.letter == BLANK)


def designate(board: Board, placement: Placement, dist: Distribution, lexicon: Lexicon | None = None,
              claimed: int | None = None) -> Designation:
    """Name the undecided blanks of `placement`, played on `board` as it stood before.

    With a lexicon, only designations that make every word formed valid are candidates; among
    several, one whose score matches the announced score is preferred (a blank scores 0 whatever
    it stands for, so this only matters where the set gives letters on other squares), then the
    letters most common in the set. Without a lexicon, or when no designation is valid (a phony),
    each blank becomes the set's most common letter. `decided` is True only for a single candidate.
    """
    open_squares = undecided_squares(placement)
    if not open_squares:
        return Designation(placement, True, 0)
    found = infer_blanks(board, placement, dist, lexicon, set(open_squares)) if lexicon is not None else []
    if found:
        if claimed is not None:
            matching = [f for f in found if _score(board, placement, dist, f) == claimed]
            found = matching or found
        # most common letters first; the set's own order breaks ties, so the choice is stable
        order = {letter: i for i, letter in enumerate(dist.letters)}
        best = min(found, key=lambda f: (-sum(dist.counts[f[sq]] for sq in open_squares),
                                         [order[f[sq]] for sq in open_squares]))
        return Designation(_with(placement, best), len(found) == 1, len(found))
    common = max(dist.letters, key=lambda letter: (dist.counts[letter], -dist.letters.index(letter)))
    return Designation(_with(placement, {sq: common for sq in open_squares}), False, 0)


def _with(placement: Placement, letters: dict[Square, str]) -> Placement:
    return Placement(tuple(PlacedTile(t.square, letters.get(t.square, t.letter), t.blank)
                           for t in placement.tiles), placement.direction)


def _score(board: Board, placement: Placement, dist: Distribution, letters: dict[Square, str]) -> int:
    return score_placement(board, _with(placement, letters), dist, validate=False).score
