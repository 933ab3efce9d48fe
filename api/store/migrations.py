"""Numbered schema migrations, one ordered list per engine (api/store/sqlite.py, postgres.py).

A store's database holds its schema version in ``schema_version`` (one row). Opening a store
applies the migrations after that version, in order, inside one write transaction of the engine
(so two processes opening the same database migrate it once), and records each version as it
lands. A database with no version table was made before versions were kept (version 0): its
engine's first migrations check what is already there. A database newer than this code is
refused, untouched: an older tilecam cannot know what the newer one's rows mean.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable

from ..errors import StoreError

__all__ = ["TABLE_LOG", "VERSION_TABLE", "Migration", "ordered", "pending", "upgrade"]

VERSION_TABLE = "CREATE TABLE IF NOT EXISTS schema_version (version INTEGER NOT NULL)"
# The table log (issue 46): a game's clock, players' names and tiles learned, append-only and numbered
# per game apart from the entries and the rack log; `{int}` the engine's integer (INTEGER, BIGINT).
TABLE_LOG = ("CREATE TABLE table_log (game_id {int} NOT NULL REFERENCES games(id), seq {int} NOT NULL, "
             "kind TEXT NOT NULL, data TEXT NOT NULL, created TEXT NOT NULL, PRIMARY KEY (game_id, seq))")


@dataclass(frozen=True, slots=True)
class Migration:
    version: int
    what: str                      # one line: what this version adds
    apply: Callable[[Any], None]   # given the engine's connection, inside its write transaction


def ordered(*migrations: Migration) -> tuple[Migration, ...]:
    """An engine's migrations, checked to be numbered 1, 2, 3 ... (a gap or a repeat fails at import)."""
    found = [m.version for m in migrations]
    if found != list(range(1, len(migrations) + 1)):
        raise ValueError(f"migrations must be numbered 1..{len(migrations)} in order, not {found}")
    return migrations


def pending(current: int | None, migrations: tuple[Migration, ...], where: str) -> tuple[Migration, ...]:
    """The migrations a database at version `current` (None: no version table yet) still needs;
    StoreError when it is newer than these migrations."""
    latest = migrations[-1].version
    if current is not None and current > latest:
        raise StoreError(f"{where} has schema version {current}, newer than this tilecam's {latest}: it was "
                         "written by a newer tilecam; upgrade tilecam to open it (nothing was changed)")
    return tuple(m for m in migrations if m.version > (current or 0))


def upgrade(db: Any, current: int | None, migrations: tuple[Migration, ...], where: str) -> None:
    """Bring a database at version `current` up to date, inside the caller's write transaction
    (`db`: the engine's connection, read again under that transaction's lock)."""
    todo = pending(current, migrations, where)
    if current is None:
        db.execute(VERSION_TABLE)
        db.execute("INSERT INTO schema_version (version) VALUES (0)")
    for m in todo:
        m.apply(db)
        db.execute(f"UPDATE schema_version SET version = {int(m.version)}")
