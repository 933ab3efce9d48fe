"""The game clock glue (scoring.clock): one clock per game, kept in memory beside the record
(a restart starts a new clock), running on steady time; it publishes on every change. When the game
is over it stops (``stop_at_end``) and its overtime goes in as TimePenalty entries (api/service/
ending.py, through the writer). What outlives the clock
is in the log: those penalties, and the end that stopped it (the rules' last turn, or a director's
Close); a clock stopped and then lost to a restart is not started again for a game that is over."""
from __future__ import annotations

from typing import Callable

from tilecam.scoring import (ClockPress, ClockState, GameClock, GameError, format_clock, stop_at_end)

import tilecam.api.service.types as s
from ..errors import NotFound
from .ingest import forwarded_clock, refuse_mirror
from .context import Context
from .view import GameView

__all__ = ["ClockGlue"]


class ClockGlue:
    """Start, press, pause and undo a game's clock, and read it: the clocks running in this process
    (in memory: a restart starts a new clock), on the context's steady time. The live state reads
    the clock through ``with_clock``; the end of a game stops it through ``stop_at_end`` (GameEnd
    enters its overtime)."""

    def __init__(self, ctx: Context) -> None:
        self.ctx, self.store = ctx, ctx.store
        self._clocks: dict[int, GameClock] = {}

    def start_clock(self, game_id: int, minutes: int | None = None) -> GameClock:
        """A clock for the game from its rules (`minutes` per player overrides the profile's); it
        runs from the first press. A game has one clock: a second start is a 409."""
        view = self.ctx.load(game_id)
        refuse_mirror(view.row)  # its overtime would go into a record only the station writes
        with self.ctx.lock(game_id):
            if game_id in self._clocks:
                raise GameError(f"game {game_id} already has a clock")
            if view.over():
                raise GameError(f"game {game_id} is over: it needs no clock")
            self._clocks[game_id] = GameClock.for_rules(view.profile, view.players, minutes)
        self.ctx.publish(game_id)
        return self._clocks[game_id]

    def has_clock(self, game_id: int) -> bool:
        return game_id in self._clocks

    def game_clock(self, game_id: int) -> GameClock:
        row = self.store.game(game_id)  # no such game: 404
        clock = self._clocks.get(game_id)
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
        with self.ctx.lock(game_id):
            clock = self.game_clock(game_id)
            if not clock.state(t).started:
                clock.first = on_turn
            press = clock.press(player, t)
        self.ctx.publish(game_id)
        return press

    def clock_pause(self, game_id: int, paused: bool | None = None, t: float | None = None) -> bool:
        """Pause (True), resume (False) or toggle (None, the pause button); returns paused."""
        t = self.ctx.steady() if t is None else t
        with self.ctx.lock(game_id):
            clock = self.game_clock(game_id)
            if paused is None:
                paused = clock.toggle_pause(t)
            elif paused:
                clock.pause(t)
            else:
                clock.resume(t)
        self.ctx.publish(game_id)
        return paused

    def clock_undo(self, game_id: int, player: int | None = None, t: float | None = None) -> int | None:
        """Take back the last press (`player`: only if it was theirs); returns whose clock runs."""
        with self.ctx.lock(game_id):
            running = self.game_clock(game_id).undo(player, self.ctx.steady() if t is None else t)
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
        return stop_at_end(self._clocks[game_id], self.ctx.steady(), view.events, closed=view.closed)

    def clock_now(self, game_id: int) -> s.ClockOut | None:
        """The game's clock as of now, when it runs in this service; None otherwise. A station's
        forwarder sends it to the central service with each heartbeat."""
        clock = self._clocks.get(game_id)
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
