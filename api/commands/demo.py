"""tilecam demo: no camera needed. Renders a real tournament game (api/demo/vs_josh.gcg) as a
video (cached after the first run), records it live through the real pipeline, and serves the
overlay, the operator console and the API on localhost: a `tilecam run` (api/station/station.py's Station)
on the rendered video, with the demo's operator doing what a camera cannot see (api/demo/operator.py).
The operator token is printed: the demo listens on localhost and the token is for whoever runs it.

The demo plays at table 1, so its overlay URL (/overlay/table/1) stays the same from run to run; it
plays at a pace a person can watch (--pace seconds per turn), the players press the game clock as
they play, and when a game is over the next one starts at the same table, until Ctrl-C."""
from __future__ import annotations

import argparse
import os
import sys
from collections import Counter
from pathlib import Path

from tilecam.vision import DEFAULT_MODEL


DEFAULT_PACE_S = 12.0  # a turn every 12 s: time to look at the board, the score and the clocks
TABLE = 1              # the demo's table: /overlay/table/1 follows each new game


def default_cache() -> Path:
    return Path(os.environ.get("TILECAM_CACHE") or Path.home() / ".cache" / "tilecam")


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--moves", type=int, default=None, metavar="N",
                   help="cut the game to its first N turns (default: all 25, to the rack points at the end)")
    p.add_argument("--pace", type=float, default=DEFAULT_PACE_S, metavar="SECONDS",
                   help=f"seconds per turn when serving (default {DEFAULT_PACE_S:g}: a pace a person can "
                        f"watch; the shortest is the video's own, about 2.3 s); --no-serve goes as fast as it can")
    p.add_argument("--once", action="store_true",
                   help="record the game once and keep serving it (default: when a game is over, the next "
                        "one starts at the same table, until Ctrl-C)")
    p.add_argument("--seed", type=int, default=7, help="which camera (angle, light, board placement)")
    p.add_argument("--fps", type=float, default=8.0, help="frames per second of the video")
    p.add_argument("--cache", default=None, metavar="DIR",
                   help="where the rendered video, the demo's database and its token are kept "
                        "(default: $TILECAM_CACHE, else ~/.cache/tilecam; created when missing)")
    p.add_argument("--host", default="127.0.0.1",
                   help="address to listen on (default 127.0.0.1, this machine only; 0.0.0.0 for the LAN)")
    p.add_argument("--port", type=int, default=8000, help="TCP port (default 8000; make run PORT=N)")
    p.add_argument("--db", default=None, metavar="PATH", help="SQLite file (default: demo.sqlite3 in the cache)")
    p.add_argument("--no-serve", action="store_true", help="record only, as fast as possible, then exit")
    p.add_argument("--render-only", action="store_true",
                   help="render (or find in the cache) the demo video and print its path, nothing else "
                        "(for `tilecam run --source`)")
    p.add_argument("--model", default=str(DEFAULT_MODEL), metavar="ONNX",
                   help="the tile classifier (default: models/tiles.onnx, with its .card.json beside it)")


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
    if not 0 <= args.pace <= 3600:
        return fail(f"--pace must be 0 to 3600 seconds per turn, not {args.pace:g}")
    args.cache = Path(args.cache) if args.cache else default_cache()
    try:  # a fresh machine has no ~/.cache/tilecam: the token, the database and the video go there
        args.cache.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        return fail(f"cannot create the cache folder {args.cache}: {exc.strerror}")
    if not Path(args.model).is_file():
        return fail(f"no tile model at {args.model}")
    if args.render_only:
        _, video = demo_video(args, say=lambda _msg: None)
        print(video)
        return 0
    from tilecam.api.commands.serve import (TokenError, broadcast_line, broadcast_token, operator_tokens,
                                            port_problem, with_tokens)
    from tilecam.api.demo.game import demo_record
    from tilecam.api.demo.operator import DemoOperator
    from tilecam.api.demo.video import Paced, reach_frames, turn_frames
    from tilecam.api.settings import SettingsError, load_settings
    from tilecam.api.station import Hooks, Job, SetupError, Station

    db = Path(args.db) if args.db else Path(args.cache) / "demo.sqlite3"
    try:
        settings = load_settings(server={"host": args.host, "port": args.port}, store={"db_path": str(db)})
    except SettingsError as exc:
        return fail(str(exc))
    if not args.no_serve:
        problem = port_problem(args.host, args.port)
        if problem:  # before the video renders (minutes on a fresh machine) and anything says ready
            return fail(problem)
        try:  # the demo's own tokens (0600 files beside its database), printed: it is the operator's
            tokens, _ = operator_tokens({}, {}, None, str(db))
            broadcast, broadcast_where = broadcast_token(None, {}, str(db), tokens)
        except TokenError as exc:
            return fail(str(exc))
        settings = with_tokens(settings, tokens, broadcast)
    game, video = demo_video(args)
    players = [(p.name, p.nick) for p in demo_record().players]
    serve = not args.no_serve
    # The video holds the board still for HOLD_S after each turn; the pace stretches that pause.
    per_turn = video_turn_s(game, args.fps)
    gap = max(0.0, args.pace - per_turn) if serve else 0.0
    wrap = (lambda source: Paced(source, reach_frames(game, args.fps), gap)) if gap else None
    station = Station(settings, Job(str(video), new_game=True, players=players, pace=serve, model=args.model,
                                    table=TABLE, loop=serve and not args.once, racks={}),  # a rendered board only
                      Hooks(wrap_source=wrap))
    try:
        station.open()
    except SetupError as exc:
        station.close()
        return fail(str(exc))
    operator = DemoOperator(station, game, turn_frames(game, args.fps))
    station.hooks.on_outcome = operator
    print(f"recording into game {station.recording.game_id} of {db} at table {TABLE}")
    if args.no_serve:
        try:
            station.start().wait()
            return _summary(station.service, station.recording.game_id, game, station.recorder, operator)
        finally:
            station.close()

    def game_over(st) -> None:
        _summary(st.service, st.recording.game_id, game, st.recorder, operator)
        if st.job.loop:  # the result stays on the overlay a while before the next game takes the table
            st.stop_event.wait(max(2 * args.pace, 5.0))

    def new_game(st) -> None:
        operator.reset()
        print(f"next game: {st.recording.game_id} at table {TABLE} (the table's URLs stay the same)")
        for name, url in st.game_urls():
            print(f"  {name:<17} {url}")
        sys.stdout.flush()

    station.hooks.on_game_over, station.hooks.on_new_game = game_over, new_game
    for name, url in station.urls():
        print(f"  {name:<17} {url}")
    print(f"  operator token    {settings.auth.tokens['operator']}   (kept in {db}.token)")
    print(broadcast_line(dict(station.urls())["overlay"], broadcast, broadcast_where, True))
    print(f"a turn every {max(args.pace, per_turn):.0f} s, {len(game.events)} turns"
          + ("; then the next game at the same table" if station.job.loop else ""))
    print("Ctrl-C stops.")
    sys.stdout.flush()
    return station.serve()


def video_turn_s(game, fps: float) -> float:
    """Seconds of video per turn (hands over the board, then the board at rest)."""
    from tilecam.api.demo.video import video_plan
    return len(video_plan(game, fps)) / fps / max(1, len(game.events))


def _summary(service, game_id: int, game, recorder, operator=None) -> int:
    from tilecam.api.demo.operator import TURN_KINDS, event_key

    view = service.load(game_id)
    got = [event_key(e) for e in view.events if e.kind in TURN_KINDS]
    want = [event_key(e) for e in game.events]
    right = sum(1 for g, w in zip(got, want) if g == w)
    kinds = Counter(k[0] for k in want)
    hedge = service.summary(view)["turns"]  # no clock press seen: the scores' credit is a guess
    print(f"recorded {len(got)} turns; {right} of {len(want)} exactly as played "
          f"({', '.join(f'{n} {kind}' for kind, n in kinds.items())}); "
          f"scores {view.game_at().state.scores} (true {game.state.scores})" + (f"; {hedge}" if hedge else ""))
    if operator is not None and operator.actions:
        print("the demo's operator: " + "; ".join(operator.actions))
    per = recorder.timings.per_frame() if recorder else {}
    if per:
        print("ms per frame: " + ", ".join(f"{k} {v:.1f}" for k, v in per.items()))
    sys.stdout.flush()
    return 0
