"""Choose the enrollment settings of the tile reader without the real dev frames.

    python tests/bench/select_enroll.py [--sets 8] [--out docs/results/select_enroll.json]
    python tests/bench/select_enroll.py --dev-check   # second, independent check (see below)

Selection data: synthetic games in tile sets the network never trained on (models/train.py
holds out font dejavu-condensed and tile style coloured). A tile set is a font, a tile style
and a board design rendered with one scene seed (so both games share the board's print and
the tiles' colours). A game grows as a real one does: tiles drawn from the German bag
(1 Ä, 1 Ö, 1 Ü, 1 Q, ... 2 blanks), laid in lines of 2-7 through or beside the tiles already
down, one frame after each play until about 80 tiles lie; each game has its own camera:
tile lean and nadir, colour cast, exposure, uneven light, blur, noise, JPEG quality, grid
error. Every tile set has two games; the reader is enrolled on one (vision.enroll.
enroll_labelled on all its frames) and scored per square on every frame of the other, both
ways. The chosen setting minimises the errors pooled over all tile sets and directions; the
grid and every setting's numbers go to docs/results/select_enroll.json.

--dev-check: nested leave-one-game-out on the real dev games, as an independent check. For
each test game, the setting is chosen on the enrollment pairs that do not involve that game
(enrol on A, test on B, A and B both different from the test game), then scored on the
test game enrolled on each other game. Reports the chosen setting per test game and the
pooled errors. It does not feed the selection above.
"""
from __future__ import annotations

import argparse
import itertools
import json
import os
import platform
import sys
import time
from collections import Counter
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO))

from tilecam.vision.classify import ReadConfig, TileReader, cap_counts, square_colours  # noqa: E402
from tilecam.vision.enroll import enroll_labelled  # noqa: E402
from tilecam.vision.rectify import GRID, homography_from_corners, warp_board  # noqa: E402
from bench_read import git_commit  # noqa: E402  (this folder is on sys.path when run as a script)

# (font, tile style, board design): every set holds out the font, the style or both
TILE_SETS = [
    ("dejavu-condensed", "wood", "standard"),
    ("dejavu-condensed", "ivory", "tournament_green"),
    ("dejavu-condensed", "coloured", "dark"),
    ("dejavu-condensed", "coloured", "standard"),
    ("dejavu-sans", "coloured", "tournament_green"),
    ("liberation-serif", "coloured", "standard"),
    ("texgyre-heros", "coloured", "dark"),
    ("dejavu-condensed", "wood", "dark"),
    ("freeserif", "coloured", "tournament_green"),
    ("dejavu-condensed", "ivory", "standard"),
]
GRID_SETTINGS = {
    "prototype_weight": [0.2, 0.35, 0.5, 0.65],
    "prior_tiles": [0.0, 4.0, 8.0],
    "recalibrate": [False, True],
    "knn": [3, 8],
    "colour_weight": [0.1, 0.2],
}
LETTERS = set("ABCDEFGHIJKLMNOPQRSTUVWXYZÄÖÜ")


def game_boards(rng: np.random.Generator, bag: list[str], max_tiles: int = 80) -> list[list[str]]:
    """Boards after each play of a random game: lines of 2-7 new tiles through or beside
    the tiles already down (crossword-like clusters, tiles next to tiles)."""
    tiles = list(bag)
    rng.shuffle(tiles)
    cells = [["."] * GRID for _ in range(GRID)]
    boards: list[list[str]] = []
    placed = 0
    while placed < max_tiles and tiles:
        n = int(rng.integers(2, 8))
        for _ in range(200):  # find a line with n empty squares
            if placed == 0:
                r, c, dr, dc = 7, int(rng.integers(7 - n + 1, 8)), 0, 1
            else:
                occ = [(i, j) for i in range(GRID) for j in range(GRID) if cells[i][j] != "."]
                r, c = occ[int(rng.integers(len(occ)))]
                dr, dc = ((0, 1), (1, 0))[int(rng.integers(2))]
                r += (dc) * int(rng.integers(-1, 2))  # through the tile, or one line beside it
                c += (dr) * int(rng.integers(-1, 2))
                back = int(rng.integers(0, n + 1))
                r, c = r - dr * back, c - dc * back
            squares = []
            i, j = r, c
            while 0 <= i < GRID and 0 <= j < GRID and len(squares) < n:
                if cells[i][j] == ".":
                    squares.append((i, j))
                i, j = i + dr, j + dc
            if len(squares) == n and (placed == 0 or _touches(cells, squares)):
                break
        else:
            break
        for (i, j) in squares:
            if not tiles:
                break
            cells[i][j] = tiles.pop()
            placed += 1
        boards.append(["".join(row) for row in cells])
    return boards


def _touches(cells, squares) -> bool:
    for i, j in squares:
        for a, b in ((i - 1, j), (i + 1, j), (i, j - 1), (i, j + 1)):
            if 0 <= a < GRID and 0 <= b < GRID and cells[a][b] != ".":
                return True
    return False


def render_game(boards, scene_seed: int, camera_seed: int, font: str, style: str, design: str,
                px: int) -> list[np.ndarray]:
    """Canonical grid images of a game's frames: one board and tile set (scene seed), one
    camera for the whole game (camera seed: lean, light, blur, noise, JPEG, grid error)."""
    from tilecam.models.dataset import degrade, raise_tiles
    from tilecam.models.synth import SceneConfig, render_topdown

    cfg = SceneConfig(font=font, style=style, design=design, square_px=50, quarter_turn_prob=0.1)
    empty = render_topdown(["." * GRID] * GRID, scene_seed, cfg).image
    out = []
    for board in boards:
        td = render_topdown(board, scene_seed, cfg)
        rng = np.random.default_rng(camera_seed)  # the same camera for every frame
        image = td.image
        if rng.random() < 0.8:
            image = raise_tiles(image, empty, rng, 0.035)
        image = degrade(image, rng, td.square_px / 50.0)
        corners = td.corners.astype(np.float32).copy()
        corners += rng.uniform(-1, 1, size=2).astype(np.float32) * 0.1 * td.square_px
        corners += rng.uniform(-1, 1, size=(4, 2)).astype(np.float32) * 1.5 * td.square_px / 50.0
        out.append(warp_board(image, homography_from_corners(corners, px), px))
    return out


def truth_cells(board) -> list[str]:
    return ["?" if ch.islower() else ch for row in board for ch in row]


class Game:
    """One game's frames with the network's outputs cached (settings only change the blend)."""

    def __init__(self, reader: TileReader, name: str, frames: list[tuple[np.ndarray, list[str]]]) -> None:
        self.name = name
        self.frames = frames
        self.out = []
        for warped, board in frames:
            crops = reader.crops(warped)
            logits, _, emb = reader.embed(crops)
            truth = np.array([reader.classes.index(t) for t in truth_cells(board)])
            self.out.append((logits, emb, square_colours(crops), truth))


def score(reader: TileReader, game: Game) -> dict:
    n = err = n_let = err_let = 0
    nll = 0.0
    conf = Counter()
    letters = np.array([c in LETTERS for c in reader.classes])
    for logits, emb, colours, truth in game.out:
        probs = reader.class_probs(logits, emb, colours=colours)
        if reader.cfg.cap_counts:
            probs = cap_counts(probs, reader.caps)
        pred = probs.argmax(axis=1)
        nll += float(-np.log(np.maximum(probs[np.arange(len(truth)), truth], 1e-9)).sum())
        wrong = pred != truth
        n += len(truth)
        err += int(wrong.sum())
        n_let += int(letters[truth].sum())
        err_let += int((wrong & letters[truth]).sum())
        for t, p in zip(truth[wrong], pred[wrong]):
            conf[f"{reader.classes[t]}->{reader.classes[p]}"] += 1
    return {"squares": n, "errors": err, "letters": n_let, "letter_errors": err_let, "nll": nll,
            "confusions": conf}


def settings_grid(base: ReadConfig, grid: dict) -> list[ReadConfig]:
    keys = list(grid)
    return [base.model_copy(update=dict(zip(keys, vals))) for vals in itertools.product(*grid.values())]


def label(cfg: ReadConfig, keys) -> str:
    return " ".join(f"{k}={getattr(cfg, k)}" for k in keys)


def evaluate(model: Path, card: Path, pairs: list[tuple[Game, Game]], configs: list[ReadConfig],
             keys) -> dict[str, dict]:
    """Errors of every setting, pooled over (enrolled on, tested on) pairs."""
    totals = {label(c, keys): Counter() for c in configs}
    confusions = {label(c, keys): Counter() for c in configs}
    readers: dict[str, TileReader] = {}
    for enrol, test in pairs:
        if enrol.name not in readers:
            ts = enroll_labelled(readers.setdefault("", TileReader(model, card, lang="de")), enrol.frames)
            readers[enrol.name] = TileReader(model, card, tileset=ts, lang="de")
        reader = readers[enrol.name]
        for cfg in configs:
            reader = TileReader(model, card, tileset=reader.tileset, lang="de", cfg=cfg)  # the real API: settings at load
            s = score(reader, test)
            key = label(cfg, keys)
            for k in ("squares", "errors", "letters", "letter_errors", "nll"):
                totals[key][k] += s[k]
            confusions[key].update(s["confusions"])
        print(f"    enrolled on {enrol.name}, tested on {test.name}: {len(configs)} settings", flush=True)
    return {k: {**{a: (round(b / max(v["squares"], 1), 5) if a == "nll" else b) for a, b in v.items()},
                "per_square": round(1 - v["errors"] / max(v["squares"], 1), 5),
                "confusions": dict(confusions[k].most_common(8))} for k, v in totals.items()}


def synthetic_games(reader: TileReader, n_sets: int, px: int) -> list[tuple[Game, Game]]:
    from tilecam.scoring.tiles import DISTRIBUTIONS

    counts = DISTRIBUTIONS["de"].counts
    bag = [t for t, n in counts.items() for _ in range(n)]
    pairs = []
    for i, (font, style, design) in enumerate(TILE_SETS[:n_sets]):
        scene_seed = 5000 + i
        games = []
        for g in range(2):
            rng = np.random.default_rng([scene_seed, g])
            boards = game_boards(rng, bag)
            warped = render_game(boards, scene_seed, 70_000 + 10 * i + g, font, style, design, px)
            games.append(Game(reader, f"{font}/{style}/{design}#{g}", list(zip(warped, boards))))
            print(f"  {games[-1].name}: {len(boards)} frames, {sum(ch != '.' for ch in ''.join(boards[-1]))} tiles",
                  flush=True)
        pairs += [(games[0], games[1]), (games[1], games[0])]
    return pairs


def no_enrollment(reader: TileReader, games: list[Game]) -> dict:
    tot = Counter()
    for g in games:
        s = score(reader, g)
        for k in ("squares", "errors", "letters", "letter_errors"):
            tot[k] += s[k]
    return {**dict(tot), "per_square": round(1 - tot["errors"] / max(tot["squares"], 1), 5)}


def dev_games(reader: TileReader, px: int) -> list[Game]:
    sys.path.insert(0, str(REPO / "tests" / "bench"))
    from bench_read import GROUPS, load_frames

    data = Path(os.environ.get("TILECAM_SHARED_DATA", REPO.parent / "shared" / "data")) / "scrabscrap"
    games = []
    for group, names in GROUPS.items():
        frames = []
        for g in names:
            frames += [(w, b) for _, w, b in load_frames(data, g, px)[0] if w is not None]
        games.append(Game(reader, group, frames))
    return games


def best(results: dict[str, dict]) -> str:
    # fewest errors; ties go to the lower mean negative log-likelihood of the truth
    return min(results, key=lambda k: (results[k]["errors"], results[k]["nll"]))


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--model", default=str(REPO / "models" / "tiles.onnx"))
    ap.add_argument("--sets", type=int, default=len(TILE_SETS), help="how many synthetic tile sets")
    ap.add_argument("--dev-check", action="store_true", help="nested leave-one-game-out on the dev games")
    ap.add_argument("--out", default=str(REPO / "docs" / "results" / "select_enroll.json"))
    args = ap.parse_args()
    model = Path(args.model)
    card = model.with_suffix("").with_suffix(".card.json")
    reader = TileReader(model, card, lang="de")
    px = int(reader.card["square_px"])
    base = ReadConfig()
    keys = list(GRID_SETTINGS)
    configs = settings_grid(base, GRID_SETTINGS)
    out_path = Path(args.out)
    result = json.loads(out_path.read_text("utf-8")) if out_path.exists() else {}

    t0 = time.perf_counter()
    if not args.dev_check:
        print("rendering synthetic games", flush=True)
        pairs = synthetic_games(reader, args.sets, px)
        games = [g for pair in pairs[::2] for g in pair]
        res = evaluate(model, card, pairs, configs, keys)
        chosen = best(res)
        cfg = next(c for c in configs if label(c, keys) == chosen)
        per_pair = {}
        for a, b in pairs:
            plain = no_enrollment(reader, [b])
            got = evaluate(model, card, [(a, b)], [cfg], keys)[chosen]
            per_pair[f"{a.name} -> {b.name}"] = {"without_enrollment": plain["errors"], "chosen": got["errors"],
                                                  "squares": got["squares"], "confusions": got["confusions"]}
        result["synthetic"] = {
            "tile_sets": [list(t) for t in TILE_SETS[:args.sets]],
            "games": len(games), "frames": sum(len(g.frames) for g in games),
            "pairs": len(pairs), "without_enrollment": no_enrollment(reader, games),
            "grid": GRID_SETTINGS, "chosen": chosen, "chosen_result": res[chosen], "per_pair": per_pair,
            "results": res}
        print(f"without enrollment: {result['synthetic']['without_enrollment']}")
        for k in sorted(res, key=lambda k: res[k]["errors"])[:10]:
            print(f"  {k}: {res[k]['per_square']} ({res[k]['errors']} errors) {res[k]['confusions']}")
        print(f"chosen on synthetic games: {chosen}")
    else:
        games = dev_games(reader, px)
        nested = {}
        tot = Counter()
        for test in games:
            others = [g for g in games if g is not test]
            choose_pairs = [(a, b) for a in others for b in others if a is not b]
            res = evaluate(model, card, choose_pairs, configs, keys)
            chosen = best(res)
            cfg = next(c for c in configs if label(c, keys) == chosen)
            held = evaluate(model, card, [(a, test) for a in others], [cfg], keys)[chosen]
            nested[test.name] = {"chosen": chosen, "tested": held}
            for k in ("squares", "errors", "letters", "letter_errors"):
                tot[k] += held[k]
            print(f"test {test.name}: chosen {chosen} -> {held['per_square']} ({held['errors']} errors) "
                  f"{held['confusions']}", flush=True)
        result["dev_nested_leave_one_game_out"] = {
            "per_test_game": nested, "pooled": {**dict(tot), "per_square": round(1 - tot["errors"] / tot["squares"], 5)}}
        print("pooled:", result["dev_nested_leave_one_game_out"]["pooled"])
    key = "synthetic" if not args.dev_check else "dev_nested_leave_one_game_out"
    result[key]["seconds"] = round(time.perf_counter() - t0, 1)
    result[key]["commit"] = git_commit()
    result[key]["machine"] = (f"{platform.machine()} {os.cpu_count()} cpus (shared VM), "
                              f"load {os.getloadavg()[0]:.2f}")
    result[key]["defaults"] = {k: getattr(base, k) for k in keys}
    out_path.parent.mkdir(parents=True, exist_ok=True)
    out_path.write_text(json.dumps(result, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    print(f"wrote {out_path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
