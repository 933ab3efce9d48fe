"""What a station (and `tilecam serve`) starts with: the store opened (the one place a command
opens one), the HTTP server run until a signal, and the address it is reached at.

    open_store(where)            the store [store] names (or a path): its folder made, SetupError if not
    base_url(server)             http://host:port as this machine reaches it (127.0.0.1 for 0.0.0.0)
    own_url(settings)            the station's address as others reach it ([tournament] url, else [server])
    app_server(app, server, on_exit=...)   uvicorn serving `app` until SIGINT/SIGTERM
"""
from __future__ import annotations

from typing import Callable

from tilecam.api.errors import ApiError

__all__ = ["SetupError", "app_server", "base_url", "open_store", "own_url", "serve_until_signal"]


class SetupError(ApiError, ValueError):
    """Something the station cannot start with (a missing model, a source or store that does not
    open); the message names it. The CLI prints it and exits 2."""


def open_store(where):
    """The store ``where`` names (a [store] section, a path or a URL), opened; a SQLite file's
    folder is made first (SQLite creates no folders, and a fresh machine has no ~/.cache/tilecam).
    Raises SetupError naming the store."""
    from tilecam.api.store import StoreError, open_store as open_engine, store_file, store_name

    try:
        if (file := store_file(where)) is not None:
            file.parent.mkdir(parents=True, exist_ok=True)
        return open_engine(where)
    except OSError as exc:
        raise SetupError(f"cannot create the folder of {store_name(where)}: {exc.strerror}") from None
    except StoreError as exc:
        raise SetupError(str(exc)) from None


def base_url(server) -> str:
    """The service's address on this machine ([server] host and port; 127.0.0.1 when it listens on
    every address): what the printed URLs start with."""
    host, port = server.host, server.port
    return f"http://{'127.0.0.1' if host in ('0.0.0.0', '::') else host}:{port}"


def own_url(settings) -> str:
    """This station's address as the director's laptop reaches it: [tournament] url, else from
    [server] (the machine's host name when it listens on every address)."""
    import socket

    if settings.tournament.url:
        return settings.tournament.url.rstrip("/")
    host, port = settings.server.host, settings.server.port
    host = socket.gethostname() if host in ("0.0.0.0", "::") else host
    return f"http://{f'[{host}]' if ':' in host else host}:{port}"


def app_server(app, server, on_exit: Callable[[], None] | None = None):
    """A uvicorn server for `app` on [server] host and port. A signal calls `on_exit` (the station
    stops recording), closes the open SSE and MJPEG streams (they would hold the shutdown up), then
    shuts down gracefully within [server] graceful_shutdown_s. ``serve_until_signal(server)`` runs it."""
    import uvicorn

    from tilecam.api.app import close_streams

    class Server(uvicorn.Server):
        def handle_exit(self, sig, frame) -> None:
            if on_exit is not None:
                on_exit()
            close_streams(app)
            super().handle_exit(sig, frame)

    config = uvicorn.Config(app, host=server.host, port=server.port, log_level="warning",
                            timeout_graceful_shutdown=server.graceful_shutdown_s)
    return Server(config)


def serve_until_signal(server) -> None:
    """Run a server of ``app_server`` until SIGINT/SIGTERM (uvicorn re-raises Ctrl-C after its
    graceful shutdown: not an error here)."""
    try:
        server.run()
    except KeyboardInterrupt:
        pass
