"""The FastAPI application factory. Nothing is built at import: `create_app(settings, ...)`
wires the collaborators it is given (or opens its own store in the lifespan)."""
from __future__ import annotations

import asyncio
import logging
import secrets
from concurrent.futures import ThreadPoolExecutor
from contextlib import asynccontextmanager
from pathlib import Path

from fastapi import FastAPI, Request
from fastapi.exception_handlers import http_exception_handler
from fastapi.responses import JSONResponse
from fastapi.staticfiles import StaticFiles
from starlette.exceptions import HTTPException as StarletteHTTPException

from tilecam.scoring import GameError, ScoringError

from .bus import Bus, PreviewHub
from .limits import install_limits
from .security import install_security
from .service import GameService, RacksOnAir
from .settings import Settings, get_settings
from .errors import ApiError, Conflict, Damaged, InvalidInput, NotFound, StoreError
from .store import Store, open_store

STATIC = Path(__file__).with_name("static")

DESCRIPTION = """The record of a tournament Scrabble game, live and after the fact.

* **games**: list, detail, board at any turn, moves with running totals, unseen tiles, GCG and JSON exports, recount.
* **live**: Server-Sent Events, and the OBS text fields broadcasters use.
* **operator**: writes; each needs `Authorization: Bearer <token>`.
* **media**: evidence frames per move and the MJPEG camera preview.
* **stations**: a tournament's stations forward their games to the central service (station tokens).
"""


# Error types and their status; the most specific type of an error wins (Starlette walks its MRO).
# A ValueError that is none of these is a bug and a 500, never a quiet 422.
ERROR_STATUS: dict[type[Exception], int] = {
    ScoringError: 422,   # the engine refuses what was given: a play, a rack, GCG text, rules
    GameError: 409,      # ... or the record as it stands refuses it: a turn that cannot follow
    InvalidInput: 422,   # the service refuses the request as given
    NotFound: 404,
    Conflict: 409,       # another writer won the race, or held the lock
    Damaged: 500,        # a stored row cannot be read: asking again will not help
    StoreError: 503,     # the database cannot answer now (down, restarting): the reason, and Retry-After
    ApiError: 500,
}
RETRY_AFTER_S = 5  # a 503's Retry-After: a PostgreSQL restart is back within seconds, and the next call reconnects
log = logging.getLogger(__name__)


def _error(status: int):
    # A 503 says when to ask again, as a load balancer and an HTTP client expect (RFC 9110, 10.2.3).
    headers = {"Retry-After": str(RETRY_AFTER_S)} if status == 503 else None

    async def handler(request: Request, exc: Exception) -> JSONResponse:
        if status == 503:  # the store's outage, not a bug: one line, no traceback
            log.warning("%s %s: %s", request.method, request.url.path, exc)
        elif status >= 500:
            log.error("%s %s: %s", request.method, request.url.path, exc, exc_info=exc)
        return JSONResponse({"detail": str(exc)}, status_code=status, headers=headers)
    return handler


async def _http_error(request: Request, exc: StarletteHTTPException):
    """FastAPI's answer, but a 405's Allow lists every method the path takes: Starlette names only
    the first route whose path matched (DELETE /api/games named GET, not POST)."""
    if exc.status_code != 405:
        return await http_exception_handler(request, exc)
    path = request.url.path
    allowed = sorted({method for route in request.app.state.http_routes if route.path_regex.fullmatch(path)
                      for method in route.methods})
    return JSONResponse({"detail": f"{request.method} is not allowed on {path}; it takes "
                                   f"{', '.join(allowed)}"}, status_code=405, headers={"Allow": ", ".join(allowed)})


def close_streams(app: FastAPI) -> None:
    """End every SSE and MJPEG stream, so that a shutdown need not wait for open clients."""
    app.state.bus.close()
    app.state.preview.close()


def create_app(settings: Settings | None = None, store: Store | None = None, bus: Bus | None = None,
               preview: PreviewHub | None = None, service: GameService | None = None,
               racks_on_air: RacksOnAir | None = None) -> FastAPI:
    """Build the app. Pass `service` (or `store`/`bus`) to share them with a recorder in the
    same process; otherwise the lifespan opens the store named in settings and closes it.
    `racks_on_air`: the station's rack-on-air rule (built once from the same settings); else the
    app builds it from `settings`."""
    from .routes import games, live, media, operator, overlay, pages, recorder, stations, tables, token

    settings = settings or get_settings()
    bus = service.bus if service else (bus or Bus(settings.live.queue_size))
    preview = preview or PreviewHub(settings.preview.jpeg_quality)

    @asynccontextmanager
    async def lifespan(app: FastAPI):
        owned = None
        if app.state.service is None:
            owned = store or open_store(settings.store)
            app.state.service = GameService(owned, bus)

        async def watch() -> None:
            # A recorder beside the server (or another server) writes the same database: the
            # store says which games changed since the last look, and only those are read again.
            # The look waits for the next change (a PostgreSQL commit wakes it) on a thread of its
            # own, which a shutdown does not wait for; a store that cannot be reached is logged
            # once and tried again, so the server follows it when it is back.
            service, loop, failing = app.state.service, asyncio.get_running_loop(), False
            while True:
                try:
                    await loop.run_in_executor(waiter, service.announce_external, settings.live.watch_s)
                    failing = False
                except StoreError as exc:
                    if not failing:
                        log.warning("cannot follow the store's changes: %s", exc)
                    failing = True
                    await asyncio.sleep(settings.live.watch_s)

        waiter = ThreadPoolExecutor(1, thread_name_prefix="tilecam-watch")
        watcher = asyncio.create_task(watch())
        try:
            yield
        finally:
            watcher.cancel()
            waiter.shutdown(wait=False)
            close_streams(app)
            if owned is not None and store is None:
                owned.close()

    app = FastAPI(title="tilecam", version="0.1.0", description=DESCRIPTION, lifespan=lifespan)
    app.state.settings = settings
    # No configured token: generate one for this run; `tilecam serve` prints it.
    app.state.tokens = dict(settings.auth.tokens) or {"operator": secrets.token_urlsafe(18)}
    # The broadcast token: read-only, the racks live (deps.broadcast_viewer); never an operator's.
    app.state.broadcast_token = settings.auth.broadcast_token or secrets.token_urlsafe(18)
    if app.state.broadcast_token in app.state.tokens.values():
        raise ValueError("the broadcast token is an operator token: it must be a token of its own")
    app.state.bus = bus
    app.state.preview = preview
    app.state.service = service
    # who sees which rack, and when a tile counts: built once, asked by the routes (deps.OnAirDep)
    app.state.racks_on_air = racks_on_air or RacksOnAir.from_settings(settings)
    app.state.status = None      # a recorder in this process sets a callable returning its status
    app.state.on_trigger = None  # ... and where HTTP presses go, as JSON (api/station/triggers.py:from_http)
    app.dependency_overrides[get_settings] = lambda: settings

    # User input the engine or the service refuses is a 4xx with its reason, never a 500.
    for error, status in ERROR_STATUS.items():
        app.add_exception_handler(error, _error(status))
    install_limits(app)  # body sizes per route; 422s as {"detail": str}
    app.add_exception_handler(StarletteHTTPException, _http_error)

    routers = [app.router]
    for module in (games, live, operator, media, recorder, stations, tables, token, overlay, pages):
        app.include_router(module.router)
        routers.append(module.router)
    # Every route with its methods, for a 405's Allow (the app's own list nests the routers).
    app.state.http_routes = [route for router in routers for route in router.routes
                             if getattr(route, "methods", None) and hasattr(route, "path_regex")]
    app.mount("/static", StaticFiles(directory=STATIC), name="static")
    install_security(app, settings)
    return app
