"""Fusing: each stable snapshot added to the board belief once (scoring.belief), so a tile read
over more frames is read better. A covered snapshot at a clock press counts for the squares in
view (a glimpse); what the belief holds that no committed play explains is `unexplained`."""
from __future__ import annotations

import numpy as np

from ..belief import BoardBelief
from ..board import Square
from ..snapshot import Snapshot, occupied
from .outcome import Fused
from .resume import replay_position
from .state import KeeperState


class Fusing:
    """fuse.py's part of the scorekeeper, changed only through these methods: the board belief
    (what every snapshot so far says each square holds) and the glimpse (new squares seen at a
    clock press that was too covered to commit: they order the plays when the next snapshot shows
    two at once)."""

    def __init__(self) -> None:
        self._belief: BoardBelief | None = None
        self._glimpsed: frozenset[Square] = frozenset()

    @property
    def belief(self) -> BoardBelief | None:
        return self._belief

    @property
    def glimpsed(self) -> frozenset[Square]:
        return self._glimpsed

    def add(self, snap: Snapshot, visible: np.ndarray | None) -> Snapshot:
        """The snapshot added to the belief (made afresh for another set of classes); the posterior."""
        if self._belief is None or self._belief.classes != snap.classes:
            self._belief = BoardBelief(snap.classes, snap.size)
        self._belief.add(snap, visible)
        return self._belief.posterior(snap.t, snap.frame_index)

    def forget(self, squares: list[Square]) -> None:
        """Those squares' belief starts afresh (its frames said what a later rule contradicts)."""
        if self._belief is not None:
            self._belief.forget(squares)

    def glimpse(self, squares: frozenset[Square]) -> None:
        self._glimpsed = squares

    def unglimpse(self) -> None:
        """The glimpse no longer holds: a play committed, or the board changed since it was seen."""
        self._glimpsed = frozenset()


def fuse(sk: KeeperState, snap: Snapshot, visible: np.ndarray | None = None) -> Fused:
    """Add a stable snapshot to the board belief; call once per snapshot. `visible`: the squares
    this snapshot counts for (default all)."""
    if sk.replay.behind:
        where = replay_position(sk, snap)
        if where == "behind":
            return Fused(None, "behind")  # not evidence either: these squares hold tiles now
        sk.replay.caught_up()
        if where == "here":
            sk.fusing.add(snap, visible)
            return Fused(None, "here")
    return Fused(sk.fusing.add(snap, visible))


def glimpse(sk: KeeperState, snap: Snapshot, visible: np.ndarray) -> frozenset[Square]:
    """A snapshot at a clock press with something over part of the board (`visible`: the
    squares in clear view). Too little to commit a play: a tile under the hand could belong to
    it. But the squares in view count as evidence, and the new tiles among them say which line
    went down first if the next snapshot shows two plays. Returns the new squares seen."""
    if sk.replay.behind:
        return frozenset()
    return keep_glimpse(sk, sk.fusing.add(snap, visible), visible)


def keep_glimpse(sk: KeeperState, seen: Snapshot, clear: np.ndarray) -> frozenset[Square]:
    """Keep the new tiles read in `clear` squares (if any) as the glimpse; returns them."""
    board = sk.game.state.board
    new = frozenset(Square(int(r), int(c)) for r, c in np.argwhere(clear & occupied(seen, sk.cfg.tile_min_prob))
                    if Square(int(r), int(c)) not in board)
    if new:
        sk.fusing.glimpse(new)
    return new


def unexplained(sk: KeeperState) -> list[Square]:
    """The squares the board belief holds a tile on (read with a tile check's confidence) that no
    committed play explains and no earlier decision left in doubt: what the record does not
    follow (a play flagged as unread is said apart: hold.unread). None during a tile check or while a resumed source replays its history."""
    if sk.fusing.belief is None or sk.deciding.in_tile_check or sk.replay.behind:
        return []
    seen = sk.fusing.belief.posterior()
    board = sk.game.state.board
    tiles = occupied(seen, sk.tile_check_cfg.tile_prob)
    # a catch-up refused (no plays a rack could make): its new tiles, while they still read as tiles
    refused = occupied(seen, sk.cfg.tile_min_prob)
    return sorted(sq for r, c in np.argwhere(tiles | refused)
                  if (sq := Square(int(r), int(c))) not in board and
                  (sq in sk.joins.refused or (tiles[r, c] and sq not in sk.deciding.doubts))
                  and sq not in sk.holding.unreadable)
