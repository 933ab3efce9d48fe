"""The scorekeeper: turns stable snapshots and clock presses into log entries.

Pure bookkeeping, no pixels: the recorder hands it snapshots already read and
oriented. Two steps: `fuse` adds a snapshot to the board belief (once per snapshot), and
`decide` makes the move decision from the fused belief and the game as it stands, with
`decode_move`: it appends events to the game and amends misreads with Correction entries (never by
rewriting the log). `decide` can be retried on the same fused snapshot after the game changed
under it (another writer got in first); `observe` is the two in one.
"""
from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np

from .board import Square
from .decode import DecodeConfig, NoChange, ProposedPlay, ProposedSequence, ProposedWithdrawal, Unclear, decode_move
from .events import (CAMERA, NOT_EVENTS, PRESS_CAUSE, RACK_CAUSE, Correction, Event, Exchange, LogEntry, Pass,
                     PhonyWithdrawn, Play, Void, by_operator, closing, voided)
from .belief import BoardBelief
from .game import Game, GameError, TurnDetailsError, check_within_set, effective_events, is_over
from .gcg.notation import placement_from_gcg, play_notation, played_tiles
from .gcg.records import RACK_NOT_SEEN
from .join import explain, unlikely
from .lexicon import Lexicon
from .placement import PlacedTile, Placement, PlacementError, tile_changes
from .racks import Fitted, Judged, RackBook, RackSeen
from .snapshot import BLANK_TILE, EMPTY, Snapshot, occupied
from .tilecheck import TileCheckConfig, first_play_down, printed, tile_check
from .trust import learned, unlearned

__all__ = ["Fused", "Observation", "Scorekeeper"]


# The words the camera's corrections from a rack read begin with, for people; the code reads their
# Correction.cause (RACK_CAUSE): one such correction per move at most.
_RACK_REASON = "the rack camera"


def _joined(*notes: str) -> str:
    return "\n".join(n for n in notes if n)


def _board_after(events: list[Event], game: Game):
    """The board after `events` (a prefix of `game`'s)."""
    g = Game(game.profile, game.dist, game.layout, game.players, within_set=False)
    for e in events:
        g.append(e)
    return g.state.board

# The events that take a turn: one entered by a person says whose turn comes next.
_TURNS = ("play", "pass", "exchange", "turn_lost")


@dataclass(frozen=True)
class Observation:
    """What the scorekeeper made of one snapshot: the entries it appended, or why it did not."""

    entries: tuple[LogEntry, ...]
    status: str          # "play" | "withdrawn" | "pass" | "no_change" | "unclear" | "corrected" | "ended"
    #                      | "behind" (a resumed source showing an earlier state of the board)
    #                      | "tile_check" (the tiles face up before the first play: never a play)
    detail: str = ""


@dataclass(frozen=True)
class _Retiled:
    """A committed tile the game's tile set reads as another (Scorekeeper.retile), as a misread."""

    square: Square
    now: str


@dataclass(frozen=True, eq=False)
class Fused:
    """A snapshot added to the board belief: the posterior `decide` reads (None when the snapshot
    is history a resumed source replays, "behind", or the one that catches up, "here")."""

    seen: Snapshot | None
    replay: str | None = None   # None | "behind" | "here"


class Scorekeeper:
    def __init__(self, game: Game, lexicon: Lexicon | None = None, cfg: DecodeConfig | None = None,
                 camera_name: str = CAMERA) -> None:
        self.game = game
        self.lexicon = lexicon
        self.cfg = cfg or DecodeConfig()
        self.entries: list[LogEntry] = list(game.events)
        self.camera_name = camera_name
        # Who closed the game (a director's Close, which only `sync` brings: the camera never closes
        # a game); None while it is open. Kept, not searched for, since the station asks every frame.
        self.closed_by: str | None = None
        self.belief: BoardBelief | None = None   # what every snapshot so far says each square holds
        # New squares seen at a clock press that was too covered to commit: they order the plays
        # when the next snapshot shows two at once.
        self.glimpsed: frozenset[Square] = frozenset()
        # After a resume the source may start over from its first frame: until a snapshot shows the
        # board as the record has it (or something new on it), earlier states are history replayed.
        self.behind = False
        self._replayed: int | None = None  # while behind: the turn of the record the replay has reached
        self._history: tuple[list[LogEntry], list[np.ndarray]] | None = None  # (log, occupancy per turn)
        self._handed_over = 0  # log entries already looked at for operator corrections
        # New squares left out of a committed play (a printed label read as a tile): doubts that
        # never hold a later play up (decode_move's `doubtful`); gone once read empty or committed.
        self.doubts: frozenset[Square] = frozenset()
        self.in_tile_check = False  # the last snapshot was the tile check (scoring.tilecheck)
        # Whose turn it is, as far as anyone said: known at the start (the seating), after a clock
        # press ended the last turn, or after a person entered a turn; not after a play committed
        # without a press (a pass or an exchange then would go unseen). A play committed while it
        # is not known is credited to the player on turn and marked turn_inferred (scoring.turns).
        self.turn_known = not game.events
        # The play committed without a press whose turn is still open: the press that follows
        # ends it (not a pass). Log index of that event, or None.
        self._unpressed: int | None = None
        self._turn_before: tuple[bool, int | None] = (self.turn_known, None)  # undone by sync(pending)
        self.first_play_down = False  # a first play was seen, read or not: no check after it
        # A correction of the last play that one snapshot proposed (Scorekeeper._redecide): the
        # next must propose the same before it is committed.
        self._contradicted: tuple | None = None
        # The new squares of the last press that showed more of them than a rack holds (_beyond_a_turn).
        self._beyond: frozenset[Square] = frozenset()
        # The new squares of the last catch-up refused (scoring.join.unlikely: no plays a rack could
        # make lay them): unexplained, so the lost-game watch flags them, until a catch-up succeeds.
        self.refused: frozenset[Square] = frozenset()
        self.tile_check_cfg = TileCheckConfig()
        # What the rack cameras saw (scoring.racks); None until the first read: without one the
        # scorekeeper decides exactly as it does without rack cameras.
        self.racks: RackBook | None = None
        self._own_turns: set[int] = set()   # log indexes of the passes and exchanges the camera entered
        # Tiles learned at this table before this game's log says so (scoring.trust): the tile
        # check's, and those an earlier game the same reader recorded here learned. The station sets it.
        self.given: frozenset[str] = frozenset()

    @property
    def over(self) -> bool:
        """The game is over: the rules ended it or a director closed it (scoring.game.is_over)."""
        return is_over(self.game.state, self.closed_by)

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
        gone = voided(self.entries)  # an operator's Void: that event no longer counts
        for i, e in enumerate(self.entries):
            if not isinstance(e, NOT_EVENTS) and i not in gone:
                n += 1
                if n == event_index:
                    return i
        raise IndexError(event_index)

    def _rebuild(self) -> None:
        g = self.game
        events = effective_events(self.entries, g.profile, g.dist, g.layout, g.players)
        self.game = Game(g.profile, g.dist, g.layout, g.players, events)

    def sync(self, entries: list[LogEntry], pending: int = 0) -> bool:
        """Adopt the log as the store holds it: others may have extended it (an operator's
        correction, a play entered by hand, a pass marked as an exchange). `pending`: how many of
        our own last entries the store never took (another writer got there first, or it refused
        them); they are dropped first. Returns True when something changed."""
        if pending:
            del self.entries[len(self.entries) - pending:]
            self._own_turns = {i for i in self._own_turns if i < len(self.entries)}
            self.turn_known, self._unpressed = self._turn_before  # our decision did not stand
        if entries == self.entries and not pending:
            return False
        if entries[: len(self.entries)] != self.entries:
            raise GameError("the log was rewritten, not extended")
        added = entries[len(self.entries):]
        if any(e.kind in _TURNS for e in added):
            self.turn_known, self._unpressed = True, None  # a person entered a turn: the order is theirs
        elif any(e.kind == "void" for e in added):
            self._unpressed = None  # the events moved: the open play's index no longer holds
        self.entries = list(entries)
        close = closing(added)
        if close is not None and self.closed_by is None:
            self.closed_by = close.by  # a director's close: no turn follows (_observe)
        self._rebuild()
        self.glimpsed = frozenset()  # new squares seen against a board that has changed since
        return True

    def resume(self, entries: list[LogEntry]) -> None:
        """Pick a game up from the stored log after a restart. The board is the record's last; a
        source that starts over from its first frame shows earlier states of it first, which are
        not moves (no withdrawal of committed tiles, no play committed twice), and the first
        snapshot showing the board as it stands is the source catching up, not a clock press."""
        self.sync(entries)
        self.turn_known, self._unpressed = not self.game.events, None  # turns may have gone by unseen
        self.behind = True
        self._replayed = None

    def _occupancy_by_turn(self) -> list[np.ndarray]:
        """Which squares held a tile after each event of the record, from the empty board on."""
        if self._history is None or self._history[0] != self.entries:
            g = self.game
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
            self._history = (list(self.entries), masks)
        return self._history[1]

    def _replay_position(self, snap: Snapshot) -> str:
        """While behind: where the snapshot stands against the record. "behind": the source is
        replaying history; it shows the board as it stood at a turn of the record (to within a few
        misread squares) that the replay has not yet passed the last change of, or committed tiles
        are gone from it (more than a blank read empty, and not just the last play, which is what a
        withdrawal looks like). "here": the board as it stands. "beyond": something new on it."""
        p_empty = snap.probs[..., snap.classes.index(EMPTY)]
        held = occupied(snap, self.cfg.tile_min_prob)  # as decode_move reads a new tile
        boards = self._occupancy_by_turn()
        offs = [int((held != m).sum()) for m in boards]
        best = min(offs)
        if best <= self.cfg.max_stray_squares:
            # The board as it stands holds from the turn after its last change on.
            last_change = max(k for k in range(len(boards)) if k == 0 or (boards[k] != boards[k - 1]).any())
            turns = [k for k, off in enumerate(offs) if off == best]
            if self._replayed is None and turns[-1] >= last_change:
                return "here"  # the source starts at the board as it stands (resumed from the last photo)
            # A board the record held more than once (a phony played and taken back) is taken at its
            # first turn not behind what the replay has shown.
            later = [k for k in turns if k >= (self._replayed or 0)]
            if later:
                self._replayed = later[0]
                return "behind" if later[0] < last_change else "here"
        gone = [sq for sq, _ in self.game.state.board.items() if p_empty[sq.row, sq.col] > self.cfg.empty_min_prob]
        last = self._last_play()
        withdrawal = last is not None and set(gone) == {t.square for t in last[1].placement.tiles}
        return "behind" if len(gone) > self.cfg.max_stray_squares and not withdrawal else "beyond"

    def caught_up(self, pressed: bool = False) -> None:
        """The source is known to be past the record (the recorder saw the last committed frame;
        `pressed`: that frame was a clock press, as every photo of a folder is, so it ended the
        record's last turn and whose turn it is is known again)."""
        self.behind = False
        if pressed:
            self.turn_known = True

    def _add_to_belief(self, snap: Snapshot, visible: np.ndarray | None) -> Snapshot:
        if self.belief is None or self.belief.classes != snap.classes:
            self.belief = BoardBelief(snap.classes, snap.size)
        self.belief.add(snap, visible)
        return self.belief.posterior(snap.t, snap.frame_index)

    def glimpse(self, snap: Snapshot, visible: np.ndarray) -> frozenset[Square]:
        """A snapshot at a clock press with something over part of the board (`visible`: the
        squares in clear view). Too little to commit a play: a tile under the hand could belong to
        it. But the squares in view count as evidence, and the new tiles among them say which line
        went down first if the next snapshot shows two plays. Returns the new squares seen."""
        if self.behind:
            return frozenset()
        return self._keep_glimpse(self._add_to_belief(snap, visible), visible)

    def _keep_glimpse(self, seen: Snapshot, clear: np.ndarray) -> frozenset[Square]:
        """Keep the new tiles read in `clear` squares (if any) as the glimpse; returns them."""
        board = self.game.state.board
        new = frozenset(Square(int(r), int(c)) for r, c in np.argwhere(clear & occupied(seen, self.cfg.tile_min_prob))
                        if Square(int(r), int(c)) not in board)
        if new:
            self.glimpsed = new
        return new

    # -- the entry points: fuse once, then decide (again, if the game changed under it) -----
    def observe(self, snap: Snapshot, player: int | None = None, pressed: bool = False,
                visible: np.ndarray | None = None, clear: np.ndarray | None = None) -> Observation:
        """A stable snapshot fused and decided: `fuse` then `decide`."""
        return self.decide(self.fuse(snap, visible), player, pressed, clear)

    def fuse(self, snap: Snapshot, visible: np.ndarray | None = None) -> Fused:
        """Add a stable snapshot to the board belief; call once per snapshot. `visible`: the squares
        this snapshot counts for (default all)."""
        if self.behind:
            where = self._replay_position(snap)
            if where == "behind":
                return Fused(None, "behind")  # not evidence either: these squares hold tiles now
            self.behind = False
            if where == "here":
                self._add_to_belief(snap, visible)
                return Fused(None, "here")
        return Fused(self._add_to_belief(snap, visible))

    def decide(self, fused: Fused, player: int | None = None, pressed: bool = False,
               clear: np.ndarray | None = None) -> Observation:
        """The move decision on a fused snapshot against the game as it stands now; it adds nothing
        to the belief, so it can be made again after `sync` (a commit refused as stale). `pressed`
        when a clock press asked for the snapshot (by `player`, if known). `clear`: the squares away
        from anything lying on the board; when a press cannot be decoded (a hand's edge read as
        tiles), the new tiles among them are kept as a glimpse (see `glimpse`)."""
        if fused.replay == "behind":
            return Observation((), "behind", "the source shows an earlier state of the board")
        if fused.replay == "here":
            # The snapshot that catches up shows the board as it stands: no clock press (not a
            # pass), and a square or two read differently is a misread, not a play. A press there
            # (a folder of photos: every frame is one) is the press that ended the record's last
            # turn, so whose turn it is is known again, as it was before the restart.
            if pressed:
                self.turn_known = True
            return Observation((), "no_change", "the source has caught up with the record")
        seen = fused.seen
        obs = self._observe(seen, player, pressed)
        if any(e.kind == "play" for e in obs.entries):
            self.glimpsed = frozenset()
        elif pressed and obs.status == "unclear" and clear is not None:
            self._keep_glimpse(seen, clear)
        return obs

    def _observe(self, seen: Snapshot, player: int | None, pressed: bool) -> Observation:
        g = self.game
        self._turn_before = (self.turn_known, self._unpressed)
        if self.closed_by is not None:  # the writer would refuse any turn (scoring.game.check_open)
            return Observation((), "ended", f"the game was ended by {self.closed_by}")
        if g.state.ended and g.state.end_reason != "out":
            return Observation((), "ended", f"the game has ended ({g.state.end_reason})")
        centre = (g.layout.centre.row, g.layout.centre.col)
        check = tile_check(seen, len(g.state.board), centre, self.in_tile_check, self.tile_check_cfg,
                           self.first_play_down)
        if check is not None:
            self.in_tile_check = check == "check"
            return Observation((), "tile_check", "the tiles face up before the first play") if check == "check" \
                else Observation((), "no_change", "the tile check is cleared: the game starts")
        if not len(g.state.board) and not self.first_play_down:
            self.first_play_down = first_play_down(seen, centre, self.tile_check_cfg)
            # no play yet: what reads as tiles apart from a first play is print, empty from now on
            self.doubts |= frozenset(Square(r, c) for r, c in printed(occupied(seen, self.cfg.tile_min_prob), centre))
        last = self._last_play()
        d = decode_move(g.state.board, seen, g.dist, last[1].placement if last else None, self.lexicon, self.cfg,
                   self.glimpsed, self.doubts)
        # more plays than one turn's from a snapshot: a join (at a clock press, once a game is recorded,
        # only when more tiles are new than a rack holds: a press ends one turn, and ScrabScrap's
        # game08 gave JUS misread as two plays, OD and US; a photo taken every few moves shows more)
        if isinstance(d.change, Unclear) and (not (pressed and len(g.state.board)) or self._beyond_a_turn(seen)):
            joined = self._join(seen, player, pressed)
            if joined is not None:
                return joined
        if isinstance(d.change, Unclear) or self._extends_last_play(d):
            redone = self._redecide(seen, player, pressed, agreed=not isinstance(d.change, Unclear) or pressed)
            if redone is not None:
                return redone
        if not isinstance(d.change, Unclear):
            self._contradicted, self._beyond = None, frozenset()
            # what is still new and fits no play stays in doubt; what was committed or went is not
            self.doubts = (self.doubts & frozenset(d.doubtful)) | (
                frozenset(d.doubtful) if isinstance(d.change, (ProposedPlay, ProposedSequence)) else frozenset())
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
                added += self._rack_exchanges(change, player)
                ev, = self._credit([change], player, pressed)
                added.append(ev)
                return Observation(tuple(added), "play", " ".join(ev.words))
            if isinstance(change, ProposedSequence):
                # A missed snapshot: both plays, in turn order, a catch-up like the join's: recorded
                # only when a rack could make each (else flagged, scoring.join.unlikely), and each
                # under review (the split between them is inferred)
                why = unlikely(list(change.plays), g.dist, self.cfg)
                if why is not None:
                    self.refused = frozenset(t.square for p in change.plays for t in p.placement.tiles)
                    return Observation(tuple(added), "unclear", f"the board's change fits no plays a rack could "
                                                                f"make ({why})")
                added += self._rack_exchanges(change.plays[0], player)
                plays = self._credit(list(change.plays), player, pressed, review=True)
                added += plays
                return Observation(tuple(added), "play", " / ".join(" ".join(ev.words) for ev in plays))
            if isinstance(change, ProposedWithdrawal):
                ev = self.game.withdraw(last[1].player)
                added.append(self._append(ev))
                return Observation(tuple(added), "withdrawn", f"{' '.join(last[1].words)} taken off the board")
            if isinstance(change, Unclear):
                return Observation(tuple(added), "unclear", change.reason)
            if pressed and not g.state.ended:
                if self._ends_open_play(player):
                    # The press of the player whose play went down before it: their turn ends, no pass.
                    self.turn_known, self._unpressed = True, None
                    return Observation(tuple(added), "corrected" if added else "no_change",
                                       "the clock press ends the turn of the play before it")
                recredit = self._recredit(player)
                if recredit is not None:
                    added.append(recredit)
                    self.turn_known, self._unpressed = True, None
                    return Observation(tuple(added), "corrected", recredit.reason)
                # Nothing changed at a clock press: a pass (the operator can mark an exchange), or,
                # when the player's rack camera saw their rack change, an exchange.
                added.append(self._append(self._no_tiles(who)))
                self._own_turns.add(len(self.entries) - 1)
                self.turn_known, self._unpressed = True, None
                return Observation(tuple(added), "pass")
        except (GameError, PlacementError) as exc:
            return Observation(tuple(added), "unclear", str(exc))
        return Observation(tuple(added), "corrected" if added else "no_change")

    def _join(self, seen: Snapshot, player: int | None, pressed: bool = False) -> Observation | None:
        """More new tiles than one or two plays lay (a station started mid-game, a first snapshot
        that came late, plays missed while no snapshot was taken): the plays that explain the board
        as it stands (scoring.join.explain), in turn order from the player on turn, each marked for
        review (their order and split are inferred). None when the tiles make no such plays."""
        g = self.game
        if g.state.ended:
            return None
        board = g.state.board
        new = self._new_squares(seen, board)
        if len(new) < 2:
            return None
        plays = explain(board, seen, g.dist, new, self.lexicon, self.cfg)
        if plays is None:
            return None
        why = unlikely(plays, g.dist, self.cfg)
        if why is not None:
            # no plays a rack could make lay this board: flagged (unexplained), none recorded
            self.refused = frozenset(new)
            return Observation((), "unclear", f"the board's change fits no plays a rack could make ({why}): "
                                              f"{len(new)} new tiles left unexplained")
        self.refused = frozenset()
        added = []
        try:
            added = self._credit(list(plays), player, pressed, review=True, done=added)
        except (GameError, PlacementError) as exc:
            if not (added and self.game.state.ended):
                for e in added:
                    self.entries.remove(e)
                self._rebuild()
                self.turn_known, self._unpressed = self._turn_before
                self.refused = frozenset(new)
                return Observation((), "unclear", f"the board as it stands fits no plays: {exc}")
            # a player went out part way: the plays up to the end stand; tiles laid after the game
            # ended stay unexplained (the lost-game watch says so)
            plays = plays[:len(added)]
        words = [" ".join(ev.words) for ev in added]
        self.first_play_down = True
        left = set(new) - {t.square for p in plays for t in p.placement.tiles}
        self.doubts = frozenset(left)
        return Observation(tuple(added), "play", f"joined: {len(plays)} plays decoded from the board as it stands "
                                                 f"(order inferred, each marked for review): " + " / ".join(words))

    def _new_squares(self, seen: Snapshot, board) -> list[Square]:
        """The squares `seen` holds a tile on (as decode_move reads a new tile) that `board` does not."""
        tiles = occupied(seen, self.cfg.tile_min_prob)
        return [sq for r, c in np.argwhere(tiles) if (sq := Square(int(r), int(c))) not in board]

    def _beyond_a_turn(self, seen: Snapshot) -> bool:
        """More new tiles on the board than a rack holds (more than one turn went by), seen at two
        presses in a row (a hand over the board at one photo, print read as tiles, come and go; plays
        stay), on a board that shows the record: a tenth or more of the committed tiles read empty or
        as other tiles is a grid placed wrong (a hand-held phone's photo: the last rows slipped by a
        square), not plays."""
        board = self.game.state.board
        tiles = occupied(seen, self.cfg.tile_min_prob)
        new = frozenset(self._new_squares(seen, board))
        best = seen.best()
        off = sum(1 for sq, tile in board.items()
                  if not tiles[sq.row, sq.col] or seen.classes[best[sq.row, sq.col]] != (BLANK_TILE if tile.blank else tile.letter))
        rack = self.game.dist.rack_size
        before, self._beyond = self._beyond, (new if len(new) > rack and off * 10 < len(board) else frozenset())
        return len(self._beyond & before) > rack

    def _extends_last_play(self, d) -> bool:
        """New squares beside the last play, in its line, that came with another play (left out of
        it as doubts, or taken as a one-tile play of their own): a tile of the last play first read
        as empty (the commonest misread), which later boards show."""
        last = self._last_play()
        if last is None:
            return False
        change = d.change
        lone = [p.placement.tiles[0].square for p in change.plays if len(p.placement.tiles) == 1] \
            if isinstance(change, ProposedSequence) else []
        extra = set(d.doubtful) | set(lone)
        squares = [t.square for t in last[1].placement.tiles]
        dr, dc = last[1].placement.direction.step
        first, end = min(squares), max(squares)
        return bool(extra & {Square(first.row - dr, first.col - dc), Square(end.row + dr, end.col + dc)})

    def _redecide(self, seen: Snapshot, player: int | None, pressed: bool, agreed: bool = True) -> Observation | None:
        """Later boards contradict the last committed play: the new tiles make no play on the board
        the record has (a committed play read on the wrong squares, with print or a shadow in it), or
        a tile beside it in its line came with the next play (it was read empty). The board as it
        stands is decoded against the record without that play; when that explains it, the play is
        corrected (a camera Correction, for review) and the plays after it are credited as new ones.
        Only the camera's own play (one with a certainty), while nothing but its challenge came after
        it. Without `agreed` (an unclear video snapshot, retaken while the board stays still), two
        snapshots in a row must propose the same correction (a hand's edge is not evidence)."""
        g = self.game
        last = self._last_play()
        if last is None or g.state.ended:
            return None
        i, play = last
        if play.certainty is None or any(e.kind != "challenge_bonus" for e in g.events[i + 1:]):
            return None
        before = g.state.board.copy()
        for t in play.placement.tiles:
            before.remove(t.square)
        new = self._new_squares(seen, before)
        d = decode_move(before, seen, g.dist, None, self.lexicon, self.cfg, frozenset(), self.doubts)
        plays = [d.change] if isinstance(d.change, ProposedPlay) else \
            list(d.change.plays) if isinstance(d.change, ProposedSequence) else \
            explain(before, seen, g.dist, new, self.lexicon, self.cfg) or []
        if not plays:
            self._contradicted = None
            return None
        was = {t.square for t in play.placement.tiles}
        now = {t.square for p in plays for t in p.placement.tiles}
        p_empty = seen.probs[..., seen.classes.index(EMPTY)]
        kept = {sq for sq in was if p_empty[sq.row, sq.col] <= self.cfg.empty_min_prob}
        # the corrected play is a reading of the same turn: it keeps the squares that still hold
        # tiles, and it is not the play as committed
        first = plays[0].placement
        if not kept <= now or not (was & {t.square for t in first.tiles}) or first == play.placement:
            self._contradicted = None
            return None
        key = (i, tuple(sorted((t.square.row, t.square.col, t.tile) for t in first.tiles)))
        if not agreed and self._contradicted != key:
            self._contradicted = key   # said once: the next snapshot must say it again
            return None
        self._contradicted = None
        fixed = replace(play, placement=first, certainty=round(plays[0].certainty, 4), review=True, runner_ups=())
        entry = Correction(self._log_index(i), fixed, by=self.camera_name,
                           reason="later boards contradict this play: re-read from the board as it stands")
        self._append(entry)
        before_game = g
        try:
            self._rebuild()
            check_within_set(before_game.state.peak, self.game.state.peak, before_game.dist, "this correction")
        except (GameError, PlacementError):
            self.entries.remove(entry)
            self.game = before_game
            return None
        added: list[LogEntry] = [entry]
        if len(plays) > 1:
            try:
                added = self._credit(plays[1:], player, pressed, review=len(plays) > 2, done=added)
            except (GameError, PlacementError) as exc:
                for e in added:
                    self.entries.remove(e)
                self._rebuild()
                self.turn_known, self._unpressed = self._turn_before
                self.refused = frozenset(new)
                return Observation((), "unclear", f"the board as it stands fits no plays: {exc}")
        words = [" ".join(e.words) for e in added[1:]]
        self.doubts = frozenset(set(new) - now)
        return Observation(tuple(added), "play" if words else "corrected",
                           "camera correction: the last play re-read from the board as it stands"
                           + (": then " + " / ".join(words) if words else ""))

    def unexplained(self) -> list[Square]:
        """The squares the board belief holds a tile on (read with a tile check's confidence) that no
        committed play explains and no earlier decision left in doubt: what the record does not
        follow. None during a tile check or while a resumed source replays its history."""
        if self.belief is None or self.in_tile_check or self.behind:
            return []
        seen = self.belief.posterior()
        board = self.game.state.board
        tiles = occupied(seen, self.tile_check_cfg.tile_prob)
        # a catch-up refused (no plays a rack could make): its new tiles, while they still read as tiles
        refused = occupied(seen, self.cfg.tile_min_prob)
        return sorted(sq for r, c in np.argwhere(tiles | refused)
                      if (sq := Square(int(r), int(c))) not in board and
                      (sq in self.refused or (tiles[r, c] and sq not in self.doubts)))

    def _credit(self, plays: list[ProposedPlay], player: int | None, pressed: bool, review: bool = False,
                done: list | None = None) -> list[Play]:
        """The plays appended in turn order (`done` collects them as they go), each credited to a
        player: the last to whoever's press ended the turn (`player`, when the press names one),
        the others in turn before it; without a name, in turn from the player on turn. A credit is
        inferred (Play.turn_inferred) unless the turn's start is known (the first play, after a
        press or a person's entry) or the press named its player (the last). A press ends the last
        play's turn; without one that turn stays open for the press that follows."""
        g = self.game
        n = len(plays)
        out = done if done is not None else []
        first = g.state.on_turn if player is None else (player - (n - 1)) % g.players
        for i, proposed in enumerate(plays):
            known = (i == 0 and self.turn_known) or (i == n - 1 and pressed and player is not None)
            out.append(self._append(self._play((first + i) % g.players, proposed, review, inferred=not known)))
        self.turn_known = pressed
        self._unpressed = None if pressed else len(g.events) - 1
        return out

    def _rack_exchanges(self, proposed: ProposedPlay, player: int | None) -> list[Event]:
        """Before a play no press credited to the player on turn: the turns that went by in an
        exchange their rack camera saw (rack changed, board not: RackBook.exchange_before), each
        appended as the camera's Exchange, in turn order, until the player on turn is one whose rack
        change, if any, is this play's. Whether or not the clock is pressed at all."""
        g, out = self.game, []
        if self.racks is None:
            return out
        played = played_tiles(proposed.placement, g.dist)
        for _ in range(g.players):
            who = g.state.on_turn
            if g.state.ended or who == player:
                break
            change = self.racks.exchange_before(who, played, g.events, g.state.board)
            if change is None:
                break
            judged = self.racks.judge(change.before, "", g.state.board)
            note = (f"the rack camera saw {change.tiles} leave the rack and others come while the board "
                    "did not change (no clock press): an exchange")
            try:
                ev = g.exchange(who, change.count, change.tiles, judged.rack, note, judged.note)
            except GameError:
                break
            out.append(self._append(ev))
            self._own_turns.add(len(self.entries) - 1)
            self.turn_known = True
        return out

    def _ends_open_play(self, player: int | None) -> bool:
        """A press on an unchanged board ends the turn of the play committed before it without a
        press (the board stood still before the player reached the clock), when nothing but its
        challenge came since and the press is not another player's."""
        i, events = self._unpressed, self.game.events
        return (i is not None and i < len(events) and isinstance(events[i], Play)
                and all(e.kind in ("phony_withdrawn", "challenge_bonus") for e in events[i + 1:])
                and player in (None, events[i].player))

    def _recredit(self, player: int | None) -> Correction | None:
        """A press naming another player than the one an open play was credited to by turn order
        alone (turn_inferred): the press is the evidence, so the play is theirs and a turn before it
        went unseen. The camera's Correction says so (the record then shows a move out of turn,
        which scoring.turns flags); None when the press does not contradict an inferred credit."""
        i, events = self._unpressed, self.game.events
        if (player is None or i is None or i >= len(events) or not isinstance(events[i], Play)
                or not events[i].turn_inferred or events[i].player == player
                or any(e.kind not in ("phony_withdrawn", "challenge_bonus") for e in events[i + 1:])):
            return None
        fixed = replace(events[i], player=player, turn_inferred=False)
        entry = Correction(self._log_index(i), fixed, by=self.camera_name, cause=PRESS_CAUSE,
                           reason=f"the clock press of player {player + 1} ended this turn, credited to player "
                                  f"{events[i].player + 1} by turn order alone: a turn before it went unseen")
        return self._amend(entry)

    def _play(self, player: int, proposed: ProposedPlay, review: bool = False, inferred: bool = False) -> Play:
        """The play appended, with how it was read: its certainty, whether that is under the review
        threshold (or `review`: its order or split inferred), and the runner-up readings in GCG
        notation (against the board before it)."""
        before = self.game
        runner_ups = []
        for r in proposed.runner_ups:
            try:
                _, pos, word = play_notation(Play(player, r.placement, (), None, 0, 0, 0), before)
            except (GameError, PlacementError, ValueError, KeyError):
                continue
            runner_ups.append((pos, word, round(r.probability, 4)))
        certainty = round(proposed.certainty, 4)
        rack = self._rack_for(player, proposed.placement)
        review = review or certainty < self.cfg.review_below or rack.review or proposed.from_pool \
            or self._untrusted(proposed.placement)
        try:
            return self.game.play(player, proposed.placement, rack=rack.rack, rack_note=rack.note, certainty=certainty,
                                  review=review, runner_ups=tuple(runner_ups), turn_inferred=inferred,
                                  not_from_rack=rack.review)
        except GameError:
            if rack.rack is None:
                raise
        # the play goes down without the rack read (it breaks the set beside the board): the play is
        # the board camera's, never refused for a rack
        return self.game.play(player, proposed.placement, rack_note=f"{RACK_NOT_SEEN}: the rack read holds more "
                                                                   "of a tile than the set has beside this play", certainty=certainty,
                              review=review, runner_ups=tuple(runner_ups), turn_inferred=inferred)

    def learned(self) -> frozenset[str]:
        """The tiles learned at this table so far (scoring.trust.learned)."""
        return learned(self.entries, self.given, self.camera_name)

    def _untrusted(self, placement: Placement) -> bool:
        """The play holds a tile not yet learned at this table ([decode] learn_table): for review."""
        return self.cfg.learn_table and bool(unlearned(placement, self.learned()))

    # -- the rack cameras (scoring.racks) ---------------------------------------------------
    def watch_racks(self, review_below: float) -> RackBook:
        """The rack book, made at the first read: a rack tile read under `review_below` ([racks]
        review_below, the one threshold) counts as not seen."""
        if self.racks is None:
            self.racks = RackBook(self.game.dist, self.game.players, review_below)
        self.racks.review_below = review_below
        return self.racks

    def rack_fit(self, seen: RackSeen, review_below: float) -> Fitted:
        """A rack camera's settled read under the set's counts, against the record as it stands
        (RackBook.fit): the rack it stands for, or what it breaks. Give `Fitted.rack` to rack_seen."""
        return self.watch_racks(review_below).fit(seen, self.game.state.board, self.game.events)

    def rack_seen(self, seen: RackSeen, review_below: float) -> list[LogEntry]:
        """A rack camera's settled view of a player's rack (as rack_fit took it). Kept in the rack
        book for the moves to come; when it came after the player's last move was committed (the two
        cameras are not in step), that move is amended once by a camera Correction: a pass their rack
        changed at becomes an exchange, and a move without a rack gets the one read before it. Returns
        the entries appended ([] mostly)."""
        self.watch_racks(review_below).add(seen)
        fixed = self._late_rack(seen.player)
        return [] if fixed is None else [fixed]

    def _rack_for(self, player: int, placement: Placement) -> Judged:
        """What the rack read before this play says: the play's rack, a note, a review flag."""
        if self.racks is None:
            return Judged(None)
        played = played_tiles(placement, self.game.dist)
        seen = self.racks.rack_before(player, played, self.game.events)
        return Judged(None) if seen is None else self.racks.judge(seen, played, self.game.state.board)

    def _no_tiles(self, who: int) -> Event:
        """The turn of a clock press with nothing new on the board: a pass, or an exchange when the
        player's rack changed since their turn began (with the tiles that left it)."""
        g = self.game
        change = self.racks.changed_since_turn(who, g.events, g.state.board) if self.racks is not None else None
        if change is None:
            return g.pass_turn(who)
        judged = self.racks.judge(change.before, "", g.state.board)
        if change.problem:
            note = f"the rack camera saw the rack change, but not by an exchange: {change.problem}"
            return g.pass_turn(who, judged.rack, note, judged.note)
        if change.kind == "exchange":
            try:
                return g.exchange(who, change.count, change.tiles, judged.rack, rack_note=judged.note)
            except GameError as exc:
                note = f"the rack camera saw {change.tiles} leave the rack, but no exchange can be: {exc}"
                return g.pass_turn(who, judged.rack, note, judged.note)
        return g.pass_turn(who, judged.rack, rack_note=judged.note)

    def _late_rack(self, player: int) -> Correction | None:
        """The player's last move amended by what their rack camera saw after it was committed:
        the camera's pass into an exchange (while the player's next turn has not begun), or a rack
        filled in where the move has none. Once per move, never a move a person entered or fixed."""
        g = self.game
        k = next((i for i in range(len(g.events) - 1, -1, -1)
                  if g.events[i].player == player and g.events[i].kind in _TURNS), None)
        if k is None or g.state.on_turn == player and not g.state.ended:
            return None  # no move yet, or their next turn has begun: its reads are that turn's
        ev, at = g.events[k], self._log_index(k)
        if any(isinstance(e, (Correction, Void)) and e.target == at and (
                e.kind == "void" or by_operator(e, self.camera_name) or e.cause == RACK_CAUSE)
               for e in self.entries):
            return None  # voided, a person's word on it, or amended by a rack once already
        before = g.events[:k]
        board = _board_after(before, g)
        fixed, reason = None, ""
        if isinstance(ev, Pass) and at in self._own_turns:
            change = self.racks.changed_since_turn(player, before, board)
            if change is not None and change.kind == "exchange":
                judged = self.racks.judge(change.before, "", board)
                fixed = Exchange(player, change.count, change.tiles, ev.cumulative, judged.rack, "", judged.note)
                reason = f"{_RACK_REASON} saw {change.tiles} leave the rack at this press: an exchange, not a pass"
            elif change is not None and ev.rack is None:
                judged = self.racks.judge(change.before, "", board)
                fixed, reason = replace(ev, rack=judged.rack, rack_note=_joined(ev.rack_note, judged.note)), \
                    f"{_RACK_REASON}'s read of the rack at this pass"
        elif isinstance(ev, Play) and ev.certainty is not None and ev.rack is None and not ev.rack_note:
            # (a rack_note: a read was judged at the commit and gave no rack; a late read changes nothing)
            played = played_tiles(ev.placement, g.dist)
            if self.racks.departed(player, played, before):
                seen = self.racks.rack_before(player, played, before)
                judged = self.racks.judge(seen, played, board)
                fixed = replace(ev, rack=judged.rack, rack_note=judged.note,
                                review=ev.review or judged.review, not_from_rack=judged.review)
                reason = f"{_RACK_REASON}'s read of the rack before this play, settled after it was committed"
        if fixed is None:
            return None
        return self._amend(Correction(at, fixed, by=self.camera_name, reason=reason, cause=RACK_CAUSE))

    def _amend(self, entry: Correction) -> Correction | None:
        """Append the camera's correction, or take it back when the game it makes is no game."""
        self._append(entry)
        try:
            self._rebuild()
        except (GameError, PlacementError):
            self.entries.remove(entry)
            self._rebuild()
            return None
        return entry

    def _correct(self, misreads, review: bool = False,
                 reason: str = "the tiles read differently over more frames") -> list[LogEntry]:
        """Amend the play that put each misread tile down (`review`: the amended play goes on the
        review queue)."""
        fixes: dict[int, dict[Square, str]] = {}
        for m in misreads:
            for i, ev in enumerate(self.game.events):
                if isinstance(ev, Play) and any(t.square == m.square for t in ev.placement.tiles):
                    fixes.setdefault(i, {})[m.square] = m.now
        out = []
        for i, letters in sorted(fixes.items()):
            play = self.game.events[i]
            # the tile read now is the tile: a letter read on a blank makes it that letter's tile (kept
            # a blank, it still shows '?' and the same correction came again at every snapshot)
            tiles = tuple(PlacedTile(t.square, letters[t.square], letters[t.square] == BLANK_TILE)
                          if t.square in letters else t for t in play.placement.tiles)
            placement = Placement(tiles, play.placement.direction)
            fixed = replace(play, placement=placement, review=play.review or review or self._untrusted(placement),
                            **self._reread(i, play, placement))
            entry = Correction(self._log_index(i), fixed, by=self.camera_name, reason=reason)
            out.append(self._append(entry))
        before = self.game
        try:
            self._rebuild()
            # nor a reading of more of a tile than the set has (a third V read under an E)
            check_within_set(before.state.peak, self.game.state.peak, before.dist, "this correction")
        except (GameError, PlacementError):
            # The amended reading breaks the game: keep what stood and leave it to the operator.
            for e in out:
                self.entries.remove(e)
            self.game = before
            return []
        return out

    def _reread(self, i: int, play: Play, placement: Placement) -> dict:
        """How the camera read play `i` once a correction of its own reads it as `placement`: when
        that is one of its runner-ups, the runner-up's probability is the play's certainty, and the
        reading it replaces a runner-up with its own (the console never offers the reading on air
        back, nor shows the old reading's certainty for the new one). {} when it is none of them."""
        if play.certainty is None or not play.runner_ups:
            return {}
        before = Game(self.game.profile, self.game.dist, self.game.layout, self.game.players,
                      self.game.events[:i], within_set=False)
        for k, (pos, word, p) in enumerate(play.runner_ups):
            try:
                same = not tile_changes(placement_from_gcg(before, pos, word), placement)
            except (PlacementError, ValueError, KeyError):
                continue
            if same:
                _, was_pos, was_word = play_notation(play, before)
                rest = play.runner_ups[:k] + play.runner_ups[k + 1:]
                return {"certainty": p, "runner_ups": ((was_pos, was_word, play.certainty),) + rest}
        return {}

    def retile(self, changes) -> list[LogEntry]:
        """The game's tile set re-read committed tiles (`changes`: {Square: tile}, '?' a blank; the
        reader found more of a tile read or recorded than the bag has, and which tiles the
        assignment under the counts reads as another): each play they belong to amended by a camera
        Correction on the review queue, never silently; those squares' belief starts afresh (its
        frames said what the counts contradict)."""
        if not changes:
            return []
        fixes = [_Retiled(sq, tile) for sq, tile in changes.items() if self.game.state.board[sq] is not None]
        out = self._correct(fixes, review=True, reason="the game's tile counts: more of a tile read than the "
                                                       "bag has")
        if out and self.belief is not None:
            self.belief.forget([f.square for f in fixes])
        return out

    def operator_squares(self) -> list[Square]:
        """The squares of plays an operator (anyone but the camera) corrected or confirmed since the
        last call, each handed over once: the reader learns them with the operator's word as the
        label. An undo is no one's word on the tiles (it puts back what stood before, the camera's
        reading perhaps): its squares are not handed over."""
        new = self.entries[self._handed_over:]
        self._handed_over = len(self.entries)
        return [t.square for e in new
                if by_operator(e, self.camera_name) and e.undoes is None and e.replacement.kind == "play"
                for t in e.replacement.placement.tiles]

    def finish(self) -> list[LogEntry]:
        """End of the recording: if a player went out, add the end-of-game rack adjustments. When
        two or more opponents still hold tiles, their racks as the rack cameras last saw them (whole
        and sure), if together they are the unseen tiles; else the operator enters them."""
        if self.game.state.end_reason == "out" and not any(
                e.kind in ("end_rack_points", "end_rack_penalty") for e in self.game.events):
            try:
                added = self.game.finish_out()
            except ValueError:
                racks = self._end_racks()
                if racks is None:
                    return []  # two or more opponents hold tiles: the operator enters their racks
                try:
                    added = self.game.finish_out(racks)
                except TurnDetailsError:
                    return []  # the racks seen are not the unseen tiles: the operator enters them
            return [self._append(e) for e in added]
        return []

    def _end_racks(self) -> list[str] | None:
        """Each player's rack at the end as the rack cameras saw it ('' for none held), or None when
        a player who holds tiles has no whole, sure read of them."""
        if self.racks is None:
            return None
        s = self.game.state
        seen = self.racks.end_racks(self.game.events)
        racks = ["" if s.rack_sizes[p] == 0 or p == s.out_player else seen[p] for p in range(self.game.players)]
        return None if any(r is None for r in racks) else racks
