"""The game's table log (issue 46): what happened at the table beside the moves that decides what
goes on air or into the record, as rows of an append-only log (``Store.append_table``) beside the
entries, as the rack log is: the clock (its start, each press, pause, resume, undo and its finish),
the players' names as set, the tiles the table learned outside the moves (scoring.trust's `given`).
What is in memory (the running clock) or in the game's row (its players, LEARNED_META in its meta:
kept for the pages, written in the same transaction) is rebuilt from it.

``read_table_log`` is the one place a log kept before these rows is read: a game whose table log
holds no names has them in its row, one with no learned tiles in its meta (LEARNED_META); a game
with no clock rows had its clock in a process's memory only, and has none now."""
from __future__ import annotations

from dataclasses import dataclass

from tilecam.scoring import ClockAction

from ..store import GameRow, TableRow
from .view import given_tiles

__all__ = ["TableLog", "clock_action_row", "clock_start_row", "learned_row", "players_row", "read_table_log"]


@dataclass(frozen=True, slots=True)
class TableLog:
    """A game's table log, read: `clock_minutes` the clock started with (None: no clock was
    started), its actions in order; the players' names in force (the latest set); the tiles
    learned at the table (the latest)."""

    clock_minutes: float | None
    clock_actions: tuple[ClockAction, ...]
    players: tuple[dict, ...]
    learned: frozenset[str]


def clock_start_row(minutes: float, t: float, at: float, run: str) -> dict:
    return {"do": "start", "minutes": minutes, "t": t, "at": at, "run": run}


def clock_action_row(a: ClockAction) -> dict:
    return {"do": a.do, "t": a.t, "at": a.at, "run": a.run, "player": a.player, "first": a.first}


def players_row(players: list[dict], by: str) -> dict:
    return {"players": players, "by": by}


def learned_row(tiles) -> dict:
    return {"tiles": sorted(set(tiles))}


def read_table_log(row: GameRow, rows: list[TableRow]) -> TableLog:
    """The game's table log as it stands, the latest of each kind in force; what a log kept before
    the table log lacks (names, learned tiles) read from the game's row and meta, here only."""
    minutes: float | None = None
    actions: list[ClockAction] = []
    players: tuple[dict, ...] | None = None
    learned: frozenset[str] | None = None
    for r in rows:
        d = r.data
        if r.kind == "clock" and d["do"] == "start":
            minutes, actions = d["minutes"], []
        elif r.kind == "clock":
            actions.append(ClockAction(d["do"], d["t"], d["at"], d["run"], d.get("player"), d.get("first")))
        elif r.kind == "players":
            players = tuple(d["players"])
        elif r.kind == "learned":
            learned = frozenset(d["tiles"])
    return TableLog(minutes, tuple(actions), row.players if players is None else players,
                    given_tiles(row.meta) if learned is None else learned)
