"""tilecam record: record a whole game from a video file, a folder of frames or a camera.

Every committed entry goes to SQLite (WAL) as it happens, with its evidence frame and sidecar
data, and the GCG and JSON sidecar are rewritten from the store after each commit, so a crash
loses nothing committed. `--game ID` resumes a recording: the game's tile set, rules and players
come from the store, and the source may start over from its first frame or from the last photo.

Without --lang, the tile set is decided from frames over the whole game (vision.language): German
when Ä, Ö or Ü are read on the same square on several frames and the board's letter counts fit the
German set better than the English, else English (the model knows no other language's own letters,
so French, Spanish and Polish need --lang); evidence against the choice is flagged (needs review,
exit status 4), never followed silently. At the end it says where everything went (the store and the game id, the GCG, the
JSON), which blanks' letters were guessed and which plays need a look, the link that opens the game's
GCG (the server's export) in Woogles' editor and, when Woogles will not mark it complete, why; when the camera lost the
game (tiles on the board that no recorded play explains, no snapshot while hands came and went) the
last line says what it sees and the exit status is 3 (EXIT_LOST), the moment it happens a LOST line
goes to stderr, and "nothing to review" is said only when it is true.

Rack cameras (docs/racks.md): `--rack 1=SRC --rack 2=SRC` reads each player's rack from a source of
its own (the settings' [racks] sources are a station's cameras, and `record` does not open them);
a rack source that fails or ends is said at once, the board records on, and the last lines say
what each rack source read and where its racks went.
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
    from tilecam.scoring import DISTRIBUTIONS

    p.add_argument("--lang", help=f"tile set: {', '.join(DISTRIBUTIONS)} (default: de when frames over the whole game "
                                  "show Ä, Ö or Ü on the same square and the board's letter counts fit the "
                                  "German set, else en; a resumed game keeps its own)")
    p.add_argument("--rules", help="rule profile: naspa, naspa-csw, nsa, wespa, box (default naspa; a resumed "
                                   "game keeps its own)")
    p.add_argument("--lexicon", metavar="FILE", help="word list: a soft prior for misreads and blank letters")
    p.add_argument("--tileset", metavar="FILE", help="enrolled tile set (tilecam enroll)")
    p.add_argument("--players", nargs=2, metavar=("FIRST", "SECOND"),
                   help="names, the player who moves first first (default 'Player 1' 'Player 2')")
    p.add_argument("--gcg", metavar="OUT.gcg",
                   help="where the GCG record goes (default: none; the game is in --db either way, and "
                        "GET /api/games/{id}.gcg of tilecam serve gives it later)")
    p.add_argument("--json", metavar="OUT.json", help="sidecar: per move the frame, confidence, evidence, revisions")
    p.add_argument("--db", help="SQLite file the entries are committed to (default: the settings' store: "
                                "store.url, else store.db_path, tilecam.sqlite3)")
    p.add_argument("--config", metavar="FILE",
                   help="settings file (TOML or JSON); its [capture] section sets the camera mode, "
                        "timeouts and reconnect backoff")
    p.add_argument("--game", type=int, metavar="ID",
                   help="resume this game in --db instead of starting one; run the source again from its "
                        "start or from the last committed photo")
    p.add_argument("--corners", metavar="x1,y1,...,x4,y4", help="grid corners (fixed camera), skips detection")
    p.add_argument("--prewarped", action="store_true",
                   help="frames already show the board from above, edge to edge (ScrabScrap's warps)")
    what = p.add_mutually_exclusive_group()
    what.add_argument("--every-frame", action="store_true",
                      help="each frame is a clock press (one photo per move); default for a folder")
    what.add_argument("--video-frames", action="store_true",
                      help="the folder holds a video's frames, [capture] fps apart (--fps): recorded as a "
                           "video, each move taken when the board stands still")
    p.add_argument("--fps", type=float, metavar="N",
                   help="frames per second of a folder of video frames (default: the settings' [capture] fps, 10)")
    p.add_argument("--model", help="the tile classifier (ONNX; default: the settings' model, else models/tiles.onnx)")
    p.add_argument("--keys", action="store_true",
                   help="clock presses from the keyboard: 1-4 = that player ended the turn, space = whoever is on turn, p = pause")
    p.add_argument("--buttons", action="store_true", help="clock buttons and status LED on the Pi's GPIO pins")
    from tilecam.api.cli import rack_spec
    p.add_argument("--rack", action="append", type=rack_spec, metavar="PLAYER=SOURCE",
                   help="a player's rack camera, e.g. --rack 1=racks1.mp4 --rack 2=/dev/video4 (player from 1; "
                        "a source as SOURCE is named); once per player")


def run(args: argparse.Namespace) -> int:
    from tilecam.api.cli import unwritable
    from tilecam.api.station.boot import SetupError, open_store
    from tilecam.api.store import StoreError, store_file, store_name

    def fail(msg: str, code: int = 2) -> int:
        print(f"tilecam record: {msg}", file=sys.stderr)
        return code

    from tilecam.api.cli import rack_sources
    try:
        args.racks = rack_sources(args.rack)
    except ValueError as exc:
        return fail(str(exc))
    # A whole game recorded and then nowhere to put it is the worst time to find out.
    from tilecam.api.settings import SettingsError, load_settings
    try:
        args.settings = load_settings(args.config)
    except SettingsError as exc:
        return fail(str(exc))
    if args.video_frames and not Path(args.source).is_dir():
        return fail(f"--video-frames: {args.source} is not a folder (a video file is recorded as a video)")
    if args.fps is not None:
        if not args.video_frames:
            return fail("--fps is the frame rate of a folder of video frames: give --video-frames too")
        if not 0 < args.fps <= 120:
            return fail(f"--fps {args.fps:g}: between 0 and 120 frames per second")
        capture = args.settings.capture.model_copy(update={"fps": args.fps})
        args.settings = args.settings.model_copy(update={"capture": capture})
    for flag, path in (("--gcg", args.gcg), ("--json", args.json)):
        problem = path and unwritable(Path(path))
        if problem:
            return fail(f"{flag} {path}: {problem}")
    where = args.db if args.db is not None else args.settings.store
    file = store_file(where)  # how the messages name the store: the file, or the URL (never a password)
    args.store_shown = str(file.resolve()) if file is not None else store_name(where)
    args.serve_hint = f"--db {args.db}" if args.db is not None or args.config is None else f"--config {args.config}"
    try:
        store = open_store(where)
    except SetupError as exc:
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
    from tilecam.api.service.view import TILESET_META
    from tilecam.api.station import Hooks, Job, SetupError, Station
    from tilecam.scoring import DISTRIBUTIONS, Lexicon, LexiconError, get_profile

    service = GameService(store, Bus())
    row, doubt = None, None
    if args.game is not None:
        try:
            row = service.game(args.game)
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
        if args.lang is None:
            decided = read_tile_set(args, args.settings)
            if decided is not None:
                lang = decided.lang
                print(f"tile set: {lang} ({decided.why}); --lang {'en' if lang == 'de' else 'de'} to override",
                      file=sys.stderr)
                if decided.doubt:  # said now, kept with the game, said again at the end
                    doubt = f"tile set {lang} in doubt: {decided.doubt}"
                    print(f"needs review: {doubt}", file=sys.stderr)
            elif not Path(args.source).exists():  # a camera: its frames are still to come
                print("tile set: en (not read off a camera); give --lang de (or fr, es, pl) for another set",
                      file=sys.stderr)
    if lang not in DISTRIBUTIONS:
        return fail(f"unknown --lang {lang!r}")
    try:
        get_profile(rules)
        lexicon = Lexicon.from_file(args.lexicon) if args.lexicon else None
    except (ValueError, LexiconError) as exc:
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

    state = {"station": None, "warned": False}

    def write_outputs(_seqs=()) -> None:
        """The GCG and the sidecar from the store, as they stand after each commit."""
        if not (args.gcg or args.json):
            return
        recorder = state["station"].recorder if state["station"] else None
        try:
            write_records(service, station.recording.game_id, args.gcg, args.json,
                          recorder.timings.per_frame() if recorder else {}, lexicon)
        except OSError as exc:
            if not state["warned"]:  # the store still has every entry; say so once, keep recording
                print(f"\ntilecam record: cannot write the outputs ({exc}); entries are kept in {args.store_shown}",
                      file=sys.stderr)
            state["warned"] = True

    count = {"frames": 0, "with_board": 0, "history": 0, "caught_up": False}
    bar = None

    def notice(text: str) -> None:  # a rack source dropped or ended: said at once, the board records on
        (bar.write if bar is not None else print)(text, file=sys.stderr)

    def progress(frame, outcome) -> None:
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
        lost = station.recorder.lost
        if lost != count.get("lost"):   # the moment the camera loses the game, and when it follows again
            bar.write(f"frame {frame.index}: " + (f"LOST: {lost}" if lost else "the camera follows the game again"),
                      file=sys.stderr)
            count["lost"] = lost
        bar.set_postfix(entries=len(station.recording.scorekeeper.entries), refresh=False)
        bar.update()

    # A station without the server (api/station/): the same reader, recorder, game and clock path
    # as `tilecam run`; presses only from --keys or --buttons, so a file records without a clock.
    settings = args.settings
    if args.buttons:
        settings = settings.model_copy(update={"buttons": settings.buttons.model_copy(update={"enabled": True})})
    job = Job(args.source, game_id=args.game, new_game=args.game is None,
              players=list(args.players) if args.players else None, rules=rules, lang=lang, pace=False,
              model=args.model, lexicon=lexicon, tileset=args.tileset, corners=corners, prewarped=args.prewarped,
              photos=args.every_frame or (Path(args.source).is_dir() and not args.video_frames), clock=bool(args.keys or args.buttons),
              own=False, quiet=True, racks=args.racks or {})
    station = state["station"] = Station(settings, job, Hooks(on_outcome=progress, on_commit=write_outputs,
                                                              on_notice=notice),
                                         service=service)
    try:
        station.open()
    except SetupError as exc:
        station.close()
        return fail(str(exc))
    game_id, keeper = station.recording.game_id, station.recording.scorekeeper
    if doubt:  # the game's flag (api.service.view.TILESET_META): /tournament and the report show it
        service.set_meta(game_id, {TILESET_META: doubt})
    if station.racks:
        print("rack sources: " + ", ".join(f"player {p} {src}" for p, src in sorted(station.rack_sources.items()))
              + f"; their racks go to {args.store_shown} with game {game_id}, each with its evidence frame",
              file=sys.stderr)
    if station.recording.resumed:
        last = service.entries(game_id)[-1].sidecar if keeper.entries else None
        seen = f"; last committed frame {last.get('frame') or last.get('frame_index')}" if last else ""
        print(f"resuming game {game_id} after {len(keeper.entries)} entries{seen}")
        st = view.game_at().state
        if view.over(st):
            station.close()
            # What an uninterrupted run adds at its end (a player out: the rack points), and nothing more.
            added = station.recorder.finish()
            write_outputs()
            reason = view.end_reason(st)
            print(f"game {game_id} has ended ({reason}): {len(added)} entries added")
            return _report(service, game_id, args, lexicon)
    if args.keys:
        from tilecam.hardware.keyboard import HELP, KeyboardTrigger
        KeyboardTrigger(station.on_trigger).start()
        print(HELP, file=sys.stderr)
    total = station.source.total_frames
    bar = tqdm(total=total or None, desc="recording", unit="frame", file=sys.stderr)
    committed_before = service.count(game_id)
    try:
        ended = station.record_here()  # at the source's end the recorder adds the rack points
    except KeyboardInterrupt:
        bar.write("stopped", file=sys.stderr)
        ended = None
    finally:
        bar.close()
        station.close()
    frames = count["frames"]
    if not count["with_board"] and service.count(game_id) == committed_before:
        what = f"no board found in any of the {frames} frame{'s' * (frames != 1)} of" if frames else "no frames in"
        kept = f"game {game_id} is unchanged ({committed_before} entries)" if args.game is not None else \
            "no game kept" if service.discard_empty_game(game_id) else f"game {game_id} holds no entries"
        return fail(f"{what} {args.source}: nothing recorded; {kept}")
    if ended != "ended":  # stopped or failed: what the record holds is still finished off
        station.recorder.finish()
    write_outputs()
    if state["warned"] and (args.gcg or args.json):
        try:
            write_records(service, game_id, args.gcg, args.json, {}, lexicon)
        except OSError as exc:
            return fail(f"cannot write the outputs: {exc}; the game is kept in {args.store_shown} as game {game_id}", 1)
    return _report(service, game_id, args, lexicon, station.recorder, station.racks)


# `tilecam record`'s exit status when the camera lost the game (tiles no play explains at the end,
# or no snapshot while hands came and went): the record is kept, and it is not the game.
EXIT_LOST = 3
# ... and when the evidence for the game's tile set disagrees (vision.language: umlauts read again and
# again on a board whose counts are English): every score rests on the set, so it is not the game either.
EXIT_TILESET = 4


def _report(service, game_id: int, args, lexicon=None, recorder=None, racks=None) -> int:
    from tilecam.api.service.racks import rack_text
    from tilecam.api.service.view import TILESET_META

    view = service.load(game_id)
    hedge = service.summary(view)["turns"]  # the final scores' credit is a guess where turns were inferred
    print(f"game {game_id} in {args.store_shown}: {len(view.entries)} entries; "
          f"final {view.game_at().state.scores}" + (f"; {hedge}" if hedge else ""))
    if args.gcg:
        print(f"GCG written to {args.gcg}")
    if args.json:
        print(f"JSON sidecar written to {args.json}")
    if not args.gcg:
        print(f"no GCG asked for (--gcg OUT.gcg); tilecam serve {args.serve_hint} gives it at /api/games/{game_id}.gcg")
    guessed, review = to_review(view, lexicon)
    for line in guessed:
        print(f"blank guessed: {line}")
    for line in review:
        print(f"needs review: {line}")
    alerts = recorder.alerts if recorder is not None else []
    for a in alerts:   # lost and found again: the record around there is the camera's best guess
        if a["cleared_at"] is not None:
            print(f"needs review: frames {a['frame_index']}-{a['cleared_at']}: the camera lost the game "
                  f"({a['what']}) and caught up")
    turns = service.live(game_id).turns  # turns credited without a press, or taken out of turn
    if turns:
        print(f"needs review: {turns}")
    for line in racks.lines() if racks else ():   # which rack cameras ran, what they read, how they ended
        print(line)
    reads = service.rack_reviews(game_id)   # the game's rack log (this run's reads and any before it), with scoring's flags
    if racks:
        print(f"{len(reads)} rack{'s' * (len(reads) != 1)} kept in {args.store_shown} with game {game_id}, each "
              "with its evidence frame")
    rack_reviews = [r for r in reads if r.review]   # a tile read unsurely, or a play not from the rack
    for r in rack_reviews:
        why = r.flag or "a tile read unsurely"
        print(f"needs review: rack of {view.row.players[r.player]['name']} read at {r.t:.1f} s: "
              f"{rack_text(r.tiles)} ({why})")
    woogles = service.woogles(view)   # the export's GCG as a link a player clicks to review the game
    if woogles.url:
        print(f"Open in Woogles ({woogles.length} characters): {woogles.url}")
    if woogles.why:
        print(woogles.why)
    doubt = view.row.meta.get(TILESET_META)
    lost = recorder.lost if recorder is not None else None
    if lost:
        print(f"LOST: the camera does not follow the game: {lost}; the record stops short of the board "
              f"(exit status {EXIT_LOST})")
    if doubt:   # every play is scored with this set's values: the whole record rests on it
        print(f"needs review: {doubt}; every play is scored with the {view.row.lang} values "
              f"(exit status {EXIT_TILESET})")
    if lost:
        return EXIT_LOST
    if doubt:
        return EXIT_TILESET
    if not guessed and not review and not alerts and not turns and not rack_reviews:
        print("nothing to review: every blank named, every play read with confidence")
    return 0


def to_review(view, lexicon=None) -> tuple[list[str], list[str]]:
    """What the operator should look at: each blank whose letter nobody read (the letter the GCG
    writes for it), each play the decoder flagged for review (its certainty under `[decode]
    review_below`, with its weakest squares and the runner-up readings), and each word the word
    list does not have."""
    from tilecam.scoring import Game, Play, designate, undecided_squares

    game = Game(view.profile, view.dist, view.layout, view.players)
    sidecars = {e.seq: e.sidecar or {} for e in view.entries}
    guessed, review = [], []
    for n, (ev, seq) in enumerate(zip(view.events, view.seqs)):
        if isinstance(ev, Play):
            where = f"move {n + 1} ({view.row.players[ev.player]['name']}) {ev.words[0] if ev.words else ''}"
            if ev.blank_undecided:
                named = designate(game.state.board, ev.placement, view.dist, lexicon, ev.claimed)
                open_ = undecided_squares(ev.placement)
                letters = ", ".join(f"{_sq(t.square)} as {t.letter.lower()}" for t in named.placement.tiles
                                    if t.square in open_)
                guessed.append(f"{where}: {letters or 'letter not read'}")
            if ev.review:   # decided once, by the decoder against [decode] review_below
                conf = sidecars.get(seq, {}).get("confidence")  # the evidence behind the play, per square
                weakest = "" if not conf else ", weakest " + ", ".join(
                    f"{_sq(t.square)} {conf[t.square.row][t.square.col]:.2f}"
                    for t in sorted(ev.placement.tiles, key=lambda t: conf[t.square.row][t.square.col])[:2])
                others = "; ".join(f"{pos} {word} {pr:.2f}" for pos, word, pr in ev.runner_ups)
                review.append(f"{where}: read with certainty {ev.certainty:.2f}{weakest}"
                              f"{'; or ' + others if others else ''}")
            if lexicon is not None:
                unknown = [w for w in ev.words if w not in lexicon]
                if unknown:
                    review.append(f"{where}: not in the word list: {', '.join(unknown)}")
        game.append(ev)
    return guessed, review


def _sq(square) -> str:
    return f"{chr(ord('A') + square.col)}{square.row + 1}"


def read_tile_set(args, settings):
    """vision.read_tile_set on frames over the source's whole game, located as the recording will
    locate them (--corners, --prewarped); None when --corners does not parse (the recording says why)."""
    from tilecam.api.commands.read import parse_corners
    from tilecam.vision import read_tile_set as decide

    try:
        corners = parse_corners(args.corners) if args.corners else None
    except ValueError:
        return None
    return decide(settings, args.source, model=args.model, tileset=args.tileset, corners=corners,
                  prewarped=args.prewarped)


def write_records(service, game_id: int, gcg: str | None, sidecar: str | None, timings: dict,
                  lexicon=None) -> None:
    """The GCG and the JSON sidecar (every entry with what the recorder saw), from the store.
    Each file is replaced whole (written beside it, then renamed), so a crash leaves the last one."""
    from tilecam.scoring import to_json
    view = service.load(game_id)
    from tilecam.scoring.gcg import write_gcg
    # the word list names a blank the recorder left open where it allows one letter only
    if gcg:
        _replace(Path(gcg), write_gcg(view.record(), view.profile, view.dist, view.layout, lexicon))
    if sidecar:
        doc = {"game_id": game_id, "players": list(view.row.players), "rules": view.row.rules,
               "lang": view.row.lang, "turns": service.summary(view)["turns"],
               "entries": [{"seq": e.seq, **to_json(e.entry), **(e.sidecar or {})} for e in view.entries],
               "timings_ms_per_frame": timings}
        reads = service.racks(game_id)
        if reads:  # the rack cameras' settled reads, as /api/games/{id}/racks gives them
            doc["racks"] = [r.to_out(game_id).model_dump() for r in reads]
        _replace(Path(sidecar), json.dumps(doc, ensure_ascii=False, indent=1))


def _replace(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)  # api.cli.unwritable allows folders still to make
    tmp = path.with_name(f".{path.name}.tmp")
    tmp.write_text(text, encoding="utf-8")
    os.replace(tmp, path)
