"""tilecam demo: no camera needed. Renders a short game as a video (cached after the first run),
records it live through the real pipeline, and serves the overlay and API on localhost."""
from __future__ import annotations

import argparse
import os
import sys
import threading
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]


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
    p.add_argument("--model", default=str(REPO / "models" / "tiles.onnx"))


def record_video(video: Path, service, game_id: int, model: Path, realtime: bool, fps: float,
                 preview=None, rules: str = "naspa", on_recorder=None):
    """Play the video through the recorder, committing entries to the service."""
    from tilecam.api.recorder import Reader, Recorder, RecorderConfig, TrackedBoard, service_sink
    from tilecam.capture import SourceEnded, open_source
    from tilecam.scoring.game import Game
    from tilecam.scoring.rules import get_profile
    from tilecam.scoring.scorekeeper import Scorekeeper
    from tilecam.scoring.tiles import DISTRIBUTIONS
    from tilecam.vision.classify import TileReader
    from tilecam.vision.locate import LocateConfig
    from tilecam.vision.track import BoardTracker

    keeper = Scorekeeper(Game(get_profile(rules), DISTRIBUTIONS["en"]))
    reader = Reader(TileReader(model, model.with_suffix("").with_suffix(".card.json"), lang="en"))
    cfg = RecorderConfig()
    recorder = Recorder(keeper, TrackedBoard(BoardTracker(LocateConfig()), cfg.square_px), reader,
                        service_sink(service, game_id, cfg.evidence_jpeg_quality), cfg, preview=preview)
    source = open_source(str(video), on_status=lambda st: setattr(recorder, "camera_status", st.state))
    recorder.camera_status = source.status.state
    if on_recorder is not None:
        on_recorder(recorder)
    start = time.monotonic()
    try:
        for frame in source:
            if realtime:
                delay = start + frame.index / fps - time.monotonic()
                if delay > 0:
                    time.sleep(delay)
            recorder.process(frame)
    except SourceEnded:
        pass
    finally:
        source.close()
    recorder.finish()
    return recorder


def run(args: argparse.Namespace) -> int:
    from tilecam.api.bus import Bus, PreviewHub
    from tilecam.api.demo.game import make_demo_game
    from tilecam.api.demo.video import render_video
    from tilecam.api.service import GameService
    from tilecam.api.store import Store

    model = Path(args.model)
    if not model.is_file():
        print(f"tilecam demo: no tile model at {model}", file=sys.stderr)
        return 2
    cache = Path(args.cache)
    game = make_demo_game(args.moves, args.seed)
    video = cache / f"demo-v2-m{args.moves}-s{args.seed}-f{args.fps:g}.avi"
    if video.is_file():
        print(f"demo video (cached): {video}")
    else:
        render_video(game, video, seed=args.seed, fps=args.fps)
        print(f"demo video rendered to {video}")
    db = Path(args.db) if args.db else cache / "demo.sqlite3"
    store = Store(db)
    service = GameService(store, Bus())
    game_id = service.create_game([("Ann Demo", "ann"), ("Bob Demo", "bob")], "naspa", "en").id
    print(f"recording into game {game_id} of {db}")

    if args.no_serve:
        recorder = record_video(video, service, game_id, model, realtime=False, fps=args.fps)
        return _summary(service, game_id, game, recorder)

    import uvicorn

    from tilecam.api.app import close_streams, create_app
    from tilecam.api.settings import load_settings

    settings = load_settings(server={"host": args.host, "port": args.port}, store={"db_path": str(db)})
    preview = PreviewHub(settings.preview.jpeg_quality)
    app = create_app(settings, service=service, preview=preview)
    base = f"http://{args.host}:{args.port}"
    print(f"  overlay           {base}/overlay/{game_id}")
    print(f"  camera preview    {base}/api/preview.mjpg")
    print(f"  moves (JSON)      {base}/api/games/{game_id}/moves")
    print(f"  GCG               {base}/api/games/{game_id}.gcg")
    print(f"  operator console  {base}/operator")
    print(f"  recorder status   {base}/api/status")
    print(f"  API docs          {base}/docs")
    print("Ctrl-C stops.")
    sys.stdout.flush()

    def feed():
        recorder = record_video(video, service, game_id, model, realtime=True, fps=args.fps, preview=preview,
                                on_recorder=lambda r: (setattr(app.state, "status", r.status),
                                                       setattr(app.state, "on_trigger", r.on_trigger)))
        _summary(service, game_id, game, recorder)

    threading.Thread(target=feed, name="demo-recorder", daemon=True).start()

    class Server(uvicorn.Server):
        def handle_exit(self, sig, frame) -> None:
            close_streams(app)
            super().handle_exit(sig, frame)

    try:
        Server(uvicorn.Config(app, host=args.host, port=args.port, log_level="warning")).run()
    except KeyboardInterrupt:
        pass
    return 0


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
    return 0
