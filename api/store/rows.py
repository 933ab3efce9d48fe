"""The rows a store hands back, the same from every engine, and the values every engine derives
from them the same way (a game's table number, a row's time stamp, what changed since a mark)."""
from __future__ import annotations

import json
from dataclasses import dataclass
from datetime import datetime, timezone
from typing import Callable, Iterable

from tilecam.scoring import LogEntry, from_json, to_json

from ..errors import Conflict, Damaged, NotFound

__all__ = ["RACK_KINDS", "TABLE_KINDS", "Changes", "EntryRow", "FrameRow", "GameRow", "RackRow", "TableRow",
           "append_values", "check_rack", "check_table",
           "changes_since", "check_expect", "checked_id", "entry_rows", "rack_rows", "table_rows", "game_row", "merged_meta", "now",
           "table_no"]


@dataclass(frozen=True, slots=True)
class GameRow:
    id: int
    players: tuple[dict, ...]   # {"nick", "name"}
    rules: str
    lang: str
    layout: str
    created: str
    meta: dict                  # strings; meta["table"] (a table number) is indexed: see Store.table_games


@dataclass(frozen=True, slots=True)
class EntryRow:
    seq: int
    entry: LogEntry
    created: str
    sidecar: dict | None = None


@dataclass(frozen=True, slots=True)
class FrameRow:
    jpeg: bytes | None
    path: str | None
    created: str


@dataclass(frozen=True, slots=True)
class RackRow:
    """One row of a game's rack log (append-only, numbered from 0 per game like the entries):
    `kind` "seen" (a rack camera's settled read: player, t, tiles, certainty, ...) or "confirm"
    (an operator's confirmation or fix of the read numbered data["target"]); `data` is JSON the
    service wrote, the store reads none of it; `frame`: an evidence frame is kept for it."""
    seq: int
    kind: str
    data: dict
    created: str
    frame: bool = False


# What a rack log row may be; the store checks the tag only.
RACK_KINDS = ("seen", "confirm")


@dataclass(frozen=True, slots=True)
class TableRow:
    """One row of a game's table log (append-only, numbered from 0 per game like the entries): what
    happened at the table beside the moves that decides what goes on air or into the record: `kind`
    "clock" (the clock started, a press, a pause, a resume, an undo, its finish), "players" (the
    players' names as set), "learned" (the tiles the table learned outside the moves). `data` is
    JSON the service wrote (api/service/tablelog.py); the store reads none of it."""
    seq: int
    kind: str
    data: dict
    created: str


# What a table log row may be; the store checks the tag only.
TABLE_KINDS = ("clock", "players", "learned")


@dataclass(frozen=True, slots=True)
class Changes:
    """What changed since a mark. `mark`: pass it to the next ``changes`` call. `games`: the ids
    of the games written since (creations, entries, frames, players and meta); None when the
    store cannot say (the first call, or a mark older than the changes it keeps): reload all."""
    mark: int
    games: frozenset[int] | None


def checked_id(game_id: int) -> int:
    # Both engines keep ids as 64-bit integers; a larger id from a URL can only name a game that does not exist.
    if not 0 < game_id < 2**63:
        raise NotFound(f"no game {game_id}")
    return game_id


def now() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="milliseconds")


def table_no(meta: dict) -> int | None:
    """The table a game's meta names, as the indexed column holds it: "7" -> 7, else None."""
    value = meta.get("table")
    return int(value) if isinstance(value, str) and value.isdecimal() and str(int(value)) == value else None


def merged_meta(meta: dict, update: dict | None) -> dict:
    """`meta` with the keys of `update` set (a None value deletes its key)."""
    merged = dict(meta)
    for k, v in (update or {}).items():
        if v is None:
            merged.pop(k, None)
        else:
            merged[k] = v
    return merged


def append_values(game_id: int, entry: LogEntry, jpeg: bytes | None, path: str | None,
                  sidecar: dict | None) -> tuple[str, str | None]:
    """The entry and its sidecar as an append stores them (JSON), after the checks of its arguments."""
    checked_id(game_id)
    if jpeg is not None and path is not None:
        raise ValueError("give jpeg bytes or a path, not both")
    return json.dumps(to_json(entry)), json.dumps(sidecar) if sidecar is not None else None


def check_rack(game_id: int, kind: str, data: dict, jpeg: bytes | None, path: str | None) -> str:
    """A rack row's JSON, after the checks of its arguments."""
    checked_id(game_id)
    if kind not in RACK_KINDS:
        raise ValueError(f"a rack row is one of {', '.join(RACK_KINDS)}, not {kind!r}")
    if jpeg is not None and path is not None:
        raise ValueError("give jpeg bytes or a path, not both")
    return json.dumps(data)


def check_table(game_id: int, kind: str, data: dict) -> str:
    """A table log row's JSON, after the checks of its arguments."""
    checked_id(game_id)
    if kind not in TABLE_KINDS:
        raise ValueError(f"a table log row is one of {', '.join(TABLE_KINDS)}, not {kind!r}")
    return json.dumps(data)


def table_rows(game_id: int, rows: Iterable) -> list[TableRow]:
    """Table log rows (seq, kind, data: JSON text, created) as TableRows, in the order given."""
    out = []
    for seq, kind, data, created in rows:
        try:
            value = json.loads(data)
        except ValueError as exc:
            raise Damaged(f"game {game_id} table log row {seq} cannot be read: {exc}") from None
        out.append(TableRow(seq, kind, value, created))
    return out


def rack_rows(game_id: int, rows: Iterable) -> list[RackRow]:
    """Rack rows (seq, kind, data: JSON text, created, has a frame) as RackRows, in the order given."""
    out = []
    for seq, kind, data, created, frame in rows:
        try:
            value = json.loads(data)
        except ValueError as exc:
            raise Damaged(f"game {game_id} rack read {seq} cannot be read: {exc}") from None
        out.append(RackRow(seq, kind, value, created, bool(frame)))
    return out


def check_expect(game_id: int, seq: int, expect: int | None) -> None:
    """An append that names the seq it believes comes next (`expect`) and is wrong: Conflict."""
    if expect is not None and expect != seq:
        raise Conflict(f"game {game_id} has {seq} log entries, not {expect}: another writer "
                       "changed it; read it again")


def game_row(r) -> GameRow:
    """A games row (id, players, rules, lang, layout, created, meta: JSON text) as a GameRow."""
    return GameRow(r[0], tuple(json.loads(r[1])), r[2], r[3], r[4], r[5], json.loads(r[6]))


def entry_rows(game_id: int, rows: Iterable) -> list[EntryRow]:
    """Entries rows (seq, data, created, sidecar: JSON text) as EntryRows, in the order given."""
    out = []
    for seq, data, created, side in rows:
        try:
            entry = from_json(json.loads(data))
        except ValueError as exc:  # the row was written around the store, or by a newer tilecam
            raise Damaged(f"game {game_id} log entry {seq} cannot be read: {exc}") from None
        out.append(EntryRow(seq, entry, created, json.loads(side) if side else None))
    return out


def changes_since(after: int | None, first: int | None, last: int | None,
                  games_after: Callable[[int], Iterable[int]]) -> Changes:
    """Changes from a changes table whose rows are numbered first..last (None: empty), each naming
    a game; `games_after(mark)` reads the games of the rows after a mark."""
    mark = last or 0
    if after is None or (first is not None and first > after + 1):  # no mark yet, or pruned past it
        return Changes(mark, None)
    return Changes(max(mark, after), frozenset(games_after(after)))
