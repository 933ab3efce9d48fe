"""What the scorekeeper hands back: a snapshot fused (Fused), and what it made of it (Observation)."""
from __future__ import annotations

from dataclasses import dataclass

from ..events import LogEntry
from ..snapshot import Snapshot


@dataclass(frozen=True)
class Observation:
    """What the scorekeeper made of one snapshot: the entries it appended, or why it did not."""

    entries: tuple[LogEntry, ...]
    status: str          # "play" | "withdrawn" | "pass" | "no_change" | "unclear" | "corrected" | "ended"
    #                      | "behind" (a resumed source showing an earlier state of the board)
    #                      | "tile_check" (the tiles face up before the first play: never a play)
    detail: str = ""


@dataclass(frozen=True, eq=False)
class Fused:
    """A snapshot added to the board belief: the posterior `decide` reads (None when the snapshot
    is history a resumed source replays, "behind", or the one that catches up, "here")."""

    seen: Snapshot | None
    replay: str | None = None   # None | "behind" | "here"
