"""SQLite event store: one JSON row per log entry with a kind tag, one transaction per entry.

The store knows no rules: it keeps what it is given, in order, and hands it back.
WAL mode lets readers go on while the recorder writes.
"""
from __future__ import annotations

import json
import sqlite3
import threading
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path

from scoring.events import LogEntry, from_json, to_json

SCHEMA = """
CREATE TABLE IF NOT EXISTS games (
    id      INTEGER PRIMARY KEY AUTOINCREMENT,
    players TEXT NOT NULL,              -- JSON [{"nick": .., "name": ..}, ...]
    rules   TEXT NOT NULL,
    lang    TEXT NOT NULL,
    layout  TEXT NOT NULL DEFAULT 'standard',
    created TEXT NOT NULL,
    meta    TEXT NOT NULL DEFAULT '{}'   -- JSON object of strings
);
CREATE TABLE IF NOT EXISTS entries (
    game_id INTEGER NOT NULL REFERENCES games(id),
    seq     INTEGER NOT NULL,           -- position in the game's log, from 0
    kind    TEXT NOT NULL,
    data    TEXT NOT NULL,              -- scoring.events.to_json(entry)
    created TEXT NOT NULL,
    PRIMARY KEY (game_id, seq)
);
-- Evidence: the frame a log entry was read from, as JPEG bytes or a path the recorder wrote.
CREATE TABLE IF NOT EXISTS frames (
    game_id INTEGER NOT NULL REFERENCES games(id),
    seq     INTEGER NOT NULL,
    jpeg    BLOB,
    path    TEXT,
    created TEXT NOT NULL,
    PRIMARY KEY (game_id, seq)
);
"""


class NotFound(LookupError):
    """No such game (or entry, or frame); the message says which."""


def _checked(game_id: int) -> int:
    # SQLite integers are 64-bit; a larger id from a URL can only name a game that does not exist.
    if not 0 < game_id < 2**63:
        raise NotFound(f"no game {game_id}")
    return game_id


def _now() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="milliseconds")


@dataclass(frozen=True, slots=True)
class GameRow:
    id: int
    players: tuple[dict, ...]   # {"nick", "name"}
    rules: str
    lang: str
    layout: str
    created: str
    meta: dict


@dataclass(frozen=True, slots=True)
class EntryRow:
    seq: int
    entry: LogEntry
    created: str


@dataclass(frozen=True, slots=True)
class FrameRow:
    jpeg: bytes | None
    path: str | None
    created: str


class Store:
    """One connection behind a lock: writes are serialised anyway, and reads are short."""

    def __init__(self, path: str | Path) -> None:
        self.path = str(path)
        self._lock = threading.Lock()
        self._db = sqlite3.connect(self.path, check_same_thread=False, isolation_level=None)
        self._db.execute("PRAGMA journal_mode=WAL")
        self._db.execute("PRAGMA synchronous=NORMAL")  # durable at checkpoints; safe against corruption in WAL
        self._db.execute("PRAGMA foreign_keys=ON")
        self._db.executescript(SCHEMA)

    def close(self) -> None:
        with self._lock:
            self._db.close()

    # ---- games -----------------------------------------------------------------
    def create_game(self, players: list[dict], rules: str, lang: str, layout: str = "standard",
                    meta: dict | None = None) -> GameRow:
        with self._lock, self._db:
            cur = self._db.execute(
                "INSERT INTO games (players, rules, lang, layout, created, meta) VALUES (?, ?, ?, ?, ?, ?)",
                (json.dumps(players), rules, lang, layout, _now(), json.dumps(meta or {})))
            game_id = cur.lastrowid
        return self.game(game_id)

    def _row(self, r) -> GameRow:
        return GameRow(r[0], tuple(json.loads(r[1])), r[2], r[3], r[4], r[5], json.loads(r[6]))

    def game(self, game_id: int) -> GameRow:
        _checked(game_id)
        with self._lock:
            r = self._db.execute("SELECT id, players, rules, lang, layout, created, meta FROM games "
                                 "WHERE id = ?", (game_id,)).fetchone()
        if r is None:
            raise NotFound(f"no game {game_id}")
        return self._row(r)

    def games(self) -> list[GameRow]:
        with self._lock:
            rows = self._db.execute("SELECT id, players, rules, lang, layout, created, meta FROM games "
                                    "ORDER BY id").fetchall()
        return [self._row(r) for r in rows]

    def update_game(self, game_id: int, players: list[dict] | None = None,
                    meta: dict | None = None) -> GameRow:
        """Replace the players and/or merge keys into meta (None values delete a key)."""
        _checked(game_id)
        with self._lock, self._db:
            r = self._db.execute("SELECT players, meta FROM games WHERE id = ?", (game_id,)).fetchone()
            if r is None:
                raise NotFound(f"no game {game_id}")
            new_meta = json.loads(r[1])
            for k, v in (meta or {}).items():
                if v is None:
                    new_meta.pop(k, None)
                else:
                    new_meta[k] = v
            self._db.execute("UPDATE games SET players = ?, meta = ? WHERE id = ?",
                             (json.dumps(players) if players is not None else r[0],
                              json.dumps(new_meta), game_id))
        return self.game(game_id)

    # ---- log entries -------------------------------------------------------------
    def append(self, game_id: int, entry: LogEntry) -> int:
        """Append one entry in one transaction; returns its seq."""
        _checked(game_id)
        data = json.dumps(to_json(entry))
        with self._lock, self._db:
            if self._db.execute("SELECT 1 FROM games WHERE id = ?", (game_id,)).fetchone() is None:
                raise NotFound(f"no game {game_id}")
            (seq,) = self._db.execute("SELECT COUNT(*) FROM entries WHERE game_id = ?",
                                      (game_id,)).fetchone()
            self._db.execute("INSERT INTO entries (game_id, seq, kind, data, created) VALUES (?, ?, ?, ?, ?)",
                             (game_id, seq, entry.kind, data, _now()))
        return seq

    def entries(self, game_id: int) -> list[EntryRow]:
        _checked(game_id)
        with self._lock:
            rows = self._db.execute("SELECT seq, data, created FROM entries WHERE game_id = ? ORDER BY seq",
                                    (game_id,)).fetchall()
        return [EntryRow(seq, from_json(json.loads(data)), created) for seq, data, created in rows]

    def count(self, game_id: int) -> int:
        _checked(game_id)
        with self._lock:
            (n,) = self._db.execute("SELECT COUNT(*) FROM entries WHERE game_id = ?", (game_id,)).fetchone()
        return n

    # ---- evidence frames -----------------------------------------------------------
    def put_frame(self, game_id: int, seq: int, jpeg: bytes | None = None, path: str | None = None) -> None:
        """Keep the evidence frame of entry `seq`: JPEG bytes, or the path of a file the recorder wrote."""
        _checked(game_id)
        if (jpeg is None) == (path is None):
            raise ValueError("give either jpeg bytes or a path")
        with self._lock, self._db:
            self._db.execute("INSERT OR REPLACE INTO frames (game_id, seq, jpeg, path, created) "
                             "VALUES (?, ?, ?, ?, ?)", (game_id, seq, jpeg, path, _now()))

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
