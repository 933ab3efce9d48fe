"""The rack readers on the TRUE tile quads (no finder): which text recogniser (PP-OCRv4, the
rapidocr_onnxruntime wheel's; PP-OCRv6 small, the rapidocr 3.10 wheel's; or both) and whether the
board's printed-face rules read rack tiles (issue 38, Build 4).

Racks as tests/bench/bench_rack.py renders them (the same seeds: its first ``--racks`` racks of each
split), read at the renderer's own quads, so the finder's errors are left out. Per split (train /
held-out: one factor held out / held-out, all) and per reader:
  exact     racks whose every tile is read right
  letters   tiles read right
  blanks    blanks read as blanks; letters read as blanks (a face rule's false alarms)
  wrong@0.9 tiles read wrong with a probability of 0.9 or more (the rule's own, before vision.rack's certainty)
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
from dataclasses import replace
from pathlib import Path

import cv2
import numpy as np

from tilecam.api.settings import load_settings
from tilecam.models.synth import draw_look, render_rack
from tilecam.scoring.tiles import DISTRIBUTIONS
from tilecam.vision.assemble import load_tile_reader
from tilecam.vision.rack import BLANK, RackConfig, RackReader
from tilecam.vision.rackfind import RackFix, Slot

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


RECOGNISERS = ("v4", "v6", "both")


def collect(readers: dict[str, RackReader], split: str, racks: int, blank_racks: int) -> list[dict]:
    """Each rack's tiles and, per [rack_read] recogniser, what RackReader.raw says of the true quads."""
    rows = []
    for scene in scenes(split, racks, blank_racks):
        fix = RackFix(tuple(Slot(q, True) for q in scene.quads), np.zeros(3, np.float32), 1.0)
        rows.append({"tiles": scene.tiles, "look": scene.look,
                     "raw": {k: r.raw(scene.image, fix, ("classifier", "recogniser")) for k, r in readers.items()}})
    return rows


def read(reader: RackReader, raw, rule: str, faces: bool) -> tuple[list[str], np.ndarray]:
    """The letters of one rack by a rule, with the printed-face rules or without (as [read] shape_rules
    off leaves them; the bare-stroke rule stays, as it does on the board), and their probabilities."""
    raw = raw if faces else replace(raw, face=None)
    p = reader.combine(raw, rule)
    return [reader.alphabet[j] for j in p.argmax(axis=1)], p.max(axis=1)


def score(reader: RackReader, rows: list[dict], ocr: str, rule: str, faces: bool) -> tuple[dict, list[bool]]:
    exact = letters = tiles = blanks = blanks_right = false_blanks = wrong_sure = 0
    conf: dict[str, int] = {}
    per_rack = []
    for row in rows:
        got, sure = read(reader, row["raw"][ocr], rule, faces)
        ok = [a == b for a, b in zip(got, row["tiles"])]
        wrong_sure += int(sum(not o and p >= 0.9 for o, p in zip(ok, sure)))
        per_rack.append(all(ok))
        exact += all(ok)
        letters += sum(ok)
        tiles += len(ok)
        for a, b in zip(row["tiles"], got):
            blanks += a == BLANK
            blanks_right += a == BLANK and b == BLANK
            false_blanks += a != BLANK and b == BLANK
            if a != b:
                conf[f"{a}->{b}"] = conf.get(f"{a}->{b}", 0) + 1
    return ({"exact": exact, "racks": len(rows), "letters": letters, "tiles": tiles, "blanks_right": blanks_right,
             "blanks": blanks, "letters_read_blank": false_blanks, "wrong_at_0.9": wrong_sure,
             "confusions": dict(sorted(conf.items(), key=lambda kv: -kv[1])[:8])}, per_rack)


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
    base = load_tile_reader(settings, "en")
    readers = {k: RackReader(base, RackConfig(recogniser=k)) for k in RECOGNISERS}
    if readers["v6"].v6(base.recognizer) is None:
        print("PP-OCRv6 is not installed: pip install --no-deps rapidocr==3.10.0", file=sys.stderr)
        return 2
    splits = ("train", "heldout", "heldout_all", "blanks_train", "blanks_heldout", "blanks_heldout_all")
    data = {}
    for s in splits:
        t0 = time.time()
        data[s] = collect(readers, s, args.racks, args.blank_racks)
        print(f"{s}: {len(data[s])} racks in {time.time() - t0:.0f} s", flush=True)
    out = {"what": "rack readers on the true tile quads (tests/bench/bench_rack_readers.py)",
           "commit": commit + ("-dirty" if dirty else ""), "date": time.strftime("%Y-%m-%d"),
           "racks_per_split": args.racks, "blank_racks_per_split": args.blank_racks,
           "recogniser_temperature_card": base.calibration.recogniser_temperature, "results": {},
           "against_v4": {}}
    racks = {}
    for rule in ("fused", "recogniser"):
        for faces in (False, True):
            for ocr in RECOGNISERS:
                key = f"{rule}/{ocr}/faces={'on' if faces else 'off'}"
                got = {s: score(readers[ocr], data[s], ocr, rule, faces) for s in splits}
                out["results"][key] = r = {s: v[0] for s, v in got.items()}
                racks[key] = {s: v[1] for s, v in got.items()}
                print(f"{key:26s} " + "  ".join(
                    f"{s}: {r[s]['exact']}/{r[s]['racks']} {r[s]['letters'] / max(r[s]['tiles'], 1):.3f}"
                    f" b{r[s]['blanks_right']}/{r[s]['blanks']} f{r[s]['letters_read_blank']} w{r[s]['wrong_at_0.9']}"
                    for s in splits), flush=True)
                base_key = f"{rule}/v4/faces={'on' if faces else 'off'}"
                if ocr != "v4":   # racks made exact / made wrong against v4 under the same rule
                    out["against_v4"][key] = {s: {"gained": sum(a and not b for a, b in zip(racks[key][s], racks[base_key][s])),
                                                  "lost": sum(b and not a for a, b in zip(racks[key][s], racks[base_key][s]))}
                                              for s in splits}
    # time: one rack's recogniser reads (7 true slots) per [rack_read] recogniser, CPU, one thread
    timing = {}
    for k, r in readers.items():
        cpu = []
        for scene in scenes("train", 40, 0):
            fix = RackFix(tuple(Slot(q, True) for q in scene.quads), np.zeros(3, np.float32), 1.0)
            c0 = time.process_time()
            r.raw(scene.image, fix, ("fused",))
            cpu.append((time.process_time() - c0) * 1000.0)
        timing[k] = {"cpu_median_ms": round(float(np.median(cpu)), 1), "cpu_p95_ms": round(float(np.percentile(cpu, 95)), 1)}
    out["readers_cpu_ms_per_rack"] = timing
    print(json.dumps(out["against_v4"]), json.dumps(timing))
    dest = Path(args.out) / f"rack_readers_{out['commit']}.json"
    dest.parent.mkdir(parents=True, exist_ok=True)
    dest.write_text(json.dumps(out, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    print(f"wrote {dest}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
