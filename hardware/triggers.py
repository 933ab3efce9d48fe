"""What a press means at the table, before anyone decides what to do about it.

A Trigger says "player N's clock button was pressed" (or held, or the challenge or pause
button); the game clock and api/station/recorder.py decide what it does to the game. Every input (GPIO buttons, keyboard,
the HTTP endpoint) produces the same Trigger, so the recorder has one entry point.
"""
from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any, Callable, Literal, Mapping, get_args

TriggerKind = Literal["turn_end", "challenge", "undo", "snapshot", "pause"]
TriggerOrigin = Literal["button", "keyboard", "http"]
TRIGGER_KINDS: tuple[str, ...] = get_args(TriggerKind)
TRIGGER_ORIGINS: tuple[str, ...] = get_args(TriggerOrigin)
# How many players a game has is the rules' number (scoring/rules.py: MAX_PLAYERS), and hardware
# imports nothing of ours (tests/test_layers.py): a trigger is checked to name a seat (a whole number
# from 0), and the station, which reads the press from outside (JSON), hands `from_dict` the rules'
# count as `seats`. The buttons and the keys name only the seats they are wired for.


@dataclass(frozen=True, slots=True)
class Trigger:
    kind: TriggerKind        # turn_end: the player hit their clock; undo: take back the last turn_end;
    #                          pause: the clock's pause button (pauses a running clock, resumes a paused one)
    player: int | None = None   # the seat, zero-based; None when the input cannot tell (one shared key)
    t: float = field(default_factory=time.monotonic)   # time.monotonic() of the press
    source: TriggerOrigin = "button"

    def __post_init__(self) -> None:
        if self.kind not in TRIGGER_KINDS:
            raise ValueError(f"unknown trigger kind {self.kind!r}; expected one of {', '.join(TRIGGER_KINDS)}")
        if self.player is not None and (isinstance(self.player, bool) or not isinstance(self.player, int)
                                        or self.player < 0):
            raise ValueError(f"player must be a seat (0, 1, ...) or None, got {self.player!r}")
        if self.source not in TRIGGER_ORIGINS:
            raise ValueError(f"unknown trigger source {self.source!r}; expected one of {', '.join(TRIGGER_ORIGINS)}")

    @classmethod
    def from_dict(cls, data: Mapping[str, Any], *, seats: int, source: TriggerOrigin = "http") -> "Trigger":
        """Build a trigger from JSON such as {"kind": "turn_end", "player": 0}, for a table of at
        most `seats` players (the rules' number, which the caller asks).

        `t` defaults to now on this machine (a client's clock is not ours); `source`
        defaults to the given origin. Unknown keys and bad values raise ValueError.
        """
        unknown = set(data) - {"kind", "player", "t", "source"}
        if unknown:
            raise ValueError(f"unknown trigger field(s): {', '.join(sorted(unknown))}")
        if "kind" not in data:
            raise ValueError("a trigger needs a 'kind'")
        player = data.get("player")
        if player is not None and (isinstance(player, bool) or not isinstance(player, int)  # true is no seat
                                   or not 0 <= player < seats):
            raise ValueError(f"player must be 0 to {seats - 1} or null, got {player!r}")
        t = data.get("t")
        if t is not None and (isinstance(t, bool) or not isinstance(t, (int, float))):
            raise ValueError(f"t must be a number of seconds, got {t!r}")
        return cls(kind=data["kind"], player=player,
                   t=float(t) if t is not None else time.monotonic(),
                   source=data.get("source", source))

    def to_dict(self) -> dict[str, Any]:
        return {"kind": self.kind, "player": self.player, "t": self.t, "source": self.source}


TriggerCallback = Callable[[Trigger], None]
