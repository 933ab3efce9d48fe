"""Eval: the tile reader on the 53 real English phone photos (../shared/data/english).

    python tests/bench/bench_english.py [--model models/tiles.onnx] [--pairs 3]

Two sessions: "2014" (10 photos, a vintage beige board, test placements) and "2015" (43 photos
of one game on a red Hasbro board, 4 of them the empty board). Truth boards and corners are in
game orientation (row 1 at the top, column A at the left).

Two ways to the grid:
  true corners  warp with the labelled corners (game orientation): the reader alone;
  pipeline      vision.locate.find_board, the reader, then vision.classify.to_game turns the
                read into game orientation; the result is compared to the truth in game
                orientation. A photo whose board is not found counts all 225 squares wrong.
Modes:
  plain         the network alone (TileReader defaults);
  self          vision.enroll.self_enroll within the photo;
  enrolled      enroll_labelled on photo i (true corners, truth board), read photo j != i of the
                same session; --pairs enrollment photos per session, each tested on every other
                photo of its session;
  tile_check    (2015 only) the product's tile check on one of the 12 finished boards (all 100 tiles
                face up, true corners): vision.reader.TableReader.learn_tile_check labels them by
                assignment against the distribution (no truth used) and enrolls the table, the
                recogniser refitted on them; then every 2015 photo that is not a finished board is
                read; --pairs finished photos;
  empty_ref     (2015 only) the empty-board reference (vision.reference) of the session's first
                empty photo, read every other photo of the session (in the pipeline the reference
                is built from find_board's grid of that photo, as `tilecam enroll --empty-board`
                does).
Metrics: per square; per tile (squares holding a tile, letters and blanks, read as exactly that
tile); empty->tile (share of empty squares read as a tile). Nothing here tunes anything: every
threshold was fixed before these photos were read (see models/README.md).

Writes docs/results/english.json (machine, git commit, date, the model card's training commit).
"""
from __future__ import annotations

import argparse
import json
import platform
import sys
import time
from collections import Counter
from pathlib import Path

import cv2
import numpy as np

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_read import git_commit  # noqa: E402
from tilecam.vision.classify import TileReader, to_game  # noqa: E402
from tilecam.vision.enroll import enroll_labelled, self_enroll  # noqa: E402
from tilecam.vision.errors import BoardNotFound  # noqa: E402
from tilecam.vision.rectify import homography_from_corners, warp_board  # noqa: E402
from tilecam.vision.reference import CELL_PX, EmptyBoardRef  # noqa: E402

DATA = REPO.parent / "shared" / "data" / "english"


class Tally:
    def __init__(self) -> None:
        self.n = self.ok = self.tiles = self.tiles_ok = self.empties = self.e2t = self.photos = 0
        self.t2e = self.letters = self.letters_ok = self.blanks = self.b2e = self.e2b = 0
        self.conf = Counter()

    def add(self, pred: list[str] | None, truth: list[str]) -> None:
        self.photos += 1
        t = "".join(truth)
        p = "#" * len(t) if pred is None else "".join(pred)
        for a, b in zip(t, p):
            self.n += 1
            self.ok += a == b
            if a == ".":
                self.empties += 1
                self.e2t += b != "."
                self.e2b += b == "?"
            else:
                self.tiles += 1
                self.tiles_ok += a == b
                self.t2e += b == "."
                if a == "?":   # a blank tile: no letter, told from an empty square by its shape alone
                    self.blanks += 1
                    self.b2e += b == "."
                if a.isalpha() and a.isupper():   # a lettered tile ('?' blank, lower case a designated blank)
                    self.letters += 1
                    self.letters_ok += a == b
            if a != b:
                self.conf[f"{a}->{b}"] += 1

    def summary(self) -> dict:
        return {"photos": self.photos, "squares": self.n, "per_square": round(self.ok / max(self.n, 1), 5),
                "tiles": self.tiles, "per_tile": round(self.tiles_ok / max(self.tiles, 1), 5),
                "empty_to_tile": round(self.e2t / max(self.empties, 1), 5),
                "tile_to_empty": round(self.t2e / max(self.tiles, 1), 5),
                "blank_tiles": self.blanks, "blank_to_empty": self.b2e, "empty_to_blank": self.e2b,
                "letter_tiles": self.letters, "letters_read_right": round(self.letters_ok / max(self.letters, 1), 5),
                "confusions": dict(self.conf.most_common(10))}


def camera_turn(cam: np.ndarray, game: np.ndarray) -> int:
    """k with roll(cam, -k) closest to the game-ordered corners."""
    return int(np.argmin([np.abs(np.roll(cam, -k, axis=0) - game).max() for k in range(4)]))


def degrade(image: np.ndarray, corners: np.ndarray, square_px: float, blur: float) -> tuple[np.ndarray, np.ndarray]:
    """The photo as a farther, softer camera would take it: shrunk (area averaging) until a grid
    square is ``square_px`` pixels, blurred, and saved as a JPEG again (quality 85)."""
    if square_px > 0:
        side = np.mean([np.linalg.norm(corners[i] - corners[(i + 1) % 4]) for i in range(4)]) / 15
        f = min(1.0, square_px / side)
        image = cv2.resize(image, None, fx=f, fy=f, interpolation=cv2.INTER_AREA)
        corners = corners * np.float32(f)
    if blur > 0:
        image = cv2.GaussianBlur(image, (0, 0), blur)
    if square_px > 0 or blur > 0:
        image = cv2.imdecode(cv2.imencode(".jpg", image, [cv2.IMWRITE_JPEG_QUALITY, 85])[1], cv2.IMREAD_COLOR)
    return image, corners


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--model", default=str(REPO / "models" / "tiles.onnx"))
    ap.add_argument("--data", default=str(DATA))
    ap.add_argument("--pairs", type=int, default=3, help="enrollment photos per session")
    ap.add_argument("--out", default=str(REPO / "docs" / "results" / "english.json"))
    ap.add_argument("--reader", default="fused",
                    help="fused (the product's reader: calibrated product), classifier (alone), or poolW "
                         "(the earlier log-linear pool at weight W, e.g. pool0.2)")
    ap.add_argument("--modes", default="plain,self,enrolled,tile_check,empty_ref",
                    help="comma-separated: plain, self, enrolled, tile_check, empty_ref")
    ap.add_argument("--square-px", type=float, default=0,
                    help="shrink each photo so a grid square is this many pixels (a far, low-resolution "
                         "camera: issue 36's ~50 px squares); 0 keeps the photo as taken")
    ap.add_argument("--blur", type=float, default=0, help="Gaussian blur sigma, in the shrunk photo's pixels (a soft lens)")
    ap.add_argument("--sessions", default="", help="comma-separated sessions to read (2014 wood on beige, 2015); all if empty")
    ap.add_argument("--no-shapes", action="store_true", help="[read] shape_rules off (issue 36's comparison)")
    ap.add_argument("--ways", default="true,pipeline",
                    help="comma-separated: true (labelled corners), pipeline (vision.locate); true alone skips the locator")
    args = ap.parse_args(argv)
    modes = set(args.modes.split(","))
    ways = tuple(w for w in ("true", "pipeline") if w in args.ways.split(","))
    cv2.setNumThreads(1)
    data = Path(args.data)
    model = Path(args.model)
    card_path = model.with_suffix("").with_suffix(".card.json")
    if args.reader == "classifier":
        reader = TileReader(model, card_path, lang="en")
    else:
        # the reader the product builds (vision.load_tile_reader: the classifier fused with the recogniser)
        from tilecam.api.settings import Settings
        from tilecam.vision import load_tile_reader
        from tilecam.vision.classify import ReadConfig
        from tilecam.vision.fuse import FusedTileReader
        reader = load_tile_reader(Settings().model_copy(update={"read": ReadConfig(
            model_path=str(model), shape_rules=not args.no_shapes)}), "en")
        if not isinstance(reader, FusedTileReader):
            raise SystemExit("the recogniser is not available")
        if args.reader.startswith("pool"):
            reader.pool_weight = float(args.reader[4:])
    px = int(reader.card["square_px"])
    rows = [json.loads(x) for x in (data / "truth.jsonl").read_text(encoding="utf-8").splitlines() if x.strip()]
    from tilecam.vision.locate import LocateConfig, find_board

    t0 = time.time()
    photos = []   # dict per photo: name, session, truth, warped (true), cam warp, cam corners, turn
    if args.sessions:
        rows = [r for r in rows if r["session"] in args.sessions.split(",")]
    for i, row in enumerate(rows):
        image = cv2.imread(str(data / "frames" / row["frame"]), cv2.IMREAD_COLOR)
        true = np.float32(row["corners"])
        image, true = degrade(image, true, args.square_px, args.blur)
        ph = {"name": row["frame"], "session": row["session"], "truth": row["board"],
              "image": image, "true_h": homography_from_corners(true, px),
              "true_warp": warp_board(image, homography_from_corners(true, px), px),
              "true_ref_warp": warp_board(image, homography_from_corners(true, 2 * CELL_PX), 2 * CELL_PX),
              "tiles": sum(ch != "." for r in row["board"] for ch in r)}
        try:
            if "pipeline" not in ways:
                raise BoardNotFound("the pipeline was not asked for (--ways)")
            cam = np.asarray(find_board(image, LocateConfig()).corners, np.float32)
            ph.update(cam=cam, cam_h=homography_from_corners(cam, px),
                      cam_warp=warp_board(image, homography_from_corners(cam, px), px),
                      cam_ref_warp=warp_board(image, homography_from_corners(cam, 2 * CELL_PX), 2 * CELL_PX),
                      turn=camera_turn(cam, true))
        except BoardNotFound as exc:
            ph.update(cam=None, not_found=str(exc))
        photos.append(ph)
        print(f"[{time.time() - t0:5.1f} s] loaded {i + 1}/{len(rows)} {row['frame']}"
              f"{'' if ph['cam'] is not None else ' (board not found)'}", flush=True)

    sessions = sorted({p["session"] for p in photos})
    tallies: dict[tuple, Tally] = {}
    orient = Counter()

    def tally(way, mode, session) -> list[Tally]:
        return [tallies.setdefault((way, mode, s), Tally()) for s in (session, "all")]

    def score(way, mode, ph, read_fn):
        """read_fn(warped, source=...) -> BoardRead; adds the photo to (way, mode)."""
        getattr(reader, "_cache", {}).clear()   # each photo read afresh (the recorder keeps it between snapshots)
        if way == "true":
            pred = read_fn(ph["true_warp"], source=(ph["image"], ph["true_h"])).board()
        elif ph["cam"] is None:
            pred = None
        else:
            game = to_game(read_fn(ph["cam_warp"], source=(ph["image"], ph["cam_h"])), ph["cam"],
                           reader.cfg.min_orientation_share)
            pred = game.board
            if mode == "plain" and ph["tiles"]:
                want = 90 * ph["turn"]
                orient["null" if game.orientation is None else
                       "right" if game.orientation == want else "wrong"] += 1
        for t in tally(way, mode, ph["session"]):
            t.add(pred, ph["truth"])

    for way in ways:
        for n, ph in enumerate(photos):
            score(way, "plain", ph, reader.read)
            if "self" in modes:
                score(way, "self", ph, lambda w, source=None: self_enroll(reader, w)[0])
        print(f"[{time.time() - t0:5.1f} s] {way}: plain and self done", flush=True)

    pairs = {}
    for s in (sessions if "enrolled" in modes else []):
        idx = [i for i, p in enumerate(photos) if p["session"] == s and p["tiles"] > 0]
        picks = [idx[int(round(q))] for q in np.linspace(0, len(idx) - 1, args.pairs)]
        pairs[s] = [photos[i]["name"] for i in picks]
        for i in picks:
            ts = enroll_labelled(reader, [(photos[i]["true_warp"], photos[i]["truth"])])
            enrolled = reader.with_tileset(ts)
            for j, ph in enumerate(photos):
                if ph["session"] == s and j != i:
                    for way in ways:
                        score(way, "enrolled", ph, enrolled.read)
            print(f"[{time.time() - t0:5.1f} s] enrolled on {photos[i]['name']}, tested on its session", flush=True)

    checks = {}
    finished = [i for i, p in enumerate(photos) if p["session"] == "2015" and p["tiles"] == 100]
    if finished and "tile_check" in modes:
        from tilecam.scoring.board import LAYOUTS, Board
        from tilecam.vision.locator import Located
        from tilecam.vision.reader import TableReader
        for i in [finished[int(round(q))] for q in np.linspace(0, len(finished) - 1, args.pairs)]:
            ph = photos[i]
            getattr(reader, "_cache", {}).clear()
            table = TableReader(reader)
            table.read(ph["image"], Located("tracked", ph["true_h"], 1.0, px), Board(LAYOUTS["standard"]))
            labels = table.learn_tile_check()
            truth = "".join(ph["truth"])
            turned = None if labels is None else max(
                range(4), key=lambda k: sum(a == b for a, b in zip(
                    "".join("".join(r) for r in np.rot90(np.array(list(labels)).reshape(15, 15), k)), truth)))
            checks[ph["name"]] = {
                "labelled_right": None if labels is None else sum(a == b for a, b in zip("".join(
                    "".join(r) for r in np.rot90(np.array(list(labels)).reshape(15, 15), turned)), truth)),
                "recogniser_temperature": getattr(getattr(table.tile_reader, "calibration", None),
                                                  "recogniser_temperature", None)}
            for j, other in enumerate(photos):
                if other["session"] == "2015" and j not in finished:
                    for way in ways:
                        score(way, "tile_check", other, table.tile_reader.read)
            print(f"[{time.time() - t0:5.1f} s] tile check on {ph['name']} ({checks[ph['name']]}), tested on the "
                  f"{sum(1 for j, o in enumerate(photos) if o['session'] == '2015' and j not in finished)} "
                  f"photos of its session that are not finished boards", flush=True)

    ref_info = {}
    empties = [i for i, p in enumerate(photos) if p["session"] == "2015" and p["tiles"] == 0]
    if empties and "empty_ref" in modes:
        i = empties[0]
        ref_true = EmptyBoardRef.from_frame(photos[i]["true_ref_warp"])
        src = photos[i] if photos[i]["cam"] is not None else None
        ref_cam = EmptyBoardRef.from_frame(src["cam_ref_warp"]) if src else ref_true
        ref_info = {"photo": photos[i]["name"],
                    "pipeline_reference": "find_board's grid" if src else "true corners (board not found)"}
        for way, ref in (("true", ref_true), ("pipeline", ref_cam)):
            reader.empty_ref = ref
            for j, ph in enumerate(photos):
                if ph["session"] == "2015" and j != i:
                    score(way, "empty_ref", ph, reader.read)
            reader.empty_ref = None
        print(f"[{time.time() - t0:5.1f} s] empty-board reference {photos[i]['name']} done", flush=True)

    card = json.loads(card_path.read_text(encoding="utf-8"))
    results = {}
    for (way, mode, s), t in sorted(tallies.items()):
        results.setdefault(way, {}).setdefault(mode, {})[s] = t.summary()
    res = {"what": "tile reader on the real English phone photos (jheidel/scrabble-opencv, 53 photos)",
           "reader": args.reader, "modes": sorted(modes),
           "data": str(Path(args.data).name), "model": model.name,
           "model_training_commit": card.get("training", {}).get("commit", "unknown"),
           "not_found": [p["name"] for p in photos if p["cam"] is None],
           "pipeline_orientation_on_photos_with_tiles": dict(orient),
           "enrollment_photos": pairs, "tile_check_photos": checks, "empty_reference": ref_info,
           "degraded": {"square_px": args.square_px, "blur": args.blur, "sessions": args.sessions or "all"},
           "results": results,
           "machine": f"{platform.machine()} {platform.system()}, {len(__import__('os').sched_getaffinity(0))} cpus",
           "commit": git_commit(), "date": time.strftime("%Y-%m-%d"),
           "uncommitted_in_vision_models": __import__("subprocess").run(
               ["git", "status", "--porcelain", "vision", "models"], cwd=REPO, capture_output=True,
               text=True).stdout.split("\n")[:-1]}
    Path(args.out).write_text(json.dumps(res, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    print(f"{'way':9} {'mode':10} {'session':7} {'square':>7} {'tile':>7} {'letter':>7} {'t->e':>7} {'e->t':>7}")
    for (way, mode, s), t in sorted(tallies.items()):
        x = t.summary()
        print(f"{way:9} {mode:10} {s:7} {x['per_square']:7.4f} {x['per_tile']:7.4f} {x['letters_read_right']:7.4f} "
              f"{x['tile_to_empty']:7.4f} {x['empty_to_tile']:7.4f}")
    print(f"not found: {res['not_found']}; pipeline orientation {dict(orient)}; written to {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
