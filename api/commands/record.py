"""tilecam record: record a whole game from a video file, a folder of frames or a camera.

Every committed entry goes to SQLite (WAL) as it happens, so a crash loses nothing;
`--game ID` resumes a recording. At the end the GCG and the JSON sidecar are written.
"""
from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
DEFAULT_MODEL = REPO / "models" / "tiles.onnx"


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("source", metavar="SOURCE",
                   help="a video file, a folder of frames (natural order), a camera index or URL, or 'picam'")
    p.add_argument("--lang", default="en", help="tile set: en, de, fr, es, pl")
    p.add_argument("--rules", default="naspa", help="rule profile: naspa, naspa-csw, nsa, wespa, box")
    p.add_argument("--lexicon", metavar="FILE", help="word list: a soft prior for misreads and blank letters")
    p.add_argument("--tileset", metavar="FILE", help="enrolled tile set (tilecam enroll)")
    p.add_argument("--players", nargs=2, metavar=("FIRST", "SECOND"), default=["Player 1", "Player 2"],
                   help="names, the player who moves first first")
    p.add_argument("--gcg", metavar="OUT.gcg", required=True, help="where the GCG record goes")
    p.add_argument("--json", metavar="OUT.json", help="sidecar: per move the frame, confidence, evidence, revisions")
    p.add_argument("--db", default="tilecam.sqlite3", help="SQLite file the entries are committed to")
    p.add_argument("--game", type=int, metavar="ID", help="resume this game in --db instead of starting one")
    p.add_argument("--corners", metavar="x1,y1,...,x4,y4", help="grid corners (fixed camera), skips detection")
    p.add_argument("--prewarped", action="store_true",
                   help="frames already show the board from above, edge to edge (ScrabScrap's warps)")
    p.add_argument("--every-frame", action="store_true",
                   help="each frame is a clock press (one photo per move); default for a folder")
    p.add_argument("--model", default=str(DEFAULT_MODEL), help="the tile classifier (ONNX)")
    p.add_argument("--keys", action="store_true",
                   help="clock presses from the keyboard: 1/2 = that player ended the turn, space = whoever is on turn")
    p.add_argument("--buttons", action="store_true", help="clock buttons and status LED on the Pi's GPIO pins")


def run(args: argparse.Namespace) -> int:
    import numpy as np

    from api.bus import Bus
    from api.recorder import FixedBoard, Reader, Recorder, RecorderConfig, TrackedBoard, service_sink
    from api.service import GameService
    from api.store import Store
    from capture import CaptureError, SourceEnded, open_source
    from scoring.decode import DecodeConfig
    from scoring.game import Game
    from scoring.lexicon import Lexicon, LexiconError
    from scoring.rules import get_profile
    from scoring.scorekeeper import Scorekeeper
    from scoring.tiles import DISTRIBUTIONS
    from vision.classify import TileReader, prewarped_corners
    from vision.locate import LocateConfig
    from vision.track import BoardTracker, TrackConfig

    def fail(msg: str, code: int = 2) -> int:
        print(f"tilecam record: {msg}", file=sys.stderr)
        return code

    if args.lang not in DISTRIBUTIONS:
        return fail(f"unknown --lang {args.lang!r}")
    try:
        profile = get_profile(args.rules)
        lexicon = Lexicon.from_file(args.lexicon) if args.lexicon else None
    except (ValueError, LexiconError) as exc:
        return fail(str(exc))
    dist = DISTRIBUTIONS[args.lang]
    model = Path(args.model)
    if not model.is_file():
        return fail(f"no tile model at {model}")
    tileset = None
    if args.tileset:
        from vision.enroll import load_tileset
        try:
            tileset = load_tileset(args.tileset)
        except (OSError, ValueError) as exc:
            return fail(f"cannot read tileset {args.tileset}: {exc}")
    reader = TileReader(model, model.with_suffix("").with_suffix(".card.json"), tileset=tileset, lang=args.lang)

    source_path = Path(args.source)
    camera_state = {"state": None}
    try:
        source = open_source(args.source, on_status=lambda st: camera_state.update(state=st.state))
    except (CaptureError, OSError, ValueError) as exc:
        return fail(f"cannot open {args.source}: {exc}")
    cfg = RecorderConfig(every_frame_is_a_press=args.every_frame or source_path.is_dir())

    store = Store(args.db)
    service = GameService(store, Bus())
    game = Game(profile, dist)
    keeper = Scorekeeper(game, lexicon, DecodeConfig())
    if args.game is not None:
        try:
            row = store.game(args.game)
        except LookupError as exc:
            return fail(str(exc))
        keeper.sync([e.entry for e in store.entries(row.id)])
        game_id = row.id
        print(f"resuming game {game_id} after {len(keeper.entries)} entries")
    else:
        game_id = service.create_game([(name, None) for name in args.players], args.rules, args.lang).id

    locator = None
    if args.corners:
        try:
            pts = np.float32([float(v) for v in args.corners.split(",")]).reshape(4, 2)
        except ValueError:
            return fail("--corners takes 8 numbers: x1,y1,x2,y2,x3,y3,x4,y4")
        locator = FixedBoard(pts, cfg.square_px)
    tracker_cfg = LocateConfig()
    sidecar: dict[int, dict] = {}

    commit = service_sink(service, game_id, cfg.evidence_jpeg_quality)

    def sink(entry, frame):
        seq = commit(entry, frame)
        if frame is not None:
            snap = keeper.evidence.posterior() if keeper.evidence is not None else None
            sidecar[seq] = {"frame_index": frame.index, "t": round(frame.t, 3),
                            "frame": getattr(frame, "path", None) and str(frame.path),
                            "evidence": snap.board() if snap is not None else None,
                            "confidence": np.round(snap.confidence(), 3).tolist() if snap is not None else None}
        return seq

    total = source.total_frames
    started = time.perf_counter()
    frames = 0
    recorder = None
    try:
        for frame in source:
            if recorder is None:
                if locator is None:
                    if args.prewarped:
                        locator = FixedBoard(prewarped_corners(frame.image), cfg.square_px)
                    else:
                        # Photos (one per move) are each a new scene: re-detect at once; video waits
                        # for an arm over the board to come to rest.
                        track = TrackConfig(wait_until_still=not cfg.every_frame_is_a_press)
                        locator = TrackedBoard(BoardTracker(tracker_cfg, track), cfg.square_px)
                recorder = Recorder(keeper, locator, Reader(reader), sink, cfg)
                recorder.camera_status = camera_state["state"] or source.status.state
                _attach_triggers(args, recorder)
            recorder.camera_status = camera_state["state"] or recorder.camera_status
            outcome = recorder.process(frame)
            frames += 1
            if outcome.observation is not None and outcome.observation.status in ("unclear",):
                print(f"\nframe {frame.index}: {outcome.observation.detail}", file=sys.stderr)
            if sys.stderr.isatty() or frames % 25 == 0 or (total and frames == total):
                fps = frames / max(time.perf_counter() - started, 1e-9)
                of = f"/{total}" if total else ""
                print(f"\rframe {frames}{of}  {fps:5.1f} fps  entries {len(keeper.entries)}", end="",
                      file=sys.stderr, flush=True)
    except SourceEnded:
        pass
    except CaptureError as exc:
        print(f"\ncapture failed: {exc}", file=sys.stderr)
    except KeyboardInterrupt:
        print("\nstopped", file=sys.stderr)
    finally:
        source.close()
    print(file=sys.stderr)
    if recorder is not None:
        recorder.finish()

    view = service.load(game_id)
    Path(args.gcg).write_text(service.gcg(view), encoding="utf-8")
    print(f"GCG written to {args.gcg}")
    if args.json:
        from scoring.events import to_json
        doc = {"game_id": game_id, "players": list(view.row.players), "rules": args.rules, "lang": args.lang,
               "entries": [{"seq": e.seq, **to_json(e.entry), **sidecar.get(e.seq, {})} for e in view.entries],
               "timings_ms_per_frame": recorder.timings.per_frame() if recorder else {}}
        Path(args.json).write_text(json.dumps(doc, ensure_ascii=False, indent=1), encoding="utf-8")
        print(f"JSON sidecar written to {args.json}")
    print(f"game {game_id} in {args.db}: {len(view.entries)} entries; final {view.game_at().state.scores}")
    store.close()
    return 0


def _attach_triggers(args, recorder) -> None:
    """Clock presses reach the recorder through the same on_trigger, whatever reports them."""
    if args.keys:
        from hardware.keyboard import KeyboardTrigger
        KeyboardTrigger(recorder.on_trigger).start()
        print("keys: 1/2 = that player ended the turn, space = the player on turn", file=sys.stderr)
    if args.buttons:
        from hardware.buttons import ButtonConfig, ClockButtons
        ClockButtons(ButtonConfig(enabled=True), recorder.on_trigger)
