"""The end of a game, for every way it ends: a director's /end, the recorder's end, a station's
source that ran out, the clock's own finish. The final entries (a director's Close, the racks'
points, the recorder's decided end) and, with a clock, its overtime go in together, in one
transaction where the caller ends the game, and then out in one run of updates: no page, nor the
central service a station forwards to, shows a result that the next entry changes. The clock
stops at the end in one place (ClockGlue.stop_at_end); its overtime is entered here, once."""
from __future__ import annotations

from tilecam.scoring import (Close, GameError, LogEntry, TimePenalty, format_clock)

from .clock import ClockGlue
from .context import Context
from .ingest import refuse_mirror
from .live import Live
from .writer import Writer

__all__ = ["GameEnd"]


class GameEnd:
    """Ending games, on the writer (the entries), the clocks (stopped, their overtime) and the live
    updates (one run of them once everything is in)."""

    def __init__(self, ctx: Context, writer: Writer, clocks: ClockGlue, live: Live) -> None:
        self.ctx, self.writer, self.clocks, self.live = ctx, writer, clocks, live

    def end(self, game_id: int, racks: list[str] | None, reason: str, by: str) -> list[int]:
        """Final racks and the end of the game: the out-play's rack points, or each player's own
        rack off after six zeros, or a director ending the game (a Close in the log, then each
        rack given off); with a clock, its overtime penalties too. All of it goes out in one
        update, so no page shows a result that the next entry changes."""
        # One transaction: the end is decided on the record as it stands, and the closing, the
        # racks and the overtime go in together; the live update goes out after the commit.
        writer = self.writer
        with self.ctx.lock(game_id):
            with writer.writing(game_id):
                view = self.ctx.load(game_id)
                refuse_mirror(view.row)
                if view.closed:
                    raise GameError("the game has already been ended and its final racks entered")
                seqs = [] if view.over() else \
                    writer.commit(game_id, [Close(by, reason or "ended by the director")], publish=False)
                # what the rules decide: scoring.game.Game.final_racks
                seqs += writer.build(game_id, lambda g: g.final_racks(racks), publish=False)
                seqs += self.end_clock(game_id, publish=False)  # stopped now: the director's call
            self.live.publish_written(game_id, seqs)
            return seqs

    def commit_end(self, game_id: int, entries: list[LogEntry], *, expect: int | None = None) -> list[int]:
        """The recorder's end of a game: the rack points it decided and, with a clock, each player's
        overtime penalty, in one transaction and then one run of updates, as ``end`` does for the
        operator."""
        with self.ctx.lock(game_id):
            with self.writer.writing(game_id):
                seqs = self.writer.commit(game_id, entries, expect=expect, publish=False)
                seqs += self.end_clock(game_id, publish=False)  # the clock stops; overtime goes in
            self.live.publish_written(game_id, seqs)
        return seqs

    def end_clock(self, game_id: int, publish: bool = True) -> list[int]:
        """The end of a game, for every way it ends (the operator's /end, the recorder's end, a
        station's source that ran out): its clock, when one runs here, stops and its overtime goes
        in (`clock_finish`); nothing without a clock. Returns the log rows written."""
        if not self.clocks.has_clock(game_id):
            return []
        return self.clock_finish(game_id, publish=publish)

    def clock_finish(self, game_id: int, publish: bool = True) -> list[int]:
        """The game is over: stop its clock (ClockGlue.stop_at_end) and enter each player's overtime
        as a TimePenalty (minutes started over, points from the rules), once; a player the rules say
        lost on time has it said in the note. Returns the log rows written. `publish=False`: the
        caller (the end of the game) publishes them with the rest of the end."""
        with self.ctx.lock(game_id):
            clock = self.clocks.game_clock(game_id)
            view = self.ctx.load(game_id)
            st = self.clocks.stop_at_end(game_id, view)
            entered = {e.player for e in view.events if isinstance(e, TimePenalty)}
            seqs: list[int] = []
            for p, minutes in enumerate(st.overtime_minutes):
                if not minutes or p in entered:
                    continue
                note = f"overtime {format_clock(st.remaining_s[p])}"
                if st.lost_on_time[p]:
                    note += f"; more than {clock.overtime_forfeit_minutes} minutes over: lost on time"
                seqs += self.writer.build(game_id, lambda g, p=p, m=minutes, n=note: g.time_penalty(p, m, note=n),
                                          publish=publish)
        if publish:
            self.ctx.publish(game_id)
        return seqs
