"""One error root per package, and the app's map from error types to HTTP status codes, over real HTTP."""
from __future__ import annotations

import importlib
import inspect
import pkgutil

import httpx
import pytest

from apiserver import AUTH, api, client, new_game  # noqa: F401  (fixtures)
from tilecam.api.errors import ApiError, Conflict, Damaged, InvalidInput, NotFound, StoreError
from tilecam.capture.source import CaptureError
from tilecam.scoring.errors import RulesError, ScoringError, TileError
from tilecam.scoring.game import GameError, TurnDetailsError
from tilecam.scoring.gcg import GcgError
from tilecam.scoring.lexicon import LexiconError
from tilecam.scoring.placement import PlacementError
from tilecam.vision.errors import VisionError

ROOTS = {"capture": CaptureError, "vision": VisionError, "scoring": ScoringError, "api": ApiError}
# Not failures: a finite source running out is how it ends (as StopIteration ends an iterator).
SIGNALS = {"tilecam.capture.source.SourceEnded"}


def _error_classes():
    for package in ROOTS:
        pkg = importlib.import_module(f"tilecam.{package}")
        for info in pkgutil.walk_packages(pkg.__path__, pkg.__name__ + "."):
            module = importlib.import_module(info.name)
            for obj in vars(module).values():
                if inspect.isclass(obj) and issubclass(obj, BaseException) and obj.__module__ == module.__name__:
                    name = f"{module.__name__}.{obj.__qualname__}"
                    if name not in SIGNALS:
                        yield pytest.param(package, obj, id=name)


ERRORS = list(_error_classes())


def test_every_package_is_walked():
    assert {p.values[0] for p in ERRORS} == set(ROOTS)
    assert len(ERRORS) >= 15


@pytest.mark.parametrize("package, error", ERRORS)
def test_every_error_class_derives_from_its_packages_root(package, error):
    assert issubclass(error, ROOTS[package])


# ---- the app's mapping ---------------------------------------------------------------------

@pytest.mark.parametrize("error, status", [
    (GameError("the game has already ended (out); no more turns"), 409),
    (TurnDetailsError("player 0 made the play; another player challenges it"), 422),
    (PlacementError("tiles are not in one line"), 422),
    (GcgError(3, ">a: QUALM 8Z QUALM +52 52", "coordinate '8Z' is off the 15x15 board"), 422),
    (RulesError("unknown rules 'scrabulous'"), 422),
    (TileError("rack '1': '1' is not a tile of the en set"), 422),
    (LexiconError("cannot read lexicon words.txt: No such file or directory"), 422),
    (NotFound("game 7 has no move 99 (it has 3)"), 404),
    (Conflict("game 7 has 4 log entries, not 3: another writer added to it"), 409),
    (InvalidInput("no player 5; players are 0..1"), 422),
    (Damaged("game 7 log entry 2 cannot be read: bad play event"), 500),
    (StoreError("cannot reach the PostgreSQL store postgresql://tilecam@db/t: connection refused"), 503),
], ids=lambda v: type(v).__name__ if isinstance(v, Exception) else str(v))
def test_a_typed_error_is_its_status_with_the_reason(api, client, monkeypatch, error, status):
    gid = new_game(client)

    def refuse(view):
        raise error

    monkeypatch.setattr(api.service, "summary", refuse)
    r = client.get(f"/api/games/{gid}")
    assert r.status_code == status
    assert r.json() == {"detail": str(error)}


def test_a_bare_value_error_from_inside_the_service_is_a_500_not_a_quiet_422(api, client, monkeypatch):
    gid = new_game(client)

    def bug(view):
        return int("not a number")  # a bug, not the user's input

    monkeypatch.setattr(api.service, "summary", bug)
    # A connection of its own: uvicorn closes the one an unhandled error went through.
    with httpx.Client(base_url=api.url, timeout=10) as own:
        r = own.get(f"/api/games/{gid}")
    assert r.status_code == 500
    assert "not a number" not in r.text  # nothing of the bug's message is passed off as a reason


@pytest.mark.parametrize("method, path, body, status, reason", [
    ("post", "plays", {"position": "8H", "word": "ZAX", "rack": "ZAX1"}, 422, "'1' is not a tile of the"),
    ("post", "plays", {"position": "88", "word": "ZAX"}, 422, "unknown coordinate '88'"),
    ("post", "plays", {"position": "8A", "word": "ZAX"}, 422, "the first play must cover the centre square"),
    ("post", "exchanges", {"count": 8}, 422, "cannot exchange 8 tiles from a rack of 7"),
    ("post", "challenges", {"outcome": "valid", "challenger": 0}, 409, "no play to challenge"),
    ("get", "unseen?rack=[CH", None, 422, "unclosed '['"),
])
def test_bad_input_reaches_a_typed_error(client, method, path, body, status, reason):
    gid = new_game(client)
    kw = {"json": body, "headers": AUTH} if method == "post" else {}
    r = getattr(client, method)(f"/api/games/{gid}/{path}", **kw)
    assert r.status_code == status, r.text
    assert reason in r.json()["detail"]
