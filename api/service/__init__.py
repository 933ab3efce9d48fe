"""GameService: the one writer of the store, and the queries the routes, the station and the CLI share.
Routes, commands and the recorder reach the store only through it (api/store: the interface).

Built from parts, each a class of its own in the module of its name, given what it needs when
GameService builds it (``GameService.parts``): ``Context`` (context.py: the store, the bus, the
time, one lock per game, loading a game, the live update every change ends with), ``Writer``
(writer.py: the one place that appends: commit, append, build, correct, void, under the store's
transaction discipline; it keeps each game's record replayed), ``Live`` (live.py: the overlay's
live state, kept up entry by entry, and its publishing on the bus), ``Queries`` (queries.py: the
read side), ``Racks`` (racks.py: the rack cameras' reads, issue 30), ``ClockGlue`` (clock.py: the
per-game clock), ``GameEnd`` (ending.py: every way a game ends, its clock's overtime with it),
``Operator`` (operator.py: the console's actions, built on the writer), ``Ingest`` (ingest.py: a
tournament's central service, the games stations forward) and ``Tournament`` (tournament.py: the
director's table rows). ``view`` loads a game from the store; see ``writer`` for how a write goes.

GameService exposes the methods the web, the station and the CLI call, each answered by one part
(the table below says which).
"""
from __future__ import annotations

import functools
import time
from dataclasses import dataclass
from typing import Callable


from ..bus import Bus
from ..store import Store
from .clock import ClockGlue
from .context import Context
from .evidence import board_view_text
from .ending import GameEnd
from .ingest import Ingest
from .live import Live
from .operator import Operator
from .queries import Queries
from .racks import LIVE, RackPolicy, Racks, RacksOnAir, entry_for_viewer, entry_without_rack
from .tournament import Tournament
from .view import DAMAGE, SERVICE_META, GameView, load_view, nick_of, parse_square, players_of
from .writer import Writer

__all__ = ["DAMAGE", "LIVE", "SERVICE_META", "GameService", "GameView", "RackPolicy", "RacksOnAir", "board_view_text",
           "entry_for_viewer", "entry_without_rack",
           "load_view", "nick_of", "parse_square", "players_of"]


@dataclass(frozen=True)
class Parts:
    """The game service's parts, in the order they are built (each takes only parts above it)."""

    context: Context
    clocks: ClockGlue
    racks: Racks
    writer: Writer
    live: Live
    queries: Queries
    ending: GameEnd
    operator: Operator
    ingest: Ingest
    tournament: Tournament


def _by(part: str, method: Callable) -> Callable:
    """A GameService method answered by one part: ``service.play(...)`` is
    ``service.parts.operator.play(...)`` (its signature and docstring are the part's)."""
    name = method.__name__

    @functools.wraps(method)
    def call(self: "GameService", *args, **kwargs):
        return getattr(getattr(self.parts, part), name)(*args, **kwargs)
    return call


class GameService:
    def __init__(self, store: Store, bus: Bus, clock: Callable[[], float] = time.time) -> None:
        ctx = Context(store, bus, clock)
        clocks = ClockGlue(ctx)
        racks = Racks(ctx)
        writer = Writer(ctx)
        live = Live(ctx, racks, clocks, writer)
        ctx.wire_publish(live.publish)   # every part's writes end with the live update
        queries = Queries(ctx, racks)
        self.parts = Parts(ctx, clocks, racks, writer, live, queries, GameEnd(ctx, writer, clocks, live),
                           Operator(writer), Ingest(ctx), Tournament(ctx, queries, live, clocks))

    # ---- what every part shares (tests set the clocks)
    @property
    def store(self) -> Store:
        return self.parts.context.store

    @property
    def bus(self) -> Bus:
        return self.parts.context.bus

    @property
    def clock(self) -> Callable[[], float]:
        """Wall time, Unix seconds: what is logged and shown."""
        return self.parts.context.clock

    @clock.setter
    def clock(self, value: Callable[[], float]) -> None:
        self.parts.context.clock = value

    @property
    def steady(self) -> Callable[[], float]:
        """The game clocks' time (time.monotonic, as hardware.Trigger.t)."""
        return self.parts.context.steady

    @steady.setter
    def steady(self, value: Callable[[], float]) -> None:
        self.parts.context.steady = value

    # ---- reading a game (queries.py)
    games = _by("queries", Queries.games)
    game = _by("queries", Queries.game)
    count = _by("queries", Queries.count)
    entries = _by("queries", Queries.entries)
    frame = _by("queries", Queries.frame)
    board_frame = _by("queries", Queries.board_frame)
    table_games = _by("queries", Queries.table_games)
    table_log = _by("queries", Queries.table_log)
    learned = _by("queries", Queries.learned)
    current_game = _by("queries", Queries.current_game)
    load = _by("queries", Queries.load)
    summaries = _by("queries", Queries.summaries)
    summary = _by("queries", Queries.summary)
    moves = _by("queries", Queries.moves)
    board = _by("queries", Queries.board)
    unseen = _by("queries", Queries.unseen)
    gcg = _by("queries", Queries.gcg)
    gcg_filename = _by("queries", Queries.gcg_filename)
    woogles = _by("queries", Queries.woogles)
    record_json = _by("queries", Queries.record_json)
    recount = _by("queries", Queries.recount)
    scoresheet = _by("queries", Queries.scoresheet)

    # ---- the live state and its updates (live.py)
    live = _by("live", Live.live)
    announce_external = _by("live", Live.announce_external)

    # ---- writing (writer.py)
    create_game = _by("writer", Writer.create_game)
    import_record = _by("writer", Writer.import_record)
    set_players = _by("writer", Writer.set_players)
    append = _by("writer", Writer.append)
    commit = _by("writer", Writer.commit)
    build = _by("writer", Writer.build)
    put_frame = _by("writer", Writer.put_frame)
    set_meta = _by("writer", Writer.set_meta)
    set_learned = _by("writer", Writer.set_learned)
    discard_empty_game = _by("writer", Writer.discard_empty_game)
    correct = _by("writer", Writer.correct)
    undo_correction = _by("writer", Writer.undo_correction)
    void = _by("writer", Writer.void)

    # ---- the end of a game (ending.py)
    end = _by("ending", GameEnd.end)
    commit_end = _by("ending", GameEnd.commit_end)
    end_clock = _by("ending", GameEnd.end_clock)
    clock_finish = _by("ending", GameEnd.clock_finish)

    # ---- the console's actions (operator.py)
    play = _by("operator", Operator.play)
    pass_turn = _by("operator", Operator.pass_turn)
    exchange = _by("operator", Operator.exchange)
    challenge = _by("operator", Operator.challenge)
    time_penalty = _by("operator", Operator.time_penalty)

    # ---- the game clock (clock.py)
    start_clock = _by("clocks", ClockGlue.start_clock)
    has_clock = _by("clocks", ClockGlue.has_clock)
    game_clock = _by("clocks", ClockGlue.game_clock)
    clock_press = _by("clocks", ClockGlue.clock_press)
    clock_pause = _by("clocks", ClockGlue.clock_pause)
    clock_undo = _by("clocks", ClockGlue.clock_undo)
    clock_handlers = _by("clocks", ClockGlue.clock_handlers)
    clock_now = _by("clocks", ClockGlue.clock_now)

    # ---- the rack log (racks.py)
    add_rack = _by("racks", Racks.add_rack)
    confirm_rack = _by("racks", Racks.confirm_rack)
    racks = _by("racks", Racks.racks)
    rack_reviews = _by("racks", Racks.rack_reviews)
    rack_log = _by("racks", Racks.rack_log)
    rack_frame = _by("racks", Racks.rack_frame)
    played_from = _by("racks", Racks.played_from)
    shown_read = _by("racks", Racks.shown_read)
    current_racks = _by("racks", Racks.current_racks)

    # ---- a tournament's central service (ingest.py, tournament.py)
    changes_since = _by("ingest", Ingest.changes_since)
    frame_seqs = _by("ingest", Ingest.frame_seqs)
    station_games = _by("ingest", Ingest.station_games)
    ingest_header = _by("ingest", Ingest.ingest_header)
    ingest_entries = _by("ingest", Ingest.ingest_entries)
    ingest_frame = _by("ingest", Ingest.ingest_frame)
    ingest_rack = _by("ingest", Ingest.ingest_rack)
    heartbeat = _by("ingest", Ingest.heartbeat)
    tables = _by("tournament", Tournament.tables)
