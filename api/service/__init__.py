"""GameService: the one writer of the store, and the queries the routes and the recorder share.
Routes, commands and the recorder reach the store only through it (api/store: the interface).

One object composed from its parts: ``queries`` (the read side and the overlay's live state),
``racks`` (the rack cameras' reads, issue 30), ``writer`` (the one place that appends: commit,
append, build, correct, end, under the store's transaction discipline), ``operator`` (the
console's actions, built on the writer), ``clock`` (the per-game clock) and ``ingest`` (a tournament's central service: the games stations forward).
``view`` loads a game from the store; see ``writer`` for how a write goes.
"""
from __future__ import annotations

import threading
import time
from collections import defaultdict
from typing import Callable

from tilecam.scoring import GameClock

import tilecam.api.service.types as s
from ..bus import Bus
from ..store import Store
from .clock import ClockGlue
from .ingest import Ingest
from .operator import Operator
from .queries import Queries
from .racks import LIVE, RackPolicy, Racks, entry_without_rack, on_air
from .tournament import Tournament
from .view import DAMAGE, SERVICE_META, GameView, load_view, nick_of, parse_square, players_of

__all__ = ["DAMAGE", "LIVE", "SERVICE_META", "GameService", "GameView", "RackPolicy", "entry_without_rack",
           "load_view", "nick_of", "on_air", "parse_square", "players_of"]


class GameService(Queries, Tournament, Operator, ClockGlue, Ingest, Racks):
    def __init__(self, store: Store, bus: Bus, clock: Callable[[], float] = time.time) -> None:
        self.store = store
        self.bus = bus
        self.clock = clock
        self._locks: dict[int, threading.RLock] = defaultdict(threading.RLock)
        self._locks_guard = threading.Lock()
        self._live: dict[int, tuple[int, str, s.LiveOut]] = {}  # game -> (entries, meta key, live)
        self._live_state: dict[int, tuple] = {}  # game -> (moves, GameState, Distribution, GameView, {move: state
        # before it}) of that live state
        self._tables: dict = {}  # game -> (its key, its replayed part of a table row): see Tournament
        self._published: dict[int, int] = {}  # game -> log length last announced on the bus
        self._replays: dict = {}  # game -> its record as the writer last left it (writer.Replayed)
        self._clocks_shown: dict[int, tuple | None] = {}  # game -> its clock's state in that update
        self._changes_mark: int | None = None  # the store's change mark announce_external read last
        self._mirrors: dict[str, int] = {}  # a station's game uid -> the game forwarded here (Ingest)
        # The game clocks running in this process (in memory: a restart starts a new clock), and
        # the steady time they run on (time.monotonic, as hardware.Trigger.t; tests inject one).
        self._clocks: dict[int, GameClock] = {}
        self.steady: Callable[[], float] = time.monotonic
