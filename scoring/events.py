"""The game as an append-only event log, in the vocabulary Quackle, macondo and GCG use.

Every event names its player and carries `cumulative`, that player's total after it.
Events that move points carry three scores: `claimed` (what the player announced or
the record says; None when nobody claimed one), `engine` (what the rules compute) and
`agreed` (what stands; `cumulative` adds this). A successful challenge appends a
PhonyWithdrawn; the play stays in the log.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar, Union

from .placement import Placement


@dataclass(frozen=True, slots=True)
class Play:
    player: int
    placement: Placement
    words: tuple[str, ...]      # main word first, then cross-words
    claimed: int | None
    engine: int
    agreed: int
    cumulative: int
    rack: str | None = None     # the rack before the play, when known
    note: str = ""
    kind: ClassVar[str] = "play"


@dataclass(frozen=True, slots=True)
class PhonyWithdrawn:
    """The previous play was challenged off: its tiles go back and its points come off."""

    player: int
    claimed: int | None
    engine: int                 # minus what the withdrawn play had been credited
    agreed: int
    cumulative: int
    rack: str | None = None
    note: str = ""
    kind: ClassVar[str] = "phony_withdrawn"


@dataclass(frozen=True, slots=True)
class Pass:
    player: int
    cumulative: int
    rack: str | None = None
    note: str = ""
    kind: ClassVar[str] = "pass"


@dataclass(frozen=True, slots=True)
class Exchange:
    player: int
    count: int
    tiles: str | None           # the tiles thrown in, when known
    cumulative: int
    rack: str | None = None
    note: str = ""
    kind: ClassVar[str] = "exchange"


@dataclass(frozen=True, slots=True)
class TurnLost:
    """A failed double challenge: the challenger loses their turn."""

    player: int
    cumulative: int
    rack: str | None = None
    note: str = ""
    kind: ClassVar[str] = "turn_lost"


@dataclass(frozen=True, slots=True)
class ChallengeBonus:
    """An unsuccessful challenge under a points rule: the challenged player gets N per word."""

    player: int
    words_challenged: int
    claimed: int | None
    engine: int
    agreed: int
    cumulative: int
    rack: str | None = None
    note: str = ""
    kind: ClassVar[str] = "challenge_bonus"


@dataclass(frozen=True, slots=True)
class EndRackPoints:
    """The player who went out gains the opponent's unplayed tiles (x2 under NASPA)."""

    player: int
    opponent_rack: str
    claimed: int | None
    engine: int
    agreed: int
    cumulative: int
    note: str = ""
    kind: ClassVar[str] = "end_rack_points"


@dataclass(frozen=True, slots=True)
class EndRackPenalty:
    """A player loses the value of their own unplayed tiles (six-zero end, plus/minus end)."""

    player: int
    rack: str
    claimed: int | None
    engine: int
    agreed: int
    cumulative: int
    note: str = ""
    kind: ClassVar[str] = "end_rack_penalty"


@dataclass(frozen=True, slots=True)
class TimePenalty:
    """Overtime: minus `overtime_per_minute` for every started minute over."""

    player: int
    minutes: int
    claimed: int | None
    engine: int
    agreed: int
    cumulative: int
    rack: str | None = None
    note: str = ""
    kind: ClassVar[str] = "time_penalty"


Event = Union[Play, PhonyWithdrawn, Pass, Exchange, TurnLost, ChallengeBonus,
              EndRackPoints, EndRackPenalty, TimePenalty]
EVENT_TYPES: dict[str, type] = {cls.kind: cls for cls in
                                 (Play, PhonyWithdrawn, Pass, Exchange, TurnLost, ChallengeBonus,
                                  EndRackPoints, EndRackPenalty, TimePenalty)}


def points(event: Event) -> int:
    """What the event adds to its player's cumulative."""
    return getattr(event, "agreed", 0)
