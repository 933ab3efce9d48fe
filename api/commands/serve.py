"""tilecam serve: run the broadcast and review service (FastAPI under uvicorn).

Prints the URLs and where the operator token and the broadcast token (read-only: the
broadcaster's overlay sees the racks live with it) are, never the tokens themselves unless
--show-token asks for it: a service's journal keeps whatever it prints. The token comes from the
TILECAM_TOKEN environment variable, a --token-file, or the settings file; with none of them a
token file beside the database (<db>.token, mode 0600; for a PostgreSQL store beside the settings
file, <config>.token) is created once and reused after. Games live in the SQLite file given by
--db, or in the store [store] url names (a tournament's PostgreSQL database). Everything else
comes from the settings file (--config): [server], [store], [auth], [live] and [preview]; --host,
--port and --db override their keys for one run (`tilecam config --show --config FILE` prints
the result).
"""
from __future__ import annotations

import argparse
import os
import errno
import secrets
import socket
import sys
from pathlib import Path

from tilecam.api.errors import ApiError

TOKEN_ENV = "TILECAM_TOKEN"


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--config", metavar="FILE", help="settings file (TOML or JSON)")
    p.add_argument("--host", help="address to listen on (default: server.host in the settings, 127.0.0.1; "
                                  "0.0.0.0 for the LAN)")
    p.add_argument("--port", type=int, help="TCP port (default: server.port in the settings, 8000)")
    p.add_argument("--db", metavar="PATH", help="SQLite file, for this run instead of the settings' store "
                                                "(default: store.url, else store.db_path, tilecam.sqlite3)")
    p.add_argument("--token-file", metavar="FILE",
                   help=f"file holding the operator token, created with a new one (mode 0600) if missing "
                        f"(default: <db>.token when neither ${TOKEN_ENV} nor the settings file gives a token)")
    p.add_argument("--show-token", action="store_true",
                   help="also print the operator token itself (a service's journal would keep it)")
    # Removed: a token on the command line is visible to every user in `ps`. Kept hidden so that
    # old command lines get a message saying what to use instead.
    p.add_argument("--token", help=argparse.SUPPRESS)


class TokenError(ApiError, ValueError):
    """A token source that cannot be used; the message says which and why."""


def token_from_file(path: Path) -> tuple[str, bool]:
    """The token in `path` and whether it was just created there (mode 0600, a new random token)."""
    from tilecam.api.settings import check_token, read_secret

    try:  # a fresh machine has no ~/.cache/tilecam yet: the token is often the first file written there
        path.parent.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise TokenError(f"cannot create the folder of token file {path}: {exc.strerror}") from None
    try:
        # O_EXCL: never write through a file or link that someone else put there first.
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    except FileExistsError:
        pass
    except OSError as exc:
        raise TokenError(f"cannot create token file {path}: {exc.strerror}") from None
    else:
        token = secrets.token_urlsafe(24)
        with os.fdopen(fd, "w", encoding="ascii") as f:
            f.write(token + "\n")
        return token, True
    try:
        raw = read_secret(path, "token file")
        return check_token(raw.decode("ascii").strip(), f"the token in {path}"), False
    except UnicodeDecodeError:
        raise TokenError(f"the token in {path} must be printable ASCII without spaces") from None
    except ValueError as exc:  # a bad token, or read_secret's SettingsError
        raise TokenError(str(exc)) from None


def port_problem(host: str, port: int) -> str | None:
    """Why the server could not listen on host:port, or None. Checked by binding before anything
    is printed as ready: uvicorn would only log its error after the URLs were on screen. Uvicorn
    binds with SO_REUSEADDR, so the probe does too (a port in TIME_WAIT is free to it)."""
    try:
        family, kind, proto, _, addr = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM,
                                                          flags=socket.AI_PASSIVE)[0]
    except (socket.gaierror, UnicodeError) as exc:
        return f"cannot listen on {host}: {getattr(exc, 'strerror', None) or exc}"
    try:
        with socket.socket(family, kind, proto) as sock:
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            sock.bind(addr)
    except OSError as exc:
        if exc.errno == errno.EADDRINUSE:
            return f"port {port} is in use ({exc.strerror}); choose another with --port N (make run PORT=N)"
        return f"cannot listen on {host}:{port} ({exc.strerror})"
    return None


def with_db(settings, db: str | None):
    """The settings with --db (when given) as the store of this run: it wins over [store] url too."""
    if db is None:
        return settings
    return settings.model_copy(update={"store": settings.store.model_copy(update={"db_path": db, "url": None})})


def token_beside(settings, config: str | None) -> str:
    """What the default token file is named after: the SQLite file (<db>.token), or for a server's
    store the settings file that names it (central.toml: central.token; tilecam.token without one)."""
    from tilecam.api.store import store_file

    file = store_file(settings.store)
    if file is not None:
        return str(file)
    return str(Path(config).with_suffix("")) if config else "tilecam"


def operator_tokens(configured: dict[str, str], env: dict[str, str], token_file: str | None,
                    beside: str) -> tuple[dict[str, str], list[str]]:
    """The tokens to serve with, and one line per source saying where they are (never the token).

    TILECAM_TOKEN or --token-file add the token named 'operator' to those of the settings file;
    with no token at all, the default token file <beside>.token is used (token_beside)."""
    from tilecam.api.settings import check_token

    tokens, where = dict(configured), []
    if configured:
        where.append(f"{', '.join(configured)}: from the settings file")
    if TOKEN_ENV in env and token_file:
        raise TokenError(f"give ${TOKEN_ENV} or --token-file, not both")
    if TOKEN_ENV in env:
        try:
            tokens["operator"] = check_token(env[TOKEN_ENV], f"${TOKEN_ENV}")
        except ValueError as exc:
            raise TokenError(str(exc)) from None
        where.append(f"operator: from ${TOKEN_ENV}")
    elif token_file or not configured:
        path = Path(token_file or f"{beside}.token").resolve()
        tokens["operator"], created = token_from_file(path)
        where.append(f"operator: {'new, written to' if created else 'in'} {path}")
    return tokens, where


BROADCAST_ENV = "TILECAM_BROADCAST_TOKEN"


def broadcast_token(configured: str | None, env: dict[str, str], beside: str,
                    operators: dict[str, str]) -> tuple[str, str]:
    """The broadcast token (read-only: the broadcaster's overlay sees the racks live with it) and
    where it is (never the token): the settings' [auth] broadcast_token, else $TILECAM_BROADCAST_TOKEN,
    else the file <beside>.broadcast-token, made once (mode 0600) as the operator's token file is.
    Refused when it is an operator token: the broadcaster's URL must never write."""
    from tilecam.api.settings import check_token

    if configured:
        token, where = configured, "from the settings file"
    elif BROADCAST_ENV in env:
        try:
            token = check_token(env[BROADCAST_ENV], f"${BROADCAST_ENV}")
        except ValueError as exc:
            raise TokenError(str(exc)) from None
        where = f"from ${BROADCAST_ENV}"
    else:
        path = Path(f"{beside}.broadcast-token").resolve()
        token, created = token_from_file(path)
        where = f"{'new, written to' if created else 'in'} {path}"
    if token in operators.values():
        raise TokenError("the broadcast token is an operator token: give the broadcaster a token of its own")
    return token, where


def broadcast_line(overlay: str, token: str, where: str, show: bool) -> str:
    """The console's line for the broadcaster: the overlay that shows the racks live, with the
    broadcast token when asked (--show-token, the demo), else where the token is kept (a service's
    journal keeps what it prints)."""
    url = f"{overlay}?broadcast={token if show else '<broadcast token>'}"
    return (f"  broadcast overlay {url}   (racks live: for the delayed stream only; token {where})")


def with_tokens(settings, tokens: dict[str, str], broadcast: str):
    """The settings with the tokens this run serves with."""
    return settings.model_copy(update={"auth": settings.auth.model_copy(
        update={"tokens": tokens, "broadcast_token": broadcast})})


def run(args: argparse.Namespace) -> int:
    from tilecam.api.settings import SettingsError, load_settings

    if args.token is not None:
        print(f"tilecam serve: --token was removed: a token on the command line is visible to every user "
              f"in ps; set ${TOKEN_ENV} or use --token-file", file=sys.stderr)
        return 2
    try:
        settings = with_db(load_settings(args.config, server={"host": args.host, "port": args.port}), args.db)
        tokens, where = operator_tokens(settings.auth.tokens, dict(os.environ), args.token_file,
                                        token_beside(settings, args.config))
        broadcast, broadcast_where = broadcast_token(settings.auth.broadcast_token, dict(os.environ),
                                                     token_beside(settings, args.config), tokens)
        settings = with_tokens(settings, tokens, broadcast)
    except (SettingsError, TokenError) as exc:
        print(f"tilecam serve: {exc}", file=sys.stderr)
        return 2
    problem = port_problem(settings.server.host, settings.server.port)
    if problem:
        print(f"tilecam serve: {problem}", file=sys.stderr)
        return 2
    from tilecam.api.app import create_app
    from tilecam.api.station.boot import SetupError, app_server, base_url, open_store, serve_until_signal
    from tilecam.api.store import store_name

    try:  # opened here, so that a bad --db is a message and exit 2, not a traceback at start-up
        store = open_store(settings.store)
    except SetupError as exc:
        print(f"tilecam serve: {exc}", file=sys.stderr)
        return 2
    app = create_app(settings, store=store)
    base = base_url(settings.server)
    print(f"tilecam: serving {store_name(settings.store)} on {base}")
    print(f"  tournament        {base}/tournament   (every table, what needs the director)")
    print(f"  table overlay     {base}/overlay/table/<n>   (follows table n's newest game, round after round)")
    print(f"  operator console  {base}/operator")
    print(f"  overlay           {base}/overlay/<game id>   fields: {base}/overlay/<game id>/<field>")
    print(f"  API docs          {base}/docs")
    for line in where:
        print(f"  operator token    {line}")
    print(broadcast_line(f"{base}/overlay/table/<n>", broadcast, broadcast_where, args.show_token))
    if args.show_token:
        for name, token in tokens.items():
            print(f"  operator token    {name} = {token}")
    sys.stdout.flush()
    try:
        serve_until_signal(app_server(app, settings.server))
    finally:
        store.close()
    return 0
