"""The scorekeeper: turns stable snapshots and clock presses into log entries.

Pure bookkeeping, no pixels: the recorder hands it snapshots already read and
oriented; it decides, with `decode`, what happened, appends events to the game, and
amends misreads with Correction entries (never by rewriting the log).
"""
from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np

from .board import Square
from .decode import (DecodeConfig, Evidence, NoChange, ProposedPlay, ProposedSequence, ProposedWithdrawal,
                     Unclear, decode)
from .events import Correction, LogEntry, Play
from .game import Game, GameError, effective_events
from .lexicon import Lexicon
from .placement import PlacedTile, Placement, PlacementError
from .snapshot import BLANK_TILE, EMPTY, Snapshot


@dataclass(frozen=True)
class Observation:
    """What the scorekeeper made of one snapshot: the entries it appended, or why it did not."""

    entries: tuple[LogEntry, ...]
    status: str          # "play" | "withdrawn" | "pass" | "no_change" | "unclear" | "corrected" | "ended"
    detail: str = ""


class Scorekeeper:
    def __init__(self, game: Game, lexicon: Lexicon | None = None, cfg: DecodeConfig | None = None,
                 camera_name: str = "camera") -> None:
        self.game = game
        self.lexicon = lexicon
        self.cfg = cfg or DecodeConfig()
        self.entries: list[LogEntry] = list(game.events)
        self.camera_name = camera_name
        self.evidence: Evidence | None = None
        # New squares seen at a clock press that was too covered to commit: they order the plays
        # when the next snapshot shows two at once.
        self.glimpsed: frozenset[Square] = frozenset()

    # -- helpers -----------------------------------------------------------------------
    def _append(self, entry: LogEntry) -> LogEntry:
        self.entries.append(entry)
        return entry

    def _last_play(self) -> tuple[int, Play] | None:
        """The play a challenge could still take back, if any."""
        i = self.game.state.last_play
        return None if i is None else (i, self.game.events[i])

    def _log_index(self, event_index: int) -> int:
        """Index in the log (events and corrections) of the n-th effective event."""
        n = -1
        for i, e in enumerate(self.entries):
            if not isinstance(e, Correction):
                n += 1
                if n == event_index:
                    return i
        raise IndexError(event_index)

    def _rebuild(self) -> None:
        g = self.game
        events = effective_events(self.entries, g.profile, g.dist, g.layout, g.players)
        self.game = Game(g.profile, g.dist, g.layout, g.players, events)

    def sync(self, entries: list[LogEntry]) -> bool:
        """Adopt a log that others extended (an operator's correction, a pass marked as an
        exchange). Returns True when something changed."""
        if entries == self.entries:
            return False
        if entries[: len(self.entries)] != self.entries:
            raise GameError("the log was rewritten, not extended")
        self.entries = list(entries)
        self._rebuild()
        return True

    def _add_evidence(self, snap: Snapshot, visible: np.ndarray | None) -> Snapshot:
        if self.evidence is None or self.evidence.classes != snap.classes:
            self.evidence = Evidence(snap.classes, snap.size)
        self.evidence.add(snap, visible)
        return self.evidence.posterior(snap.t, snap.frame_index)

    def glimpse(self, snap: Snapshot, visible: np.ndarray) -> frozenset[Square]:
        """A snapshot at a clock press with something over part of the board (`visible`: the
        squares in clear view). Too little to commit a play: a tile under the hand could belong to
        it. But the squares in view count as evidence, and the new tiles among them say which line
        went down first if the next snapshot shows two plays. Returns the new squares seen."""
        return self._keep_glimpse(self._add_evidence(snap, visible), visible)

    def _keep_glimpse(self, seen: Snapshot, clear: np.ndarray) -> frozenset[Square]:
        """Keep the new tiles read in `clear` squares (if any) as the glimpse; returns them."""
        p_tile = 1.0 - seen.probs[..., seen.classes.index(EMPTY)]
        board = self.game.state.board
        new = frozenset(Square(int(r), int(c)) for r, c in np.argwhere(clear & (p_tile > self.cfg.tile_min_prob))
                        if Square(int(r), int(c)) not in board)
        if new:
            self.glimpsed = new
        return new

    # -- the one entry point -----------------------------------------------------------
    def observe(self, snap: Snapshot, player: int | None = None, pressed: bool = False,
                visible: np.ndarray | None = None, clear: np.ndarray | None = None) -> Observation:
        """A stable snapshot; `pressed` when a clock press asked for it (by `player`, if known).
        `visible`: the squares this snapshot counts as evidence for (default all). `clear`: the
        squares away from anything lying on the board; when a press cannot be decoded (a hand's
        edge read as tiles), the new tiles among them are kept as a glimpse (see `glimpse`)."""
        seen = self._add_evidence(snap, visible)
        obs = self._observe(seen, player, pressed)
        if any(e.kind == "play" for e in obs.entries):
            self.glimpsed = frozenset()
        elif pressed and obs.status == "unclear" and clear is not None:
            self._keep_glimpse(seen, clear)
        return obs

    def _observe(self, seen: Snapshot, player: int | None, pressed: bool) -> Observation:
        g = self.game
        if g.state.ended and g.state.end_reason != "out":
            return Observation((), "ended", f"the game has ended ({g.state.end_reason})")
        last = self._last_play()
        d = decode(g.state.board, seen, g.dist, last[1].placement if last else None, self.lexicon, self.cfg,
                   self.glimpsed)
        added: list[LogEntry] = []
        if d.misreads:
            added += self._correct(d.misreads)
        change = d.change
        try:
            if d.withdraw_first and not isinstance(change, (Unclear, NoChange)):
                added.append(self._append(self.game.withdraw(last[1].player)))
            who = g.state.on_turn if player is None else player
            if isinstance(change, ProposedPlay):
                if g.state.ended:
                    return Observation(tuple(added), "unclear", "tiles added after the game ended")
                ev = self.game.play(who, change.placement)
                added.append(self._append(ev))
                return Observation(tuple(added), "play", " ".join(ev.words))
            if isinstance(change, ProposedSequence):
                # A missed snapshot: both plays, in turn order.
                words = []
                for i, proposed in enumerate(change.plays):
                    ev = self.game.play((who + i) % g.players, proposed.placement)
                    added.append(self._append(ev))
                    words.append(" ".join(ev.words))
                return Observation(tuple(added), "play", " / ".join(words))
            if isinstance(change, ProposedWithdrawal):
                ev = self.game.withdraw(last[1].player)
                added.append(self._append(ev))
                return Observation(tuple(added), "withdrawn")
            if isinstance(change, Unclear):
                return Observation(tuple(added), "unclear", change.reason)
            if pressed and not g.state.ended:
                # Nothing changed at a clock press: a pass (the operator can mark an exchange).
                added.append(self._append(self.game.pass_turn(who)))
                return Observation(tuple(added), "pass")
        except (GameError, PlacementError) as exc:
            return Observation(tuple(added), "unclear", str(exc))
        return Observation(tuple(added), "corrected" if added else "no_change")

    def _correct(self, misreads) -> list[LogEntry]:
        """Amend the play that put each misread tile down."""
        fixes: dict[int, dict[Square, str]] = {}
        for m in misreads:
            for i, ev in enumerate(self.game.events):
                if isinstance(ev, Play) and any(t.square == m.square for t in ev.placement.tiles):
                    fixes.setdefault(i, {})[m.square] = m.now
        out = []
        for i, letters in sorted(fixes.items()):
            play = self.game.events[i]
            tiles = tuple(PlacedTile(t.square, letters.get(t.square, t.letter),
                                     t.blank or letters.get(t.square) == BLANK_TILE)
                          if t.square in letters else t for t in play.placement.tiles)
            fixed = replace(play, placement=Placement(tiles, play.placement.direction))
            entry = Correction(self._log_index(i), fixed, by=self.camera_name,
                               reason="the tiles read differently over more frames")
            out.append(self._append(entry))
        try:
            self._rebuild()
        except (GameError, PlacementError):
            # The amended reading breaks the game: keep what stood and leave it to the operator.
            for e in out:
                self.entries.remove(e)
            return []
        return out

    def finish(self) -> list[LogEntry]:
        """End of the recording: if a player went out, add the end-of-game rack adjustments."""
        if self.game.state.end_reason == "out" and not any(
                e.kind in ("end_rack_points", "end_rack_penalty") for e in self.game.events):
            return [self._append(e) for e in self.game.finish_out()]
        return []
