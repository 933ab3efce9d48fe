"""tilecam serve: run the broadcast and review service (FastAPI under uvicorn).

Prints the URLs and the operator token (generated for this run unless --token or the
settings file gives one). Games live in the SQLite file given by --db.
"""
from __future__ import annotations

import argparse
import sys


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--config", metavar="FILE", help="settings file (TOML or JSON)")
    p.add_argument("--host", help="address to listen on (default 127.0.0.1; 0.0.0.0 for the LAN)")
    p.add_argument("--port", type=int, help="TCP port (default 8000)")
    p.add_argument("--db", metavar="PATH", help="SQLite file (default tilecam.sqlite3)")
    p.add_argument("--token", help="operator token (default: generated and printed)")


def run(args: argparse.Namespace) -> int:
    import uvicorn

    from api.app import close_streams, create_app
    from api.settings import SettingsError, load_settings

    try:
        settings = load_settings(args.config,
                                 server={"host": args.host, "port": args.port},
                                 store={"db_path": args.db},
                                 auth={"tokens": {"operator": args.token} if args.token else None})
    except SettingsError as exc:
        print(f"tilecam serve: {exc}", file=sys.stderr)
        return 2
    app = create_app(settings)
    host, port = settings.server.host, settings.server.port
    shown = "127.0.0.1" if host in ("0.0.0.0", "::") else host
    base = f"http://{shown}:{port}"
    print(f"tilecam: serving {settings.store.db_path} on {base}")
    print(f"  operator console  {base}/operator")
    print(f"  overlay           {base}/overlay/<game id>   fields: {base}/overlay/<game id>/<field>")
    print(f"  API docs          {base}/docs")
    for name, token in app.state.tokens.items():
        print(f"  operator token    {name}: {token}")
    sys.stdout.flush()

    class Server(uvicorn.Server):
        def handle_exit(self, sig, frame) -> None:
            close_streams(app)  # open SSE/MJPEG clients would otherwise hold the shutdown up
            super().handle_exit(sig, frame)

    config = uvicorn.Config(app, host=host, port=port, log_level="warning",
                            timeout_graceful_shutdown=settings.server.graceful_shutdown_s)
    try:
        Server(config).run()
    except KeyboardInterrupt:  # uvicorn re-raises Ctrl-C after its graceful shutdown
        pass
    return 0
