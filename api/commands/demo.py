"""tilecam demo: no camera needed. Renders a short game as a video (cached after the first run),
records it live through the real pipeline, and serves the overlay and API on localhost: a
`tilecam run` (api/system.py's Station) on the rendered video."""
from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

from tilecam.api.system import DEFAULT_MODEL


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--moves", type=int, default=10, help="plays in the demo game")
    p.add_argument("--seed", type=int, default=7, help="which demo game and camera")
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


PLAYERS = [("Ann Demo", "ann"), ("Bob Demo", "bob")]


def demo_video(args: argparse.Namespace, say=print) -> tuple[object, Path]:
    """The demo game and its rendered video, from the cache when it is there."""
    from tilecam.api.demo.game import make_demo_game
    from tilecam.api.demo.video import render_video

    game = make_demo_game(args.moves, args.seed)
    video = Path(args.cache) / f"demo-v2-m{args.moves}-s{args.seed}-f{args.fps:g}.avi"
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

    if args.moves < 1:
        return fail(f"--moves must be at least 1, not {args.moves}")
    if not Path(args.model).is_file():
        return fail(f"no tile model at {args.model}")
    if args.render_only:
        _, video = demo_video(args, say=lambda _msg: None)
        print(video)
        return 0
    from tilecam.api.settings import load_settings
    from tilecam.api.system import SetupError, Station

    game, video = demo_video(args)
    db = Path(args.db) if args.db else Path(args.cache) / "demo.sqlite3"
    settings = load_settings(server={"host": args.host, "port": args.port}, store={"db_path": str(db)})
    station = Station(settings, str(video), new_game=True, players=PLAYERS, pace=not args.no_serve,
                      model=args.model)
    try:
        station.open()
    except SetupError as exc:
        station.close()
        return fail(str(exc))
    print(f"recording into game {station.recording.game_id} of {db}")
    if args.no_serve:
        try:
            station.start().wait()
            return _summary(station.service, station.recording.game_id, game, station.recorder)
        finally:
            station.close()
    for name, url in station.urls():
        print(f"  {name:<17} {url}")
    print("Ctrl-C stops.")
    sys.stdout.flush()
    station.on_outcome = _summary_at_end(station, game)
    return station.serve()


def _summary_at_end(station, game):
    """The demo's summary once the video has played through (the server keeps running)."""
    last = station.source.total_frames

    def on_outcome(frame, _outcome) -> None:
        if last and frame.index == last - 1:
            _summary(station.service, station.recording.game_id, game, station.recorder)
    return on_outcome


def _summary(service, game_id: int, game, recorder) -> int:
    view = service.load(game_id)
    got = [(e.placement, e.engine) for e in view.events if e.kind == "play"]
    want = [(e.placement, e.engine) for e in game.events]
    right = sum(1 for g, w in zip(got, want) if g == w)
    print(f"recorded {len(got)} plays; {right} of {len(want)} exactly as played; "
          f"scores {view.game_at().state.scores} (true {game.state.scores})")
    per = recorder.timings.per_frame() if recorder else {}
    if per:
        print("ms per frame: " + ", ".join(f"{k} {v:.1f}" for k, v in per.items()))
    sys.stdout.flush()
    return 0
