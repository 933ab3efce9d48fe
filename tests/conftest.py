"""Shared fixtures. Real data first: ../shared/data beside the repo (TILECAM_SHARED_DATA overrides).

Missing data fails the test with a clear message; a skipped test cannot fail.
"""
from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]


def shared_data_dir() -> Path:
    env = os.environ.get("TILECAM_SHARED_DATA")
    return Path(env) if env else REPO.parent / "shared" / "data"


@pytest.fixture(scope="session")
def shared_data() -> Path:
    path = shared_data_dir()
    if not path.is_dir():
        pytest.fail(f"shared data not found at {path}: put ../shared/data beside the repo "
                    "or set TILECAM_SHARED_DATA")
    return path


@pytest.fixture(scope="session")
def enable_path(shared_data: Path) -> Path:
    path = shared_data / "lexicon" / "enable.txt"
    if not path.is_file():
        pytest.fail(f"ENABLE word list not found at {path}")
    return path


@pytest.fixture(scope="session")
def pg():
    """A PostgreSQL server of our own for the session (tests/pgserver.py): `pg.password`,
    `pg.new_database()` (a URL without the password), `pg.restart()`, `with pg.down(): ...`.
    A server that cannot start fails the tests that need it."""
    from pgserver import PgError, PgServer

    server = None
    try:
        server = PgServer()
        server.create()
    except (PgError, ImportError, OSError, subprocess.SubprocessError) as exc:
        if server is not None:
            server.destroy()
        pytest.fail(f"cannot start a PostgreSQL server for the tests: {exc}")
    yield server
    server.destroy()


@pytest.fixture
def pg_url(pg) -> str:
    """A fresh database on the session's server, its URL (no password: see pg.password)."""
    if not pg.running:  # a fault test that failed half way left it stopped
        pg.start()
    return pg.new_database()
