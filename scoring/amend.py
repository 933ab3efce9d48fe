"""What a correction may change in the move it names, and what each correction changed, in words.

The rules for amending a tile live here (a blank is named only where a blank lies; an ordinary
tile becomes a blank by correcting the play), so every caller refuses the same requests. And here
is the one description of each correction and void that the recount lists: "blank at 8D named S",
"score 16 → 20", "play 8D ZE(B)rA → 8D ZEBRA", "exchange of 3 → 4", "move 5 voided".
"""
from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Iterable

from .board import Direction, Layout, LAYOUTS, Square
from .errors import ScoringError
from .events import BLANK_NOT_READ, Correction, Event, Exchange, LogEntry, Pass, Play, TurnLost, Void, voided
from .game import Game, effective_events
from .gcg.notation import format_position, shown_play
from .placement import PlacedTile
from .recount import describe
from .rules import RuleProfile
from .tiles import Distribution

__all__ = ["Change", "CorrectionError", "changes", "describe_change", "retile"]


class CorrectionError(ScoringError):
    """A correction that does not fit the move it names: a square the play placed no tile on, a
    blank named on an ordinary tile, a letter not of the set."""


def retile(play: Play, square: Square, letter: str, dist: Distribution, *, blank: bool) -> Play:
    """The play with the tile on `square` read as `letter`. `blank`: the request names a blank's
    letter, so a blank must lie there (naming it on an F would turn the F into a blank nobody
    played); otherwise the letter on the tile was misread, and a blank stays a blank."""
    label = format_position(square, Direction.ACROSS)
    upper = letter.upper()
    if upper not in dist.values:
        raise CorrectionError(f"{letter!r} is not a letter of the {dist.name} set")
    hit = next((t for t in play.placement.tiles if t.square == square), None)
    if hit is None:
        raise CorrectionError(f"the play placed no tile on {label}")
    if blank and not hit.blank:
        raise CorrectionError(f"{label} holds {hit.letter}, not a blank (to make it a blank, correct the play)")
    tiles = tuple(PlacedTile(t.square, upper, t.blank) if t is hit else t for t in play.placement.tiles)
    note = play.note
    if hit.blank:  # the blank's letter is named now: the GCG writer's "not read" note goes
        note = "\n".join(ln for ln in note.split("\n") if BLANK_NOT_READ not in ln)
    return dataclasses.replace(play, placement=dataclasses.replace(play.placement, tiles=tiles), note=note)


@dataclass(frozen=True)
class Change:
    """One correction or void of the log, with what it changed."""

    entry: int               # its position in the log
    target: int              # the log position of the event it amends or voids
    kind: str                # "correction" | "void"
    by: str
    reason: str
    agreed: int | None       # a correction's ruling on the score, if any
    change: str              # what changed, in words


def _turn(ev: Event) -> str:
    match ev:
        case Exchange():
            return f"exchange of {ev.count}"
        case TurnLost():
            return "lost turn"
        case Pass():
            return "pass"
    return describe(ev)


def _tiles_changed(before: Play, after: Play, game_before: Game, game_after: Game) -> str:
    same_squares = (before.placement.direction == after.placement.direction
                    and [t.square for t in before.placement.tiles] == [t.square for t in after.placement.tiles])
    if same_squares:
        diffs = [(b, a) for b, a in zip(before.placement.tiles, after.placement.tiles) if b != a]
        label = lambda t: format_position(t.square, Direction.ACROSS)  # noqa: E731
        if all(b.blank and a.blank for b, a in diffs):
            return "; ".join(f"blank at {label(a)} named {a.letter}" for _, a in diffs)
        if all(not b.blank and not a.blank for b, a in diffs):
            return "; ".join(f"tile at {label(a)} {b.letter} → {a.letter}" for b, a in diffs)
    was, now = shown_play(before, game_before), shown_play(after, game_after)
    return f"play {' '.join(was)} → {' '.join(now)}"


def describe_change(before: Event, after: Event, game_before: Game, game_after: Game) -> str:
    """What a correction changed in one event, as it stood before and after it; `game_before` and
    `game_after` are the games just before the event, for the play's notation."""
    parts = []
    if isinstance(before, Play) and isinstance(after, Play):
        if before.placement != after.placement:
            parts.append(_tiles_changed(before, after, game_before, game_after))
    elif isinstance(before, Exchange) and isinstance(after, Exchange) and before.count != after.count:
        parts.append(f"exchange of {before.count} → {after.count}")
    elif _turn(before) != _turn(after):
        parts.append(f"{_turn(before)} → {_turn(after)}")
    was, now = getattr(before, "agreed", None), getattr(after, "agreed", None)
    if was is not None and now is not None and was != now:
        parts.append(f"score {was} → {now}")
    return "; ".join(parts) or "no change"


def changes(entries: Iterable[LogEntry], profile: RuleProfile, dist: Distribution,
            layout: Layout | None = None, players: int = 2) -> list[Change]:
    """Every correction and void of the log, in log order, each described against the record as
    it stood just before it (a move's number is the one it had then)."""
    entries = list(entries)
    layout = layout or LAYOUTS["standard"]
    out = []
    for i, e in enumerate(entries):
        if not isinstance(e, (Correction, Void)):
            continue
        prefix = entries[:i]
        gone = voided(prefix)
        k = sum(1 for j, x in enumerate(prefix[:e.target])
                if not isinstance(x, (Correction, Void)) and j not in gone)  # the move's index then
        before = effective_events(prefix, profile, dist, layout, players)
        if isinstance(e, Void):
            text = f"move {k + 1} voided"
        else:
            after = effective_events(entries[:i + 1], profile, dist, layout, players)
            text = describe_change(before[k], after[k], Game(profile, dist, layout, players, before[:k]),
                                   Game(profile, dist, layout, players, after[:k]))
        out.append(Change(i, e.target, e.kind, e.by, e.reason, getattr(e, "agreed", None), text))
    return out
