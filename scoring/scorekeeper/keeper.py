"""The Scorekeeper: the one object the recorder talks to. The log and how it follows the store is
state.py; what each job remembers is a part its own module owns (credit.Turns, fuse.Fusing, ...),
one of each made here; each entry point hands over to the file that holds that job (imported
whole, as `import ... as fuse`: `from . import fuse` would make the package, whose __init__ imports
this module, a dependency, a cycle to tests/test_layers.py)."""
from __future__ import annotations

import numpy as np

from ..belief import BoardBelief
from ..board import Square
from ..decode import DecodeConfig
from ..events import CAMERA, LogEntry, by_operator
from ..game import Game
from ..lexicon import Lexicon
from ..racks import Fitted, RackBook, RackSeen, RackTrust
from ..snapshot import Snapshot
import tilecam.scoring.scorekeeper.credit as credit
import tilecam.scoring.scorekeeper.decide as decide
import tilecam.scoring.scorekeeper.end_racks as end_racks
import tilecam.scoring.scorekeeper.fuse as fuse
import tilecam.scoring.scorekeeper.hold as hold
import tilecam.scoring.scorekeeper.join_game as join_game
import tilecam.scoring.scorekeeper.misreads as misreads
import tilecam.scoring.scorekeeper.rack_reads as rack_reads
import tilecam.scoring.scorekeeper.redecide as redecide
import tilecam.scoring.scorekeeper.resume as resume

from .outcome import Fused, Observation
from .state import KeeperState


class Scorekeeper(KeeperState):
    def __init__(self, game: Game, lexicon: Lexicon | None = None, cfg: DecodeConfig | None = None,
                 camera_name: str = CAMERA) -> None:
        super().__init__(game, lexicon, cfg, camera_name)
        # each job's part, owned and changed by its module alone (docs/architecture.md)
        self.turns = credit.Turns(known=not game.events)   # whose turn, the press bookkeeping
        self.fusing = fuse.Fusing()                         # the board belief, the glimpse
        self.replay = resume.Replay()                       # a resumed source replaying history
        self.deciding = decide.Deciding()                   # doubts, the tile check, beyond a turn
        self.holding = hold.Holding()                       # the held guess, the plays unread
        self.joins = join_game.Joins()                      # the catch-up refused
        self.redeciding = redecide.Redeciding()             # the last play's correction proposed
        self._handed_over = 0  # log entries already looked at for operator corrections

    @property
    def belief(self) -> BoardBelief | None:
        """What every snapshot so far says each square holds (fuse.Fusing): the station keeps it
        with each entry."""
        return self.fusing.belief

    # -- following the log and a resumed source (resume.py) ----------------------------------
    def sync(self, entries: list[LogEntry], pending: int = 0) -> bool:
        """Adopt the log as the store holds it (KeeperState.sync), and tell the parts that follow
        it: the turns (our dropped decision undone, a person's turn), the glimpse (seen against a
        board that has changed since)."""
        kept = len(self.entries) - pending
        if pending:
            self.turns.dropped(kept)   # our decision did not stand
        if not super().sync(entries, pending):
            return False
        self.turns.followed(self.entries[kept:])
        self.fusing.unglimpse()
        return True

    def resume(self, entries: list[LogEntry]) -> None:
        """Pick a game up from the stored log after a restart (resume.resume)."""
        resume.resume(self, entries)

    def caught_up(self, pressed: bool = False) -> None:
        """The source is known to be past the record (resume.caught_up)."""
        resume.caught_up(self, pressed)

    # -- the entry points: fuse once, then decide (again, if the game changed under it) -------
    def observe(self, snap: Snapshot, player: int | None = None, pressed: bool = False,
                visible: np.ndarray | None = None, clear: np.ndarray | None = None) -> Observation:
        """A stable snapshot fused and decided: `fuse` then `decide`."""
        return self.decide(self.fuse(snap, visible), player, pressed, clear)

    def fuse(self, snap: Snapshot, visible: np.ndarray | None = None) -> Fused:
        """Add a stable snapshot to the board belief; call once per snapshot (fuse.fuse)."""
        return fuse.fuse(self, snap, visible)

    def decide(self, fused: Fused, player: int | None = None, pressed: bool = False,
               clear: np.ndarray | None = None) -> Observation:
        """The move decision on a fused snapshot against the game as it stands now; safe to make
        again after `sync` (decide.decide)."""
        return decide.decide(self, fused, player, pressed, clear)

    def glimpse(self, snap: Snapshot, visible: np.ndarray) -> frozenset[Square]:
        """A covered snapshot at a clock press: evidence for the squares in view (fuse.glimpse)."""
        return fuse.glimpse(self, snap, visible)

    def unexplained(self) -> list[Square]:
        """The squares holding a tile that no committed play explains (fuse.unexplained)."""
        return fuse.unexplained(self)

    def unread(self) -> list[Square]:
        """The squares of plays the camera could not read, no tiles committed, still on the board
        (hold.unread): flagged until a snapshot reads them or a person enters the play."""
        return hold.unread(self)

    # -- the rack cameras (rack_reads.py) ---------------------------------------------------
    def watch_racks(self, trust: RackTrust) -> RackBook:
        """The rack book, made at the first read, counting tiles as `trust` says (rack_reads.watch_racks)."""
        return rack_reads.watch_racks(self, trust)

    def rack_fit(self, seen: RackSeen, trust: RackTrust) -> Fitted:
        """A rack camera's settled read under the set's counts (rack_reads.rack_fit). Give
        `Fitted.rack` to rack_seen."""
        return rack_reads.rack_fit(self, seen, trust)

    def rack_seen(self, seen: RackSeen, trust: RackTrust) -> list[LogEntry]:
        """A rack camera's settled view of a player's rack, kept for the moves to come; a move
        committed before it may be amended once (rack_reads.rack_seen). Returns the entries appended."""
        return rack_reads.rack_seen(self, seen, trust)

    # -- tiles read again (misreads.py), the end (end_racks.py), what operators said ---------
    def retile(self, changes) -> list[LogEntry]:
        """The game's tile set re-read committed tiles: each play amended by a camera Correction
        on the review queue (misreads.retile)."""
        return misreads.retile(self, changes)

    def finish(self) -> list[LogEntry]:
        """End of the recording: the end-of-game rack adjustments (end_racks.finish)."""
        return end_racks.finish(self)

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
