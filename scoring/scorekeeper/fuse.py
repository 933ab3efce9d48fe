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


def fuse(sk: KeeperState, snap: Snapshot, visible: np.ndarray | None = None) -> Fused:
    """Add a stable snapshot to the board belief; call once per snapshot. `visible`: the squares
    this snapshot counts for (default all)."""
    if sk.behind:
        where = replay_position(sk, snap)
        if where == "behind":
            return Fused(None, "behind")  # not evidence either: these squares hold tiles now
        sk.behind = False
        if where == "here":
            add_to_belief(sk, snap, visible)
            return Fused(None, "here")
    return Fused(add_to_belief(sk, snap, visible))


def add_to_belief(sk: KeeperState, snap: Snapshot, visible: np.ndarray | None) -> Snapshot:
    if sk.belief is None or sk.belief.classes != snap.classes:
        sk.belief = BoardBelief(snap.classes, snap.size)
    sk.belief.add(snap, visible)
    return sk.belief.posterior(snap.t, snap.frame_index)


def glimpse(sk: KeeperState, snap: Snapshot, visible: np.ndarray) -> frozenset[Square]:
    """A snapshot at a clock press with something over part of the board (`visible`: the
    squares in clear view). Too little to commit a play: a tile under the hand could belong to
    it. But the squares in view count as evidence, and the new tiles among them say which line
    went down first if the next snapshot shows two plays. Returns the new squares seen."""
    if sk.behind:
        return frozenset()
    return keep_glimpse(sk, add_to_belief(sk, snap, visible), visible)


def keep_glimpse(sk: KeeperState, seen: Snapshot, clear: np.ndarray) -> frozenset[Square]:
    """Keep the new tiles read in `clear` squares (if any) as the glimpse; returns them."""
    board = sk.game.state.board
    new = frozenset(Square(int(r), int(c)) for r, c in np.argwhere(clear & occupied(seen, sk.cfg.tile_min_prob))
                    if Square(int(r), int(c)) not in board)
    if new:
        sk.glimpsed = new
    return new


def unexplained(sk: KeeperState) -> list[Square]:
    """The squares the board belief holds a tile on (read with a tile check's confidence) that no
    committed play explains and no earlier decision left in doubt: what the record does not
    follow (a play flagged as unread is said apart: hold.unread). None during a tile check or while a resumed source replays its history."""
    if sk.belief is None or sk.in_tile_check or sk.behind:
        return []
    seen = sk.belief.posterior()
    board = sk.game.state.board
    tiles = occupied(seen, sk.tile_check_cfg.tile_prob)
    # a catch-up refused (no plays a rack could make): its new tiles, while they still read as tiles
    refused = occupied(seen, sk.cfg.tile_min_prob)
    return sorted(sq for r, c in np.argwhere(tiles | refused)
                  if (sq := Square(int(r), int(c))) not in board and
                  (sq in sk.refused or (tiles[r, c] and sq not in sk.doubts)) and sq not in sk.unreadable)
