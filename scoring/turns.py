"""Whose turn each move was, and how the record knows it: the one rule the service's flags use.

A play the camera credited to the player on turn because no clock press told it whose turn it
was is *inferred* (`Play.turn_inferred`): an exchange or a pass in between leaves no trace on the
board, and from there every play would go to the other player. A turn taken by a player who was
not on turn is *out of turn*: later evidence (a clock press naming the player, a person's entry)
contradicts the order the record had; a turn the record lacks, or a play credited to the wrong
player, lies before it. Neither is ever silent (docs/api.md, "When the camera cannot be sure").
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

from .board import Layout
from .events import Event, Exchange, Pass, Play, TurnLost
from .game import Game, GameState
from .rules import RuleProfile
from .tiles import Distribution

__all__ = ["TURNS_INFERRED", "OutOfTurn", "TurnOrder", "TurnWatch", "describe_turns", "hedge", "turn_order"]

# What every output that shows a result (scores, a winner and spread, a recount's verdict, a GCG)
# says when a turn was inferred: the scores add up for the moves as credited, but an exchange or a
# pass nobody saw gives every later play, and the end's rack points, to the other player.
TURNS_INFERRED = "turns inferred"


@dataclass(frozen=True)
class OutOfTurn:
    """Move `index` was taken by `player` while the record had `on_turn` on turn; `since`: the
    first move of the inferred turns just before it (where a missed turn would lie), if any."""

    index: int
    player: int
    on_turn: int
    since: int | None


@dataclass(frozen=True)
class TurnOrder:
    inferred: tuple[int, ...]            # moves (indexes) whose turn was inferred
    out_of_turn: tuple[OutOfTurn, ...]
    open_from: int | None                # the first of the inferred turns that run to the last turn

    @property
    def sure(self) -> bool:
        return not self.inferred and not self.out_of_turn


def turn_order(events: Sequence[Event], profile: RuleProfile, dist: Distribution, layout: Layout,
               players: int) -> TurnOrder:
    """The record's turns replayed: which were inferred, which were taken out of turn."""
    game = Game(profile, dist, layout, players)
    watch = TurnWatch(players)
    for ev in events:
        watch.see(ev, game.state)
        game.append(ev)
    return watch.order()


class TurnWatch:
    """turn_order kept up one event at a time, for a caller that replays the record itself (the
    service's live state, entry by entry): `see` each event with the record's state before it."""

    def __init__(self, players: int) -> None:
        self.players = players
        self.inferred: list[int] = []
        self.wrong: list[OutOfTurn] = []
        self.run: int | None = None   # the first inferred turn since the last one a press or a person gave
        self.seen = 0

    def see(self, ev: Event, state: GameState) -> None:
        i, self.seen = self.seen, self.seen + 1
        turn = isinstance(ev, (Play, Pass, Exchange)) or (isinstance(ev, TurnLost) and self.players == 2)
        if turn and not state.ended:
            if ev.player != state.on_turn:
                self.wrong.append(OutOfTurn(i, ev.player, state.on_turn, self.run))
            if isinstance(ev, Play) and ev.turn_inferred:
                self.inferred.append(i)
                self.run = i if self.run is None else self.run
            else:
                self.run = None

    def order(self) -> TurnOrder:
        return TurnOrder(tuple(self.inferred), tuple(self.wrong), self.run)


def _spans(indexes: Sequence[int]) -> str:
    """Move numbers (from 1) as spans: 'moves 3, 5-9'."""
    spans: list[list[int]] = []
    for n in (i + 1 for i in indexes):
        if spans and n == spans[-1][1] + 1:
            spans[-1][1] = n
        else:
            spans.append([n, n])
    text = ", ".join(f"{a}" if a == b else f"{a}-{b}" for a, b in spans)
    return f"move{'s' if len(indexes) > 1 else ''} {text}"


def describe_turns(order: TurnOrder, names: Sequence[str]) -> str | None:
    """One line for the director and the operator, or None when every turn is sure:
    'move 13: Josh took a turn with Cesar on turn (a turn missed between moves 11 and 13: an
    exchange or a pass?, or a play credited to the wrong player); turns inferred since move 14: no
    clock press seen'."""
    parts = []
    for w in order.out_of_turn:
        # the inferred turns' first start is the first boundary nobody saw
        where = (f"between moves {w.since} and {w.index + 1}" if w.since else f"before move {w.index + 1}")
        parts.append(f"move {w.index + 1}: {names[w.player]} took a turn with {names[w.on_turn]} on turn "
                     f"(a turn missed {where}: an exchange or a pass?, or a play credited to the wrong player)")
    if order.inferred:
        earlier = [i for i in order.inferred if order.open_from is None or i < order.open_from]
        if earlier:
            parts.append(f"turns inferred at {_spans(earlier)}: no clock press seen")
        if order.open_from is not None:
            parts.append(f"turns inferred since move {order.open_from + 1}: no clock press seen")
    return "; ".join(parts) or None


def hedge(order: TurnOrder) -> str | None:
    """The line a result carries when any turn was inferred, or None: 'turns inferred at moves
    2-12 (no clock press seen): who played which move is a guess'."""
    if not order.inferred:
        return None
    return f"{TURNS_INFERRED} at {_spans(order.inferred)} (no clock press seen): who played which move is a guess"
