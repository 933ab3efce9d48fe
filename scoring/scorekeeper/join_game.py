"""Joining a game: more new tiles than one or two plays lay (a station started mid-game, a first
snapshot that came late, plays missed while no snapshot was taken), explained as the plays that
make the board as it stands (scoring.join.explain), or refused and left flagged when no plays a
rack could make lay them (scoring.join.unlikely)."""
from __future__ import annotations

import numpy as np

from ..board import Square
from ..game import GameError
from ..join import explain, unlikely
from ..placement import PlacementError
from ..snapshot import Snapshot, occupied
from .credit import credit, refuse
from .outcome import Observation
from .state import KeeperState


class Joins:
    """join_game.py's part of the scorekeeper, changed only through these methods: the new squares
    of the last catch-up refused (scoring.join.unlikely: no plays a rack could make lay them),
    unexplained, so the lost-game watch flags them, until a catch-up succeeds."""

    def __init__(self) -> None:
        self._refused: frozenset[Square] = frozenset()

    @property
    def refused(self) -> frozenset[Square]:
        return self._refused

    def refuse(self, squares) -> None:
        self._refused = frozenset(squares)


def new_squares(sk: KeeperState, seen: Snapshot, board) -> list[Square]:
    """The squares `seen` holds a tile on (as decode_move reads a new tile) that `board` does not."""
    tiles = occupied(seen, sk.cfg.tile_min_prob)
    return [sq for r, c in np.argwhere(tiles) if (sq := Square(int(r), int(c))) not in board]


def join(sk: KeeperState, seen: Snapshot, player: int | None, pressed: bool = False) -> Observation | None:
    """The plays that explain the board as it stands (scoring.join.explain), in turn order from
    the player on turn, each marked for review (their order and split are inferred). None when
    the tiles make no such plays."""
    g = sk.game
    if g.state.ended:
        return None
    board = g.state.board
    # a play the camera could not read waits for a person: the plays beside it are joined without it
    new = [sq for sq in new_squares(sk, seen, board) if sq not in sk.holding.unreadable]
    if len(new) < 2:
        return None
    plays = explain(board, seen, g.dist, new, sk.lexicon, sk.cfg)
    if plays is None:
        return None
    why = unlikely(plays, g.dist, sk.cfg)
    if why is not None:
        # no plays a rack could make lay this board: flagged (unexplained), none recorded
        sk.joins.refuse(new)
        return Observation((), "unclear", f"the board's change fits no plays a rack could make ({why}): "
                                          f"{len(new)} new tiles left unexplained")
    sk.joins.refuse(())
    added = []
    try:
        added = credit(sk, [p.named(seen) for p in plays], player, pressed, review=True, done=added)
    except (GameError, PlacementError) as exc:
        if not (added and sk.game.state.ended):
            return refuse(sk, added, new, exc)
        # a player went out part way: the plays up to the end stand; tiles laid after the game
        # ended stay unexplained (the lost-game watch says so)
        plays = plays[:len(added)]
    words = [" ".join(ev.words) for ev in added]
    sk.deciding.first_play()
    left = set(new) - {t.square for p in plays for t in p.placement.tiles}
    sk.deciding.doubt(left)
    return Observation(tuple(added), "play", f"joined: {len(plays)} plays decoded from the board as it stands "
                                             f"(order inferred, each marked for review): " + " / ".join(words))
