"""What every job of the scorekeeper shares, and how it follows the log.

The game as the record holds it and the log (events and corrections). `sync` adopts the log as the
store holds it; the methods here change the log the one way every job does (append, amend,
take_back, rebuild). What each job remembers between snapshots is not here: each job's module owns
its part (keeper.py gives the Scorekeeper one of each).
"""
from __future__ import annotations

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
    """The log and the game it makes: the one state every job shares, changed only through the
    methods below (append, amend, take_back, rebuild) and `sync`. What each job remembers between
    snapshots is a part of its own, owned by its module and changed only through the part's methods
    (the Scorekeeper, keeper.py, holds them; docs/architecture.md lists who owns what)."""

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
        self.tile_check_cfg = TileCheckConfig()
        # What the rack cameras saw (scoring.racks); None until the first read: without one the
        # scorekeeper decides exactly as it does without rack cameras. Made by rack_reads.watch_racks
        # alone.
        self.racks: RackBook | None = None
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
        them); they are dropped first. Returns True when something changed. (The Scorekeeper's sync
        tells the jobs whose parts follow the log: keeper.py.)"""
        if pending:
            del self.entries[len(self.entries) - pending:]
        if entries == self.entries and not pending:
            return False
        if entries[: len(self.entries)] != self.entries:
            raise GameError("the log was rewritten, not extended")
        added = entries[len(self.entries):]
        self.entries = list(entries)
        close = closing(added)
        if close is not None and self.closed_by is None:
            self.closed_by = close.by  # a director's close: no turn follows (decide.py)
        self.rebuild()
        return True

    def learned(self) -> frozenset[str]:
        """The tiles learned at this table so far (scoring.trust.learned)."""
        return learned(self.entries, self.given, self.camera_name)

    # -- changing the log, the one way every job does -------------------------------------
    def append(self, entry: LogEntry) -> LogEntry:
        self.entries.append(entry)
        return entry

    def rebuild(self) -> None:
        """The game made again from the log (after entries were appended or taken back)."""
        g = self.game
        events = effective_events(self.entries, g.profile, g.dist, g.layout, g.players)
        self.game = Game(g.profile, g.dist, g.layout, g.players, events)

    def amend(self, entry: Correction) -> Correction | None:
        """Append the camera's correction, or take it back when the game it makes is no game."""
        self.append(entry)
        try:
            self.rebuild()
        except (GameError, PlacementError):
            self.take_back([entry])
            return None
        return entry

    def take_back(self, entries: list[LogEntry], game: Game | None = None) -> None:
        """Our own `entries`, appended since the game was last made, taken out of the log again: the
        game is `game` (as it stood before them), or made again from the log."""
        for e in entries:
            self.entries.remove(e)
        if game is not None:
            self.game = game
        else:
            self.rebuild()

    def last_play(self) -> tuple[int, Play] | None:
        """The play a challenge could still take back, if any."""
        i = self.game.state.last_play
        return None if i is None else (i, self.game.events[i])

    def log_index(self, event_index: int) -> int:
        """Index in the log (events and corrections) of the n-th effective event."""
        n = -1
        gone = voided(self.entries)  # an operator's Void: that event no longer counts
        for i, e in enumerate(self.entries):
            if not isinstance(e, NOT_EVENTS) and i not in gone:
                n += 1
                if n == event_index:
                    return i
        raise IndexError(event_index)

    def untrusted(self, placement: Placement, readers: tuple = ()) -> bool:
        """The play holds a tile the table cannot vouch for yet ([decode] learn_table, learn_from_game;
        `readers` what each reader named on its tiles): for review."""
        if not self.cfg.learn_table:
            return False
        if not self.cfg.learn_from_game:
            return bool(unlearned(placement, self.learned()))
        return bool(unlearned(placement, self.learned(), readers, taught(self.entries, self.game.dist, self.camera_name)))

    def built_on_doubt(self, placement: Placement) -> bool:
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
