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

The game teaches too (issue 44): a station alone at a table has no person, and a table that learns
only from people flags every play. Two readers that fail differently, the classifier and the text
recogniser, naming one letter alone on a tile (`Play.readers`, as the snapshot that committed it
said) is evidence the table's look of that letter is read right: such a tile is *seconded*, and is
trusted in its own play; a letter seconded on `TAUGHT_BY` tiles of earlier camera plays is
*taught*, and a later tile of it is trusted when at least one reader named it and neither named another letter,
unless the counts contradict the letter (the record holds more of it than the
set has: a reading is wrong somewhere). Never the blank: nothing prints on it, so neither reader
can second it; a blank's look is learned only from a person or the tile check, and until then a
play holding a blank is for review (the unseen edition's wrong plays held a blank where the board
has a U or an I). `[decode] learn_from_game = false` keeps the person's word alone.

A play stands on the tiles its words run through, too (`built_on`): their letters are in its words
and its score. A tile of an earlier camera play still under review (no person acted on it) is *in
doubt* when its reading was: the play read under the certainty threshold or forced onto the pool
(every tile of it), or readers that contradicted the tile (neither naming its letter; on a blank, a
reader naming a letter). A later play through it goes under review however its own tiles were
read: on the held-out videos the two false plays left on air had their own tiles right, both
readers alike, and their scores wrong through an earlier misread still flagged (a V read A, an M
read as a blank). Never a play a person vouched for; but a letter the table learned is no
exception (a tile-check table knows every letter, and still misread that V).

Everything is computed from the log (and the letters given with the game), never kept beside it.
"""
from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from typing import Iterable, Sequence

from .amend import confirmed
from .board import Square
from .events import CAMERA, Correction, Doubt, LogEntry, Play, voided
from .placement import PlacedTile, Placement
from .tiles import BLANK, Distribution

__all__ = ["TAUGHT_BY", "Learning", "built_on", "contradicted", "face", "in_doubt", "learned", "learning",
           "seconded", "taught", "unlearned"]

# Tiles of a letter both readers named alike, in earlier camera plays, before the game has taught it
# (chosen on the ScrabScrap games and the English family game, docs/recording.md).
TAUGHT_BY = 2


def face(tile: PlacedTile) -> str:
    """The tile as the reader sees it: a blank is '?', whatever letter it stands for."""
    return BLANK if tile.blank else tile.letter


def _plays_as_they_stand(entries: list):
    """(log index, the play as entered, the play as it stands now) for every play not voided and
    still a play after its corrections."""
    gone = voided(entries)
    for i, e in enumerate(entries):
        if i in gone or not isinstance(e, Play):
            continue
        move = _as_stands(entries, i)
        if isinstance(move, Play):
            yield i, e, move


def _as_stands(entries: Sequence[LogEntry], target: int) -> LogEntry:
    """The move at log position `target` as its latest correction reads it."""
    fixes = [e for e in entries if isinstance(e, Correction) and e.target == target]
    return fixes[-1].replacement if fixes else entries[target]


def _named(play: Play) -> list[tuple[str, str]]:
    """What each reader alone named on each tile of a play (('', '') where nothing is known)."""
    tiles = play.placement.tiles
    return list(play.readers) if len(play.readers) == len(tiles) else [("", "")] * len(tiles)


def seconded(tile: PlacedTile, named: tuple[str, str]) -> bool:
    """Both readers named this tile's letter alone; never a blank (nothing prints on it)."""
    return not tile.blank and named[0] == named[1] == tile.letter


def taught(entries: Sequence[LogEntry], dist: Distribution, camera: str = CAMERA) -> frozenset[str]:
    """The letters the game has taught this table: seconded on at least TAUGHT_BY tiles of its camera
    plays as they stand (a voided play's are not), save a letter the record holds more of than the
    set has (the counts say a reading of it is wrong)."""
    entries = list(entries)
    times: Counter = Counter()
    held: Counter = Counter()
    for _, e, move in _plays_as_they_stand(entries):
        held.update(face(t) for t in move.placement.tiles)
        if e.certainty is not None:
            times.update(t.letter for t, n in zip(move.placement.tiles, _named(move)) if seconded(t, n))
    return frozenset(k for k, n in times.items() if n >= TAUGHT_BY and held[k] <= dist.counts.get(k, 0))


def learned(entries: Sequence[LogEntry], given: Iterable[str] = (), camera: str = CAMERA) -> frozenset[str]:
    """The tiles learned at this table from people: `given` (a tile check, an earlier game at the
    table) and every tile of the plays a person has confirmed or corrected in `entries` (a voided
    play's are not: the record holds nothing of it)."""
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


def unlearned(placement: Placement, known: frozenset[str], readers: Sequence[tuple[str, str]] = (),
              game: frozenset[str] = frozenset()) -> list[str]:
    """The tiles of a camera's play the table cannot vouch for, in play order, each once: a play
    holding one goes under review whatever its certainty. `known`: learned from people (trusted
    however read); `readers`: what each reader named on each tile (Play.readers): a seconded tile is
    trusted; `game`: the letters the game taught (`taught`), trusted where a reader named the letter
    and neither named another."""
    named = list(readers) if len(readers) == len(placement.tiles) else [("", "")] * len(placement.tiles)
    out: list[str] = []
    for t, n in zip(placement.tiles, named):
        f = face(t)
        if f in known or seconded(t, n):
            continue
        if f in game and t.letter in n and all(x in ("", t.letter) for x in n):
            continue
        if f not in out:
            out.append(f)
    return out


def contradicted(tile: PlacedTile, named: tuple[str, str]) -> bool:
    """No reader speaks for the tile as committed: on a letter, neither reader named it; on a blank
    (nothing prints on it), a reader named a letter. One reader naming another letter while the
    other names this one is no contradiction here: on a look one reader was not trained on it is
    the rule (the English edition's O read as D), and the play's certainty weighed both."""
    if tile.blank:
        return any(named)
    return tile.letter not in named


def in_doubt(entries: Sequence[LogEntry], camera: str = CAMERA) -> dict[Square, str]:
    """The board's tiles (square -> face) of camera plays still under review whose reading is in
    doubt: every tile of a play read under the certainty threshold or forced onto the pool, else each
    tile the readers contradicted (`contradicted`). Not a play a person confirmed or corrected; a
    letter people taught (`learned`) is no exception: the doubt is this reading's, not the look's.
    A later tile on the square (after a withdrawal) is the one that counts."""
    entries = list(entries)
    vouched = confirmed(entries, camera)
    out: dict[Square, str] = {}
    for i, e, move in _plays_as_they_stand(entries):
        unsure = e.certainty is not None and move.review and i not in vouched
        whole = unsure and bool({Doubt.CERTAINTY, Doubt.FROM_POOL} & set(move.doubts))
        for t, n in zip(move.placement.tiles, _named(move)):
            if unsure and (whole or contradicted(t, n)):
                out[t.square] = face(t)
            else:
                out.pop(t.square, None)
    return out


def built_on(through: Iterable[Square], doubt: dict[Square, str]) -> list[Square]:
    """The squares a play's words run through (`through`: its words' tiles already on the board) that
    hold a tile in doubt (`in_doubt`): the play's words and score stand on a reading nobody vouched
    for, so it goes under review too."""
    return sorted(sq for sq in set(through) if sq in doubt)


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
             camera: str = CAMERA, from_game: bool = True) -> Learning:
    """The table's learning as the log (and the tiles `given` with the game) stands: from people,
    and (`from_game`) the letters the game taught."""
    entries = list(entries)
    known = learned(entries, given, camera) | (taught(entries, dist, camera) if from_game else frozenset())
    gone = voided(entries)
    plays = sum(1 for i in confirmed(entries, camera) if i not in gone and isinstance(_as_stands(entries, i), Play))
    tiles = list(dist.counts)
    missing = tuple(t for t in tiles if t not in known)
    return Learning(len(tiles) - len(missing), len(tiles), plays, missing)
