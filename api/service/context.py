"""What every part of the game service shares, given to each part when GameService builds it."""
from __future__ import annotations

import threading
import time
from collections import defaultdict
from typing import TYPE_CHECKING, Callable

from ..bus import Bus
from ..store import Store
from .view import GameView, load_view

if TYPE_CHECKING:
    from tilecam.scoring import (LogEntry)
    import tilecam.api.service.types as s

__all__ = ["Context"]


class Context:
    """The store, the bus, the time (`clock`: wall seconds, what is logged and shown; `steady`: the
    game clocks' time, time.monotonic as hardware.Trigger.t, which tests replace), one lock per game
    (every write to a game, and the live state's refresh, hold it), loading a game, and the live
    update every change ends with (`publish`: LiveUpdates.publish, which GameService wires in once
    the part that computes the live state is built; the writer, the clocks, the racks and ingest
    call it)."""

    def __init__(self, store: Store, bus: Bus, clock: Callable[[], float] = time.time) -> None:
        self.store = store
        self.bus = bus
        self.clock = clock
        self.steady: Callable[[], float] = time.monotonic
        self._locks: dict[int, threading.RLock] = defaultdict(threading.RLock)
        self._locks_guard = threading.Lock()
        self._publish: Callable[..., "s.LiveOut"] | None = None

    def lock(self, game_id: int) -> threading.RLock:
        with self._locks_guard:
            return self._locks[game_id]

    def load(self, game_id: int) -> GameView:
        """The game as the store holds it, its log replayed with the corrections applied."""
        return load_view(self.store, game_id)

    def publish(self, game_id: int, entry: "LogEntry | None" = None, seq: int | None = None) -> "s.LiveOut":
        """The game's live state, published on the bus (after `entry`, logged as `seq`, when given)."""
        if self._publish is None:
            raise RuntimeError("the game service's live updates are not wired in")
        return self._publish(game_id, entry, seq)

    def wire_publish(self, publish: Callable[..., "s.LiveOut"]) -> None:
        self._publish = publish
