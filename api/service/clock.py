"""The game clock glue (scoring.clock): one clock per game, running on steady time; it publishes on
every change. Its start and everything done to it (each press, pause, resume, undo, and its stop at
the end) are rows of the game's table log (api/service/tablelog.py), each with its steady time, its
wall time and this run of the program: the clock in memory is rebuilt from them on first use
(scoring.clock.replay_clock), so a station that restarts keeps its clock, the time it was dead
charged to the player on turn. When the game is over it stops (``stop_at_end``) and its overtime goes
in as TimePenalty entries (api/service/ending.py, through the writer)."""
from __future__ import annotations

import uuid
from typing import Callable, TypeVar

from tilecam.scoring import (ClockAction, ClockPress, ClockState, GameClock, GameError, format_clock, get_profile,
                             replay_clock, stop_at_end)

import tilecam.api.service.types as s
from ..errors import Conflict, NotFound
from .ingest import forwarded_clock, refuse_mirror
from .context import Context
from .tablelog import clock_action_row, clock_start_row, read_table_log
from .view import GameView

__all__ = ["ClockGlue"]

T = TypeVar("T")


class ClockGlue:
    """Start, press, pause and undo a game's clock, and read it: each done in memory, on the
    context's steady time, and logged (the table log) before it is published; a clock not in memory
    yet is rebuilt from the log. The live state reads the clock through ``with_clock``; the end of
    a game stops it through ``stop_at_end`` (GameEnd enters its overtime)."""

    def __init__(self, ctx: Context) -> None:
        self.ctx, self.store = ctx, ctx.store
        self._clocks: dict[int, GameClock | None] = {}  # game -> its clock as rebuilt (None: it has none)
        self._next: dict[int, int] = {}  # game -> the table log's next seq, as its clock was built on
        self.run = uuid.uuid4().hex  # this run of the program: steady times compare only within one

    def _clock(self, game_id: int) -> GameClock | None:
        """The game's clock, rebuilt from its table log the first time it is asked for."""
        with self.ctx.lock(game_id):
            if game_id not in self._clocks:
                row, rows = self.store.game(game_id), self.store.table_log(game_id)
                table = read_table_log(row, rows)
                clock = None
                if table.clock_minutes is not None:
                    clock = GameClock.for_rules(get_profile(row.rules), len(row.players), table.clock_minutes)
                    replay_clock(clock, table.clock_actions, self.ctx.steady(), self.ctx.clock(), self.run)
                self._clocks[game_id], self._next[game_id] = clock, len(rows)
            return self._clocks[game_id]

    def _act(self, game_id: int, do: Callable[[], tuple[T, dict | None]]) -> T:
        """`do` (something done to the game's clock: its answer and the row it logs, None for none)
        under the game's lock, its row appended to the table log at the seq the clock was built on.
        Another writer of the log since (another process on the store; a name or the learned tiles
        set here) is a Conflict: the clock is rebuilt from the log and `do` done again, on the clock
        as it stands. A store that fails drops the clock in memory (rebuilt at the next use)."""
        with self.ctx.lock(game_id):
            for last_try in (False, True):
                answer, row = do()
                if row is None:
                    return answer
                try:
                    self.store.append_table(game_id, "clock", row, expect=self._next[game_id])
                except Conflict:
                    self._clocks.pop(game_id, None)
                    if last_try:
                        raise
                    continue
                except BaseException:
                    self._clocks.pop(game_id, None)
                    raise
                self._next[game_id] += 1
                return answer

    def _action(self, do: str, t: float, player: int | None = None, first: int | None = None) -> dict:
        at = self.ctx.clock() - (self.ctx.steady() - t)  # the wall time of steady time t
        return clock_action_row(ClockAction(do, t, at, self.run, player, first))

    def start_clock(self, game_id: int, minutes: int | None = None) -> GameClock:
        """A clock for the game from its rules (`minutes` per player overrides the profile's); it
        runs from the first press. A game has one clock: a second start is a 409."""
        view = self.ctx.load(game_id)
        refuse_mirror(view.row)  # its overtime would go into a record only the station writes
        def start() -> tuple[GameClock, dict]:
            if self._clock(game_id) is not None:
                raise GameError(f"game {game_id} already has a clock")
            if view.over():
                raise GameError(f"game {game_id} is over: it needs no clock")
            clock = GameClock.for_rules(view.profile, view.players, minutes)
            return clock, clock_start_row(clock.initial_s / 60, self.ctx.steady(), self.ctx.clock(), self.run)
        with self.ctx.lock(game_id):
            clock = self._clocks[game_id] = self._act(game_id, start)
        self.ctx.publish(game_id)
        return clock

    def moved_elsewhere(self, game_id: int) -> bool:
        """Whether another writer added to the game's table log since its clock was built here
        (another process pressed it): then the clock is rebuilt at its next use (the watcher,
        Live.announce_external, asks for the games the store says changed)."""
        with self.ctx.lock(game_id):
            if game_id not in self._next or len(self.store.table_log(game_id)) == self._next[game_id]:
                return False
            del self._clocks[game_id], self._next[game_id]
            return True

    def has_clock(self, game_id: int) -> bool:
        return self._clock(game_id) is not None

    def game_clock(self, game_id: int) -> GameClock:
        row = self.store.game(game_id)  # no such game: 404
        clock = self._clock(game_id)
        if clock is None:
            refuse_mirror(row)  # a station's game: its clock runs there (the mirror only shows it)
            raise NotFound(f"game {game_id} has no clock; start one first")
        return clock

    def clock_press(self, game_id: int, player: int | None, t: float | None = None) -> ClockPress:
        """`player` hit their side of the clock at `t` (steady time; default now). The first press
        starts the clock of the player on turn by the record (moves entered before the clock was
        started, or a second player to open): the clock and the record's ▶ agree."""
        on_turn = self.ctx.load(game_id).game_at().state.on_turn
        t = self.ctx.steady() if t is None else t
        def press() -> tuple[ClockPress, dict]:
            clock = self.game_clock(game_id)
            first = None
            if not clock.state(t).started:
                clock.first = first = on_turn
            return clock.press(player, t), self._action("press", t, player, first)
        done = self._act(game_id, press)
        self.ctx.publish(game_id)
        return done

    def clock_pause(self, game_id: int, paused: bool | None = None, t: float | None = None) -> bool:
        """Pause (True), resume (False) or toggle (None, the pause button); returns paused."""
        t = self.ctx.steady() if t is None else t
        def pause() -> tuple[bool, dict]:
            clock = self.game_clock(game_id)
            now = clock.toggle_pause(t) if paused is None else paused
            if paused is True:
                clock.pause(t)
            elif paused is False:
                clock.resume(t)
            return now, self._action("pause" if now else "resume", t)
        now = self._act(game_id, pause)
        self.ctx.publish(game_id)
        return now

    def clock_undo(self, game_id: int, player: int | None = None, t: float | None = None) -> int | None:
        """Take back the last press (`player`: only if it was theirs); returns whose clock runs."""
        t = self.ctx.steady() if t is None else t
        running = self._act(game_id, lambda: (self.game_clock(game_id).undo(player, t), self._action("undo", t, player)))
        self.ctx.publish(game_id)
        return running

    def clock_handlers(self, game_id: int) -> dict[str, Callable]:
        """The callbacks hardware.buttons.connect takes, bound to this game's clock."""
        def on_press(player: int | None, t: float) -> int | None:
            press = self.clock_press(game_id, player, t)
            return press.player if press.kind == "turn_end" else None
        return {"on_press": on_press,
                "on_pause": lambda t: self.clock_pause(game_id, None, t),
                "on_undo": lambda player, t: self.clock_undo(game_id, player, t)}

    def stop_at_end(self, game_id: int, view: GameView) -> ClockState:
        """The one place a game's clock stops at its end (scoring.clock.stop_at_end: at the last
        turn's press, or now when a director closed the game), once: `view` is the game as it stands."""
        def stop() -> tuple[ClockState, dict | None]:
            clock = self.game_clock(game_id)
            was = clock.stopped_at
            st = stop_at_end(clock, self.ctx.steady(), view.events, closed=view.closed)
            # logged once, at the time it stopped (the last turn's press, or now)
            return st, None if was is not None else self._action("finish", clock.stopped_at)
        return self._act(game_id, stop)

    def clock_now(self, game_id: int) -> s.ClockOut | None:
        """The game's clock as of now, when it runs in this service; None otherwise. A station's
        forwarder sends it to the central service with each heartbeat."""
        clock = self._clock(game_id)
        if clock is None:
            return None
        st = clock.state(self.ctx.steady())
        return s.ClockOut(
            at=self.ctx.clock(), running=st.running, on_clock=st.on_clock, paused=st.paused, started=st.started,
            finished=st.finished, initial_ms=round(st.initial_s * 1000),
            remaining_ms=[round(r * 1000) for r in st.remaining_s], overtime_minutes=list(st.overtime_minutes),
            penalties=list(st.penalties), lost_on_time=list(st.lost_on_time))

    def with_clock(self, game_id: int, live: s.LiveOut, meta: dict | None = None) -> s.LiveOut:
        """The live state with the clock as of now: never cached, it changes every second. The
        game's own clock, else (on the central service) the one its station forwarded; `meta`:
        the game's, when the caller has it."""
        out = self.clock_now(game_id)
        if out is None:
            out = forwarded_clock(self.store.game(game_id).meta if meta is None else meta, self.ctx.clock())
        if out is None:  # (a live state cached with a clock the game no longer has: without it)
            return live if live.clock is None else live.model_copy(update={"clock": None, "fields": {
                **live.fields, **{f"p{p + 1}_clock": "" for p in range(len(live.clock.remaining_ms))}}})
        fields = dict(live.fields)
        for p, ms in enumerate(out.remaining_ms):
            fields[f"p{p + 1}_clock"] = format_clock(ms / 1000)
        return live.model_copy(update={"clock": out, "fields": fields})
