"""Amendments: corrections and voids of the log, each decided on the log as it stands.

The service loads a game's log, calls `correct` or `void`, and appends the entry it gets back;
the rules for what may change live only here. A blank is named only where a blank lies (an
ordinary tile becomes a blank by re-entering the play); a move is voided only when no later
move depends on it. And here is the one description of each correction and void that the
recount lists: "blank at D8 named S", "score 16 → 20", "play 8D ZE(B)rA → 8D ZEBRA",
"exchange of 3 → 4", "move 5 voided".

Moves are numbered from 1 in every message (`index + 1`, as the recount numbers them);
`index` in the code is the move's position in the record as it stands.
"""
from __future__ import annotations

import dataclasses
from collections import Counter
from dataclasses import dataclass
from typing import Iterable, Sequence

from .board import Layout, LAYOUTS, Square
from .errors import ScoringError
from .events import (CAMERA, NOT_EVENTS, ChallengeBonus, Correction, EndRackPenalty, EndRackPoints,
                     Event, Exchange, LogEntry, Pass, PhonyWithdrawn, Play, TimePenalty, TurnLost, Void,
                     by_operator, voided)
from .game import Game, GameError, check_exchange, check_within_set, effective_events, replay
from .gcg.notation import format_square, placement_from_gcg, shown_play
from .placement import PlacedTile, Placement
from .recount import describe
from .rules import RuleProfile
from .tally import Excess, excess
from .tiles import BLANK, Distribution

__all__ = ["Amendment", "Change", "CorrectionError", "MakeExchange", "MakePass", "ReenterPlay", "Retile",
           "RuleScore", "VoidRefused", "admit_amendment", "changes", "confirmed", "correct", "describe_change",
           "reading_excess",
           "retile", "standing", "undo_correction", "void"]


class CorrectionError(ScoringError):
    """A correction that does not fit the move it names: a square the play placed no tile on, a
    blank named on an ordinary tile, a letter not of the set, a pass made a play."""


class VoidRefused(GameError):
    """A void the record refuses: a later move depends on the move (void from the last backwards)."""


# ---- what a correction asks for: plain values (the api builds them from its request models) ----

@dataclass(frozen=True)
class Retile:
    """The tile on `square` is `letter`. `blank`: a blank's letter is named (a blank must lie
    there); otherwise the tile was misread, and a blank stays a blank (see `retile`)."""
    square: Square
    letter: str
    blank: bool


@dataclass(frozen=True)
class ReenterPlay:
    """The play was this one, in GCG notation: position ('8D', 'D8') and word."""
    position: str
    word: str


@dataclass(frozen=True)
class MakeExchange:
    """The turn was an exchange of `count` tiles (`tiles`, when known)."""
    count: int
    tiles: str | None = None


@dataclass(frozen=True)
class MakePass:
    """The turn was a pass."""


@dataclass(frozen=True)
class RuleScore:
    """The score that stands, as ruled; it stands through later corrections of the move."""
    agreed: int


Amendment = Retile | ReenterPlay | MakeExchange | MakePass | RuleScore


def standing(entries: Sequence[LogEntry]) -> list[int]:
    """The log position of each move of the record as it stands, in order: every event's original
    entry, less the voided ones (Corrections, Voids and a director's Close are no moves)."""
    gone = voided(list(entries))
    return [i for i, e in enumerate(entries) if not isinstance(e, NOT_EVENTS) and i not in gone]


def _move(entries: Sequence[LogEntry], index: int, error: type[ScoringError]) -> int:
    moves = standing(entries)
    if not 0 <= index < len(moves):
        raise error(f"there is no move {index + 1}; the record has {len(moves)}")
    return moves[index]


def retile(play: Play, square: Square, letter: str, dist: Distribution, *, blank: bool) -> Play:
    """The play with the tile on `square` read as `letter`. `blank`: the request names a blank's
    letter, so a blank must lie there (naming it on an F would turn the F into a blank nobody
    played); otherwise the letter on the tile was misread, and a blank stays a blank."""
    label = format_square(square)
    upper = letter.upper()
    if upper not in dist.values:
        raise CorrectionError(f"{letter!r} is not a letter of the {dist.name} set")
    hit = next((t for t in play.placement.tiles if t.square == square), None)
    if hit is None:
        raise CorrectionError(f"the play placed no tile on {label}")
    if blank and not hit.blank:
        raise CorrectionError(f"{label} holds {hit.letter}, not a blank (to make it a blank, correct the play)")
    tiles = tuple(PlacedTile(t.square, upper, t.blank) if t is hit else t for t in play.placement.tiles)
    # a blank's letter named now: no longer the guess of a record's writer
    guessed = play.blank_guessed and not hit.blank
    return dataclasses.replace(play, placement=dataclasses.replace(play.placement, tiles=tiles), blank_guessed=guessed)


def correct(entries: Iterable[LogEntry], index: int, fix: Amendment, profile: RuleProfile,
            dist: Distribution, layout: Layout | None = None, players: int = 2, *, by: str,
            reason: str = "") -> Correction:
    """The Correction of move `index` (its position in the record as it stands) that `fix` asks
    for, made by `by`. A score ruled earlier stands through later fixes of the same move. Raises
    CorrectionError when the fix does not fit the move, and the engine's error when the record
    amended no longer replays (a later play built on a tile the fix takes away)."""
    entries = list(entries)
    layout = layout or LAYOUTS["standard"]
    target = _move(entries, index, CorrectionError)
    events = effective_events(entries, profile, dist, layout, players)
    ev, n = events[index], index + 1
    prior = [e for e in entries if isinstance(e, Correction) and e.target == target]
    agreed = prior[-1].agreed if prior else None
    match fix:
        case Retile():
            if not isinstance(ev, Play):
                raise CorrectionError(f"move {n} is a {ev.kind}, not a play: it placed no tiles")
            replacement = retile(ev, fix.square, fix.letter, dist, blank=fix.blank)
        case ReenterPlay():
            if not isinstance(ev, Play):
                raise CorrectionError(f"move {n} is a {ev.kind}, not a play")
            placement = placement_from_gcg(Game(profile, dist, layout, players, events[:index]),
                                           fix.position, fix.word)
            nameless = [format_square(t.square) for t in placement.tiles if t.blank and t.letter == BLANK]
            if nameless:
                # confirming a play as read must not settle a blank nobody named (it is on air as '?')
                raise CorrectionError(f"move {n}: the blank at {', '.join(nameless)} has no letter; name it "
                                      "(the lower-case letter it stands for, or a blank correction) first")
            replacement = dataclasses.replace(ev, placement=placement, blank_guessed=False)  # every blank named
        case MakeExchange():
            if not isinstance(ev, (Pass, Exchange, TurnLost)):
                raise CorrectionError(f"move {n} is a {ev.kind}; only a pass becomes an exchange")
            check_exchange(fix.count, dist)
            tiles = dist.check_tiles(fix.tiles, "exchanged tiles")
            if tiles is not None and len(dist.tokens(tiles)) != fix.count:
                raise CorrectionError(f"{tiles!r} is not {fix.count} tiles")
            replacement = Exchange(ev.player, fix.count, tiles, ev.cumulative, ev.rack, ev.note,
                                   getattr(ev, "rack_note", ""))
        case MakePass():
            if not isinstance(ev, (Pass, Exchange, TurnLost)):
                raise CorrectionError(f"move {n} is a {ev.kind}; only an exchange becomes a pass")
            replacement = Pass(ev.player, ev.cumulative, ev.rack, ev.note, getattr(ev, "rack_note", ""))
        case RuleScore():
            if not hasattr(ev, "agreed"):
                raise CorrectionError(f"move {n} is a {ev.kind}, which scores nothing")
            # a penalty takes points, rack points and a challenge bonus give them: the rules (and GCG,
            # whose lines for them carry one sign) know no other (a model-based hunt ruled an end-rack
            # penalty +29, a line macondo cannot read)
            if isinstance(ev, (EndRackPenalty, TimePenalty, PhonyWithdrawn)) and fix.agreed > 0:
                raise CorrectionError(f"move {n} is a {ev.kind}: it takes points, so it cannot stand at +{fix.agreed}")
            if isinstance(ev, (EndRackPoints, ChallengeBonus)) and fix.agreed < 0:
                raise CorrectionError(f"move {n} is a {ev.kind}: it gives points, so it cannot stand at {fix.agreed}")
            replacement, agreed = ev, fix.agreed
        case _:
            raise TypeError(f"not an amendment: {fix!r}")
    entry = Correction(target, replacement, by, agreed, reason)
    admit_amendment(entries, entry, profile, dist, layout, players)
    return entry


def admit_amendment(entries: Sequence[LogEntry], entry: Correction | Void, profile: RuleProfile,
                    dist: Distribution, layout: Layout | None = None, players: int = 2) -> None:
    """The one check of an amendment however it was made (here, by the camera, sent by a client):
    the record with it must still replay, every later event rebuilt on it (the engine's error
    otherwise), and hold no more of a tile than the set has (SetExceeded; a record already past
    the set may be amended, never made worse)."""
    layout = layout or LAYOUTS["standard"]
    before = effective_events(entries, profile, dist, layout, players)
    after = effective_events(list(entries) + [entry], profile, dist, layout, players)
    what = "this correction" if isinstance(entry, Correction) else "this void"
    check_within_set(replay(before, profile, dist, layout, players).peak,
                     replay(after, profile, dist, layout, players).peak, dist, what)


def reading_excess(events: Sequence[Event], index: int, placement: Placement, profile: RuleProfile,
                   dist: Distribution, layout: Layout | None = None, players: int = 2,
                   peak: Counter | None = None) -> Excess | None:
    """What reading play `index` of the record as it stands (`events`, after its corrections) as
    `placement` instead would put past the set, by the rule a correction is held to
    (admit_amendment: more of a tile than the record held, beyond the set): None when the counts
    allow it. A runner-up the review queue offers is one whose correction the counts let in; the
    record's later plays count too (the E a runner-up would add may be down elsewhere since).
    `peak`: the record's (GameState.peak) as it stands, when the caller has it."""
    layout = layout or LAYOUTS["standard"]
    if peak is None:
        peak = replay(events, profile, dist, layout, players).peak
    swapped = Game(profile, dist, layout, players, within_set=False)
    for i, ev in enumerate(events):  # appended as recorded: only the counts are asked, not the scores
        swapped.append(dataclasses.replace(ev, placement=placement) if i == index else ev)
    return excess(swapped.state.peak, dist, than=peak)


def void(entries: Iterable[LogEntry], index: int, profile: RuleProfile, dist: Distribution,
         layout: Layout | None = None, players: int = 2, *, by: str, reason: str = "",
         names: Sequence[str] | None = None) -> Void:
    """The Void of move `index` (its position in the record as it stands), made by `by`.

    The rule: a move can be voided when no later move depends on it, i.e. the record without it
    still replays and every later move comes out as it was (the same engine score, made by the
    player who was on turn, and no challenge of the voided play follows). Undoing the last move
    always qualifies; an earlier one under later plays is refused (VoidRefused) naming the move
    that depends on it, and the operator voids from the last backwards. `names`: the players'
    names, for that message."""
    entries = list(entries)
    layout = layout or LAYOUTS["standard"]
    names = list(names) if names is not None else [f"player {p}" for p in range(players)]
    entry = Void(_move(entries, index, VoidRefused), by, reason)
    refuse = f"move {index + 1} cannot be voided: "
    try:
        after = effective_events(entries + [entry], profile, dist, layout, players)
    except ScoringError as exc:  # GameError, or the engine refusing a later play's placement
        raise VoidRefused(f"{refuse}a later move no longer follows ({exc}); void the later moves "
                          "first, the last first") from None
    before = effective_events(entries, profile, dist, layout, players)
    turns_before = _turns(before, profile, dist, layout, players)
    turns_after = _turns(after, profile, dist, layout, players)
    last_play = None
    for j, (b, a) in enumerate(zip(before[index + 1:], after[index:]), index + 1):
        challenge = isinstance(b, (PhonyWithdrawn, ChallengeBonus)) or (
            isinstance(b, TurnLost) and j == index + 1)
        on_turn = isinstance(b, (Play, Pass, Exchange)) and turns_before[j] == b.player
        if ((challenge and last_play is None and isinstance(before[index], Play))
                or getattr(b, "engine", None) != getattr(a, "engine", None)
                or (on_turn and turns_after[j - 1] != a.player)):
            raise VoidRefused(f"{refuse}move {j + 1} ({names[b.player]}'s {b.kind.replace('_', ' ')}) "
                              "depends on it; void the later moves first, the last first")
        if isinstance(b, Play):
            last_play = j
    return entry


def undo_correction(entries: Iterable[LogEntry], position: int, profile: RuleProfile, dist: Distribution,
                    layout: Layout | None = None, players: int = 2, *, by: str, reason: str = "") -> Correction:
    """The Correction that takes back the correction at log position `position`: its move as it
    stood just before it (the earlier correction's reading and ruling, or the move as logged). The
    log stays append-only: undoing is one more correction. Only a move's latest correction is
    undone (a later one was made on top of it: undo that first); a voided move has nothing to undo."""
    entries = list(entries)
    layout = layout or LAYOUTS["standard"]
    if not 0 <= position < len(entries) or not isinstance(entries[position], Correction):
        raise CorrectionError("that log entry is not a correction")
    fix = entries[position]
    same = [i for i, e in enumerate(entries) if isinstance(e, Correction) and e.target == fix.target]
    if fix.target in voided(entries):
        raise CorrectionError("the move it corrected was voided: nothing to undo")
    if same[-1] != position:
        raise CorrectionError("a later correction of the same move stands on it: undo that one first")
    prior = [entries[i] for i in same if i < position]
    was = prior[-1] if prior else None
    entry = Correction(fix.target, was.replacement if was else entries[fix.target], by,
                       was.agreed if was else None, reason, undoes=position)
    admit_amendment(entries, entry, profile, dist, layout, players)
    return entry


def confirmed(entries: Sequence[LogEntry], camera: str = CAMERA) -> set[int]:
    """Log indexes of the moves a person has corrected or confirmed (by_operator; confirming is
    re-entering the play as read): what takes a camera's play out of review. An undo puts the move
    back as it stood before the correction it takes back, whether a person had confirmed it then
    included: undoing the only correction of a play under review leaves it under review."""
    after: dict[int, bool] = {}      # a correction's log index -> its move confirmed once it was made
    history: dict[int, list[int]] = {}  # a move's log index -> its corrections' log indexes, in order
    now: dict[int, bool] = {}
    for i, e in enumerate(entries):
        if not isinstance(e, Correction):
            continue
        earlier = history.setdefault(e.target, [])
        if e.undoes is not None:
            before = [j for j in earlier if j < e.undoes]
            now[e.target] = after[before[-1]] if before else False
        else:
            now[e.target] = now.get(e.target, False) or by_operator(e, camera)
        after[i] = now[e.target]
        earlier.append(i)
    return {target for target, yes in now.items() if yes}


def _turns(events: Sequence[Event], profile: RuleProfile, dist: Distribution, layout: Layout,
           players: int) -> list[int]:
    """Who was on turn before each event."""
    g = Game(profile, dist, layout, players)
    out = []
    for ev in events:
        out.append(g.state.on_turn)
        g.append(ev)
    return out


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
        label = lambda t: format_square(t.square)  # noqa: E731
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
    if before.player != after.player:
        parts.append(f"credited to player {after.player + 1}, not {before.player + 1}")
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
                if not isinstance(x, NOT_EVENTS) and j not in gone)  # the move's index then
        before = effective_events(prefix, profile, dist, layout, players)
        if isinstance(e, Void):
            text = f"move {k + 1} voided"
        else:
            after = effective_events(entries[:i + 1], profile, dist, layout, players)
            text = describe_change(before[k], after[k], Game(profile, dist, layout, players, before[:k]),
                                   Game(profile, dist, layout, players, after[:k]))
        out.append(Change(i, e.target, e.kind, e.by, e.reason, getattr(e, "agreed", None), text))
    return out
