"""The api package's one error root, and the errors a request can end in.

Each type has one HTTP status, set in api/app.py (ERROR_STATUS) beside the engine's own
errors. A bare ValueError is none of these: it is a bug, and the app lets it be a 500.
"""
from __future__ import annotations


class ApiError(Exception):
    """Every error the api package raises; the message says why."""


class StoreError(ApiError):
    """The store's errors: the database cannot be opened, read or written (503 with Retry-After),
    or it does not hold what was asked (NotFound), or it changed under the caller (Conflict)."""


class Damaged(StoreError):
    """The store answers, but a row in it cannot be read (written around the store, or by a newer
    tilecam): a 500, since asking again will not help."""


class NotFound(StoreError, LookupError):
    """No such game (or move, entry, frame); the message says which."""


class Conflict(StoreError):
    """Another writer changed the game's log since the caller read it (or held the file too long)."""


class OutOfOrder(Conflict):
    """A forwarded log entry whose predecessor the central service does not hold yet; `next_seq` is
    the seq it expects, so the station resends from there (api/service/ingest.py)."""

    def __init__(self, message: str, next_seq: int) -> None:
        super().__init__(message)
        self.next_seq = next_seq


class InvalidInput(ApiError):
    """A request the service refuses as given: a player the game does not have, a tile set or
    layout that does not exist, a correction that does not fit the move it names."""


__all__ = ["ApiError", "Conflict", "Damaged", "InvalidInput", "NotFound", "OutOfOrder", "StoreError"]
