"""The game clock: time per player, overtime and its penalty, as tournament clocks keep them.

Pure: every call takes the time `t` (seconds on any steady clock, e.g. time.monotonic() of
the press), nothing reads the wall clock, so it is tested with plain numbers. The clock keeps
a short log of what was done to it (presses, pauses) and computes each player's time from
the log, which makes taking back a press exact even across a pause. Not thread-safe: the one
holding it (api/service/clock.py) serialises calls.

Tournament practice, as in NASPA's and WESPA's rules: a player ends the turn by pressing
their side, which starts the next player's clock; the first press starts the clock of the
player who moves first; either player may pause it (to call a director, adjudicate a
challenge). Penalties come from the rule profile: `overtime_per_minute` points per started
minute over, and under `overtime_forfeit_minutes` a player more than that many minutes over
loses the game.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Literal, Sequence

from pydantic import BaseModel, ConfigDict, Field

from .errors import ScoringError
from .events import Event, PhonyWithdrawn, TurnLost
from .game import TURN_EVENTS, GameError
from .rules import RuleProfile, check_player_count


class ClockError(GameError):
    """What the clock cannot do now (a press by a player whose clock is not running, a pause
    of a stopped clock); the message says why."""


class ClockConfig(BaseModel):
    """The game clock kept by the clock buttons (settings section `clock`)."""

    model_config = ConfigDict(extra="forbid")

    enabled: bool = Field(True, description=(
        "Keep a game clock for the recorded game: the clock buttons (or the operator console) run it, "
        "and the overlay shows p1_clock ... p4_clock. Games under rules without a time control "
        "(minutes_per_player unset and none in the profile, e.g. box) get no clock."))
    minutes_per_player: int | None = Field(None, ge=1, le=180, description=(
        "Time on each player's clock in minutes; None: the rule profile's (25 under naspa, nsa, wespa)."))


PressKind = Literal["start", "turn_end"]


@dataclass(frozen=True, slots=True)
class ClockPress:
    """What a press did: `start` (the first press starts the first player's clock, whoever makes
    it; no turn ended) or `turn_end` (`player` ended their turn and `running` is on turn now)."""

    kind: PressKind
    player: int | None      # whose turn ended (turn_end); who pressed, if known (start)
    running: int            # whose clock runs now


@dataclass(frozen=True, slots=True)
class ClockState:
    """The clock as of time `t`; remaining is negative in overtime."""

    t: float
    initial_s: float
    running: int | None      # whose clock runs (None: not started, or the game is over)
    on_clock: int | None     # whose clock runs or would run on resume (None: not started / over)
    paused: bool
    started: bool
    finished: bool
    remaining_s: tuple[float, ...]
    overtime_minutes: tuple[int, ...]
    penalties: tuple[int, ...]       # points each player loses now, e.g. -10
    lost_on_time: tuple[bool, ...]


def over_minutes(over_s: float) -> int:
    """Started minutes over time: 0:01 over is 1 minute, 1:00 over is 1, 1:01 is 2."""
    over_ms = round(over_s * 1000)
    return 0 if over_ms <= 0 else -(-over_ms // 60000)


def format_clock(remaining_s: float) -> str:
    """'m:ss', or '-m:ss' in overtime. Seconds round up, as on a clock that shows 0:00 only when
    the time is gone; overtime shows from its first started second ('-0:01')."""
    ms = round(remaining_s * 1000)
    sign = "-" if ms < 0 else ""
    s = math.ceil(abs(ms) / 1000)
    return f"{sign}{s // 60}:{s % 60:02d}"


class GameClock:
    """A clock for a game's players (rules.check_player_count) in turn order; seats are zero-based."""

    def __init__(self, players: int, initial_s: float, *, overtime_per_minute: int = 10,
                 overtime_forfeit_minutes: int | None = None, first: int = 0) -> None:
        check_player_count(players)
        if not initial_s > 0:
            raise ScoringError(f"time per player must be positive, not {initial_s}")
        if not 0 <= first < players:
            raise ScoringError(f"no player {first}; players are 0..{players - 1}")
        self.players = players
        self.initial_s = float(initial_s)
        self.overtime_per_minute = overtime_per_minute
        self.overtime_forfeit_minutes = overtime_forfeit_minutes
        self.first = first
        # (kind, player, t): "press" (player: who pressed, None if not said), "pause", "resume",
        # "finish". Times never go back: an action stamped before the last one counts at the last.
        self._log: list[tuple[str, int | None, float]] = []

    @classmethod
    def for_rules(cls, profile: RuleProfile, players: int, minutes: int | None = None) -> "GameClock":
        """The clock the rules give (`minutes` overrides the profile's time per player)."""
        minutes = minutes if minutes is not None else profile.minutes_per_player
        if minutes is None:
            raise ScoringError(f"rules {profile.name!r} have no time control: give the minutes per player")
        return cls(players, minutes * 60, overtime_per_minute=profile.overtime_per_minute,
                   overtime_forfeit_minutes=profile.overtime_forfeit_minutes)

    # ---- the state, computed from the log -------------------------------------------------
    def _replay(self, t: float):
        used = [0.0] * self.players
        running: int | None = None
        since = 0.0
        paused = finished = False
        last = None
        for kind, player, at in self._log + [("now", None, t)]:
            at = at if last is None else max(at, last)
            last = at
            if running is not None and not paused and not finished:
                used[running] += at - since
            since = at
            if kind == "press":
                running = self.first if running is None else (running + 1) % self.players
            elif kind == "pause":
                paused = True
            elif kind == "resume":
                paused = False
            elif kind == "finish":
                finished = True
        return used, running, paused, finished

    def state(self, t: float) -> ClockState:
        used, running, paused, finished = self._replay(t)
        remaining = tuple(self.initial_s - u for u in used)
        minutes = tuple(over_minutes(-r) for r in remaining)
        limit = self.overtime_forfeit_minutes
        return ClockState(
            t=t, initial_s=self.initial_s,
            running=None if paused or finished else running, on_clock=None if finished else running,
            paused=paused and not finished, started=running is not None, finished=finished,
            remaining_s=remaining, overtime_minutes=minutes,
            penalties=tuple(-self.overtime_per_minute * m for m in minutes),
            # "More than" the limit: exactly 10:00 over still plays on.
            lost_on_time=tuple(limit is not None and round(-r * 1000) > limit * 60000 for r in remaining))

    def remaining(self, player: int, t: float) -> float:
        self._check_player(player)
        return self.state(t).remaining_s[player]

    def overtime_minutes(self, player: int, t: float) -> int:
        self._check_player(player)
        return self.state(t).overtime_minutes[player]

    def penalty(self, player: int, t: float) -> int:
        """Points the player loses for overtime now (0 or negative)."""
        self._check_player(player)
        return self.state(t).penalties[player]

    @property
    def last_press(self) -> tuple[int | None, float] | None:
        """(who pressed, when) of the last press still standing, or None."""
        presses = [(p, at) for kind, p, at in self._log if kind == "press"]
        return presses[-1] if presses else None

    @property
    def stopped_at(self) -> float | None:
        """When the clock stopped for good (its finish: the last turn's press, or the time it was
        finished), or None while the game runs."""
        return next((at for kind, _, at in reversed(self._log) if kind == "finish"), None)

    # ---- what players and the operator do -------------------------------------------------
    def press(self, player: int | None, t: float) -> ClockPress:
        """`player` hit their side (None: whoever is on turn, when the input cannot tell)."""
        if player is not None:
            self._check_player(player)
        st = self.state(t)
        self._check_open(st)
        if st.paused:
            raise ClockError("the clock is paused: resume it first")
        if not st.started:
            self._log.append(("press", player, t))
            return ClockPress("start", player, self.first)
        if player is not None and player != st.running:
            raise ClockError(f"player {player}'s clock is not running; player {st.running} is on turn")
        self._log.append(("press", st.running, t))
        return ClockPress("turn_end", st.running, (st.running + 1) % self.players)

    def pause(self, t: float) -> None:
        st = self.state(t)
        self._check_open(st)
        if not st.started:
            raise ClockError("the clock has not started: the first press starts it")
        if st.paused:
            raise ClockError("the clock is already paused")
        self._log.append(("pause", None, t))

    def resume(self, t: float) -> None:
        st = self.state(t)
        self._check_open(st)
        if not st.paused:
            raise ClockError("the clock is not paused")
        self._log.append(("resume", None, t))

    def toggle_pause(self, t: float) -> bool:
        """The pause button: pause a running clock, resume a paused one. Returns paused."""
        if self.state(t).paused:
            self.resume(t)
            return False
        self.pause(t)
        return True

    def undo(self, player: int | None, t: float) -> int | None:
        """Take back the last press (a held button: `player` takes back their own press; None:
        whoever made it). The presser's clock runs again, charged from their press on, as if
        they had never pressed. Returns whose clock runs now (None: the clock is not started)."""
        st = self.state(t)
        self._check_open(st)
        at = next((i for i in range(len(self._log) - 1, -1, -1) if self._log[i][0] == "press"), None)
        if at is None:
            raise ClockError("no press to take back")
        presser = self._log[at][1]
        if player is not None and presser is not None and presser != player:
            raise ClockError(f"the last press was player {presser}'s, not player {player}'s")
        del self._log[at]
        return self.state(t).on_clock

    def finish(self, t: float, last_player: int | None = None) -> ClockState:
        """Stop the clock for good: the game is over. `last_player` made the game's last turn:
        if their press was the last thing done to the clock, it stopped at that press (the
        opponent's clock does not run while the out-play is being recorded)."""
        st = self.state(t)
        if st.finished:
            return st
        stop = t
        if self._log and last_player is not None and self._log[-1][0] == "press" and self._log[-1][1] == last_player:
            stop = self._log[-1][2]
        self._log.append(("finish", None, stop))
        return self.state(t)

    # ---- checks -------------------------------------------------------------------------
    def _check_player(self, player: int) -> None:
        if isinstance(player, bool) or not isinstance(player, int) or not 0 <= player < self.players:
            raise ScoringError(f"no player {player!r}; players are 0..{self.players - 1}")

    @staticmethod
    def _check_open(st: ClockState) -> None:
        if st.finished:
            raise ClockError("the game is over: the clock has stopped")


ClockDo = Literal["press", "pause", "resume", "undo", "finish"]


@dataclass(frozen=True, slots=True)
class ClockAction:
    """One thing done to a clock, as the game's log keeps it (api/service/clock.py writes them):
    `t` the steady time of the run of the program that did it, `at` the wall time of the same
    moment, `run` which run it was (steady times compare only within one run). `player`: who
    pressed or took back (None: not said); `first`: who was on turn by the record when the first
    press started the clock. A finish is logged at the time the clock stopped (``stopped_at``)."""

    do: ClockDo
    t: float
    at: float
    run: str
    player: int | None = None
    first: int | None = None


def on_this_run(actions: Sequence[ClockAction], t: float, at: float, run: str) -> list[float]:
    """Each action's time on the steady clock of `run` at `t` (wall time `at`): between two actions
    of one run their steady times' difference, across runs (a restart) their wall times'; from the
    last action to now likewise. So a clock that ran when its program died keeps running from the
    last action: the time it was dead counts against the player on turn, as on a real clock."""
    times: list[float] = [0.0] * len(actions)
    later_t, later_at, later_run, later_here = t, at, run, t  # the later moment: its steady, wall, run; on this run
    for i in range(len(actions) - 1, -1, -1):
        a = actions[i]
        gap = later_t - a.t if a.run == later_run else later_at - a.at
        times[i] = later_here - max(gap, 0.0)
        later_t, later_at, later_run, later_here = a.t, a.at, a.run, times[i]
    return times


def replay_clock(clock: GameClock, actions: Sequence[ClockAction], t: float, at: float, run: str) -> GameClock:
    """The clock as its logged actions left it, rebuilt at steady time `t` (wall time `at`) of
    `run`: each action done again at its time on this run (``on_this_run``), by the same rules it
    was done the first time."""
    for a, when in zip(actions, on_this_run(actions, t, at, run)):
        if a.do == "press":
            if not clock.state(when).started and a.first is not None:
                clock.first = a.first
            clock.press(a.player, when)
        elif a.do == "pause":
            clock.pause(when)
        elif a.do == "resume":
            clock.resume(when)
        elif a.do == "undo":
            clock.undo(a.player, when)
        elif a.do == "finish":
            clock.finish(when)
    return clock


def last_turn_player(events: Sequence[Event]) -> int | None:
    """Who ended the game's last turn at the clock: the player of the last move (a play, a pass, an
    exchange) or of a challenge's outcome that ends a turn (a phony withdrawn, a turn lost); None
    before the first. Rack points and penalties after the end are nobody's turn."""
    turns = [e for e in events if isinstance(e, (*TURN_EVENTS, PhonyWithdrawn, TurnLost))]
    return turns[-1].player if turns else None


def stop_at_end(clock: GameClock, t: float, events: Sequence[Event], closed: bool = False) -> ClockState:
    """The game is over: its clock stops, once. Over by the rules (a player went out, the scoreless
    turns), it stops at the press that ended the last turn when that press was the last thing done
    to the clock (`events`: the record as it stands); a game a director closed (`closed`) stops at
    `t`, the director's call."""
    return clock.finish(t, None if closed else last_turn_player(events))


__all__ = ["ClockAction", "ClockConfig", "ClockError", "ClockPress", "ClockState", "GameClock", "format_clock",
           "last_turn_player", "on_this_run", "over_minutes", "replay_clock", "stop_at_end"]
