"""What the demo's operator and players do that a camera cannot see, at the frames the video
shows it (video.turn_frames): a pass is a clock press on an unchanged board; an exchange the
operator enters (the board does not change either, and a press alone would record a pass); a
blank's letter the operator names once the recorder has committed the play (a blank tile shows
no letter). Everything else (plays, the phony taken back, the rack points at the end) the
recorder finds on its own. The players press the game clock as each turn ends, through the
station's trigger path as a button does: the overlay's clocks run, and the recorder hears whose
turn ended, so no turn is inferred (a press after the play it saw ends that play's turn; one on an
unchanged board is a pass). An exchange's press goes to the clock only: the operator's entry is
the turn."""
from __future__ import annotations

from tilecam.scoring import Exchange, Pass, Play
from tilecam.scoring.gcg import format_square

__all__ = ["DemoOperator", "event_key", "TURN_KINDS"]

BY = "demo operator"
# The log's events that take a turn or score (not corrections, voids or notes).
TURN_KINDS = ("play", "phony_withdrawn", "pass", "exchange", "turn_lost", "challenge_bonus",
              "end_rack_points", "end_rack_penalty", "time_penalty")


def event_key(ev) -> tuple:
    """What must match for an event to count as recorded exactly: who, what, the tiles, the score."""
    tiles = frozenset(ev.placement.tiles) if isinstance(ev, Play) else None
    return (ev.kind, ev.player, tiles, getattr(ev, "count", None), getattr(ev, "engine", None))


class DemoOperator:
    """Called with every frame's outcome on the recorder's thread (Station.on_outcome), so what it
    enters never races the recorder's own decisions."""

    def __init__(self, station, truth, frames: list[int]) -> None:
        self.station = station
        self.truth = list(truth.events)
        self.frames = frames
        self.reset()

    def reset(self) -> None:
        """A new game of the same video (the station loops it)."""
        self.next = 0           # the truth's next event not yet on camera
        self.started = False    # the clock: the second player starts the first one's at the first frame
        self.actions: list[str] = []

    def _press_clock(self, player: int | None) -> None:
        service, gid = self.station.service, self.station.recording.game_id
        if not service.has_clock(gid):  # settings without a clock
            return
        try:
            service.clock_press(gid, player)
        except ValueError as exc:  # the clock refused (the operator paused it in the console): play on
            self.actions.append(f"clock press by player {player + 1 if player is not None else '?'} refused: {exc}")

    def _turn_end(self, player: int) -> None:
        """A clock button press through the station's trigger path (station.triggers.connect)."""
        from tilecam.hardware.triggers import Trigger
        try:
            self.station.on_trigger(Trigger("turn_end", player, source="button"))
        except ValueError as exc:  # the clock refused (the operator paused it in the console): play on
            self.actions.append(f"clock press by player {player + 1} refused: {exc}")

    def _recorded(self) -> list:
        return [e for e in self.station.recording.scorekeeper.game.events if e.kind in TURN_KINDS]

    def __call__(self, frame, outcome) -> None:
        if not self.started:
            self.started = True
            self._press_clock(None)
        if outcome.seqs:
            self._name_blanks()
        while self.next < len(self.truth) and frame.index >= self.frames[self.next]:
            if len(self._recorded()) < self.next:
                return  # the recorder has not caught up with the turns before: act once it has
            ev = self.truth[self.next]
            gid = self.station.recording.game_id
            if isinstance(ev, (Play, Pass)):
                # the player hits the clock as a button does: the clock, then the recorder, which
                # takes the press as the end of their turn (of the play it saw, or a pass)
                self._turn_end(ev.player)
                if isinstance(ev, Pass):
                    self.actions.append(f"clock press (pass) by player {ev.player + 1}")
            elif isinstance(ev, Exchange):
                # the clock only: the operator's entry is the turn (a press on the unchanged board
                # would be heard as a pass)
                self._press_clock(ev.player)
                self.station.service.exchange(gid, count=ev.count, tiles=ev.tiles, player=ev.player)
                self.actions.append(f"exchange of {ev.count} entered for player {ev.player + 1}")
            self.next += 1

    def _name_blanks(self) -> None:
        """The operator names each blank of a committed play, as the GCG record has it."""
        from tilecam.api.schemas import BlankFix

        service, gid = self.station.service, self.station.recording.game_id
        events = service.load(gid).events
        turns = [i for i, e in enumerate(events) if e.kind in TURN_KINDS]
        for n, index in enumerate(turns[:len(self.truth)]):
            got, want = events[index], self.truth[n]
            if not (isinstance(got, Play) and isinstance(want, Play)):
                continue
            letters = {t.square: t.letter for t in want.placement.tiles if t.blank}
            for t in got.placement.tiles:
                if t.blank and t.square in letters and t.letter != letters[t.square]:
                    service.correct(gid, index, BlankFix(kind="blank", square=format_square(t.square),
                                                         letter=letters[t.square].lower()), by=BY)
                    self.actions.append(f"blank on {format_square(t.square)} named {letters[t.square]}")
