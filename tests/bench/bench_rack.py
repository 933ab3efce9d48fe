"""Rack reading on rendered rack stills (issue 30): the finder and the three reading rules.

Rendered racks (models.synth.render_rack) in the TRAINING looks choose the rack's reading rule
(recogniser alone, classifier alone, or the board's calibrated fusion) and the blank bar; the
HELD-OUT looks are only reported: 'heldout' holds one factor of RACK_HELD_OUT out per rack (the
others as in training, as models/train.py measures held-out factors), 'heldout_all' every one at once.
Per split:
  exact        unoccluded seven-tile racks read wholly right, in order (the finder's slots and letters)
  letters      tiles read right (slots matched by order when the finder found seven, else none right)
  oracle       the same reading on the true tile quads (the reader without the finder's errors)
  unseen       racks with a hand over tiles: tiles a hand hides that were given a letter (must be 0), and
               those no slot stands on (the rack read short: the tile not even said unseen);
               'unseen_new_hands' the same for hands no training look has (--new-hand-racks: an arm in a
               sleeve, skin tones beyond the trained ones; models.synth.rack.HAND_LOOKS), only ever read
  made_unseen  the safe error's cost: real tiles the reading made unseen (a letterless face taken for a
               hidden one), and the unoccluded racks whose reported view is exact
  watched      the product's certainty: the first --watch-racks unoccluded racks seen in 4 frames through
               a RackWatch (one frame never makes a slot sure: frames agreeing do, issue 45): racks
               exact, slots sure (>= 0.9) and sure-and-wrong, the figures `summary` reports
  sure         one frame's evidence: every slot with a letter (unoccluded and hand racks) its frame vouched
               for at >= 0.9 (as the sure rule was before issue 45's one-frame cap): how
               many, how many wrong (a wrong letter, a tile not there, a hidden tile) and the share
               right (issue 38: >= 99 %); 'fused_p' the fused probability as it was reported before
               the doubts (vision.rack.RackReader.doubted), 'reported' the certainty reported now
  short        racks of 0 to 6 tiles (the end of a game; 0 an empty rack, which is a rack with no tiles,
               not "no rack"): empty racks read as empty, short racks' slots right and read exact
  no_rack      stills of a rack (unoccluded, hand and short racks, empty ones included) answered "no
               rack" (the finder's None): every still here has a rack (issue 45: none)
  summary      issue 45's measures per split, the shipped rule: racks exact, letters, sure-and-wrong per
               1,000 slots given a letter (and per 1,000 sure slots), hidden tiles read with a letter
               (and the hand racks giving one a letter at certainty >= 0.5), empty racks read as empty,
               no-rack answers, CPU p95 ms a read
  ms           one rack's read (find + the chosen rule's reader), onnxruntime and OpenCV on one thread:
               wall clock and the process's CPU time (the machine is shared; the CPU time is the read's)

    .venv/bin/python tests/bench/bench_rack.py [--racks 100] [--hand-racks 30] [--short-racks 28]
                                               [--new-hand-racks 30]
                                               [--finder classical|learned|both]
                                               [--zoom-below PX] [--splits train ...]

``--finder`` (RackConfig.finder): the classical finder (vision.rackfind), the learned one
(vision.rackdetect, models/rackdet.onnx) or both; by default the product's (RackConfig().finder).
``--zoom-below``: the learned finder's closer look (DetectConfig.zoom_below, 0 off) instead of the
shipped one; ``--splits``: the splits read ('train' always among them: the reading rule is chosen
there), to choose a setting on 'train' alone.
Writes docs/results/rack_stills_<commit>.json
(``_<finder>`` added for a finder other than the classical, ``_zoom<PX>`` and the splits when given).
"""
from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from pathlib import Path

import cv2
import numpy as np

from tilecam.api.settings import load_settings
from tilecam.models.synth import RACK_HELD_OUT, draw_look, render_rack
from tilecam.models.synth.rack import HAND_LOOKS
from tilecam.scoring.tiles import DISTRIBUTIONS
from tilecam.vision.assemble import load_tile_reader
from tilecam.vision.rack import RULES, RackConfig, RackReader, RackWatch
from tilecam.vision.rackfind import RackFix, Slot

REPO = Path(__file__).resolve().parents[2]
BLANK_BARS = (0.0, 0.05, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6)
SEEDS = {"train": 30000, "heldout": 40000, "heldout_all": 50000}


def git_commit() -> str:
    return subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=REPO, capture_output=True,
                          text=True).stdout.strip() or "unknown"


def draw_rack(rng: np.random.Generator, n: int = 7) -> list[str]:
    bag = [t for t, c in DISTRIBUTIONS["en"].counts.items() for _ in range(c)]
    return [str(t) for t in rng.choice(bag, n, replace=False)]


def measure(reader: RackReader, split: str, racks: int, hand_racks: int, short_racks: int = 0,
            new_hand_racks: int = 0) -> dict:
    rng = np.random.default_rng(SEEDS[split])
    rows = []
    for i in range(racks):
        seed = SEEDS[split] + i
        scene = render_rack(draw_rack(rng), seed, draw_look(seed, split))
        fix = reader.find(scene.image)
        raw = reader.raw(scene.image, fix, RULES) if fix is not None else None
        truth_fix = RackFix(tuple(Slot(q, True) for q in scene.quads), np.zeros(3, np.float32), 1.0)
        rows.append((scene, fix, raw, reader.raw(scene.image, truth_fix, RULES)))
        if (i + 1) % 20 == 0:
            print(f"  {split}: {i + 1}/{racks} racks", flush=True)
    hands = []
    for i in range(hand_racks):
        seed = SEEDS[split] + 5000 + i
        scene = render_rack(draw_rack(rng), seed, draw_look(seed, split), hand=float(rng.uniform(0.15, 0.5)))
        fix = reader.find(scene.image)
        hands.append((scene, fix, reader.raw(scene.image, fix, RULES) if fix is not None else None))
    # hands no training look has (models.synth.rack.HAND_LOOKS: an arm in a sleeve, skin tones beyond
    # the trained ones), in turn, from their own seeds and stream: only ever read (issue 45)
    nrng = np.random.default_rng(SEEDS[split] + 7000)
    new_hands = []
    for i in range(new_hand_racks):
        seed = SEEDS[split] + 7000 + i
        scene = render_rack(draw_rack(nrng), seed, draw_look(seed, split), hand=float(nrng.uniform(0.15, 0.5)),
                            hand_look=HAND_LOOKS[1 + i % 2])
        fix = reader.find(scene.image)
        new_hands.append((scene, fix, reader.raw(scene.image, fix, RULES) if fix is not None else None))
    # racks of 0..6 tiles in turn, from their own seeds and stream (the racks above stay as they were)
    srng = np.random.default_rng(SEEDS[split] + 9000)
    short = []
    for i in range(short_racks):
        seed = SEEDS[split] + 9000 + i
        scene = render_rack(draw_rack(srng, i % 7), seed, draw_look(seed, split))
        fix = reader.find(scene.image)
        short.append((scene, fix, reader.raw(scene.image, fix, RULES) if fix is not None else None))
    return {"rows": rows, "hands": hands, "short": short, "new_hands": new_hands}


def score(reader: RackReader, data: dict, rule: str, bar: float) -> dict:
    exact = letters = tiles = oracle_exact = oracle_letters = found = slots_right = 0
    confusions: dict[str, int] = {}
    for scene, fix, raw, truth_raw in data["rows"]:
        tiles += len(scene.tiles)
        o = [reader.alphabet[j] for j in reader.combine(truth_raw, rule, bar).argmax(axis=1)]
        ok = sum(a == b for a, b in zip(o, scene.tiles))
        oracle_letters += ok
        oracle_exact += ok == len(scene.tiles)
        if fix is None:
            continue
        found += 1
        if len(fix.slots) != len(scene.tiles) or not all(s.seen for s in fix.slots):
            continue
        centred = all(x <= s.quad.mean(axis=0)[0] <= x + w and y <= s.quad.mean(axis=0)[1] <= y + h
                      for s, (x, y, w, h) in zip(fix.slots, scene.boxes))
        if not centred:
            continue
        slots_right += 1
        got = [reader.alphabet[j] for j in reader.combine(raw, rule, bar).argmax(axis=1)]
        ok = sum(a == b for a, b in zip(got, scene.tiles))
        letters += ok
        exact += ok == len(scene.tiles)
        for a, b in zip(scene.tiles, got):
            if a != b:
                confusions[f"{a}->{b}"] = confusions.get(f"{a}->{b}", 0) + 1
    n = len(data["rows"])
    return {"racks": n, "exact": exact, "exact_share": round(exact / max(n, 1), 4),
            "letters": letters, "tiles": tiles, "letter_share": round(letters / max(tiles, 1), 4),
            "found": found, "slots_right": slots_right,
            "oracle_exact_share": round(oracle_exact / max(n, 1), 4),
            "oracle_letter_share": round(oracle_letters / max(tiles, 1), 4),
            "confusions": dict(sorted(confusions.items(), key=lambda kv: -kv[1])[:12])}


def short(reader: RackReader, data: dict, rule: str, bar: float) -> dict:
    """Racks of fewer than 7 tiles: an empty one read as a rack with no slots (not None: "no rack"),
    the others with their slots right (as many as tiles, each seen and on its tile) and read exact."""
    empty = empty_right = empty_none = n = slots_right = exact = none = 0
    for scene, fix, raw in data["short"]:
        if not scene.tiles:
            empty += 1
            empty_right += fix is not None and not fix.slots
            empty_none += fix is None
            continue
        n += 1
        none += fix is None
        if fix is None or len(fix.slots) != len(scene.tiles) or not all(s.seen for s in fix.slots) or not all(
                x <= s.quad.mean(axis=0)[0] <= x + w and y <= s.quad.mean(axis=0)[1] <= y + h
                for s, (x, y, w, h) in zip(fix.slots, scene.boxes)):
            continue
        slots_right += 1
        got = [reader.alphabet[j] for j in reader.combine(raw, rule, bar).argmax(axis=1)]
        exact += got == list(scene.tiles)
    return {"empty_racks": empty, "read_empty": empty_right, "empty_no_rack": empty_none,
            "short_racks": n, "short_no_rack": none, "short_slots_right": slots_right, "short_exact": exact}


def unseen(reader: RackReader, data: dict, key: str = "hands") -> dict:
    """Tiles a hand hides (truth) that a seen slot lies on: 'given_a_letter' the finder's seen slots
    (as measured before issue 38), 'read_with_a_letter' the slots still seen after the reading
    (RackReader.reading: a letterless face running on out of its tile is made unseen)."""
    hidden = given = read = racks_read = racks_half = no_slot = 0
    for scene, fix, raw in data[key]:
        after = reader.reading(scene.image, fix, raw) if fix is not None else None
        view = reader.view(*after[:2], 0.0, after[2]) if after is not None else None
        lettered = half = False
        for (x, y, w, h), occ in zip(scene.boxes, scene.occluded):
            if not occ:
                continue
            hidden += 1
            # a hidden tile no slot stands on: the rack read short, the tile not even unseen
            no_slot += after is None or not any(x <= s.quad.mean(axis=0)[0] <= x + w and y <= s.quad.mean(axis=0)[1]
                                                <= y + h for s in after[0].slots)
            for f, n in ((fix, "given"), (after[0] if after else None, "read")):
                on = [] if f is None else [k for k, s in enumerate(f.slots) if s.seen and x <= s.quad.mean(axis=0)[0]
                                           <= x + w and y <= s.quad.mean(axis=0)[1] <= y + h]
                if on:
                    given += n == "given"
                    read += n == "read"
                    if n == "read":
                        lettered = True
                        half = half or any(view.tiles[k].certainty >= 0.5 for k in on)
        racks_read += lettered
        racks_half += half
    return {"racks": len(data[key]), "hidden_tiles": hidden, "given_a_letter": given,
            "read_with_a_letter": read, "racks_reading_a_hidden_tile": racks_read,
            "racks_reading_a_hidden_tile_at_0.5": racks_half, "hidden_tiles_with_no_slot": no_slot}


def no_rack(data: dict) -> dict:
    """Stills of a rack answered "no rack" (the finder's None), of every still (each has a rack)."""
    fixes = [f for _, f, *_ in data["rows"]] + [f for _, f, _ in data["hands"]] + [f for _, f, _ in data["short"]]
    return {"stills": len(fixes), "no_rack": sum(f is None for f in fixes)}


def summary(out: dict, split: str, rule: str) -> dict:
    """Issue 45's measures for one split, the shipped rule ``rule`` (gathered from ``out``)."""
    sc, su, wa = out[split][rule], out["sure_0.9"][rule][split]["reported"], out["watched"][split]
    un, sh, nh = out["unseen"][split], out["short"][split], out["unseen_new_hands"][split]
    return {"racks_exact": f"{sc['exact']} of {sc['racks']}", "letters": f"{sc['letters']} of {sc['tiles']}",
            # the product's: a slot is sure only from frames agreeing (RackWatch); one frame is never sure
            "watched_racks_exact": f"{wa['exact']} of {wa['racks']}",
            "sure_wrong": f"{wa['wrong']} of {wa['sure']} sure, {wa['slots_lettered']} lettered ({wa['frames']} frames)",
            "sure_wrong_per_1000_lettered": wa["sure_wrong_per_1000_lettered"],
            "sure_wrong_per_1000_sure": round(1000 * wa["wrong"] / max(wa["sure"], 1), 2),
            # one frame's own evidence (both readers naming the letter, a whole slot), as the sure rule was
            "one_frame_vouched_wrong": f"{su['wrong']} of {su['sure']} vouched, {su['slots_lettered']} lettered",
            "one_frame_vouched_wrong_per_1000_lettered": round(1000 * su["wrong"] / max(su["slots_lettered"], 1), 2),
            "hidden_read_with_a_letter": f"{un['read_with_a_letter']} of {un['hidden_tiles']}",
            "hand_racks_reading_a_hidden_tile_at_0.5": f"{un['racks_reading_a_hidden_tile_at_0.5']} of {un['racks']}",
            "hidden_with_no_slot": f"{un['hidden_tiles_with_no_slot']} of {un['hidden_tiles']}",
            "new_hands_hidden_read_with_a_letter": f"{nh['read_with_a_letter']} of {nh['hidden_tiles']}",
            "new_hands_hidden_with_no_slot": f"{nh['hidden_tiles_with_no_slot']} of {nh['hidden_tiles']}",
            "new_hand_racks_reading_a_hidden_tile_at_0.5":
                f"{nh['racks_reading_a_hidden_tile_at_0.5']} of {nh['racks']}",
            "empty_read_empty": f"{sh['read_empty']} of {sh['empty_racks']}",
            "no_rack": f"{out['no_rack'][split]['no_rack']} of {out['no_rack'][split]['stills']}",
            "cpu_p95_ms": out["timing_one_thread"][split]["cpu_p95_ms"]}


def made_unseen(reader: RackReader, data: dict) -> dict:
    """The safe error's cost: real tiles (no hand over them) on a slot the finder saw that the
    reading made unseen (RackReader.reading: a letterless face that runs on out of its tile or is a
    piece of one), on the unoccluded and the hand racks, and of those the real blanks; 'reported_exact'
    the unoccluded seven-tile racks whose reported view (reading included) is the truth, in order."""
    made = blanks = exact = 0
    for scene, fix, raw in [(sc, f, r) for sc, f, r, _ in data["rows"]] + list(data["hands"]):
        if fix is None:
            continue
        after = reader.reading(scene.image, fix, raw)
        for before, s in zip(fix.slots, after[0].slots):
            truth = slot_truth(scene, s.quad)
            if before.seen and not s.seen and truth:
                made += 1
                blanks += truth == "?"
        if not any(scene.occluded or []):
            view = reader.view(*after[:2], 0.0, after[2])
            exact += [t.letter for t in view.tiles] == list(scene.tiles) and \
                [slot_truth(scene, s.quad) for s in after[0].slots] == list(scene.tiles)
    return {"real_tiles_made_unseen": made, "real_blanks_made_unseen": blanks, "reported_exact": exact,
            "racks": len(data["rows"])}


def slot_truth(scene, quad) -> str | None:
    """What lies under a slot's centre: the tile's letter, None for a tile a hand hides, '' for no tile."""
    cx, cy = quad.mean(axis=0)
    occluded = scene.occluded or [False] * len(scene.tiles)
    for (x, y, w, h), t, occ in zip(scene.boxes, scene.tiles, occluded):
        if x <= cx <= x + w and y <= cy <= y + h:
            return None if occ else t
    return ""


def watched(reader: RackReader, data: dict, split: str, racks: int, frames: int = 4, bar: float = 0.9) -> dict:
    """The product's certainty (issue 45: one frame never makes a slot sure, frames agreeing do): the
    first ``racks`` unoccluded racks of the split, each seen in ``frames`` frames (frame 0 is the
    still; each later one the rack moved a little, new noise) half a second apart through a
    RackWatch (settle_s 1 s, agree_frames 3), its last settled view judged: racks exact, slots given
    a letter, sure (>= ``bar``) and sure-and-wrong (a tile's truth under its box's centre)."""
    exact = lettered = n_sure = wrong = views = 0
    examples: dict[str, int] = {}
    for i, (scene, _, _, _) in enumerate(data["rows"][:racks]):
        seed = SEEDS[split] + i
        watch = RackWatch(reader, settle_s=1.0)
        for f in range(frames):
            img = scene.image if f == 0 else render_rack(scene.tiles, seed, draw_look(seed, split), frame=f).image
            watch.feed(img, 0.5 * f)
        view = watch.last
        if view is None:
            continue
        views += 1
        exact += [t.letter for t in view.tiles] == list(scene.tiles)
        for t in view.tiles:
            if t.letter is None:
                continue
            lettered += 1
            if t.certainty < bar:
                continue
            n_sure += 1
            x, y, w, h = t.box
            truth = slot_truth(scene, np.float32([[x + w / 2, y + h / 2]]))
            if truth != t.letter:
                wrong += 1
                key = f"{'hidden' if truth is None else truth or 'none'}->{t.letter}"
                examples[key] = examples.get(key, 0) + 1
    return {"racks": min(racks, len(data["rows"])), "frames": frames, "settled_views": views, "exact": exact,
            "slots_lettered": lettered, "sure": n_sure, "wrong": wrong,
            "sure_wrong_per_1000_lettered": round(1000 * wrong / max(lettered, 1), 2),
            "wrong_examples": dict(sorted(examples.items(), key=lambda kv: -kv[1]))}


def sure(reader: RackReader, data: dict, rule: str, bar: float = 0.9) -> dict:
    """Slots reported with a letter at certainty >= ``bar``, on the unoccluded and the hand racks:
    wrong ones (another letter, no tile there, a hidden tile) and the share right; 'fused_p' judges
    the fused probability (the certainty before the doubts), 'reported' the certainty as read."""
    out = {}
    for name in ("fused_p", "reported"):
        n = wrong = hidden = lettered = 0
        examples: dict[str, int] = {}
        for scene, fix, raw in [(sc, f, r) for sc, f, r, _ in data["rows"]] + list(data["hands"]):
            if fix is None:
                continue
            if name == "reported":
                fix, probs, doubted = reader.reading(scene.image, fix, raw)
            else:
                probs = reader.combine(raw, rule)
                doubted = np.zeros(raw.n, bool)
            view = reader.view(fix, probs, 0.0, doubted)
            for s, t in zip(fix.slots, view.tiles):
                if t.letter is None:
                    continue
                lettered += 1
                if t.certainty < bar:
                    continue
                truth = slot_truth(scene, s.quad)
                n += 1
                if truth != t.letter:
                    wrong += 1
                    hidden += truth is None
                    key = f"{'hidden' if truth is None else truth or 'none'}->{t.letter}"
                    examples[key] = examples.get(key, 0) + 1
        out[name] = {"slots_lettered": lettered, "sure": n, "wrong": wrong, "hidden_given_a_sure_letter": hidden,
                     "right_share": round(1 - wrong / n, 4) if n else None,
                     "wrong_kinds": dict(sorted(examples.items(), key=lambda kv: -kv[1])[:10])}
    return out


def timing(reader: RackReader, data: dict, racks: int = 40) -> dict:
    """One rack's read, find and the chosen rule's reader, on the first ``racks`` of a split."""
    ms, cpu = [], []
    for scene, *_ in data["rows"][:racks]:
        t0, c0 = time.perf_counter(), time.process_time()
        reader.read(scene.image)
        ms.append((time.perf_counter() - t0) * 1000.0)
        cpu.append((time.process_time() - c0) * 1000.0)
    # the wall clock counts the other processes sharing the cores; the CPU time is the read's own work
    return {"median_ms": round(float(np.median(ms)), 1), "p95_ms": round(float(np.percentile(ms, 95)), 1),
            "max_ms": round(float(np.max(ms)), 1), "cpu_median_ms": round(float(np.median(cpu)), 1),
            "cpu_p95_ms": round(float(np.percentile(cpu, 95)), 1), "cpu_max_ms": round(float(np.max(cpu)), 1),
            "load_average": round(os.getloadavg()[0], 2), "racks": len(ms)}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--racks", type=int, default=100, help="unoccluded racks per split")
    ap.add_argument("--hand-racks", type=int, default=30, help="racks with a hand over tiles per split")
    ap.add_argument("--short-racks", type=int, default=28, help="racks of 0..6 tiles per split (in turn)")
    ap.add_argument("--new-hand-racks", type=int, default=30,
                    help="racks with a hand no training look has (a sleeve, an untrained skin tone) per split")
    ap.add_argument("--finder", default=RackConfig().finder, choices=("classical", "learned", "both"),
                    help="which rack finder places the slots (RackConfig.finder; default: the product's)")
    ap.add_argument("--watch-racks", type=int, default=50,
                    help="unoccluded racks per split also seen in 4 frames through the watch (the product's certainty)")
    ap.add_argument("--detector", help="a candidate learned finder (an ONNX file) instead of models/rackdet.onnx: "
                                       "measured before it is committed; its file name goes in the result's name")
    ap.add_argument("--zoom-below", type=float,
                    help="the learned finder's closer look (DetectConfig.zoom_below; 0 off) instead of the shipped")
    ap.add_argument("--splits", nargs="+", default=list(SEEDS), choices=list(SEEDS),
                    help="the splits read (all by default; 'train' alone to choose a setting)")
    ap.add_argument("--out", default=str(REPO / "docs" / "results"))
    args = ap.parse_args()
    if "train" not in args.splits:
        ap.error("--splits: 'train' is always read (the reading rule is chosen there)")
    commit = git_commit()   # the code this run imported (read before anything else can commit)
    dirty = subprocess.run(["git", "status", "--porcelain", "vision", "models", "tests/bench"], cwd=REPO,
                           capture_output=True, text=True).stdout.strip()
    cv2.setNumThreads(1)   # one core: OpenCV's own threads too, as onnxruntime's (read.threads = 1)
    settings = load_settings(None)
    assert settings.read.threads == 1
    base = load_tile_reader(settings, "en")
    reader = RackReader(base, RackConfig(finder=args.finder))
    if args.detector or args.zoom_below is not None:
        from tilecam.vision.rackdetect import DetectConfig, RackDetector
        cfg = DetectConfig() if args.zoom_below is None else DetectConfig(zoom_below=args.zoom_below)
        reader._detector = RackDetector(args.detector, threads=1, cfg=cfg)
    data = {}
    for split in args.splits:
        print(f"rendering and reading {split} racks", flush=True)
        data[split] = measure(reader, split, args.racks, args.hand_racks, args.short_racks, args.new_hand_racks)
    # the rule and the blank bar: chosen on the training looks only
    grid = [(rule, bar) for rule in RULES for bar in (BLANK_BARS if rule == "recogniser" else (0.0,))]
    train = {f"{rule}@{bar}": score(reader, data["train"], rule, bar) for rule, bar in grid}
    best = max(grid, key=lambda rb: (train[f"{rb[0]}@{rb[1]}"]["exact"], train[f"{rb[0]}@{rb[1]}"]["letters"],
                                     train[f"{rb[0]}@{rb[1]}"]["oracle_letter_share"]))
    rule, bar = best
    bars = {r: (bar if r == "recogniser" else 0.0) for r in RULES}
    chosen = RackReader(base, RackConfig(rule=rule, blank_mass=bar if rule == "recogniser" else RackConfig().blank_mass,
                                         finder=args.finder))
    chosen._detector = getattr(reader, "_detector", None)
    out = {
        "what": "rack reading on rendered rack stills (tests/bench/bench_rack.py)",
        "commit": commit + ("-dirty" if dirty else ""),
        "date": time.strftime("%Y-%m-%d"),
        "finder": args.finder,
        "detector": args.detector or "models/rackdet.onnx",
        "detect": reader.detector.cfg.model_dump() if args.finder != "classical" else None,
        "racks_per_split": args.racks, "hand_racks_per_split": args.hand_racks,
        "short_racks_per_split": args.short_racks,
        "held_out": {k: list(v) for k, v in RACK_HELD_OUT.items()},
        "chosen_on_train": {"rule": rule, "blank_mass": bar},
        "train_grid": {k: {kk: v[kk] for kk in ("exact_share", "letter_share", "oracle_letter_share")}
                       for k, v in train.items()},
        **{s: {r: score(reader, data[s], r, bars[r]) for r in RULES} for s in data},
        "unseen": {s: unseen(chosen, data[s]) for s in data},
        "new_hand_racks_per_split": args.new_hand_racks,
        "unseen_new_hands": {s: unseen(chosen, data[s], "new_hands") for s in data},
        "made_unseen": {s: made_unseen(reader, data[s]) for s in data},
        "short": {s: short(reader, data[s], rule, bar) for s in data},
        # the shipped rule (RackConfig's default: what `tilecam rack` and the station read with) and
        # the rule chosen here, when another
        "sure_0.9": {r: {s: sure(rd, data[s], r) for s in data}
                     for r, rd in {RackConfig().rule: reader, rule: chosen}.items()},
        "timing_one_thread": {s: timing(chosen, data[s]) for s in data},
        "no_rack": {s: no_rack(data[s]) for s in data},
        "watched": {s: watched(chosen, data[s], s, args.watch_racks) for s in data},
    }
    out["summary"] = {s: summary(out, s, RackConfig().rule) for s in data}
    suffix = ("" if args.finder == "classical" else f"_{args.finder}") + \
        (f"_{Path(args.detector).stem}" if args.detector else "") + \
        (f"_zoom{args.zoom_below:g}" if args.zoom_below is not None else "") + \
        ("" if list(data) == list(SEEDS) else "_" + "_".join(data))
    dest = Path(args.out) / f"rack_stills_{out['commit']}{suffix}.json"
    dest.parent.mkdir(parents=True, exist_ok=True)
    dest.write_text(json.dumps(out, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    shown = ("commit", "finder", "chosen_on_train", "unseen", "made_unseen", "short", "sure_0.9", "timing_one_thread", "no_rack", "unseen_new_hands", "summary")
    print(json.dumps({k: out[k] for k in shown}, indent=1))
    for s in data:
        for r in RULES:
            v = out[s][r]
            print(f"{s:11s} {r:10s} exact {v['exact_share']:.3f}  letters {v['letter_share']:.3f}  "
                  f"found {v['found']}/{v['racks']} slots right {v['slots_right']}  "
                  f"oracle exact {v['oracle_exact_share']:.3f} letters {v['oracle_letter_share']:.3f}")
    print(f"wrote {dest}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
