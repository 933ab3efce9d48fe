"""What the scorekeeper keeps, and how it follows the log.

The game as the record holds it, the log (events and corrections), and what each of its jobs
remembers between snapshots (each field says whose it is). `sync` adopts the log as the store
holds it; the helpers here change the log the one way every job does (append, rebuild, amend).
"""
from __future__ import annotations

import numpy as np

from ..belief import BoardBelief
from ..board import Square
from ..decode import DecodeConfig
from ..events import CAMERA, NOT_EVENTS, Correction, LogEntry, Play, closing, voided
from ..game import Game, GameError, effective_events, is_over
from ..lexicon import Lexicon
from ..placement import Placement, PlacementError, score_placement
from ..racks import RackBook
from ..tilecheck import TileCheckConfig
from ..trust import built_on, in_doubt, learned, taught, unlearned

# The events that take a turn: one entered by a person says whose turn comes next.
TURNS = ("play", "pass", "exchange", "turn_lost")


class KeeperState:
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
        # when the next snapshot shows two at once (fuse.py).
        self.glimpsed: frozenset[Square] = frozenset()
        # After a resume the source may start over from its first frame: until a snapshot shows the
        # board as the record has it (or something new on it), earlier states are history replayed
        # (resume.py).
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
        # is not known is credited to the player on turn and marked turn_inferred (credit.py,
        # scoring.turns).
        self.turn_known = not game.events
        # The play committed without a press whose turn is still open: the press that follows
        # ends it (not a pass). Log index of that event, or None.
        self._unpressed: int | None = None
        self._turn_before: tuple[bool, int | None] = (self.turn_known, None)  # undone by sync(pending)
        self.first_play_down = False  # a first play was seen, read or not: no check after it
        # A correction of the last play that one snapshot proposed (reread.py): the next must
        # propose the same before it is committed.
        self._contradicted: tuple | None = None
        # The new squares of the last press that showed more of them than a rack holds
        # (decide.beyond_a_turn).
        self._beyond: frozenset[Square] = frozenset()
        # The new squares of the last catch-up refused (scoring.join.unlikely: no plays a rack could
        # make lay them): unexplained, so the lost-game watch flags them, until a catch-up succeeds.
        self.refused: frozenset[Square] = frozenset()
        # A play read as a guess (hold.py): its squares and how many snapshots have read it so; and
        # the squares of plays flagged as unread (no tiles committed), left out of later decodes.
        self.held: tuple[frozenset[Square], int] = (frozenset(), 0)
        self.unreadable: frozenset[Square] = frozenset()
        self.tile_check_cfg = TileCheckConfig()
        # What the rack cameras saw (scoring.racks); None until the first read: without one the
        # scorekeeper decides exactly as it does without rack cameras (rack_reads.py).
        self.racks: RackBook | None = None
        self._own_turns: set[int] = set()   # log indexes of the passes and exchanges the camera entered
        # Tiles learned at this table before this game's log says so (scoring.trust): the tile
        # check's, and those an earlier game the same reader recorded here learned. The station sets it.
        self.given: frozenset[str] = frozenset()

    @property
    def over(self) -> bool:
        """The game is over: the rules ended it or a director closed it (scoring.game.is_over)."""
        return is_over(self.game.state, self.closed_by)

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
        if any(e.kind in TURNS for e in added):
            self.turn_known, self._unpressed = True, None  # a person entered a turn: the order is theirs
        elif any(e.kind == "void" for e in added):
            self._unpressed = None  # the events moved: the open play's index no longer holds
        self.entries = list(entries)
        close = closing(added)
        if close is not None and self.closed_by is None:
            self.closed_by = close.by  # a director's close: no turn follows (decide.py)
        self._rebuild()
        self.glimpsed = frozenset()  # new squares seen against a board that has changed since
        return True

    def learned(self) -> frozenset[str]:
        """The tiles learned at this table so far (scoring.trust.learned)."""
        return learned(self.entries, self.given, self.camera_name)

    # -- changing the log, the one way every job does -------------------------------------
    def _append(self, entry: LogEntry) -> LogEntry:
        self.entries.append(entry)
        return entry

    def _rebuild(self) -> None:
        g = self.game
        events = effective_events(self.entries, g.profile, g.dist, g.layout, g.players)
        self.game = Game(g.profile, g.dist, g.layout, g.players, events)

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

    def _untrusted(self, placement: Placement, readers: tuple = ()) -> bool:
        """The play holds a tile the table cannot vouch for yet ([decode] learn_table, learn_from_game;
        `readers` what each reader named on its tiles): for review."""
        if not self.cfg.learn_table:
            return False
        if not self.cfg.learn_from_game:
            return bool(unlearned(placement, self.learned()))
        return bool(unlearned(placement, self.learned(), readers, taught(self.entries, self.game.dist, self.camera_name)))

    def _built_on_doubt(self, placement: Placement) -> bool:
        """The play's words run through a tile of an earlier play read in doubt and still under review
        (scoring.trust.built_on; with [decode] learn_table, as the trust rule): its words and score
        stand on that reading, so it goes under review too. Asked before the play is on the board."""
        if not self.cfg.learn_table:
            return False
        try:
            words = score_placement(self.game.state.board, placement, self.game.dist, validate=False).words
        except PlacementError:
            return False
        mine = {t.square for t in placement.tiles}
        through = {sq for w in words for sq in w.squares if sq not in mine}
        return bool(through and built_on(through, in_doubt(self.entries, self.camera_name)))
