"""Record rendered games with rack cameras (issue 30) and measure what the racks add.

    python tests/bench/bench_rack_game.py [--split held-out|train|all] [--videos NAME ...] [--turns 12]

Each video (VIDEOS) is a real GCG game's first turns with the rack truth of models.synth.rackplan
(a seed-chosen exchange-and-pass pair or two added) and the timeline of models.synth.rackgame: one
board camera and one rack camera per player, each at its own frame rate and start, never in step.
Frames are rendered once into ~/.cache/tilecam/bench_rack_game (TILECAM_BENCH_CACHE overrides).

Recording: board frames through the recorder (build_recorder over a MemoryLink, as bench_record
does) with the clock presses at their times; each rack frame through vision.rack.RackWatch(reader)
.feed(image, t) -> a settled RackView -> scoring.racks.RackSeen -> Scorekeeper.rack_seen, its
entries committed like the recorder's. The three streams are merged by the table's wall time (each
stream in its own order; every frame carries only its own camera's clock).

Measured, for the held-out looks (reported) and the train looks: racks exact per turn (the recorded
event's rack, as a multiset, is the truth's), letters per tile of each settled rack read, exchanges
and passes told apart (an exchange recorded as a pass under review counted apart: a person is
asked), the written GCG's racks against the truth and tests/gcgcheck.py's macondo and
Quackle checks, and the rack read's delay after the rack comes to rest (ms of the table's clock).
Writes docs/results/rack_game_<commit>.json.
"""
from __future__ import annotations

import argparse
import difflib
import hashlib
import json
import os
import platform
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "tests"))

import cv2  # noqa: E402
import numpy as np  # noqa: E402

from tilecam.api.service import RacksOnAir  # noqa: E402
from tilecam.api.settings import Settings  # noqa: E402
from tilecam.api.station import build_recorder  # noqa: E402
from tilecam.api.station.link import MemoryLink  # noqa: E402
from tilecam.capture.frame import Frame  # noqa: E402
from tilecam.models.synth import SceneConfig  # noqa: E402
from tilecam.models.synth.rackgame import GameVideo, game_video, render_board_frame, render_rack_frame  # noqa: E402
from tilecam.models.synth.rackplan import RackPlanError, rack_plan_from_gcg, spell  # noqa: E402
from tilecam.scoring.game import Game  # noqa: E402
from tilecam.scoring.gcg import RACK_NOT_SEEN, GameRecord, Player, read_gcg, write_gcg  # noqa: E402
from tilecam.scoring.rules import get_profile  # noqa: E402
from tilecam.scoring.scorekeeper import Scorekeeper  # noqa: E402
from tilecam.scoring.tiles import DISTRIBUTIONS  # noqa: E402
from tilecam.vision import build_reader  # noqa: E402

from bench_record import look_config  # noqa: E402
from gcgcheck import check_gcg  # noqa: E402

DATA = Path(os.environ.get("TILECAM_SHARED_DATA", REPO.parent / "shared" / "data"))
CACHE = Path(os.environ.get("TILECAM_BENCH_CACHE", Path.home() / ".cache" / "tilecam")) / "bench_rack_game"
RENDER_VERSION = 2   # bump when the renderers change what a cached frame shows

# "held-out": the board look only factors the tile network never trained on (bench_record's
# held-out look) and rack looks from models.synth.rack's held-out options (`racks`: draw_look's
# split); "train": trained board looks and rack looks from the training options. Games: real GCG
# records, by sorted index.
VIDEOS = [
    # every rack factor at its held-out option at once (one look: acrylic rack, side view, far, ...)
    dict(name="held-out-a", split="held-out", game=10, seed=301, board="held-out", racks="heldout_all"),
    # one rack factor (drawn per player) at its held-out option, as models/train.py measures each
    dict(name="held-out-b", split="held-out", game=33, seed=302, board="held-out", racks="heldout"),
    dict(name="train-a", split="train", game=20, seed=311, board="tournament"),
    dict(name="train-b", split="train", game=45, seed=312, board="plastic"),
]


def _gcgs() -> list[Path]:
    return sorted((DATA / "gcg").rglob("*.gcg"))


def plan(spec: dict, turns: int) -> GameVideo:
    """The video's plan: its game's rack truth (the next game when one has none) and timeline."""
    gcgs = _gcgs()
    for k in range(len(gcgs)):
        path = gcgs[(spec["game"] + k) % len(gcgs)]
        try:
            game = rack_plan_from_gcg(path, spec["seed"], within=turns)
        except RackPlanError as exc:
            print(f"  {path.name}: no rack history fits ({exc}); the next game", file=sys.stderr)
            continue
        return game_video(game, turns, seed=spec["seed"])
    raise RackPlanError("no game fits")


# Whose tiles stand on the racks: "board", the game's own tiles (the board's tile look: style, font,
# values, blank print, weight), as at a real table, where the tiles drawn are the tiles played;
# "own", a tile look drawn for each rack apart from the board's (the measure before issue 38's
# last step: harder than a table, and the table's learned tiles then misread the rack's).
RACK_TILES = ("board", "own")
TILE_FACTORS = ("tile_style", "font", "value_place", "blank_print", "weight")
rack_tiles = "board"


def rack_looks(spec: dict) -> list[dict]:
    """Each player's rack look: every factor at a held-out option (held-out videos), or the
    training options; with `rack_tiles` "board" the tiles are the board's."""
    from tilecam.models.synth import rack
    from tilecam.models.synth.fonts import family_of
    split = spec.get("racks", "train")
    if split not in getattr(rack, "SPLITS", ("train", "heldout")):
        split = "heldout"   # before models.synth.rack had 'heldout_all', 'heldout' held every factor out
    looks = [rack.draw_look(spec["seed"] * 10 + p, split) for p in (0, 1)]
    if rack_tiles == "board":
        cfg = board_config(spec)
        board = dict(tile_style=cfg.style, font=family_of(cfg.font), value_place=cfg.value_place,
                     blank_print=cfg.blank_print, weight=cfg.weight)
        looks = [{**look, **{k: v for k, v in board.items() if v in rack.RACK_FACTORS[k]}} for look in looks]
    return looks


def _racks_dir(p: int) -> str:
    """Player p's rack frames in a video's folder (the board's frames are shared by both tile modes)."""
    return f"rack{p}" if rack_tiles == "own" else f"rack{p}-tiles"


def _truth_file() -> str:
    return "truth.json" if rack_tiles == "own" else "truth-tiles.json"


def board_config(spec: dict) -> SceneConfig:
    seed = spec["seed"]
    rot = float(np.random.default_rng(seed).uniform(0, 360))
    return SceneConfig(hands="never", max_tilt_deg=15, glare_prob=0.3, quarter_turn_prob=0.08, rotation_deg=rot,
                       **look_config(spec["board"], seed))


def render(spec: dict, video: GameVideo) -> Path:
    """Every frame of the video as a JPEG in the cache (a render stopped part way goes on where it
    stopped); returns the folder, with truth.json (each rack frame's occluded tiles and look;
    truth-tiles.json and rack?-tiles/ for racks of the board's tiles)."""
    board_spec = {k: v for k, v in spec.items() if k != "racks"}   # the rack looks are checked apart
    key = hashlib.sha1(json.dumps([board_spec, RENDER_VERSION, video.game.name, [b.shown for b in video.board],
                                   [(s.tiles, s.hand, s.nudge) for r in video.racks for s in r]],
                                  sort_keys=True).encode()).hexdigest()[:10]
    folder = CACHE / f"{spec['name']}-{key}"
    if (folder / _truth_file()).is_file():
        if json.loads((folder / _truth_file()).read_text())["looks"] == rack_looks(spec):
            return folder
        for old in [f for p in (0, 1) for f in (folder / _racks_dir(p)).glob("*.jpg")]:   # the looks changed
            old.unlink()
    for sub in ("board", _racks_dir(0), _racks_dir(1)):
        (folder / sub).mkdir(parents=True, exist_ok=True)
    cfg = board_config(spec)
    t0, n = time.perf_counter(), 0
    total = len(video.board) + sum(len(r) for r in video.racks)
    for shot in video.board:
        path = folder / "board" / f"{shot.index:04d}.jpg"
        if not path.is_file():
            cv2.imwrite(str(path), render_board_frame(shot, spec["seed"], cfg), [cv2.IMWRITE_JPEG_QUALITY, 92])
        n += 1
        if n % 100 == 0:
            print(f"  {spec['name']}: {n}/{total} frames rendered ({time.perf_counter() - t0:.0f} s)", flush=True)
    try:
        looks = rack_looks(spec)
    except ImportError as exc:   # models.synth.rack not here yet: the board frames are cached meanwhile
        print(f"  {spec['name']}: no rack frames ({exc})", flush=True)
        return folder
    occluded: list[list] = [[], []]
    for p, shots in enumerate(video.racks):
        for shot in shots:
            path = folder / _racks_dir(p) / f"{shot.index:04d}.jpg"
            if path.is_file():
                occluded[p].append(None)   # rendered by a run that stopped part way
            else:
                img, scene = render_rack_frame(shot, spec["seed"] * 10 + p, looks[p])
                occluded[p].append([bool(x) for x in scene.occluded])
                cv2.imwrite(str(path), img, [cv2.IMWRITE_JPEG_QUALITY, 92])
            n += 1
            if n % 100 == 0:
                print(f"  {spec['name']}: {n}/{total} frames rendered ({time.perf_counter() - t0:.0f} s)", flush=True)
    (folder / _truth_file()).write_text(json.dumps({"occluded": occluded, "looks": looks,
                                                   "board": cfg.model_dump(mode="json")}))
    return folder


def _rack_watch(settings, board_reader) -> list:
    """A RackWatch per player, as the station builds them (api/station/racks.py: over the table's own
    reader, so what the table learns reads the racks too; [racks] settle_s, [rack_read])."""
    from tilecam.api.station.racks import rack_watch
    return [rack_watch(settings, "en", board_reader) for _ in (0, 1)]


class OracleWatch:
    """A stand-in for vision.rack.RackWatch that reads every rack right: the truth of the frame
    fed (by its camera time), given once the rack has been at rest `settle_s` and differs from the
    last view given. Measures the rest of the chain (alignment, exchanges, GCG) apart from reading."""

    def __init__(self, shots, settle_s: float = 1.0) -> None:
        self.by_t = {round(s.t, 6): s for s in shots}
        self.settle_s, self.since, self.given = settle_s, None, None

    def feed(self, image, t: float):
        from types import SimpleNamespace
        shot = self.by_t[round(t, 6)]
        if not shot.settled:
            self.since = None
            return None
        if self.since is None or self.since[1] != shot.tiles:
            self.since = (t, shot.tiles)
        if t - self.since[0] < self.settle_s or shot.tiles == self.given:
            return None
        self.given = shot.tiles
        return SimpleNamespace(tiles=[SimpleNamespace(letter=ch, certainty=1.0, box=None) for ch in shot.tiles])


def record(spec: dict, video: GameVideo, folder: Path, oracle: bool = False) -> dict:
    """Record the three streams merged by wall time; returns what was recorded and when."""
    from tilecam.api.station.racks import seen_of
    profile, dist = get_profile("naspa-csw"), DISTRIBUTIONS["en"]
    keeper = Scorekeeper(Game(profile, dist))
    link = MemoryLink()
    settings = Settings()
    board_reader = build_reader(settings, "en")
    recorder = build_recorder(settings, keeper, link, reader=board_reader)
    trust = RacksOnAir.from_settings(settings).trust   # as the station builds it
    watches = [OracleWatch(r) for r in video.racks] if oracle else _rack_watch(settings, board_reader)
    stream = [(b.wall, 1, "board", b) for b in video.board]
    stream += [(s.wall, 2, "rack", s) for r in video.racks for s in r]
    stream += [(pr.wall, 0, "press", pr) for pr in video.presses]
    stream.sort(key=lambda x: (x[0], x[1]))
    views, rack_ms, board_ms, rack_entries = [], [], [], 0
    for wall, _, kind, item in stream:
        if kind == "press":
            recorder.press(item.player)
        elif kind == "board":
            img = cv2.imread(str(folder / "board" / f"{item.index:04d}.jpg"))
            t0 = time.perf_counter()
            recorder.process(Frame(img, item.t, item.index, "board"))
            board_ms.append((time.perf_counter() - t0) * 1000)
        else:
            p = item.player
            img = cv2.imread(str(folder / _racks_dir(p) / f"{item.index:04d}.jpg"))
            t0 = time.perf_counter()
            view = watches[p].feed(img, item.t)
            rack_ms.append((time.perf_counter() - t0) * 1000)
            if view is None:
                continue
            # as the station does (api/station/racks.py seen_of, Recorder.rack_seen): the settled view
            # as scoring's RackSeen on the rack camera's clock, kept with its frame, given to the
            # scorekeeper and its entries committed at the seq they were made on
            frame = Frame(img, item.t, item.index, f"rack{p}", path=f"{_racks_dir(p)}/{item.index:04d}.jpg")
            seen = seen_of(p, view, frame)
            views.append({"player": p, "wall": wall, "t": item.t, "index": item.index, "tiles": list(seen.tiles),
                          "certainty": list(seen.certainty)})
            rack_entries += len(recorder.rack_seen(seen, frame, trust=trust).seqs)
    recorder.finish()
    return {"keeper": keeper, "views": views, "rack_entries": rack_entries,
            "ms_per_rack_frame": _median(rack_ms), "ms_per_board_frame": _median(board_ms)}


def _median(values):
    return round(float(np.median(values)), 2) if values else None


def _key(e) -> tuple:
    """A turn as the two records can share it: the player, and a play's tiles or 'zero' for a turn
    that put nothing on the board (an exchange or a pass: told apart separately)."""
    if e.kind == "play":
        return (e.player, tuple(sorted(((t.square.row, t.square.col), "?" if t.blank else t.letter)
                                       for t in e.placement.tiles)))
    return (e.player, "zero")


def measure(video: GameVideo, rec: dict) -> dict:
    game, keeper = video.game, rec["keeper"]
    truth = [(t, game.events[t.event]) for t in game.turns[:video.events] if t.kind in ("play", "exchange", "pass")]
    got = [e for e in keeper.game.events if e.kind in ("play", "exchange", "pass")]
    match = difflib.SequenceMatcher(a=[_key(e) for _, e in truth], b=[_key(e) for e in got], autojunk=False)
    pairs = {}
    for block in match.get_matching_blocks():
        for k in range(block.size):
            pairs[block.a + k] = block.b + k
    rows, exact, kinds, flagged = [], 0, Counter(), 0
    for i, (t, e) in enumerate(truth):
        g = got[pairs[i]] if i in pairs else None
        rack = getattr(g, "rack", None) if g is not None else None
        ok = rack is not None and Counter(rack.upper()) == Counter(t.rack)
        exact += ok
        if t.kind in ("exchange", "pass"):
            kinds[(t.kind, g.kind if g is not None else "missing")] += 1
        # an exchange recorded as a pass under review: a person is asked "a pass or an exchange"
        flagged += t.kind == "exchange" and g is not None and g.kind == "pass" and bool(getattr(g, "review", False))
        rows.append({"event": t.event, "player": t.player, "kind": t.kind, "truth": t.rack,
                     "recorded": rack, "recorded_kind": g.kind if g is not None else None, "exact": ok,
                     "inserted": t.inserted, "review": bool(getattr(g, "review", False)) if g is not None else None})
    # letters per tile of each settled rack: the first view given after the rack came to rest
    letters_right = letters = 0
    delays, unread, rests = [], 0, []
    for p in (0, 1):
        settles = [s for s in video.settles if s.player == p]
        views = [v for v in rec["views"] if v["player"] == p]
        for k, s in enumerate(settles):
            if not s.tiles:
                continue   # an empty rack (all seven played): nothing to read
            until = settles[k + 1].wall if k + 1 < len(settles) else float("inf")
            seen = [v for v in views if s.wall <= v["wall"] < until]
            letters += len(s.tiles)
            rest = {"player": p, "wall": round(s.wall, 2), "rest_s": round(min(until, video.end) - s.wall, 2),
                    "what": s.what, "truth": s.tiles, "read": None, "delay_ms": None, "right": 0}
            rests.append(rest)
            if not seen:
                unread += 1
                continue
            v = seen[0]
            delays.append((v["wall"] - s.wall) * 1000.0)
            got_tiles = v["tiles"]
            if len(got_tiles) == len(s.tiles):
                right = sum(a == b for a, b in zip(got_tiles, s.tiles))
            else:
                right = sum((Counter(x for x in got_tiles if x) & Counter(s.tiles)).values())
            letters_right += right
            rest.update(read="".join(x or "." for x in got_tiles), delay_ms=round(delays[-1], 1), right=right)
    # the written GCG: racks against the truth, and macondo's and Quackle's rules
    dist, profile = DISTRIBUTIONS["en"], get_profile("naspa-csw")
    recorded = GameRecord((Player("player1", "player1"), Player("player2", "player2")), tuple(keeper.game.events),
                          {}, profile.name, "en")
    try:
        text = write_gcg(recorded, profile, dist)
        problems = check_gcg(text)
        lines = [t for t in read_gcg(text).turns if t.kind in ("play", "exchange", "pass")]
        # a line whose rack nobody saw carries stand-in tiles and says so in a note: not a rack
        gcg_racks = [spell(x.rack.upper()) if x.rack and RACK_NOT_SEEN not in (x.note or "") else None
                     for x in lines]
        gcg_right = sum(1 for i, (t, _) in enumerate(truth) if i in pairs and pairs[i] < len(gcg_racks)
                        and gcg_racks[pairs[i]] is not None and Counter(gcg_racks[pairs[i]]) == Counter(t.rack))
    except Exception as exc:  # a GCG that cannot be written is a finding, not a crash
        text, problems, gcg_right = "", [f"write_gcg failed: {exc}"], 0
    return {"turns": len(truth), "matched": len(pairs), "racks_exact": exact, "rows": rows,
            "exchanges": {f"{a}->{b}": n for (a, b), n in sorted(kinds.items())},
            "exchange_truth": sum(1 for t, _ in truth if t.kind == "exchange"),
            "pass_truth": sum(1 for t, _ in truth if t.kind == "pass"),
            "exchange_right": kinds[("exchange", "exchange")], "pass_right": kinds[("pass", "pass")],
            "exchange_as_pass_for_review": flagged,
            "letters": letters, "letters_right": letters_right, "settles": len(rests), "rests": rests,
            "settles_unread": unread, "delay_ms_median": _median(delays),
            "delay_ms_p90": round(float(np.percentile(delays, 90)), 1) if delays else None,
            "gcg_racks_right": gcg_right, "gcg_problems": problems, "gcg": text,
            "plays_right": sum(1 for i, (t, _) in enumerate(truth) if t.kind == "play" and i in pairs),
            "plays": sum(1 for t, _ in truth if t.kind == "play"),
            "recorded_events": len(keeper.game.events), "rack_entries": rec["rack_entries"],
            "ms_per_rack_frame": rec["ms_per_rack_frame"], "ms_per_board_frame": rec["ms_per_board_frame"]}


SUM_KEYS = ("turns", "matched", "racks_exact", "exchange_truth", "exchange_right", "exchange_as_pass_for_review",
            "pass_truth", "pass_right",
            "letters", "letters_right", "settles", "settles_unread", "gcg_racks_right", "plays", "plays_right")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--split", default="all", choices=("held-out", "train", "all"))
    ap.add_argument("--videos", nargs="*")
    ap.add_argument("--turns", type=int, default=12)
    ap.add_argument("--render-only", action="store_true", help="render (cache) the frames, record nothing")
    ap.add_argument("--oracle", action="store_true",
                    help="racks read by the truth (OracleWatch), not vision.rack: the chain after reading")
    ap.add_argument("--rack-tiles", choices=RACK_TILES, default="board",
                    help="the racks' tiles: the board's (a real table's; default) or a look of their own")
    ap.add_argument("--out", help="default docs/results/rack_game_<commit>[_own].json")
    args = ap.parse_args()
    global rack_tiles
    rack_tiles = args.rack_tiles
    cv2.setNumThreads(1)
    commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=REPO, capture_output=True,
                            text=True).stdout.strip()
    rows = []
    for spec in VIDEOS:
        if args.split != "all" and spec["split"] != args.split or args.videos and spec["name"] not in args.videos:
            continue
        video = plan(spec, args.turns)
        print(f"{spec['name']} ({spec['split']}): {video.game.name}, {video.events} events, "
              f"{len(video.board)} board + {len(video.racks[0])} + {len(video.racks[1])} rack frames", flush=True)
        folder = render(spec, video)
        if args.render_only or not (folder / _truth_file()).is_file():
            continue
        r = measure(video, record(spec, video, folder, args.oracle))
        r.update(video=spec["name"], split=spec["split"], game=video.game.name, board_look=spec["board"],
                 rack_looks=json.loads((folder / _truth_file()).read_text())["looks"], rack_tiles=rack_tiles)
        rows.append(r)
        print(f"  racks exact {r['racks_exact']}/{r['turns']} turns ({r['matched']} matched), letters "
              f"{r['letters_right']}/{r['letters']}, exchanges {r['exchange_right']}/{r['exchange_truth']} "
              f"(as a pass for review {r['exchange_as_pass_for_review']}), passes "
              f"{r['pass_right']}/{r['pass_truth']} {r['exchanges']}, GCG racks {r['gcg_racks_right']}, GCG checks "
              f"{len(r['gcg_problems'])} problems, rack read {r['delay_ms_median']} ms after rest (p90 "
              f"{r['delay_ms_p90']}), {r['settles_unread']}/{r['settles']} rests never read, plays "
              f"{r['plays_right']}/{r['plays']}", flush=True)
    if args.render_only:
        return
    summary = {split: {k: sum(r[k] for r in rows if r["split"] == split) for k in SUM_KEYS}
               for split in ("held-out", "train") if any(r["split"] == split for r in rows)}
    for split, s in summary.items():
        part = [r for r in rows if r["split"] == split]
        s["videos"] = len(part)
        s["gcg_problems"] = sum(len(r["gcg_problems"]) for r in part)
        s["delay_ms_median"] = _median([r["delay_ms_median"] for r in part if r["delay_ms_median"] is not None])
        print(f"{split}: {s}")
    out = Path(args.out) if args.out else \
        REPO / "docs" / "results" / f"rack_game_{commit}{'_own' if rack_tiles == 'own' else ''}{'_oracle' if args.oracle else ''}.json"
    out.write_text(json.dumps({"summary": summary, "videos": rows, "commit": commit, "turns": args.turns,
                               "rack_tiles": rack_tiles,
                               "racks_read_by": "truth (OracleWatch)" if args.oracle else "vision.rack.RackWatch",
                               "machine": f"{platform.machine()} {os.cpu_count()} cpus"}, indent=1) + "\n")
    print(f"wrote {out}")


if __name__ == "__main__":
    main()
