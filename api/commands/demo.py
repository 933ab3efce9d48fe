"""tilecam demo: no camera needed. Renders a real tournament game (api/demo/vs_josh.gcg) as a
video (cached after the first run), records it live through the real pipeline, and serves the
overlay, the operator console and the API on localhost: a `tilecam run` (api/system.py's Station)
on the rendered video, with the demo's operator doing what a camera cannot see (api/demo/operator.py).
The operator token is printed: the demo listens on localhost and the token is for whoever runs it."""
from __future__ import annotations

import argparse
import os
import sys
import threading
from collections import Counter
from pathlib import Path

from tilecam.api.system import DEFAULT_MODEL


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--moves", type=int, default=None,
                   help="cut the game to its first N turns (default: all 25, to the rack points at the end)")
    p.add_argument("--seed", type=int, default=7, help="which camera (angle, light, board placement)")
    p.add_argument("--fps", type=float, default=8.0, help="frames per second of the video")
    p.add_argument("--cache", default=os.environ.get("TILECAM_CACHE", str(Path.home() / ".cache" / "tilecam")),
                   help="where the rendered video is kept")
    p.add_argument("--host", default="127.0.0.1")
    p.add_argument("--port", type=int, default=8000)
    p.add_argument("--db", default=None, help="SQLite file (default: demo.sqlite3 in the cache)")
    p.add_argument("--no-serve", action="store_true", help="record only, as fast as possible, then exit")
    p.add_argument("--render-only", action="store_true",
                   help="render (or find in the cache) the demo video and print its path, nothing else "
                        "(for `tilecam run --source`)")
    p.add_argument("--model", default=str(DEFAULT_MODEL))


# v3: the real game (api/demo/vs_josh.gcg) with a turn on camera for every event; v2 made up its words.
CACHE_VERSION = "v3"


def demo_video(args: argparse.Namespace, say=print) -> tuple[object, Path]:
    """The demo game and its rendered video, from the cache when it is there."""
    from tilecam.api.demo.game import make_demo_game
    from tilecam.api.demo.video import render_video

    game = make_demo_game(args.moves)
    turns = "all" if args.moves is None else args.moves
    video = Path(args.cache) / f"demo-{CACHE_VERSION}-m{turns}-s{args.seed}-f{args.fps:g}.avi"
    if video.is_file():
        say(f"demo video (cached): {video}")
    else:
        render_video(game, video, seed=args.seed, fps=args.fps)
        say(f"demo video rendered to {video}")
    return game, video


def run(args: argparse.Namespace) -> int:
    def fail(msg: str) -> int:
        print(f"tilecam demo: {msg}", file=sys.stderr)
        return 2

    if args.moves is not None and args.moves < 1:
        return fail(f"--moves must be at least 1, not {args.moves}")
    if not Path(args.model).is_file():
        return fail(f"no tile model at {args.model}")
    if args.render_only:
        _, video = demo_video(args, say=lambda _msg: None)
        print(video)
        return 0
    from tilecam.api.commands.serve import TokenError, operator_tokens, port_problem
    from tilecam.api.demo.game import demo_record
    from tilecam.api.demo.operator import DemoOperator
    from tilecam.api.demo.video import turn_frames
    from tilecam.api.settings import SettingsError, load_settings
    from tilecam.api.system import SetupError, Station

    db = Path(args.db) if args.db else Path(args.cache) / "demo.sqlite3"
    try:
        settings = load_settings(server={"host": args.host, "port": args.port}, store={"db_path": str(db)})
    except SettingsError as exc:
        return fail(str(exc))
    if not args.no_serve:
        problem = port_problem(args.host, args.port)
        if problem:  # before the video renders (minutes on a fresh machine) and anything says ready
            return fail(problem)
        try:  # the demo's own token (a 0600 file beside its database), printed: it is the operator's
            tokens, _ = operator_tokens({}, {}, None, str(db))
        except TokenError as exc:
            return fail(str(exc))
        settings = settings.model_copy(update={"auth": settings.auth.model_copy(update={"tokens": tokens})})
    game, video = demo_video(args)
    players = [(p.name, p.nick) for p in demo_record().players]
    station = Station(settings, str(video), new_game=True, players=players, pace=not args.no_serve,
                      model=args.model)
    try:
        station.open()
    except SetupError as exc:
        station.close()
        return fail(str(exc))
    operator = DemoOperator(station, game, turn_frames(game, args.fps))
    station.on_outcome = operator
    print(f"recording into game {station.recording.game_id} of {db}")
    if args.no_serve:
        try:
            station.start().wait()
            return _summary(station.service, station.recording.game_id, game, station.recorder, operator)
        finally:
            station.close()
    for name, url in station.urls():
        print(f"  {name:<17} {url}")
    print(f"  operator token    {settings.auth.tokens['operator']}   (kept in {db}.token)")
    print("Ctrl-C stops.")
    sys.stdout.flush()
    threading.Thread(target=_summary_at_end, args=(station, game, operator), name="tilecam-demo-summary",
                     daemon=True).start()
    return station.serve()


def _summary_at_end(station, game, operator) -> None:
    """The demo's summary once the video has played through and the recorder has added the rack
    points (the server keeps running)."""
    while station._thread is None:  # serve() starts the recorder's thread
        if station.stop_event.wait(0.2):
            return
    station.wait()
    if station.ended == "ended":
        _summary(station.service, station.recording.game_id, game, station.recorder, operator)


def _summary(service, game_id: int, game, recorder, operator=None) -> int:
    from tilecam.api.demo.operator import TURN_KINDS, event_key

    view = service.load(game_id)
    got = [event_key(e) for e in view.events if e.kind in TURN_KINDS]
    want = [event_key(e) for e in game.events]
    right = sum(1 for g, w in zip(got, want) if g == w)
    kinds = Counter(k[0] for k in want)
    print(f"recorded {len(got)} turns; {right} of {len(want)} exactly as played "
          f"({', '.join(f'{n} {kind}' for kind, n in kinds.items())}); "
          f"scores {view.game_at().state.scores} (true {game.state.scores})")
    if operator is not None and operator.actions:
        print("the demo's operator: " + "; ".join(operator.actions))
    per = recorder.timings.per_frame() if recorder else {}
    if per:
        print("ms per frame: " + ", ".join(f"{k} {v:.1f}" for k, v in per.items()))
    sys.stdout.flush()
    return 0
