"""tilecam run: the station in one process. Opens the camera (or --source), records the game,
serves the API, overlays and the live MJPEG preview, reads the clock buttons and drives the status
LED, all from one settings file. This is what the systemd unit runs (docs/pi.md).

The game: --game ID, else the last game a station was recording that has not ended (so a crash or
a power cut picks it up again, without duplicating a move), else a new one (--new-game forces it).
A video file plays at its own frame rate, as a camera would deliver it (--fast: as fast as it goes).

Rack cameras: the settings' [racks] sources, or `--rack 1=SRC --rack 2=SRC` instead for this run
(docs/racks.md); each runs on a thread of its own, and one that drops or fails is said at once on the
console's notices and here while the board records on.
"""
from __future__ import annotations

import argparse
import os
import sys


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--config", metavar="FILE", help="settings file (TOML or JSON): capture, buttons, server, store ...")
    p.add_argument("--source", metavar="SOURCE",
                   help="a video file, a folder of frames, a camera index or URL, or 'picam' "
                        "(default: the settings' capture source, else picam)")
    p.add_argument("--db", metavar="PATH", help="SQLite file, for this run instead of the settings' store "
                                                "(default: store.url, else store.db_path, tilecam.sqlite3)")
    p.add_argument("--host", help="address to listen on (default: the settings' server, 127.0.0.1)")
    p.add_argument("--port", type=int, help="TCP port (default: the settings' server, 8000)")
    p.add_argument("--game", type=int, metavar="ID", help="record into this game of the store")
    p.add_argument("--new-game", action="store_true", help="start a new game even if one is unfinished")
    p.add_argument("--players", nargs=2, metavar=("FIRST", "SECOND"), help="names for a new game")
    p.add_argument("--rules", default="naspa", help="rule profile of a new game (default naspa)")
    p.add_argument("--lang", default="en", help="tile set of a new game (default en)")
    p.add_argument("--fast", action="store_true", help="play a video file or folder as fast as it goes")
    p.add_argument("--video-frames", action="store_true",
                   help="the --source folder holds a video's frames, [capture] fps apart (default: a folder is "
                        "one photo per move, each a clock press)")
    p.add_argument("--table", type=int, metavar="N",
                   help="the table this game is played at: /overlay/table/N follows it (its newest game)")
    p.add_argument("--token-file", metavar="FILE", help="file holding the operator token (as tilecam serve)")
    from tilecam.api.cli import rack_spec
    p.add_argument("--rack", action="append", type=rack_spec, metavar="PLAYER=SOURCE",
                   help="a player's rack camera for this run instead of the settings' [racks] sources, e.g. "
                        "--rack 1=picam:1 --rack 2=/dev/video4; once per player")
    p.add_argument("--show-token", action="store_true",
                   help="also print the operator token itself (a service's journal would keep it)")


def run(args: argparse.Namespace) -> int:
    from tilecam.api.commands.serve import (TokenError, broadcast_line, broadcast_token, operator_tokens, port_problem,
                                            token_beside, with_db, with_tokens)
    from tilecam.api.settings import SettingsError, load_settings
    from tilecam.api.store import store_name
    from tilecam.api.station import Job, SetupError, Station

    def fail(msg: str, code: int = 2) -> int:
        print(f"tilecam run: {msg}", file=sys.stderr)
        return code

    if args.game is not None and args.new_game:
        return fail("give --game or --new-game, not both")
    if args.table is not None and not 1 <= args.table <= 9999:
        return fail(f"--table {args.table}: tables are numbered 1 to 9999")
    from tilecam.api.cli import rack_sources
    try:
        racks = rack_sources(args.rack)
    except ValueError as exc:
        return fail(str(exc))
    try:
        settings = with_db(load_settings(args.config, server={"host": args.host, "port": args.port}), args.db)
        tokens, where = operator_tokens(settings.auth.tokens, dict(os.environ), args.token_file,
                                        token_beside(settings, args.config))
        broadcast, broadcast_where = broadcast_token(settings.auth.broadcast_token, dict(os.environ),
                                                     token_beside(settings, args.config), tokens)
    except (SettingsError, TokenError) as exc:
        return fail(str(exc))
    settings = with_tokens(settings, tokens, broadcast)
    problem = port_problem(settings.server.host, settings.server.port)
    if problem:  # before the source opens and a game is created: nothing is printed as ready
        return fail(problem)
    source = args.source or settings.capture.source
    from pathlib import Path
    if args.video_frames and not Path(source).is_dir():
        return fail(f"--video-frames: {source} is not a folder (a video file is recorded as a video)")
    station = Station(settings, Job(source, game_id=args.game, new_game=args.new_game, players=args.players,
                                    rules=args.rules, lang=args.lang, pace=not args.fast, table=args.table,
                                    racks=racks, photos=False if args.video_frames else None))
    try:
        station.open()
    except SetupError as exc:
        station.close()
        hint = "" if args.source else " (no camera here? try --source VIDEO|FOLDER)"
        return fail(f"{exc}{hint}")
    rec = station.recording  # with --table, the game names its table: /api/tables/N and its overlay follow it
    print(f"tilecam: {'resuming' if rec.resumed else 'recording'} game {rec.game_id} of {store_name(settings.store)} "
          f"({len(rec.scorekeeper.entries)} entries) from {source}")
    for name, url in station.urls():
        print(f"  {name:<17} {url}")
    for player, src in sorted(station.rack_sources.items()):
        print(f"  rack camera {player}     {src} (on air: {settings.racks.on_air})")
    if station.forwarder is not None:
        t = settings.tournament
        print(f"  forwarding to     {t.server} as station {station.station_name}"
              f"{f', table {station.table}' if station.table is not None else ''} (token from {t.token_file})")
        print(f"  console for /tournament  {station.own_url()}/operator ([tournament] url if the director "
              "reaches this station by another address)")
    for line in where:
        print(f"  operator token    {line}")
    if settings.racks.on_air != "off":
        print(broadcast_line(dict(station.urls())["overlay"], broadcast, broadcast_where, args.show_token))
    if args.show_token:
        for name, token in tokens.items():
            print(f"  operator token    {name} = {token}")
    print("Ctrl-C stops.")
    sys.stdout.flush()
    return station.serve()
