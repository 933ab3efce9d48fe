"""The tournament view: every table with its current game and what needs the director.

A central service follows dozens of tables, and the director's page asks every 2 s. One request
reads the game rows (one query) and each current game's log length (one indexed count); the
replayed parts (the live state, the recount's discrepancies, the plays under review) are cached
per game until its log, players or meta change. A station's heartbeat ("station_heard_at")
changes meta every few seconds, so it is left out of the cache key: silence is measured fresh on
every request, the replay is not redone for it (nor for the clock its heartbeat carries).

A station is flagged silent only while its table's game is live: a station switched off once its
game ended, between rounds, is no fault.
"""
from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING

import tilecam.api.service.types as s
from ..errors import NotFound
from ..store import GameRow
from .context import Context
from .ingest import STATION_CLOCK, STATION_URL, station_console
from .view import DAMAGE, LOST_META, TILESET_META, GameView

if TYPE_CHECKING:
    from .clock import ClockGlue
    from .live import Live
    from .queries import Queries

__all__ = ["HEARD_AT", "Tournament", "table_of"]

# A forwarded game's meta names its station ("station") and when the central last heard from it
# (HEARD_AT: Unix seconds as a string, rewritten on every contact, so kept out of the cache key).
HEARD_AT = "station_heard_at"


def table_of(meta: dict) -> int | None:
    """The table a game's meta names ("7" -> 7), read as the store indexes it: a plain positive
    number, else None (no table)."""
    value = meta.get("table")
    if isinstance(value, str) and value.isdecimal() and str(int(value)) == value and int(value) > 0:
        return int(value)
    return None


class Tournament:
    """The rows of /api/tables: each table's current game, read through the queries (the recount),
    the live state and the clocks."""

    def __init__(self, ctx: Context, queries: "Queries", live: "Live", clocks: "ClockGlue") -> None:
        self.ctx, self.store, self.queries, self.live, self.clocks = ctx, ctx.store, queries, live, clocks
        self._tables: dict[int, tuple[tuple, _Replayed]] = {}  # game -> (its key, its part of a table row)

    def tables(self, stale_after_s: float, only: Iterable[int] | None = None,
               flagged: bool = False) -> s.TournamentOut:
        """Every table (or those in `only`) with its newest game; `flagged`: only tables with a flag."""
        wanted = None if only is None else set(only)
        current: dict[int, tuple[GameRow, int]] = {}  # table -> (newest game, games at the table)
        for row in self.store.games():  # oldest first: the last one seen is the table's newest
            table = table_of(row.meta)
            if table is not None and (wanted is None or table in wanted):
                current[table] = (row, current.get(table, (row, 0))[1] + 1)
        now = self.ctx.clock()
        rows = []
        for table in sorted(current):
            row, games = current[table]
            try:
                out = self._table_row(table, row, games, now, stale_after_s)
            except NotFound:  # discarded between the two reads: not a table any more
                continue
            if out.flags or not flagged:
                rows.append(out)
        if wanted is None:  # every table seen: forget the games no table follows any more
            keep = {row.id for row, _ in current.values()}
            for gid in list(self._tables):  # a copy: other requests' threads add to it meanwhile
                if gid not in keep:
                    self._tables.pop(gid, None)
        return s.TournamentOut(at=now, stale_after_s=stale_after_s, tables=rows,
                               flagged=sum(1 for r in rows if r.flags))

    def _table_row(self, table: int, row: GameRow, games: int, now: float, stale_after_s: float) -> s.TableRowOut:
        key = (self.store.count(row.id), repr(row.players),
               repr(sorted((k, v) for k, v in row.meta.items() if k not in (HEARD_AT, STATION_CLOCK))))
        cached = self._tables.get(row.id)
        if cached is None or cached[0] != key:
            cached = (key, self._replay(row))
            self._tables[row.id] = cached
        done = cached[1]
        station = _station(row.meta, now, stale_after_s, live=not done.fields["ended"])
        # the recorder says it lost the game (api.service.view.LOST_META, written by api/station/lostwatch.py): the director sees it at once
        flags = [*done.flags, *(["stale"] if station and station.stale else []),
                 *(["lost"] if row.meta.get(LOST_META) else []), *(["tileset"] if row.meta.get(TILESET_META) else [])]
        clock, clocks = None, []
        if done.live is not None:  # this service's clock, or the one the station forwarded
            live = self.clocks.with_clock(row.id, done.live, row.meta)  # the clock as of now: never cached
            if live.clock is not None:
                clock = live.clock
                clocks = [live.fields[f"p{p + 1}_clock"] for p in range(len(live.players))]
        gid = row.id
        # A forwarded game is corrected at its station: the link is that station's console.
        console = station.console if station is not None else f"/operator?game={gid}"
        return s.TableRowOut(
            table=table, game_id=gid, games=games, clock=clock, clocks=clocks, station=station,
            flags=sorted(flags, key=FLAG_ORDER.index), lost=row.meta.get(LOST_META) or None,
            tileset=row.meta.get(TILESET_META) or None, **done.fields,
            links={"recount": f"/recount/{gid}", "replay": f"/replay/{gid}",
                   **({"operator": console} if console else {}),
                   "overlay": f"/overlay/table/{table}", "live": f"/api/tables/{table}/live"})

    def _replay(self, row: GameRow) -> _Replayed:
        """What a table's row takes from its game's record: only redone when the record changes."""
        names = [p["name"] for p in row.players]
        try:
            live = self.live.live(row.id)
            view: GameView = self.ctx.load(row.id)
            found = self.queries.recount(view).discrepancies
        except DAMAGE as exc:
            # One damaged log is one flagged row, not a tournament view that fails.
            return _Replayed(None, ["damaged"], {
                "players": names, "scores": [0] * len(names), "on_turn": None, "ended": False, "result": "",
                "moves": 0, "last_play": "", "last_played": None, "disagreements": [], "review": [],
                "damaged": f"{type(exc).__name__}: {exc}", "turns": None, "blanks": []})
        review = [i + 1 for i in live.unconfirmed]
        blanks = [i + 1 for i in live.blank_undecided]
        flags = ((["order"] if live.out_of_turn else []) + (["score"] if found else [])
                 + (["review"] if review else []) + (["blank"] if blanks else [])
                 + (["inferred"] if live.turns_inferred else []))
        return _Replayed(live, flags, {
            "players": names, "scores": live.scores, "on_turn": None if live.ended else live.on_turn,
            "ended": live.ended, "result": live.fields["result"], "moves": len(view.events),
            "last_play": live.fields["last_play"], "last_played": live.last_played,
            "disagreements": found, "review": review, "damaged": None, "turns": live.turns, "blanks": blanks,
            "learning": live.learning})


FLAG_ORDER = ["damaged", "lost", "tileset", "order", "score", "review", "blank", "inferred", "stale"]



@dataclass(frozen=True, slots=True)
class _Replayed:
    """A game's cached part of its table row: the live state (for the clock), the flags its record
    raises, and the row's fields from the record."""

    live: s.LiveOut | None
    flags: list[str]
    fields: dict


def _station(meta: dict, now: float, stale_after_s: float, live: bool) -> s.StationOut | None:
    """The forwarding station, its address and how long it has been silent (a fault only while
    its game is `live`); None for a game not forwarded."""
    name = meta.get("station")
    if not name:
        return None
    try:
        heard = float(meta.get(HEARD_AT, ""))
    except ValueError:
        heard = None
    if heard is not None and not math.isfinite(heard):  # 'nan', 'inf': no time at all
        heard = None
    silent = None if heard is None else max(0.0, now - heard)
    return s.StationOut(name=name, heard_at=heard, silent_s=silent, url=meta.get(STATION_URL) or None,
                        console=station_console(meta),
                        stale=live and (silent is None or silent > stale_after_s))
