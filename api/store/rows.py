"""The rows a store hands back, the same from every engine."""
from __future__ import annotations

from dataclasses import dataclass

from tilecam.scoring.events import LogEntry

__all__ = ["Changes", "EntryRow", "FrameRow", "GameRow"]


@dataclass(frozen=True, slots=True)
class GameRow:
    id: int
    players: tuple[dict, ...]   # {"nick", "name"}
    rules: str
    lang: str
    layout: str
    created: str
    meta: dict                  # strings; meta["table"] (a table number) is indexed: see Store.table_games


@dataclass(frozen=True, slots=True)
class EntryRow:
    seq: int
    entry: LogEntry
    created: str
    sidecar: dict | None = None


@dataclass(frozen=True, slots=True)
class FrameRow:
    jpeg: bytes | None
    path: str | None
    created: str


@dataclass(frozen=True, slots=True)
class Changes:
    """What changed since a mark. `mark`: pass it to the next ``changes`` call. `games`: the ids
    of the games written since (creations, entries, frames, players and meta); None when the
    store cannot say (the first call, or a mark older than the changes it keeps): reload all."""
    mark: int
    games: frozenset[int] | None
