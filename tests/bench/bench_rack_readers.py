"""The rack readers on the TRUE tile quads (no finder): which text recogniser (PP-OCRv4, the
rapidocr_onnxruntime wheel's; PP-OCRv6 small, the rapidocr 3.10 wheel's; or both) and whether the
board's printed-face rules read rack tiles (issue 38, Build 4).

Racks as tests/bench/bench_rack.py renders them (the same seeds: its first ``--racks`` racks of each
split), read at the renderer's own quads, so the finder's errors are left out. Per split (train /
held-out: one factor held out / held-out, all) and per reader:
  exact     racks whose every tile is read right
  letters   tiles read right
  blanks    blanks read as blanks; letters read as blanks (a face rule's false alarms)
Plus the printed blanks: racks of five letters and two blanks whose blanks carry a print, the training
prints (face, star, heart) in training looks, and the held-out print (logo) with every other factor in
training looks (``blanks_heldout``) or held out too (``blanks_heldout_all``).

    .venv/bin/python tests/bench/bench_rack_readers.py [--racks 100] [--blank-racks 30]

Needs the rapidocr 3.10 wheel for v6 (``pip install --no-deps rapidocr==3.10.0``). Writes
docs/results/rack_readers_<commit>.json.
"""
from __future__ import annotations

import argparse
import json
import subprocess
import sys
import time
from pathlib import Path

import cv2
import numpy as np

from tilecam.api.settings import load_settings
from tilecam.models.synth import draw_look, render_rack
from tilecam.scoring.tiles import DISTRIBUTIONS
from tilecam.vision.assemble import load_tile_reader
from tilecam.vision.fuse import fit_temperature, printed_face, product_letters
from tilecam.vision.rack import BLANK, RECOGNISER_SPAN, RackReader, tile_crop
from tilecam.vision.rackfind import RackFix, Slot
from tilecam.vision.recognizer import INPUT_PX, LetterRecognizer, enclosed_ink

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_rack import SEEDS, draw_rack, git_commit  # noqa: E402  (the same racks as bench_rack)

REPO = Path(__file__).resolve().parents[2]
TRAIN_PRINTS = ("face", "star", "heart")
BLANK_SEED = 70000


def blank_rack(rng: np.random.Generator) -> list[str]:
    """Five letters of the English bag and its two blanks, the blanks at random places."""
    bag = [t for t, c in DISTRIBUTIONS["en"].counts.items() if t != BLANK for _ in range(c)]
    tiles = [str(t) for t in rng.choice(bag, 5, replace=False)]
    for _ in range(2):
        tiles.insert(int(rng.integers(len(tiles) + 1)), BLANK)
    return tiles


def scenes(split: str, racks: int, blank_racks: int):
    if split in SEEDS:
        rng = np.random.default_rng(SEEDS[split])
        for i in range(racks):
            seed = SEEDS[split] + i
            yield render_rack(draw_rack(rng), seed, draw_look(seed, split))
        return
    rng = np.random.default_rng(BLANK_SEED + len(split))
    for i in range(blank_racks):
        seed = BLANK_SEED + 1000 * len(split) + i
        if split == "blanks_train":
            look = draw_look(seed, "train", {"blank_print": TRAIN_PRINTS[i % 3]})
        else:
            look = draw_look(seed, "train" if split == "blanks_heldout" else "heldout_all", {"blank_print": "logo"})
        yield render_rack(blank_rack(rng), seed, look)


def faces_of(rec: LetterRecognizer, crops: np.ndarray, lp) -> np.ndarray:
    """vision.fuse.FusedTileReader._faces on upright crops: ink in the main mark's hole, or ink that
    reads as no letter at any quarter turn."""
    face = np.array([enclosed_ink(c) for c in crops], bool)
    maybe = [j for j in range(len(crops)) if not face[j] and printed_face(lp.ink[j, 0], lp.letter_mass[j, 0])]
    if maybe:
        turned = rec.letter_probs(crops[maybe], turns=(1, 2, 3)).letter_mass.max(axis=1)
        for j, m in zip(maybe, turned):
            face[j] = printed_face(lp.ink[j, 0], lp.letter_mass[j, 0], m)
    return face


def collect(reader: RackReader, v6: LetterRecognizer, split: str, racks: int, blank_racks: int) -> list[dict]:
    rows = []
    v4 = reader.tile_reader.recognizer
    for scene in scenes(split, racks, blank_racks):
        fix = RackFix(tuple(Slot(q, True) for q in scene.quads), np.zeros(3, np.float32), 1.0)
        raw = reader.raw(scene.image, fix, ("classifier", "recogniser"))
        crops = np.stack([tile_crop(scene.image, q, INPUT_PX, RECOGNISER_SPAN) for q in scene.quads])
        lp4, lp6 = v4.letter_probs(crops), v6.letter_probs(crops)
        rows.append({"tiles": scene.tiles, "look": scene.look, "raw": raw,
                     "p4": lp4.probs[:, 0], "p6": lp6.probs[:, 0], "m6": lp6.letter_mass[:, 0],
                     "face4": faces_of(v4, crops, lp4), "face6": faces_of(v6, crops, lp6)})
    return rows


def read(reader: RackReader, row: dict, rule: str, ocr: str, faces: str, t6: float) -> list[str]:
    """The letters of one rack by a rule (recogniser / fused), a recogniser (v4 / v6 / both) and a face
    rule (off / v4 / v6 / either)."""
    raw, alphabet = row["raw"], reader.alphabet
    cal = reader.tile_reader.calibration
    cols = [alphabet.index(a) for a in reader.tile_reader.recognizer.alphabet]
    blank = alphabet.index(BLANK)
    if ocr == "v4":
        p_ocr, t_ocr = row["p4"], cal.recogniser_temperature
    elif ocr == "v6":
        p_ocr, t_ocr = row["p6"], t6
    else:   # the two recognisers' geometric mean
        q = np.sqrt(row["p4"] * row["p6"])
        p_ocr, t_ocr = q / q.sum(axis=1, keepdims=True), cal.recogniser_temperature
    out = np.zeros((raw.n, len(alphabet)))
    if rule == "recogniser":
        p_blank = np.where(np.isnan(raw.ink), 0.97, 0.0)
        out[:, cols] = p_ocr * (1 - p_blank)[:, None]
    else:
        q = product_letters(raw.p_cls[:, cols], p_ocr, cal.classifier_temperature, t_ocr)
        p_blank = np.where(np.isnan(raw.ink), np.maximum(raw.p_cls[:, blank], 0.97), raw.p_cls[:, blank])
        out[:, cols] = q * (1 - p_blank)[:, None]
    out[:, blank] = p_blank
    face = {"off": np.zeros(raw.n, bool), "v4": row["face4"], "v6": row["face6"],
            "either": row["face4"] | row["face6"]}[faces]
    if face.any():   # as the board's FusedTileReader: a face's letter mass goes to the blank
        mass = out[np.ix_(face, cols)].sum(axis=1)
        out[np.ix_(face, cols)] *= 0.1
        out[face, blank] += 0.9 * mass
    return [alphabet[j] for j in out.argmax(axis=1)]


def score(reader: RackReader, rows: list[dict], rule: str, ocr: str, faces: str, t6: float) -> dict:
    exact = letters = tiles = blanks = blanks_right = false_blanks = 0
    conf: dict[str, int] = {}
    for row in rows:
        got = read(reader, row, rule, ocr, faces, t6)
        ok = [a == b for a, b in zip(got, row["tiles"])]
        exact += all(ok)
        letters += sum(ok)
        tiles += len(ok)
        for a, b in zip(row["tiles"], got):
            blanks += a == BLANK
            blanks_right += a == BLANK and b == BLANK
            false_blanks += a != BLANK and b == BLANK
            if a != b:
                conf[f"{a}->{b}"] = conf.get(f"{a}->{b}", 0) + 1
    return {"exact": exact, "racks": len(rows), "letters": letters, "tiles": tiles, "blanks_right": blanks_right,
            "blanks": blanks, "letters_read_blank": false_blanks,
            "confusions": dict(sorted(conf.items(), key=lambda kv: -kv[1])[:8])}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--racks", type=int, default=100)
    ap.add_argument("--blank-racks", type=int, default=30)
    ap.add_argument("--out", default=str(REPO / "docs" / "results"))
    args = ap.parse_args()
    commit = git_commit()
    dirty = subprocess.run(["git", "status", "--porcelain", "vision", "models", "tests/bench"], cwd=REPO,
                           capture_output=True, text=True).stdout.strip()
    cv2.setNumThreads(1)
    settings = load_settings(None)
    reader = RackReader(load_tile_reader(settings, "en"))
    import importlib.util
    spec = importlib.util.find_spec("rapidocr")
    v6_path = Path(next(iter(spec.submodule_search_locations))) / "models" / "PP-OCRv6_rec_small.onnx"
    v6 = LetterRecognizer(DISTRIBUTIONS["en"].letters, model_path=v6_path, threads=1)
    splits = ("train", "heldout", "heldout_all", "blanks_train", "blanks_heldout", "blanks_heldout_all")
    data = {}
    for s in splits:
        t0 = time.time()
        data[s] = collect(reader, v6, s, args.racks, args.blank_racks)
        print(f"{s}: {len(data[s])} racks in {time.time() - t0:.0f} s", flush=True)
    # v6's temperature in the fusion: the smallest log loss on the training racks' letters only
    alphabet = list(reader.tile_reader.recognizer.alphabet)
    p = np.concatenate([r["p6"] for r in data["train"]])
    truth = np.array([alphabet.index(t) if t in alphabet else -1 for r in data["train"] for t in r["tiles"]])
    t6, fit6 = fit_temperature(p[truth >= 0], truth[truth >= 0], low=0.1, high=50.0)
    p = np.concatenate([r["p4"] for r in data["train"]])
    t4_fit, fit4 = fit_temperature(p[truth >= 0], truth[truth >= 0], low=0.1, high=50.0)
    out = {"what": "rack readers on the true tile quads (tests/bench/bench_rack_readers.py)",
           "commit": commit + ("-dirty" if dirty else ""), "date": time.strftime("%Y-%m-%d"),
           "racks_per_split": args.racks, "blank_racks_per_split": args.blank_racks,
           "v6_temperature_fit_on_train": {"t": t6, **fit6}, "v4_temperature_fit_on_train_not_used": {"t": t4_fit, **fit4},
           "v4_temperature_card": reader.tile_reader.calibration.recogniser_temperature, "results": {}}
    for rule in ("fused", "recogniser"):
        for ocr in ("v4", "v6", "both"):
            for faces in ("off", "v4", "v6", "either"):
                key = f"{rule}/{ocr}/faces={faces}"
                out["results"][key] = {s: score(reader, data[s], rule, ocr, faces, t6) for s in splits}
                r = out["results"][key]
                print(f"{key:28s} " + "  ".join(
                    f"{s}: {r[s]['exact']}/{r[s]['racks']} {r[s]['letters'] / max(r[s]['tiles'], 1):.3f}"
                    f" b{r[s]['blanks_right']}/{r[s]['blanks']} f{r[s]['letters_read_blank']}" for s in splits), flush=True)
    dest = Path(args.out) / f"rack_readers_{out['commit']}.json"
    dest.parent.mkdir(parents=True, exist_ok=True)
    dest.write_text(json.dumps(out, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    print(f"v6 temperature {t6} ({fit6}); wrote {dest}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
