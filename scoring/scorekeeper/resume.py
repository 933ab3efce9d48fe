"""A game picked up after a restart: the source may start over from its first frame, and shows
the record's history before it shows anything new. Where a snapshot stands against the record:
"behind" (history replayed: no move), "here" (the board as it stands: the source caught up) or
"beyond" (something new on it: the game goes on)."""
from __future__ import annotations

import numpy as np

from ..events import LogEntry, PhonyWithdrawn, Play
from ..game import Game
from ..snapshot import EMPTY, Snapshot, occupied
from .state import KeeperState


class Replay:
    """resume.py's part of the scorekeeper, changed only through these methods. After a resume the
    source may start over from its first frame: until a snapshot shows the board as the record has
    it (or something new on it), earlier states are history replayed (`behind`). While behind, it
    keeps the turn of the record the replay has reached; and the occupancy per turn, for the log it
    was worked out from."""

    def __init__(self) -> None:
        self._behind = False
        self._reached: int | None = None
        self._history: tuple[list[LogEntry], list[np.ndarray]] | None = None  # (log, occupancy per turn)

    @property
    def behind(self) -> bool:
        return self._behind

    def start(self) -> None:
        """A resumed source: what it shows first may be history."""
        self._behind, self._reached = True, None

    def caught_up(self) -> None:
        self._behind = False

    def at(self, turns: list[int], last_change: int) -> str | None:
        """Where a snapshot showing the board of the record's `turns` (to within a few squares)
        stands, the board as it stands holding from `last_change` on: "here", "behind" (the turn
        it shows reached), or None when it shows a turn the replay has passed."""
        if self._reached is None and turns[-1] >= last_change:
            return "here"  # the source starts at the board as it stands (resumed from the last photo)
        # A board the record held more than once (a phony played and taken back) is taken at its
        # first turn not behind what the replay has shown.
        later = [k for k in turns if k >= (self._reached or 0)]
        if not later:
            return None
        self._reached = later[0]
        return "behind" if later[0] < last_change else "here"

    def occupancy(self, entries: list[LogEntry]) -> list[np.ndarray] | None:
        """The occupancy per turn kept for the log `entries`, or None."""
        return self._history[1] if self._history is not None and self._history[0] == entries else None

    def keep(self, entries: list[LogEntry], masks: list[np.ndarray]) -> None:
        self._history = (list(entries), masks)


def resume(sk: KeeperState, entries: list[LogEntry]) -> None:
    """Pick a game up from the stored log after a restart. The board is the record's last; a
    source that starts over from its first frame shows earlier states of it first, which are
    not moves (no withdrawal of committed tiles, no play committed twice), and the first
    snapshot showing the board as it stands is the source catching up, not a clock press."""
    sk.sync(entries)
    sk.turns.resumed(not sk.game.events)  # turns may have gone by unseen
    sk.replay.start()


def caught_up(sk: KeeperState, pressed: bool = False) -> None:
    """The source is known to be past the record (the recorder saw the last committed frame;
    `pressed`: that frame was a clock press, as every photo of a folder is, so it ended the
    record's last turn and whose turn it is is known again)."""
    sk.replay.caught_up()
    if pressed:
        sk.turns.pressed()


def occupancy_by_turn(sk: KeeperState) -> list[np.ndarray]:
    """Which squares held a tile after each event of the record, from the empty board on."""
    masks = sk.replay.occupancy(sk.entries)
    if masks is None:
        g = sk.game
        replay = Game(g.profile, g.dist, g.layout, g.players)
        size = g.layout.size
        masks = [np.zeros((size, size), bool)]
        for ev in g.events:
            replay.append(ev)
            mask = masks[-1]
            if isinstance(ev, (Play, PhonyWithdrawn)):
                mask = np.zeros((size, size), bool)
                for sq, _ in replay.state.board.items():
                    mask[sq.row, sq.col] = True
            masks.append(mask)
        sk.replay.keep(sk.entries, masks)
    return masks


def replay_position(sk: KeeperState, snap: Snapshot) -> str:
    """While behind: where the snapshot stands against the record. "behind": the source is
    replaying history; it shows the board as it stood at a turn of the record (to within a few
    misread squares) that the replay has not yet passed the last change of, or committed tiles
    are gone from it (more than a blank read empty, and not just the last play, which is what a
    withdrawal looks like). "here": the board as it stands. "beyond": something new on it."""
    p_empty = snap.probs[..., snap.classes.index(EMPTY)]
    held = occupied(snap, sk.cfg.tile_min_prob)  # as decode_move reads a new tile
    boards = occupancy_by_turn(sk)
    offs = [int((held != m).sum()) for m in boards]
    best = min(offs)
    if best <= sk.cfg.max_stray_squares:
        # The board as it stands holds from the turn after its last change on.
        last_change = max(k for k in range(len(boards)) if k == 0 or (boards[k] != boards[k - 1]).any())
        where = sk.replay.at([k for k, off in enumerate(offs) if off == best], last_change)
        if where is not None:
            return where
    gone = [sq for sq, _ in sk.game.state.board.items() if p_empty[sq.row, sq.col] > sk.cfg.empty_min_prob]
    last = sk.last_play()
    withdrawal = last is not None and set(gone) == {t.square for t in last[1].placement.tiles}
    return "behind" if len(gone) > sk.cfg.max_stray_squares and not withdrawal else "beyond"
