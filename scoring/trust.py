"""Trust is earned per table: which of the set's tiles a person has vouched for at this table.

A camera reading is only as good as the reader's acquaintance with this table's tiles: on an
edition it has not seen, a sure-looking reading can still be wrong. So a tile is *learned* at a
table once a person has confirmed or corrected a play holding it (`scoring.amend.confirmed`: as the
corrections and undos of the log leave the play, read as its latest correction has it), or once the
table's tile check labelled it (the station keeps those letters, with those carried from an earlier
game the same reader recorded at the table, as `given`). Until then a camera play holding it goes
under review (`unlearned`, which the scorekeeper asks when it appends the play): the flag is set
when the play is made and falls only when a person confirms that play, never because another
play taught the letter since. The blank is a tile of its own here ('?'), whatever letter it names.

Everything is computed from the log (and the letters given with the game), never kept beside it.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Iterable, Sequence

from .amend import confirmed
from .events import CAMERA, Correction, LogEntry, Play, voided
from .placement import PlacedTile, Placement
from .tiles import BLANK, Distribution

__all__ = ["Learning", "face", "learned", "learning", "unlearned"]


def face(tile: PlacedTile) -> str:
    """The tile as the reader sees it: a blank is '?', whatever letter it stands for."""
    return BLANK if tile.blank else tile.letter


def _as_stands(entries: Sequence[LogEntry], target: int) -> LogEntry:
    """The move at log position `target` as its latest correction reads it."""
    fixes = [e for e in entries if isinstance(e, Correction) and e.target == target]
    return fixes[-1].replacement if fixes else entries[target]


def learned(entries: Sequence[LogEntry], given: Iterable[str] = (), camera: str = CAMERA) -> frozenset[str]:
    """The tiles learned at this table: `given` (a tile check, an earlier game at the table) and
    every tile of the plays a person has confirmed or corrected in `entries` (a voided play's are
    not: the record holds nothing of it)."""
    entries = list(entries)
    gone = voided(entries)
    out = set(given)
    for i in confirmed(entries, camera):
        if i in gone:
            continue
        move = _as_stands(entries, i)
        if isinstance(move, Play):
            out.update(face(t) for t in move.placement.tiles)
    return frozenset(out)


def unlearned(placement: Placement, known: frozenset[str]) -> list[str]:
    """The tiles of a camera's play not yet learned at this table, in play order, each once: a
    play holding one goes under review whatever its certainty."""
    out: list[str] = []
    for t in placement.tiles:
        f = face(t)
        if f not in known and f not in out:
            out.append(f)
    return out


@dataclass(frozen=True)
class Learning:
    """How far the table's tiles are learned: `seen` of the set's `of` distinct tiles (the blank
    one of them), `confirmed` plays a person confirmed or corrected in this game, `missing` the
    set's tiles not yet learned (in the set's order); `trusted` once none is."""

    seen: int
    of: int
    confirmed: int
    missing: tuple[str, ...]

    @property
    def trusted(self) -> bool:
        return not self.missing

    @property
    def text(self) -> str:
        plays = f"{self.confirmed} play{'s' * (self.confirmed != 1)} confirmed"
        if self.trusted:
            return f"learned: all {self.of} tiles seen, {plays}"
        return f"learning: {self.seen} of {self.of} tiles seen, {plays}"


def learning(entries: Sequence[LogEntry], dist: Distribution, given: Iterable[str] = (),
             camera: str = CAMERA) -> Learning:
    """The table's learning as the log (and the tiles `given` with the game) stands."""
    entries = list(entries)
    known = learned(entries, given, camera)
    gone = voided(entries)
    plays = sum(1 for i in confirmed(entries, camera) if i not in gone and isinstance(_as_stands(entries, i), Play))
    tiles = list(dist.counts)
    missing = tuple(t for t in tiles if t not in known)
    return Learning(len(tiles) - len(missing), len(tiles), plays, missing)
