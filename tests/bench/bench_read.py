"""Eval: the tile reader on the real ScrabScrap frames, with and without enrollment.

    python tests/bench/bench_read.py [--model models/tiles.onnx] [--no-synthetic]

Frames: game06/07/08 are ScrabScrap's pre-warped boards (grid fitted by
vision.locate.prewarped_corners); game05 is raw, warped with the board corners in its
game.ini and then fitted the same way (what a user with a fixed camera would do); game12 is
raw with no corners and is read through vision.locate when that module exists.
game07 and game08 are the same game (17 of 18 frames identical), so leave-one-out
enrollment holds out game07+game08 together.

The reader is the one the recorder uses, built by vision.load_tile_reader: the classifier
fused with the text recogniser (vision.fuse.FusedTileReader) when ``[read] recogniser`` is on (the
default) and the recogniser's wheel is installed; ``--classifier-only`` measures the classifier
alone. Each frame is read as the recorder reads it: the warp, and the frame with its homography (the
fused reader cuts its letters from the frame); the frames of a group in order, one reader per group
(the recogniser's per-square cache lives as long as a game).

Writes docs/results/read.json (machine, commit) and the "real" section of the model card
(``--no-card``: not the card).
"""
from __future__ import annotations

import argparse
import configparser
import json
import os
import platform
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path

import cv2
import numpy as np

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO))

from tilecam.api.settings import load_settings  # noqa: E402
from tilecam.vision import load_tile_reader  # noqa: E402
from tilecam.vision.classify import ReadConfig, TileReader  # noqa: E402
from tilecam.vision.locate import prewarped_corners  # noqa: E402
from tilecam.vision.enroll import enroll_labelled  # noqa: E402
from tilecam.vision.rectify import homography_from_corners, warp_board  # noqa: E402

GROUPS = {"game05": ("game05",), "game06": ("game06",), "game07+08": ("game07", "game08"), "game12": ("game12",)}
LETTERS = set("ABCDEFGHIJKLMNOPQRSTUVWXYZÄÖÜ")


def load_frames(data: Path, game: str, px: int) -> tuple[list, str]:
    """[(name, warped, truth board, (frame, homography) or None)] and how the grid was found."""
    rows = [json.loads(x) for x in (data / game / "truth.jsonl").read_text(encoding="utf-8").splitlines() if x.strip()]
    ini = configparser.ConfigParser()
    ini.read(data / game / "game.ini")
    outer = None
    if ini.has_option("default", "warp-coord"):
        outer = np.array(json.loads(ini.get("default", "warp-coord")), np.float32)
    out, how = [], ""
    for row in rows:
        image = cv2.imread(str(data / game / row["frame"]), cv2.IMREAD_COLOR)
        if not row["raw"]:
            corners, how = prewarped_corners(image), "pre-warped, grid fitted"
        elif outer is not None:
            # warp the board edge to edge as ScrabScrap does, fit the grid there, map back
            side = 800.0
            to_board = cv2.getPerspectiveTransform(
                outer, np.float32([[0, 0], [side, 0], [side, side], [0, side]]))
            board_img = cv2.warpPerspective(image, to_board, (int(side), int(side)))
            fitted = prewarped_corners(board_img).reshape(1, 4, 2)
            corners = cv2.perspectiveTransform(fitted, np.linalg.inv(to_board))[0]
            how = "raw, board corners from game.ini, grid fitted"
        else:
            try:
                from tilecam.vision.locate import LocateConfig, find_board
            except ModuleNotFoundError:
                return [], "raw without corners: vision.locate not available, skipped"
            from tilecam.vision.errors import BoardNotFound
            try:
                corners = find_board(image, LocateConfig()).corners
            except BoardNotFound as exc:
                print(f"{game}/{row['frame']}: board not found ({exc}); counted as all wrong")
                corners = None
            how = "raw, vision.locate"
        homography = None if corners is None else homography_from_corners(corners, px)
        warped = None if corners is None else warp_board(image, homography, px)
        out.append((row["frame"], warped, row["board"], None if corners is None else (image, homography)))
    return out, how


def truth_label(ch: str) -> str:
    return "?" if ch.islower() else ch


def make_reader(model: Path, lang: str = "de", tileset=None, recogniser: bool = True) -> TileReader:
    """The tile reader as the recorder builds it (vision.load_tile_reader), default settings."""
    return load_tile_reader(load_settings(read={"recogniser": recogniser}), lang, model=model, tileset=tileset)


def score(reader: TileReader, frames: list) -> dict:
    conf = Counter()
    n = ok = n_let = ok_let = 0
    if hasattr(reader, "_cache"):   # a fused reader: a group's frames are one game, its cache starts afresh
        reader._cache.clear()
    for name, warped, board, source in frames:
        truth = [truth_label(ch) for row in board for ch in row]
        pred = ["#"] * 225 if warped is None else \
            [ch for row in reader.read(warped, source=source).board() for ch in row]
        for t, p in zip(truth, pred):
            n += 1
            ok += t == p
            if t in LETTERS:
                n_let += 1
                ok_let += t == p
            if t != p:
                conf[f"{t}->{p}"] += 1
    return {"frames": len(frames), "squares": n, "per_square": round(ok / max(n, 1), 5),
            "errors": n - ok, "letters": n_let, "letters_acc": round(ok_let / max(n_let, 1), 5),
            "confusions": dict(conf.most_common(12))}


def timing(reader: TileReader, warped: np.ndarray, repeat: int = 200) -> dict:
    cv2.setNumThreads(1)
    crops = reader.crops(warped)
    for _ in range(3):
        reader.embed(crops)
    t_cls, t_read = [], []
    for _ in range(repeat):
        t0 = time.perf_counter()
        reader.embed(crops)
        t_cls.append(time.perf_counter() - t0)
        t0 = time.perf_counter()
        reader.read(warped)
        t_read.append(time.perf_counter() - t0)
    # the minimum is the uncontended cost; the median shows what other jobs on the machine cost
    return {"classify_225_ms_median": round(1000 * float(np.median(t_cls)), 2),
            "classify_225_ms_min": round(1000 * float(np.min(t_cls)), 2),
            "read_225_ms_median": round(1000 * float(np.median(t_read)), 2),
            "read_225_ms_min": round(1000 * float(np.min(t_read)), 2),
            "load_average_1min": round(os.getloadavg()[0], 2),
            "note": "one onnxruntime intra-op thread, cv2.setNumThreads(1); "
                    "read = crops + network + probabilities"}


def git_commit() -> str:
    try:
        return subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=REPO, capture_output=True,
                              text=True, check=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return "unknown"


def _factors(card: dict) -> tuple[dict, dict]:
    """(trained, held out) factors of the model card: fonts, styles, designs, labels, and the render
    factors (``render_<name>``: models.synth.looks.RENDER_FACTORS, issue 28; a card without them
    was trained before they existed, on their first options, the old looks)."""
    from tilecam.models.synth import DESIGNS, LABEL_STYLES, RENDER_FACTORS, STYLES, available_fonts
    tr, held = card["training"], card["training"]["held_out"]
    trained = {"fonts": tuple(tr.get("fonts") or available_fonts()), "styles": tuple(tr.get("styles") or STYLES),
               "designs": tuple(tr.get("designs") or DESIGNS), "labels": tuple(tr.get("labels") or LABEL_STYLES)}
    render = {k: tuple(v) for k, v in (tr.get("render_factors") or {k: v[:1] for k, v in RENDER_FACTORS.items()}).items()}
    trained["render"] = tuple(render.items())
    out = {"fonts": tuple(held.get("fonts") or [held["font"]]), "styles": (held["style"],),
           "designs": (held["scheme"],) if "scheme" in held else (), "labels": (held["labels"],) if "labels" in held else ()}
    for name, options in (held.get("render") or {}).items():
        out[f"render_{name}"] = tuple({**render, name: tuple(options)}.items())
    return trained, {k: v for k, v in out.items() if v}


def _spec_kwargs(trained: dict, held: dict, names) -> dict:
    """DataSpec fields for the trained factors with the named held-out ones swapped in."""
    kw = dict(trained)
    for name in names:
        if name.startswith("render_"):
            kw["render"] = tuple({**dict(kw["render"]), name[7:]: dict(held[name])[name[7:]]}.items())
        else:
            kw[name] = held[name]
    return kw


def synthetic(card: dict, model: Path, boards: int = 40, also: Path | None = None, cache: Path | None = None) -> dict:
    """Each held-out factor on its own, and all together, re-rendered as in training (needs
    models.synth); seeds other than training's. ``card`` names the factors (another model's card
    measures this model on that model's held-out sets). ``also``: a second model measured on the
    same renders, under "also". ``cache``: a folder keeping the rendered sets (npz) for the next run."""
    import onnxruntime as ort

    from tilecam.models.dataset import DataSpec, build
    from tilecam.models.train import onnx_accuracy
    trained, held = _factors(card)
    opts = ort.SessionOptions()
    opts.intra_op_num_threads = 1
    session = ort.InferenceSession(str(model), opts, providers=["CPUExecutionProvider"])
    second = None if also is None else ort.InferenceSession(str(also), opts, providers=["CPUExecutionProvider"])
    sets = {f"heldout_{k}": DataSpec(boards=boards, seed=902 + i, **_spec_kwargs(trained, held, [k]))
            for i, k in enumerate(held)}
    sets["heldout_all"] = DataSpec(boards=boards, seed=909 if len(held) < 8 else 920,
                                   **_spec_kwargs(trained, held, held))
    sets["trained_factors"] = DataSpec(boards=boards, seed=910 if len(held) < 9 else 921, **trained)
    out: dict = {}
    for k, spec in sets.items():
        path = None if cache is None else cache / f"{k}_{spec.seed}_{boards}.npz"
        if path is not None and path.is_file():
            data = dict(np.load(path))
        else:
            data = build(spec, workers=2)
            if path is not None:
                path.parent.mkdir(parents=True, exist_ok=True)
                np.savez(path, **data)
        out[k] = onnx_accuracy(session, data)
        if second is not None:
            out.setdefault("also", {})[k] = onnx_accuracy(second, data)
        print(k, out[k], (out.get("also") or {}).get(k, ""), flush=True)
    return out


def tile_check(model: Path, card_path: Path, held_out: bool, seeds=(11, 12, 13)) -> dict:
    """Label-free enrollment on synthetic English tile checks (all 100 tiles face up at random
    squares, half of them quarter-turned), in looks made of trained or of held-out factors:
    share of squares assigned right, and the time."""
    from tilecam.models.synth import SceneConfig, render_topdown
    from tilecam.scoring.tiles import DISTRIBUTIONS
    from tilecam.vision.enroll import enroll_tile_check

    counts = DISTRIBUTIONS["en"].counts
    tiles = [t for t, n in counts.items() for _ in range(n)]
    reader = TileReader(model, card_path, lang="en")
    trained, held = _factors(json.loads(card_path.read_text(encoding="utf-8")))
    factors = {**trained, **held} if held_out else trained
    factors = {k: v for k, v in factors.items() if k in ("fonts", "styles", "designs", "labels")}
    px = int(reader.card["square_px"])
    acc, secs, looks = [], [], []
    for seed in seeds:
        cells = ["."] * 225
        for square, tile in zip(np.random.default_rng(seed).permutation(225)[:len(tiles)], tiles):
            cells[square] = tile
        board = ["".join(cells[r * 15:(r + 1) * 15]) for r in range(15)]
        pick = np.random.default_rng([seed, 1])
        look = {k[:-1] if k != "labels" else k: str(pick.choice(v)) for k, v in factors.items()}
        look = {"font": look["font"], "style": look["style"], "design": look["design"], "labels": look["labels"]}
        td = render_topdown(board, seed, SceneConfig(quarter_turn_prob=0.5, **look))
        warped = warp_board(td.image, homography_from_corners(td.corners, px), px)
        t0 = time.perf_counter()
        _, assigned = enroll_tile_check(reader, warped, counts)
        secs.append(time.perf_counter() - t0)
        acc.append(float(np.mean([a == b for a, b in zip("".join(assigned), "".join(board))])))
        looks.append(look)
    return {"renders": len(seeds), "looks": looks, "per_square": round(float(np.mean(acc)), 5),
            "per_square_min": round(min(acc), 5), "enroll_s_max": round(max(secs), 3)}


def real_tile_check(model: Path, card_path: Path, english: Path) -> dict:
    """The label-free tile check on real tiles: the finished board of the English 2015 game holds
    all 100 tiles face up (12 photos, true corners), which is what a tile check shows."""
    from tilecam.scoring.tiles import DISTRIBUTIONS
    from tilecam.vision.enroll import enroll_tile_check
    from tilecam.vision.tileset import EnrollError

    counts = DISTRIBUTIONS["en"].counts
    reader = TileReader(model, card_path, lang="en")
    px = int(reader.card["square_px"])
    rows = [json.loads(x) for x in (english / "truth.jsonl").read_text(encoding="utf-8").splitlines() if x.strip()]
    full = [r for r in rows if sum(ch != "." for line in r["board"] for ch in line) == 100]
    per = {}
    for r in full:
        image = cv2.imread(str(english / "frames" / r["frame"]), cv2.IMREAD_COLOR)
        warped = warp_board(image, homography_from_corners(np.float32(r["corners"]), px), px)
        try:
            _, assigned = enroll_tile_check(reader, warped, counts)
        except EnrollError as exc:  # the check refuses the board: every tile counts as wrong
            per[r["frame"]] = {"per_square": 0.0, "tiles": 0.0, "error": str(exc)}
            continue
        truth, got = "".join(r["board"]), "".join(assigned)
        tiles = [i for i, ch in enumerate(truth) if ch != "."]
        per[r["frame"]] = {"per_square": round(float(np.mean([a == b for a, b in zip(got, truth)])), 5),
                           "tiles": round(float(np.mean([got[i] == truth[i] for i in tiles])), 5)}
    return {"photos": len(per), "per_square": round(float(np.mean([v["per_square"] for v in per.values()])), 5),
            "tiles": round(float(np.mean([v["tiles"] for v in per.values()])), 5),
            "tiles_min": round(min(v["tiles"] for v in per.values()), 5), "per_photo": per}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--model", default=str(REPO / "models" / "tiles.onnx"))
    ap.add_argument("--no-synthetic", action="store_true", help="skip the held-out synthetic sets")
    ap.add_argument("--out", default=str(REPO / "docs" / "results" / "read.json"))
    ap.add_argument("--classifier-only", action="store_true",
                    help="the classifier alone ([read] recogniser = false), not the fused reader")
    ap.add_argument("--no-card", action="store_true", help="do not write the model card")
    ap.add_argument("--factors-card", default="",
                    help="the card whose trained and held-out factors make the synthetic sets (default: the "
                         "model's own): measures two models on the same sets")
    ap.add_argument("--no-scrabscrap", action="store_true", help="only the synthetic sets")
    ap.add_argument("--plain-only", action="store_true",
                    help="ScrabScrap without enrollment only (no enrolled reads, no timing; implies --no-card)")
    ap.add_argument("--synthetic-boards", type=int, default=40, help="boards per synthetic set")
    ap.add_argument("--also-model", default="", help="with --no-scrabscrap: a second model on the same renders")
    ap.add_argument("--sets-cache", default="", help="folder keeping the rendered synthetic sets between runs")
    args = ap.parse_args()
    data = Path(os.environ.get("TILECAM_SHARED_DATA", REPO.parent / "shared" / "data")) / "scrabscrap"
    model = Path(args.model)
    card_path = model.with_suffix("").with_suffix(".card.json")
    card = json.loads(card_path.read_text(encoding="utf-8"))
    factors_card = json.loads(Path(args.factors_card).read_text(encoding="utf-8")) if args.factors_card else card
    if args.no_scrabscrap:
        also = Path(args.also_model) if args.also_model else None
        cache = Path(args.sets_cache) if args.sets_cache else None
        result = {"synthetic": synthetic(factors_card, model, args.synthetic_boards, also, cache),
                  "also_model": args.also_model or None, "boards_per_set": args.synthetic_boards,
                  "factors_card": args.factors_card or "the model's",
                  "commit": git_commit(), "date": time.strftime("%Y-%m-%d"),
                  "model": str(model.relative_to(REPO)) if model.is_relative_to(REPO) else str(model)}
        print("synthetic:", json.dumps(result["synthetic"]))
        Path(args.out).write_text(json.dumps(result, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
        print(f"wrote {args.out}")
        return 0
    recogniser = not args.classifier_only
    reader = make_reader(model, "de", recogniser=recogniser)
    print(f"reader: {type(reader).__name__}")
    px = int(card["square_px"])

    frames, how = {}, {}
    for group, games in GROUPS.items():
        frames[group] = []
        for g in games:
            f, h = load_frames(data, g, px)
            frames[group] += f
            how[g] = h
    for g, h in how.items():
        print(f"{g}: {h}")

    result: dict = {"reader": type(reader).__name__, "frames_how": how, "without_enrollment": {},
                    "leave_one_group_out": {}}
    all_frames = [f for fs in frames.values() for f in fs]
    for group, fs in frames.items():
        if fs:
            result["without_enrollment"][group] = score(reader, fs)
    result["without_enrollment"]["all"] = score(reader, all_frames)
    print("without enrollment:", json.dumps({k: (v["per_square"], v["letters_acc"])
                                             for k, v in result["without_enrollment"].items()}))
    if args.plain_only:
        result.update(commit=git_commit(), date=time.strftime("%Y-%m-%d"), model=str(model),
                      read_config=ReadConfig().model_dump(exclude={"threads"}))
        Path(args.out).write_text(json.dumps(result, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
        print(f"wrote {args.out}")
        return 0

    enroll_s = []
    tot = Counter()
    for group, fs in frames.items():
        if not fs:
            continue
        usable = [(w, b) for _, w, b, _ in fs if w is not None]
        t0 = time.perf_counter()
        tileset = enroll_labelled(reader, usable)
        enroll_s.append(time.perf_counter() - t0)
        enrolled = make_reader(model, "de", tileset=tileset, recogniser=recogniser)
        tested = {}
        for other, ofs in frames.items():
            if other != group and ofs:
                tested[other] = score(enrolled, ofs)
                tot["n"] += tested[other]["squares"]
                tot["errors"] += tested[other]["errors"]
                tot["letters"] += tested[other]["letters"]
                tot["letter_ok"] += round(tested[other]["letters_acc"] * tested[other]["letters"])
        result["leave_one_group_out"][f"enrolled_on_{group}"] = {
            "enroll_frames": len(usable), "enroll_s": round(enroll_s[-1], 3), "tested": tested}
        print(f"enrolled on {group} ({len(usable)} frames, {enroll_s[-1]:.2f} s):",
              json.dumps({k: (v["per_square"], v["letters_acc"], v["confusions"]) for k, v in tested.items()},
                         ensure_ascii=False))
    result["after_enrollment_on_another_game"] = {
        "squares": tot["n"], "per_square": round(1 - tot["errors"] / max(tot["n"], 1), 5),
        "letters_acc": round(tot["letter_ok"] / max(tot["letters"], 1), 5)}
    result["enroll_s_max"] = round(max(enroll_s), 3)
    sample = next(w for _, w, _, _ in frames["game06"] if w is not None)
    result["timing"] = timing(reader, sample)
    print("timing:", result["timing"])
    if not args.no_synthetic:
        result["synthetic"] = synthetic(factors_card, model, args.synthetic_boards)
        print("synthetic:", result["synthetic"])
        result["tile_check_label_free"] = {
            "trained_factors": tile_check(model, card_path, held_out=False),
            "held_out_factors": tile_check(model, card_path, held_out=True),
            "real_english_finished_board": real_tile_check(model, card_path, data.parent / "english")}
        print("label-free tile check:", json.dumps({k: {kk: vv for kk, vv in v.items() if kk not in ("per_photo", "looks")}
                                                     for k, v in result["tile_check_label_free"].items()}))
    # the enrollment settings measured (chosen on synthetic games by select_enroll.py)
    result["read_config"] = ReadConfig().model_dump(exclude={"threads"})
    result["targets"] = {"per_square_after_enrollment": 0.999, "letters_without_enrollment": 0.97,
                         "classify_225_ms": 5.0, "enroll_s": 10.0}
    result["machine"] = f"{platform.machine()} {os.cpu_count()} cpus, {platform.processor() or platform.system()}"
    result["commit"] = git_commit()
    result["date"] = time.strftime("%Y-%m-%d")
    result["model"] = str(model.relative_to(REPO)) if model.is_relative_to(REPO) else str(model)
    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(result, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    # the model card carries the headline numbers
    card.setdefault("accuracy", {})["real_scrabscrap"] = {
        "frames_how": how,
        "without_enrollment": {k: {"per_square": v["per_square"], "letters": v["letters_acc"]}
                               for k, v in result["without_enrollment"].items()},
        "after_enrollment_on_another_game": result["after_enrollment_on_another_game"],
        "enroll_s_max": result["enroll_s_max"], "timing": result["timing"], "read_config": result["read_config"],
        "machine": result["machine"] + " (shared VM, other jobs running)", "commit": result["commit"],
        "date": result["date"]}
    if "synthetic" in result:
        card["accuracy"]["synthetic_bench"] = result["synthetic"]
        card["accuracy"]["tile_check_label_free"] = result["tile_check_label_free"]
    if args.no_card:
        print(f"wrote {out}")
        return 0
    card_path.write_text(json.dumps(card, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    print(f"wrote {out} and {card_path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
