"""The event store's interface: what the game service needs from a database, and nothing more.

The store keeps what it is given, in order, and hands it back; it knows no rules. Every engine
behind ``Store`` keeps the same promises (tests/api/store/test_store_contract.py holds each engine to
them):

- a game's log is append-only; an append names the seq it believes comes next (``expect``) and a
  writer that lost the race gets ``Conflict`` with nothing written;
- ``writing()`` is one write transaction: what is read inside it is what the writes follow, and
  the writes land together or not at all (an entry, its evidence frame and its sidecar);
- a table's games are a query on an indexed column, not a scan of every game's metadata;
- ``changes(after)`` says cheaply which games other writers (threads, processes, servers on the
  same database) changed since a mark, so a watcher reloads only those games; ``wait_changes``
  waits for the next such change (PostgreSQL is woken by NOTIFY; SQLite looks often);
- the schema carries a version, brought forward by numbered migrations when a store is opened
  (api/store/migrations.py); a database newer than the code is refused.

Only the game service (api/service) talks to a store; routes and commands call the service.
``open_store`` is the one factory: a SQLite file (api/store/sqlite.py, the default for one table,
no set-up), or PostgreSQL (api/store/postgres.py, a tournament's central store) when
``[store] url`` is a postgresql:// URL.
"""
from __future__ import annotations

import os
import re
from contextlib import AbstractContextManager
from pathlib import Path
from typing import TYPE_CHECKING, Protocol, runtime_checkable

from tilecam.scoring import LogEntry

from ..errors import Conflict, NotFound, StoreError
from .rows import Changes, EntryRow, FrameRow, GameRow, RackRow, TableRow

if TYPE_CHECKING:
    from ..settings import StoreSettings

__all__ = ["Changes", "Conflict", "EntryRow", "FrameRow", "GameRow", "NotFound", "RackRow", "Store", "StoreError", "TableRow",
           "open_store", "store_file", "store_name"]


@runtime_checkable
class Store(Protocol):
    """One database of games. Engines: api/store/sqlite.py (SqliteStore), api/store/postgres.py (PostgresStore)."""

    def close(self) -> None: ...

    def writing(self) -> AbstractContextManager[None]:
        """One write transaction: other writers (this process's threads and every other process or
        server) wait until it ends, so what is read inside is what the writes follow; an exception
        rolls it all back. Nested calls join the outer transaction."""
        ...

    # ---- games
    def create_game(self, players: list[dict], rules: str, lang: str, layout: str = "standard",
                    meta: dict | None = None) -> GameRow: ...

    def game(self, game_id: int) -> GameRow:
        """NotFound for an id that names no game (whatever its size)."""
        ...

    def games(self) -> list[GameRow]:
        """Every game, oldest first."""
        ...

    def update_game(self, game_id: int, players: list[dict] | None = None,
                    meta: dict | None = None) -> GameRow:
        """Replace the players and/or merge keys into meta (None values delete a key)."""
        ...

    def discard_empty_game(self, game_id: int) -> bool:
        """Remove a game nothing was ever written to: True when removed; never one with an entry, an
        evidence frame or a rack read. Its table log (a clock started, names set) goes with it."""
        ...

    def table_games(self, table: int) -> list[int]:
        """The games whose meta names `table` ("table": "7"), oldest first: an index, not a scan."""
        ...

    # ---- the log
    def append(self, game_id: int, entry: LogEntry, expect: int | None = None, jpeg: bytes | None = None,
               path: str | None = None, sidecar: dict | None = None) -> int:
        """Append one entry with its evidence frame (JPEG bytes or a path) and sidecar, in one
        transaction; returns its seq. `expect` is not the next seq: Conflict, nothing written."""
        ...

    def entries(self, game_id: int) -> list[EntryRow]: ...

    def count(self, game_id: int) -> int: ...

    # ---- evidence frames
    def put_frame(self, game_id: int, seq: int, jpeg: bytes | None = None, path: str | None = None) -> None: ...

    def frame(self, game_id: int, seq: int) -> FrameRow: ...

    def frame_seqs(self, game_id: int) -> set[int]: ...

    # ---- the rack log (issue 30): rack cameras' settled reads and the operator's confirmations
    def append_rack(self, game_id: int, kind: str, data: dict, expect: int | None = None,
                    jpeg: bytes | None = None, path: str | None = None) -> int:
        """Append one rack row ("seen" or "confirm", its JSON `data`) with its evidence frame, in
        one transaction; returns its seq (0, 1, ... per game, apart from the entries'). Append-only
        like the log: `expect` not the next seq is a Conflict, nothing written."""
        ...

    def racks(self, game_id: int) -> list[RackRow]:
        """The game's rack rows in order (without the frames' bytes)."""
        ...

    def rack_frame(self, game_id: int, seq: int) -> FrameRow:
        """The evidence frame of rack row `seq`; NotFound when none was kept."""
        ...

    # ---- the table log (issue 46): the clock, the players' names, the tiles learned at the table
    def append_table(self, game_id: int, kind: str, data: dict, expect: int | None = None) -> int:
        """Append one table log row ("clock", "players" or "learned", its JSON `data`) in one
        transaction; returns its seq (0, 1, ... per game, apart from the entries' and the rack
        log's). Append-only like the log: `expect` not the next seq is a Conflict, nothing written."""
        ...

    def table_log(self, game_id: int) -> list[TableRow]:
        """The game's table log rows in order."""
        ...

    # ---- change notification
    def changes(self, after: int | None = None) -> Changes:
        """The games other writers changed since mark `after` (None: only a mark to start from).
        Cheap when nothing changed, so a watcher may call it often; it may also name games this
        store object wrote itself."""
        ...

    def wait_changes(self, after: int, timeout_s: float) -> Changes:
        """``changes(after)`` as soon as it names a game (or says reload all), or when timeout_s
        passed (then maybe nothing): a watcher's loop, woken by the writer's commit where the
        engine can be told (PostgreSQL's LISTEN/NOTIFY), else by looking every few ms."""
        ...


SQLITE_PREFIX = "sqlite:///"
POSTGRES_PREFIXES = ("postgresql://", "postgres://")


def _target(where: "StoreSettings | str | os.PathLike[str]") -> str:
    # [store] url wins over db_path: a station that sets neither keeps its default file.
    if not isinstance(where, (str, os.PathLike)):
        where = where.url or where.db_path
    return os.fspath(where)


def open_store(where: "StoreSettings | str | os.PathLike[str]") -> Store:
    """The one factory: the store the settings' [store] section names (its url, else its db_path),
    or a path or URL ('sqlite:///path/games.sqlite3' or a plain path: a SQLite file;
    'postgresql://user@host:5432/dbname': PostgreSQL, its password never in the URL). StoreError
    when it cannot be opened."""
    target = _target(where)
    if target.startswith(POSTGRES_PREFIXES):
        from .postgres import PostgresStore  # imported here: a SQLite station never needs psycopg

        return PostgresStore(target, password_file=getattr(where, "password_file", None))
    if store_file(target) is None:
        raise StoreError(f"{target.split('://')[0]}:// stores are not supported: give a SQLite file (a path or "
                         f"{SQLITE_PREFIX}path) or postgresql://user@host:5432/dbname")
    from .sqlite import SqliteStore  # the engine is chosen here, and only here

    return SqliteStore(target.removeprefix(SQLITE_PREFIX))


def store_file(where: "StoreSettings | str | os.PathLike[str]") -> Path | None:
    """The SQLite file a store setting names (its folder may need creating: SQLite makes none),
    or None for a server's store (a URL)."""
    target = _target(where)
    if "://" in target and not target.startswith(SQLITE_PREFIX):
        return None
    return Path(target.removeprefix(SQLITE_PREFIX))


def store_name(where: "StoreSettings | str | os.PathLike[str]") -> str:
    """Where the store is, fit to print or log: the file, or the URL with any password starred
    (PostgresStore refuses one there, but a refused URL is still printed in the message)."""
    target = _target(where)
    target = re.sub(r"^([a-z]+://[^/@:]*):[^/]*@", r"\1:***@", target)  # user:password@host (to the last @)
    return re.sub(r"([?&]password=)[^&]*", r"\1***", target)
