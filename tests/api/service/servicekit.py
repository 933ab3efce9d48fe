"""The game service on a fresh SQLite file, without HTTP, for the tests of api/service's parts.

Test modules import the fixture: ``from servicekit import new_game, service  # noqa: F401``.
"""
from __future__ import annotations

import pytest

from tilecam.api.bus import Bus
from tilecam.api.service import GameService
from tilecam.api.store import open_store


@pytest.fixture
def service(tmp_path):
    """Its wall clock fixed; its steady clock (the game clock's) reads `service.now[0]`, which tests set."""
    svc = GameService(open_store(tmp_path / "games.sqlite3"), Bus(), clock=lambda: 1_700_000_000.0)
    svc.now = [0.0]
    svc.steady = lambda: svc.now[0]
    yield svc
    svc.store.close()


def new_game(service: GameService) -> int:
    return service.create_game([("Ann", None), ("Ben", None)]).id
