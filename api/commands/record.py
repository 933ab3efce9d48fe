"""tilecam record: record a whole game from a video file, a folder of frames or a camera.

Every committed entry goes to SQLite (WAL) as it happens, with its evidence frame and sidecar
data, and the GCG and JSON sidecar are rewritten from the store after each commit, so a crash
loses nothing committed. `--game ID` resumes a recording: the game's tile set, rules and players
come from the store, and the source may start over from its first frame or from the last photo.
"""
from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path

from tqdm import tqdm


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("source", metavar="SOURCE",
                   help="a video file, a folder of frames (natural order), a camera index or URL, or 'picam'")
    p.add_argument("--lang", help="tile set: en, de, fr, es, pl (default en; a resumed game keeps its own)")
    p.add_argument("--rules", help="rule profile: naspa, naspa-csw, nsa, wespa, box (default naspa; a resumed "
                                   "game keeps its own)")
    p.add_argument("--lexicon", metavar="FILE", help="word list: a soft prior for misreads and blank letters")
    p.add_argument("--tileset", metavar="FILE", help="enrolled tile set (tilecam enroll)")
    p.add_argument("--players", nargs=2, metavar=("FIRST", "SECOND"),
                   help="names, the player who moves first first (default 'Player 1' 'Player 2')")
    p.add_argument("--gcg", metavar="OUT.gcg", required=True, help="where the GCG record goes")
    p.add_argument("--json", metavar="OUT.json", help="sidecar: per move the frame, confidence, evidence, revisions")
    p.add_argument("--db", default="tilecam.sqlite3", help="SQLite file the entries are committed to")
    p.add_argument("--config", metavar="FILE",
                   help="settings file (TOML or JSON); its [capture] section sets the camera mode, "
                        "timeouts and reconnect backoff")
    p.add_argument("--game", type=int, metavar="ID",
                   help="resume this game in --db instead of starting one; run the source again from its "
                        "start or from the last committed photo")
    p.add_argument("--corners", metavar="x1,y1,...,x4,y4", help="grid corners (fixed camera), skips detection")
    p.add_argument("--prewarped", action="store_true",
                   help="frames already show the board from above, edge to edge (ScrabScrap's warps)")
    p.add_argument("--every-frame", action="store_true",
                   help="each frame is a clock press (one photo per move); default for a folder")
    p.add_argument("--model", help="the tile classifier (ONNX; default: the settings' model, else models/tiles.onnx)")
    p.add_argument("--keys", action="store_true",
                   help="clock presses from the keyboard: 1-4 = that player ended the turn, space = whoever is on turn, p = pause")
    p.add_argument("--buttons", action="store_true", help="clock buttons and status LED on the Pi's GPIO pins")


def run(args: argparse.Namespace) -> int:
    from tilecam.api.cli import unwritable
    from tilecam.api.store import Store, StoreError

    def fail(msg: str, code: int = 2) -> int:
        print(f"tilecam record: {msg}", file=sys.stderr)
        return code

    # A whole game recorded and then nowhere to put it is the worst time to find out.
    from tilecam.api.settings import SettingsError, load_settings
    try:
        args.settings = load_settings(args.config)
    except SettingsError as exc:
        return fail(str(exc))
    for flag, path in (("--gcg", args.gcg), ("--json", args.json)):
        problem = path and unwritable(Path(path))
        if problem:
            return fail(f"{flag} {path}: {problem}")
    try:
        store = Store(args.db)
    except StoreError as exc:
        return fail(str(exc))
    try:
        return _record(args, store, fail)
    except StoreError as exc:
        return fail(f"the store failed: {exc}", 1)
    finally:
        store.close()


def _record(args: argparse.Namespace, store, fail) -> int:
    import numpy as np

    from tilecam.api.bus import Bus
    from tilecam.api.service import DAMAGE, GameService
    from tilecam.api.system import SetupError, attach_game, build_reader, build_recorder, recorder_config, run_frames
    from tilecam.capture import CaptureError, open_source
    from tilecam.scoring.lexicon import Lexicon, LexiconError
    from tilecam.scoring.rules import get_profile
    from tilecam.scoring.tiles import DISTRIBUTIONS

    service = GameService(store, Bus())
    row = None
    if args.game is not None:
        try:
            row = store.game(args.game)
        except LookupError as exc:
            return fail(str(exc))
        # The stored game says what it is; a flag that says otherwise is a mistake, not an override.
        given = {"--lang": (args.lang, row.lang), "--rules": (args.rules, row.rules),
                 "--players": (args.players and list(args.players), [p["name"] for p in row.players])}
        for flag, (want, stored) in given.items():
            if want is not None and want != stored:
                shown = " ".join(stored) if isinstance(stored, list) else stored
                return fail(f"game {row.id} is recorded with {flag} {shown}; leave {flag} out to resume it")
        lang, rules = row.lang, row.rules
    else:
        lang, rules = args.lang or "en", args.rules or "naspa"
    if lang not in DISTRIBUTIONS:
        return fail(f"unknown --lang {lang!r}")
    try:
        get_profile(rules)
        lexicon = Lexicon.from_file(args.lexicon) if args.lexicon else None
    except (ValueError, LexiconError) as exc:
        return fail(str(exc))
    try:
        reader = build_reader(args.settings, lang, model=args.model, tileset=args.tileset)
    except SetupError as exc:
        return fail(str(exc))
    corners = None
    if args.corners:
        try:
            corners = np.float32([float(v) for v in args.corners.split(",")]).reshape(4, 2)
        except ValueError:
            return fail("--corners takes 8 numbers: x1,y1,x2,y2,x3,y3,x4,y4")
    if row is not None:
        try:
            view = service.load(row.id)
        except DAMAGE as exc:
            return fail(f"game {row.id} cannot be replayed, so it cannot be resumed: {exc}")

    camera_state = {"state": None}
    try:
        source = open_source(args.source, args.settings.capture,
                             on_status=lambda st: camera_state.update(state=st.state))
    except (CaptureError, OSError, ValueError) as exc:
        return fail(f"cannot open {args.source}: {exc}")
    photos = args.every_frame or Path(args.source).is_dir()
    state = {"recorder": None, "warned": False}

    def write_outputs(_seqs=()) -> None:
        """The GCG and the sidecar from the store, as they stand after each commit."""
        recorder = state["recorder"]
        try:
            write_records(service, game_id, args.gcg, args.json, recorder.timings.per_frame() if recorder else {},
                          lexicon)
        except OSError as exc:
            if not state["warned"]:  # the store still has every entry; say so once, keep recording
                print(f"\ntilecam record: cannot write the outputs ({exc}); entries are kept in {args.db}",
                      file=sys.stderr)
            state["warned"] = True

    players = list(args.players) if args.players else None
    try:
        rec = attach_game(service, args.game, players=players, rules=rules, lang=lang, lexicon=lexicon,
                          decode=args.settings.decode, on_commit=write_outputs,
                          jpeg_quality=recorder_config(args.settings).evidence_jpeg_quality)
    except ValueError as exc:  # players the rules do not allow, two players with one nickname
        source.close()
        return fail(str(exc))
    game_id, keeper, link = rec.game_id, rec.keeper, rec.link
    if rec.resumed:
        last = store.entries(game_id)[-1].sidecar if keeper.entries else None
        seen = f"; last committed frame {last.get('frame') or last.get('frame_index')}" if last else ""
        print(f"resuming game {game_id} after {len(keeper.entries)} entries{seen}")
        st = view.game_at().state
        if st.ended or view.closed:
            source.close()
            # What an uninterrupted run adds at its end (a player out: the rack points), and nothing more.
            added = keeper.finish()
            if added:
                link.commit(added, None, len(keeper.entries) - len(added))
            write_outputs()
            reason = st.end_reason or view.row.meta.get("closed_reason")
            print(f"game {game_id} has ended ({reason}): {len(added)} entries added")
            return _report(service, game_id, args)

    recorder = state["recorder"] = build_recorder(args.settings, keeper, link, reader=reader, photos=photos,
                                                  corners=corners, prewarped=args.prewarped)
    recorder.camera_status = camera_state["state"] or source.status.state
    _attach_triggers(args, recorder)
    total = source.total_frames
    bar = tqdm(total=total or None, desc="recording", unit="frame", file=sys.stderr)
    count = {"frames": 0, "with_board": 0, "history": 0, "caught_up": False}
    committed_before = store.count(game_id)

    def progress(frame, outcome) -> None:
        recorder.camera_status = camera_state["state"] or recorder.camera_status
        count["frames"] += 1
        count["with_board"] += outcome.state != "no_board"
        if outcome.state == "recorded" or (outcome.observation and outcome.observation.status == "behind"):
            count["history"] += 1
        elif count["history"] and not count["caught_up"]:
            count["caught_up"] = True
            bar.write(f"frame {frame.index}: the source is past the record ({count['history']} frames of its "
                      "history skipped)", file=sys.stderr)
        if outcome.observation is not None and outcome.observation.status in ("unclear",):
            bar.write(f"frame {frame.index}: {outcome.observation.detail}", file=sys.stderr)
        bar.set_postfix(entries=len(keeper.entries), refresh=False)
        bar.update()

    try:
        run_frames(source, recorder, progress)
    except CaptureError as exc:
        bar.write(f"capture failed: {exc}", file=sys.stderr)
    except KeyboardInterrupt:
        bar.write("stopped", file=sys.stderr)
    finally:
        bar.close()
    frames = count["frames"]
    if not count["with_board"] and store.count(game_id) == committed_before:
        what = f"no board found in any of the {frames} frame{'s' * (frames != 1)} of" if frames else "no frames in"
        kept = f"game {game_id} is unchanged ({committed_before} entries)" if args.game is not None else \
            "no game kept" if store.discard_empty_game(game_id) else f"game {game_id} holds no entries"
        return fail(f"{what} {args.source}: nothing recorded; {kept}")
    recorder.finish()
    write_outputs()
    if state["warned"]:
        try:
            write_records(service, game_id, args.gcg, args.json, {}, lexicon)
        except OSError as exc:
            return fail(f"cannot write the outputs: {exc}; the game is kept in {args.db} as game {game_id}", 1)
    return _report(service, game_id, args)


def _report(service, game_id: int, args) -> int:
    view = service.load(game_id)
    print(f"GCG written to {args.gcg}")
    if args.json:
        print(f"JSON sidecar written to {args.json}")
    print(f"game {game_id} in {args.db}: {len(view.entries)} entries; final {view.game_at().state.scores}")
    return 0


def write_records(service, game_id: int, gcg: str, sidecar: str | None, timings: dict, lexicon=None) -> None:
    """The GCG and the JSON sidecar (every entry with what the recorder saw), from the store.
    Each file is replaced whole (written beside it, then renamed), so a crash leaves the last one."""
    from tilecam.scoring.events import to_json
    view = service.load(game_id)
    from tilecam.scoring.gcg import write_gcg
    # the word list names a blank the recorder left open where it allows one letter only
    _replace(Path(gcg), write_gcg(view.record(), view.profile, view.dist, view.layout, lexicon))
    if sidecar:
        doc = {"game_id": game_id, "players": list(view.row.players), "rules": view.row.rules,
               "lang": view.row.lang,
               "entries": [{"seq": e.seq, **to_json(e.entry), **(e.sidecar or {})} for e in view.entries],
               "timings_ms_per_frame": timings}
        _replace(Path(sidecar), json.dumps(doc, ensure_ascii=False, indent=1))


def _replace(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)  # api.cli.unwritable allows folders still to make
    tmp = path.with_name(f".{path.name}.tmp")
    tmp.write_text(text, encoding="utf-8")
    os.replace(tmp, path)


def _attach_triggers(args, recorder) -> None:
    """Clock presses reach the recorder through the same on_trigger, whatever reports them."""
    if args.keys:
        from tilecam.hardware.keyboard import HELP, KeyboardTrigger
        KeyboardTrigger(recorder.on_trigger).start()
        print(HELP, file=sys.stderr)
    if args.buttons:
        from tilecam.hardware.buttons import ClockButtons
        ClockButtons(args.settings.buttons.model_copy(update={"enabled": True}), recorder.on_trigger)
