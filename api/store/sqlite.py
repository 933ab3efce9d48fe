"""The SQLite engine of the event store (api/store): one JSON row per log entry with a kind tag,
one transaction per write, the default for one table.

WAL mode lets readers go on while the recorder writes. Writers, in this process or another
on the same file, take SQLite's write lock with BEGIN IMMEDIATE (``SqliteStore.writing``), so what
a writer reads inside the transaction is the record its append follows; an append names the seq
it believes comes next and a writer that lost the race gets ``Conflict``.

Change notification: every write transaction adds one row per game it touched to ``changes``
(an autoincrement id, the game) before it commits. ``changes(after)`` first reads
``PRAGMA data_version``, which moves only when another connection committed, so a watcher's
check costs one read of the WAL index until someone else writes; then it reads the rows after
its mark and names those games. SQLite cannot wake a waiter, so ``wait_changes`` makes that
check every POLL_S.

The schema carries its version (``schema_version``); MIGRATIONS bring an older file forward when
it is opened (api/store/migrations.py), and a file from a newer tilecam is refused.
"""
from __future__ import annotations

import functools
import json
import sqlite3
import threading
import time
from contextlib import contextmanager
from pathlib import Path

from tilecam.scoring import LogEntry

from ..errors import Conflict, NotFound, StoreError
from .migrations import TABLE_LOG, Migration, ordered, pending, upgrade
from .rows import (Changes, EntryRow, FrameRow, GameRow, RackRow, TableRow, append_values, changes_since,
                   check_expect, check_rack, check_table, checked_id as _checked, entry_rows, game_row, merged_meta,
                   now as _now, rack_rows, table_no, table_rows)

__all__ = ["SqliteStore"]

# The first schema (version 1), as tilecam wrote it before versions were kept; IF NOT EXISTS, since
# a file from then (version 0) already has some of it. Later columns are later migrations.
FIRST_SCHEMA = (
    """CREATE TABLE IF NOT EXISTS games (
        id      INTEGER PRIMARY KEY AUTOINCREMENT,
        players TEXT NOT NULL,              -- JSON [{"nick": .., "name": ..}, ...]
        rules   TEXT NOT NULL,
        lang    TEXT NOT NULL,
        layout  TEXT NOT NULL DEFAULT 'standard',
        created TEXT NOT NULL,
        meta    TEXT NOT NULL DEFAULT '{}'  -- JSON object of strings
    )""",
    """CREATE TABLE IF NOT EXISTS entries (
        game_id INTEGER NOT NULL REFERENCES games(id),
        seq     INTEGER NOT NULL,           -- position in the game's log, from 0
        kind    TEXT NOT NULL,
        data    TEXT NOT NULL,              -- scoring.events.to_json(entry)
        created TEXT NOT NULL,
        PRIMARY KEY (game_id, seq)
    )""",
    # Evidence: the frame a log entry was read from, as JPEG bytes or a path the recorder wrote.
    """CREATE TABLE IF NOT EXISTS frames (
        game_id INTEGER NOT NULL REFERENCES games(id),
        seq     INTEGER NOT NULL,
        jpeg    BLOB,
        path    TEXT,
        created TEXT NOT NULL,
        PRIMARY KEY (game_id, seq)
    )""",
    # One row per game each write transaction touched: what changes(after) reads after its mark.
    """CREATE TABLE IF NOT EXISTS changes (
        id      INTEGER PRIMARY KEY AUTOINCREMENT,
        game_id INTEGER NOT NULL
    )""",
)


def _columns(db: sqlite3.Connection, table: str) -> set[str]:
    return {r[1] for r in db.execute(f"PRAGMA table_info({table})")}


def _first_schema(db: sqlite3.Connection) -> None:
    for statement in FIRST_SCHEMA:
        db.execute(statement)


def _sidecar(db: sqlite3.Connection) -> None:
    if "sidecar" not in _columns(db, "entries"):  # a version-0 file may have it already
        db.execute("ALTER TABLE entries ADD COLUMN sidecar TEXT")  # JSON: what the recorder saw


def _table_no(db: sqlite3.Connection) -> None:
    if "table_no" not in _columns(db, "games"):  # meta "table" as a number, for Store.table_games
        db.execute("ALTER TABLE games ADD COLUMN table_no INTEGER")
        for game_id, meta in db.execute("SELECT id, meta FROM games").fetchall():  # the tables old games name
            db.execute("UPDATE games SET table_no = ? WHERE id = ?", (table_no(json.loads(meta)), game_id))
    db.execute("CREATE INDEX IF NOT EXISTS games_table ON games (table_no, id) WHERE table_no IS NOT NULL")


RACKS_SCHEMA = (
    # The rack log (issue 30): each rack camera's settled reads and the operator's confirmations,
    # append-only and numbered per game apart from the entries.
    """CREATE TABLE racks (
        game_id INTEGER NOT NULL REFERENCES games(id),
        seq     INTEGER NOT NULL,           -- position in the game's rack log, from 0
        kind    TEXT NOT NULL,              -- "seen" or "confirm"
        data    TEXT NOT NULL,              -- JSON the service wrote
        created TEXT NOT NULL,
        PRIMARY KEY (game_id, seq)
    )""",
    """CREATE TABLE rack_frames (
        game_id INTEGER NOT NULL REFERENCES games(id),
        seq     INTEGER NOT NULL,
        jpeg    BLOB,
        path    TEXT,
        created TEXT NOT NULL,
        PRIMARY KEY (game_id, seq)
    )""",
)


def _racks(db: sqlite3.Connection) -> None:
    for statement in RACKS_SCHEMA:
        db.execute(statement)


def _table_log(db: sqlite3.Connection) -> None:
    db.execute(TABLE_LOG.format(int="INTEGER"))


# Append a migration for every schema change; never edit one that has shipped.
MIGRATIONS = ordered(
    Migration(1, "games, entries, frames and changes", _first_schema),
    Migration(2, "entries.sidecar", _sidecar),
    Migration(3, "games.table_no, indexed", _table_no),
    Migration(4, "racks and rack_frames: the rack cameras' reads", _racks),
    Migration(5, "table_log: the clock, the players' names, the tiles learned", _table_log),
)
BUSY_TIMEOUT_S = 10.0  # how long a writer waits for another process's transaction
CHANGES_KEPT = 10_000  # change rows kept; a watcher whose mark is older reloads every game
POLL_S = 0.05  # how often wait_changes looks (one read of the WAL index while nothing changed)
# What this code reads; a table that lacks a column (other than one a migration adds) is not ours.
NEED = {"games": {"id", "players", "rules", "lang", "layout", "created", "meta"},
        "entries": {"game_id", "seq", "kind", "data", "created"},
        "frames": {"game_id", "seq", "jpeg", "path", "created"},
        "changes": {"id", "game_id"},
        "racks": {"game_id", "seq", "kind", "data", "created"},
        "rack_frames": {"game_id", "seq", "jpeg", "path", "created"},
        "table_log": {"game_id", "seq", "kind", "data", "created"}}


# The store's errors are the api package's (api/errors.py): NotFound, Conflict, StoreError.


class SqliteStore:
    """One connection behind a lock: writes are serialised anyway, and reads are short.

    The lock is re-entrant so that a writer can read inside its own transaction."""

    def __init__(self, path: str | Path) -> None:
        self.path = str(path)
        self._lock = threading.RLock()
        self._depth = 0  # nesting of `writing` on the thread holding the lock
        self._touched: set[int] = set()  # games the open write transaction changed
        self._version_seen: int | None = None  # PRAGMA data_version when changes() last read the rows
        # Each game's log length as counted at PRAGMA data_version _counted_at: the recorder asks
        # before every snapshot, and only another connection's commit (or our own write) moves it.
        self._counts: dict[int, int] = {}
        self._counted_at: int | None = None
        try:
            self._db = sqlite3.connect(self.path, check_same_thread=False, isolation_level=None,
                                       timeout=BUSY_TIMEOUT_S)
        except sqlite3.Error as exc:
            raise StoreError(f"cannot open {self.path}: {exc}") from None
        try:
            self._db.execute("PRAGMA journal_mode=WAL")
            self._db.execute("PRAGMA synchronous=NORMAL")  # durable at checkpoints; safe against corruption in WAL
            self._db.execute("PRAGMA foreign_keys=ON")
            self._migrate()
        except sqlite3.Error as exc:
            self._db.close()
            raise StoreError(f"{self.path} is not a tilecam database: {exc}") from None
        except StoreError:
            self._db.close()
            raise

    def _version(self) -> int | None:
        if self._db.execute("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'schema_version'"
                            ).fetchone() is None:
            return None
        return self._db.execute("SELECT MAX(version) FROM schema_version").fetchone()[0] or 0

    def _migrate(self) -> None:
        # CREATE TABLE IF NOT EXISTS keeps a foreign table of the same name: check what we read
        # before adding anything to it.
        for table, need in NEED.items():
            have = _columns(self._db, table)
            if have and need - have:
                raise sqlite3.DatabaseError(f"table {table} has no column {', '.join(sorted(need - have))}")
        if pending(self._version(), MIGRATIONS, self.path):  # StoreError when the file is newer than us
            with self.writing():  # BEGIN IMMEDIATE: another process opening the file migrates it first
                upgrade(self._db, self._version(), MIGRATIONS, self.path)

    def close(self) -> None:
        with self._lock:
            self._db.close()

    @contextmanager
    def writing(self):
        """One write transaction (BEGIN IMMEDIATE): SQLite's write lock is held from here to the
        commit, against this process's threads and every other process on the file, so what is
        read inside is what the writes follow. Nested calls join the outer transaction."""
        with self._lock:
            if self._depth:
                self._depth += 1
                try:
                    yield
                finally:
                    self._depth -= 1
                return
            try:
                self._db.execute("BEGIN IMMEDIATE")
            except sqlite3.OperationalError as exc:
                if exc.sqlite_errorcode & 0xFF != sqlite3.SQLITE_BUSY:  # not another writer: the file failed
                    raise StoreError(f"the SQLite store {self.path} failed: {exc}") from None
                raise Conflict(f"the database is busy: another writer held {self.path} for "
                               f"{BUSY_TIMEOUT_S:.0f} s ({exc})") from None
            self._depth = 1
            self._touched.clear()
            try:
                yield
                for game_id in sorted(self._touched):
                    last = self._db.execute("INSERT INTO changes (game_id) VALUES (?)", (game_id,)).lastrowid
                    # An indexed range delete, empty but for one commit in a thousand or so.
                    self._db.execute("DELETE FROM changes WHERE id <= ?", (last - CHANGES_KEPT,))
            except BaseException:
                self._db.execute("ROLLBACK")
                raise
            else:
                self._db.execute("COMMIT")
                for game_id in self._touched:
                    self._counts.pop(game_id, None)
            finally:
                self._depth = 0
                self._touched.clear()

    # ---- games -----------------------------------------------------------------
    def create_game(self, players: list[dict], rules: str, lang: str, layout: str = "standard",
                    meta: dict | None = None) -> GameRow:
        with self.writing():
            cur = self._db.execute(
                "INSERT INTO games (players, rules, lang, layout, created, meta, table_no) "
                "VALUES (?, ?, ?, ?, ?, ?, ?)",
                (json.dumps(players), rules, lang, layout, _now(), json.dumps(meta or {}), table_no(meta or {})))
            game_id = cur.lastrowid
            self._touched.add(game_id)
        return self.game(game_id)

    def game(self, game_id: int) -> GameRow:
        _checked(game_id)
        with self._lock:
            r = self._db.execute("SELECT id, players, rules, lang, layout, created, meta FROM games "
                                 "WHERE id = ?", (game_id,)).fetchone()
        if r is None:
            raise NotFound(f"no game {game_id}")
        return game_row(r)

    def games(self) -> list[GameRow]:
        with self._lock:
            rows = self._db.execute("SELECT id, players, rules, lang, layout, created, meta FROM games "
                                    "ORDER BY id").fetchall()
        return [game_row(r) for r in rows]

    def update_game(self, game_id: int, players: list[dict] | None = None,
                    meta: dict | None = None) -> GameRow:
        """Replace the players and/or merge keys into meta (None values delete a key)."""
        _checked(game_id)
        with self.writing():
            r = self._db.execute("SELECT players, meta FROM games WHERE id = ?", (game_id,)).fetchone()
            if r is None:
                raise NotFound(f"no game {game_id}")
            new_meta = merged_meta(json.loads(r[1]), meta)
            self._db.execute("UPDATE games SET players = ?, meta = ?, table_no = ? WHERE id = ?",
                             (json.dumps(players) if players is not None else r[0],
                              json.dumps(new_meta), table_no(new_meta), game_id))
            self._touched.add(game_id)
        return self.game(game_id)

    def discard_empty_game(self, game_id: int) -> bool:
        """Remove a game nothing was ever written to (a recording that found no board): True
        when removed. A game with a log entry is never removed; the log is the record."""
        _checked(game_id)
        empty = ("NOT EXISTS (SELECT 1 FROM entries WHERE game_id = ?) AND NOT EXISTS "
                 "(SELECT 1 FROM frames WHERE game_id = ?) AND NOT EXISTS (SELECT 1 FROM racks WHERE game_id = ?)")
        with self.writing():
            self._db.execute(f"DELETE FROM table_log WHERE game_id = ? AND {empty}", (game_id,) * 4)
            cur = self._db.execute("DELETE FROM games WHERE id = ? AND NOT EXISTS "
                                   "(SELECT 1 FROM entries WHERE game_id = ?) AND NOT EXISTS "
                                   "(SELECT 1 FROM frames WHERE game_id = ?) AND NOT EXISTS "
                                   "(SELECT 1 FROM racks WHERE game_id = ?)", (game_id,) * 4)
            if cur.rowcount == 1:
                self._touched.add(game_id)
        return cur.rowcount == 1

    def table_games(self, table: int) -> list[int]:
        with self._lock:
            rows = self._db.execute("SELECT id FROM games WHERE table_no = ? ORDER BY id", (table,)).fetchall()
        return [r[0] for r in rows]

    # ---- log entries -------------------------------------------------------------
    def append(self, game_id: int, entry: LogEntry, expect: int | None = None, jpeg: bytes | None = None,
               path: str | None = None, sidecar: dict | None = None) -> int:
        """Append one entry, with its evidence frame (JPEG bytes or a path) and sidecar data, in one
        transaction; returns its seq. `expect`: the seq the caller believes comes next; another
        writer having appended since is a Conflict and nothing is written."""
        data, side = append_values(game_id, entry, jpeg, path, sidecar)
        with self.writing():
            if self._db.execute("SELECT 1 FROM games WHERE id = ?", (game_id,)).fetchone() is None:
                raise NotFound(f"no game {game_id}")
            (seq,) = self._db.execute("SELECT COALESCE(MAX(seq) + 1, 0) FROM entries WHERE game_id = ?",
                                      (game_id,)).fetchone()
            check_expect(game_id, seq, expect)
            now = _now()
            self._db.execute("INSERT INTO entries (game_id, seq, kind, data, created, sidecar) "
                             "VALUES (?, ?, ?, ?, ?, ?)", (game_id, seq, entry.kind, data, now, side))
            if jpeg is not None or path is not None:
                self._db.execute("INSERT OR REPLACE INTO frames (game_id, seq, jpeg, path, created) "
                                 "VALUES (?, ?, ?, ?, ?)", (game_id, seq, jpeg, path, now))
            self._touched.add(game_id)
        return seq

    def entries(self, game_id: int) -> list[EntryRow]:
        _checked(game_id)
        with self._lock:
            rows = self._db.execute("SELECT seq, data, created, sidecar FROM entries WHERE game_id = ? "
                                    "ORDER BY seq", (game_id,)).fetchall()
        return entry_rows(game_id, rows)

    def count(self, game_id: int) -> int:
        """Counted once, then answered from memory until a write moves it: ours (the commit drops
        the games it touched) or another connection's (PRAGMA data_version, one read of the WAL
        index, moves). Inside a write transaction the rows are counted as they stand."""
        _checked(game_id)
        with self._lock:
            if not self._depth:
                (version,) = self._db.execute("PRAGMA data_version").fetchone()
                if version != self._counted_at:
                    self._counts.clear()
                    self._counted_at = version
                if game_id in self._counts:
                    return self._counts[game_id]
            (n,) = self._db.execute("SELECT COUNT(*) FROM entries WHERE game_id = ?", (game_id,)).fetchone()
            if not self._depth:
                self._counts[game_id] = n
        return n

    # ---- evidence frames -----------------------------------------------------------
    def put_frame(self, game_id: int, seq: int, jpeg: bytes | None = None, path: str | None = None) -> None:
        """Keep the evidence frame of entry `seq`: JPEG bytes, or the path of a file the recorder wrote."""
        _checked(game_id)
        if (jpeg is None) == (path is None):
            raise ValueError("give either jpeg bytes or a path")
        with self.writing():
            self._db.execute("INSERT OR REPLACE INTO frames (game_id, seq, jpeg, path, created) "
                             "VALUES (?, ?, ?, ?, ?)", (game_id, seq, jpeg, path, _now()))
            self._touched.add(game_id)

    def frame(self, game_id: int, seq: int) -> FrameRow:
        _checked(game_id)
        if not 0 <= seq < 2**63:
            raise NotFound(f"no evidence frame for entry {seq} of game {game_id}")
        with self._lock:
            r = self._db.execute("SELECT jpeg, path, created FROM frames WHERE game_id = ? AND seq = ?",
                                 (game_id, seq)).fetchone()
        if r is None:
            raise NotFound(f"no evidence frame for entry {seq} of game {game_id}")
        return FrameRow(r[0], r[1], r[2])

    def frame_seqs(self, game_id: int) -> set[int]:
        _checked(game_id)
        with self._lock:
            rows = self._db.execute("SELECT seq FROM frames WHERE game_id = ?", (game_id,)).fetchall()
        return {r[0] for r in rows}

    # ---- the rack log -----------------------------------------------------------------
    def _next_seq(self, log: str, game_id: int, expect: int | None, rows: str) -> int:
        """Inside a write: the next seq of a game's rack log or table log (`log`, the table); NotFound
        for no such game, Conflict when `expect` is not it."""
        if self._db.execute("SELECT 1 FROM games WHERE id = ?", (game_id,)).fetchone() is None:
            raise NotFound(f"no game {game_id}")
        (seq,) = self._db.execute(f"SELECT COALESCE(MAX(seq) + 1, 0) FROM {log} WHERE game_id = ?",
                                  (game_id,)).fetchone()
        if expect is not None and expect != seq:
            raise Conflict(f"game {game_id} has {seq} {rows}, not {expect}: another writer added one")
        return seq

    def append_rack(self, game_id: int, kind: str, data: dict, expect: int | None = None,
                    jpeg: bytes | None = None, path: str | None = None) -> int:
        text = check_rack(game_id, kind, data, jpeg, path)
        with self.writing():
            seq = self._next_seq("racks", game_id, expect, "rack reads")
            now = _now()
            self._db.execute("INSERT INTO racks (game_id, seq, kind, data, created) VALUES (?, ?, ?, ?, ?)",
                             (game_id, seq, kind, text, now))
            if jpeg is not None or path is not None:
                self._db.execute("INSERT INTO rack_frames (game_id, seq, jpeg, path, created) VALUES (?, ?, ?, ?, ?)",
                                 (game_id, seq, jpeg, path, now))
            self._touched.add(game_id)
        return seq

    def racks(self, game_id: int) -> list[RackRow]:
        _checked(game_id)
        with self._lock:
            rows = self._db.execute(
                "SELECT r.seq, r.kind, r.data, r.created, f.seq IS NOT NULL FROM racks r LEFT JOIN rack_frames f "
                "ON f.game_id = r.game_id AND f.seq = r.seq WHERE r.game_id = ? ORDER BY r.seq", (game_id,)).fetchall()
        return rack_rows(game_id, rows)

    def rack_frame(self, game_id: int, seq: int) -> FrameRow:
        _checked(game_id)
        r = None
        if 0 <= seq < 2**63:
            with self._lock:
                r = self._db.execute("SELECT jpeg, path, created FROM rack_frames WHERE game_id = ? AND seq = ?",
                                     (game_id, seq)).fetchone()
        if r is None:
            raise NotFound(f"no evidence frame for rack read {seq} of game {game_id}")
        return FrameRow(r[0], r[1], r[2])

    # ---- the table log -----------------------------------------------------------------
    def append_table(self, game_id: int, kind: str, data: dict, expect: int | None = None) -> int:
        text = check_table(game_id, kind, data)
        with self.writing():
            seq = self._next_seq("table_log", game_id, expect, "table log rows")
            self._db.execute("INSERT INTO table_log (game_id, seq, kind, data, created) VALUES (?, ?, ?, ?, ?)",
                             (game_id, seq, kind, text, _now()))
            self._touched.add(game_id)
        return seq

    def table_log(self, game_id: int) -> list[TableRow]:
        _checked(game_id)
        with self._lock:
            rows = self._db.execute("SELECT seq, kind, data, created FROM table_log WHERE game_id = ? ORDER BY seq",
                                    (game_id,)).fetchall()
        return table_rows(game_id, rows)

    # ---- change notification -------------------------------------------------------
    def changes(self, after: int | None = None) -> Changes:
        with self._lock:
            (version,) = self._db.execute("PRAGMA data_version").fetchone()
            if after is not None and version == self._version_seen:
                return Changes(after, frozenset())  # no other connection committed since the last read
            self._version_seen = version
            (last, first) = self._db.execute("SELECT MAX(id), MIN(id) FROM changes").fetchone()
            return changes_since(after, first, last, lambda mark: [r[0] for r in self._db.execute(
                "SELECT game_id FROM changes WHERE id > ?", (mark,))])

    def wait_changes(self, after: int, timeout_s: float) -> Changes:
        """SQLite cannot wake a waiter: look every POLL_S (one read of the WAL index each while
        nothing changed) until something did or timeout_s passed."""
        deadline = time.monotonic() + timeout_s
        while True:
            found = self.changes(after)
            if found.games != frozenset() or time.monotonic() >= deadline:
                return found
            time.sleep(min(POLL_S, max(0.0, deadline - time.monotonic())))


def _store_errors(method):
    """A call that meets an SQLite error (the disk failed, the file is locked by a foreign writer,
    it was removed) raises the store's StoreError naming the file: the API's 503, not a bug's 500."""
    @functools.wraps(method)
    def call(self, *args, **kwargs):
        try:
            return method(self, *args, **kwargs)
        except sqlite3.Error as exc:
            raise StoreError(f"the SQLite store {self.path} failed: {exc}") from None
    return call


for _name in ("create_game", "game", "games", "update_game", "discard_empty_game", "table_games", "append",
              "entries", "count", "put_frame", "frame", "frame_seqs", "append_rack", "racks", "rack_frame", "append_table", "table_log", "changes",
              "wait_changes"):
    setattr(SqliteStore, _name, _store_errors(getattr(SqliteStore, _name)))
