"""Eval: the text recogniser (vision.recognizer, PP-OCRv4 from the rapidocr_onnxruntime wheel) as a
second tile reader, alone and fused with our classifier (vision.fuse), on the real English phone
photos (../shared/data/english, TRUE corners).

    python tests/bench/bench_ocr.py [--quick]

Choices are made off the English photos:
  * the crop preparation (vision.recognizer.PREPS): fewest letter errors of the recogniser alone
    on ScrabScrap (../shared/data/scrabscrap, German tiles; game08 left out as a copy of game07,
    every second frame);
  * the fusion weight w (vision.fuse): smallest mean -log q(true letter) of the pooled letter
    distribution over a grid 0, 0.1, ..., 1, on synthetic boards rendered only in the looks held out
    of the classifier's training (40 boards, German letters). ScrabScrap's choice is reported beside
    it: the classifier reads every ScrabScrap letter right (it is its own dev set), so there the log
    loss favours the classifier.
English, true corners (game orientation, so every letter is upright):
  letters   squares holding a lettered tile; the argmax over A-Z of: the recogniser (each prep),
            the classifier (its class probabilities over the letters), the fusion (chosen w; the
            whole w curve is listed as information, not used);
  read      the full read (TileReader.read: caps, lone-tile rule) plain vs with the letters re-split
            by the fusion: per square, per tile, empty->tile, as bench_english.py;
  occupancy the recogniser's "ink" (largest P(any character) over its time steps) and letter mass as
            a tile / empty / blank signal: AUCs and rates at 0.5;
  turns     each letter crop turned by a random quarter turn, read in all four: is the turn with
            the largest letter score the upright one?
  timing    one core: network and crop preparation per square.
Writes docs/results/ocr.json.
"""
from __future__ import annotations

import argparse
import hashlib
import importlib.metadata
import json
import os
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

from bench_read import git_commit, load_frames
from tilecam.scoring.tiles import DISTRIBUTIONS
from tilecam.vision.classify import TileReader
from tilecam.vision.fuse import fuse_letter_probs, pool_letters
from tilecam.vision.recognizer import PACKAGE, PREPS, LetterRecognizer, find_model, square_crops_ocr
from tilecam.vision.rectify import homography_from_corners, warp_board

EN = REPO.parent / "shared" / "data" / "english"
SS = REPO.parent / "shared" / "data" / "scrabscrap"
WEIGHTS = [round(0.1 * i, 1) for i in range(11)]


def auc(pos: np.ndarray, neg: np.ndarray) -> float:
    """P(score of a positive > score of a negative), ties half."""
    if len(pos) == 0 or len(neg) == 0:
        return float("nan")
    allv = np.concatenate([pos, neg])
    order = allv.argsort(kind="mergesort")
    ranks = np.empty(len(allv))
    ranks[order] = np.arange(1, len(allv) + 1)
    for v in np.unique(allv):  # average ranks of ties
        m = allv == v
        if m.sum() > 1:
            ranks[m] = ranks[m].mean()
    return float((ranks[:len(pos)].sum() - len(pos) * (len(pos) + 1) / 2) / (len(pos) * len(neg)))


def letters_result(truth: np.ndarray, pred: np.ndarray) -> dict:
    conf = Counter(f"{a}->{b}" for a, b in zip(truth, pred) if a != b)
    return {"letters": len(truth), "right": int((truth == pred).sum()),
            "accuracy": round(float(np.mean(truth == pred)), 5), "confusions": dict(conf.most_common(12))}


def cls_letter_probs(reader: TileReader, warped32: np.ndarray, idx, alphabet) -> np.ndarray:
    """The classifier's class probabilities (no tile set) over the letters, renormalised."""
    logits, _, emb = reader.embed(reader.crops(warped32))
    p = reader.class_probs(logits, emb, use_tileset=False)[idx]
    cols = [reader.classes.index(a) for a in alphabet]
    p = p[:, cols]
    return p / p.sum(axis=1, keepdims=True)


def wheel_info() -> dict:
    meta = importlib.metadata.metadata(PACKAGE)
    path = find_model()
    gui = [ln.strip() for ln in cv2.getBuildInformation().splitlines() if ln.strip().startswith("GUI")]
    return {"package": PACKAGE, "version": importlib.metadata.version(PACKAGE),
            "licence": meta.get("License"), "model": path.name, "model_bytes": path.stat().st_size,
            "model_sha256": hashlib.sha256(path.read_bytes()).hexdigest(),
            "installed_with": f"pip install --no-deps {PACKAGE}=={importlib.metadata.version(PACKAGE)}",
            "cv2": cv2.__version__, "cv2_gui": gui or "none listed (headless build)",
            "opencv_python_installed": _installed("opencv-python"),
            "opencv_python_headless_installed": _installed("opencv-python-headless")}


def _installed(dist: str) -> str | None:
    try:
        return importlib.metadata.version(dist)
    except importlib.metadata.PackageNotFoundError:
        return None


def charset_report() -> dict:
    out = {}
    for lang in ("en", "de", "fr", "es", "pl"):
        rec = LetterRecognizer(DISTRIBUTIONS[lang].letters, prep="plain")
        lower = [a for a in rec.missing if len(a) == 1 and a.lower() in rec.charset]
        out[lang] = {"missing": rec.missing, "missing_but_lower_case_present": lower,
                     "borrow_base_letter": {rec.alphabet[k]: rec.alphabet[b] for k, b in enumerate(rec.borrow) if b >= 0},
                     "tied_to_base": [rec.alphabet[k] for k, _ in rec.ties]}
    return out


def scrabscrap_dev(reader_de: TileReader, quick: bool) -> dict:
    """Letter crops of the ScrabScrap frames: choose the prep, then the fusion weight."""
    alphabet = DISTRIBUTIONS["de"].letters
    crops, p_cls, truth = [], [], []
    for game in ("game05", "game06", "game07", "game12"):
        f64, how = load_frames(SS, game, 64)
        f32, _ = load_frames(SS, game, int(reader_de.card["square_px"]))
        for k, ((name, w64, board), (_, w32, _)) in enumerate(zip(f64, f32)):
            if w64 is None or k % (6 if quick else 2):
                continue
            flat = "".join(board)
            idx = [i for i, ch in enumerate(flat) if ch in alphabet]   # lower case = blank: left out
            if not idx:
                continue
            crops.append(square_crops_ocr(w64)[idx])
            p_cls.append(cls_letter_probs(reader_de, w32, idx, alphabet))
            truth += [flat[i] for i in idx]
        print(f"  scrabscrap {game}: {how}", flush=True)
    crops, p_cls, truth = np.concatenate(crops), np.concatenate(p_cls), np.array(truth)
    al = np.array(alphabet)
    res = {"letters": len(truth), "classifier": letters_result(truth, al[p_cls.argmax(1)]), "prep": {}}
    ocr = {}
    for prep in PREPS:
        rec = LetterRecognizer(alphabet, prep=prep)
        ocr[prep] = rec.letter_probs(crops).probs[:, 0]
        res["prep"][prep] = letters_result(truth, al[ocr[prep].argmax(1)])
        print(f"  scrabscrap recogniser {prep}: {res['prep'][prep]['accuracy']}", flush=True)
    prep = min(PREPS, key=lambda p: len(truth) - res["prep"][p]["right"])
    weight, curve = choose_weight(p_cls, ocr[prep], truth, alphabet)
    res.update(chosen_prep=prep, weight_curve=curve, chosen_weight=weight,
               fused=letters_result(truth, al[pool_letters(p_cls, ocr[prep], weight).argmax(1)]))
    return res


def synthetic_dev(reader_de: TileReader, boards: int, seed: int = 921) -> dict:
    """Letter crops of synthetic boards rendered only in the looks held out of the classifier's
    training (models/README.md: fonts bookman + lato, tile style jewel, board scheme white, label
    style foreign), degraded and leaned as in training: a set where the classifier meets looks it
    never saw, as on a new real tile set. Each crop is turned upright with its true rotation for
    the recogniser (in use: the board's orientation). The fusion weight is chosen here."""
    from bench_read import _factors
    from tilecam.models.dataset import DataSpec, degrade, raise_tiles, random_board
    from tilecam.models.synth import SceneConfig, render_topdown

    trained, held = _factors(reader_de.card)
    looks = {**trained, **held}
    spec = DataSpec(seed=seed)
    rng = np.random.default_rng(seed)
    alphabet = DISTRIBUTIONS["de"].letters
    al = np.array(alphabet)
    px = int(reader_de.card["square_px"])
    crops, p_cls, truth = [], [], []
    for i in range(boards):
        board = random_board(rng, rng.uniform(0.2, 0.7), 0.03)
        cfg = SceneConfig(font=str(rng.choice(looks["fonts"])), style=str(rng.choice(looks["styles"])),
                          design=str(rng.choice(looks["designs"])), labels=str(rng.choice(looks["labels"])),
                          square_px=int(rng.integers(*spec.square_px)), tile_frac=float(rng.uniform(*spec.tile_frac)))
        td = render_topdown(board, seed * 1000 + i, cfg)
        image = td.image
        if rng.random() < spec.lean_prob:
            image = raise_tiles(image, render_topdown(["." * 15] * 15, seed * 1000 + i, cfg).image, rng, spec.max_lean)
        image = degrade(image, rng, td.square_px / 50.0)
        corners = td.corners.astype(np.float32).copy()
        corners += rng.uniform(-1, 1, size=(4, 2)).astype(np.float32) * spec.corner_jitter_px * td.square_px / 50.0
        flat = "".join(board)
        idx = [k for k, ch in enumerate(flat) if ch in alphabet]
        if not idx:
            continue
        w32 = warp_board(image, homography_from_corners(corners, px), px)
        w64 = warp_board(image, homography_from_corners(corners, 64), 64)
        c64 = square_crops_ocr(w64)
        rots = td.tile_rotations.ravel()
        crops.append(np.stack([np.rot90(c64[k], int(rots[k])) for k in idx]))
        p_cls.append(cls_letter_probs(reader_de, w32, idx, alphabet))
        truth += [flat[k] for k in idx]
    crops, p_cls, truth = np.concatenate(crops), np.concatenate(p_cls), np.array(truth)
    res = {"boards": boards, "seed": seed, "looks": {k: list(v) for k, v in held.items()},
           "letters": len(truth), "classifier": letters_result(truth, al[p_cls.argmax(1)]), "prep": {}}
    ocr = {}
    for prep in PREPS:
        ocr[prep] = LetterRecognizer(alphabet, prep=prep).letter_probs(crops).probs[:, 0]
        res["prep"][prep] = letters_result(truth, al[ocr[prep].argmax(1)])
    return res, p_cls, ocr, truth


def choose_weight(p_cls, p_ocr, truth, alphabet) -> tuple[float, dict]:
    """The weight of smallest mean -log q(true letter) (then fewest errors) over WEIGHTS."""
    al = np.array(alphabet)
    t_idx = np.array([alphabet.index(t) for t in truth])
    curve = {}
    for w in WEIGHTS:
        q = pool_letters(p_cls, p_ocr, w)
        curve[str(w)] = {"nll": round(float(-np.log(q[np.arange(len(q)), t_idx] + 1e-12).mean()), 5),
                         "errors": int((al[q.argmax(1)] != truth).sum())}
    return min(WEIGHTS, key=lambda w: (curve[str(w)]["nll"], curve[str(w)]["errors"])), curve


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--model", default=str(REPO / "models" / "tiles.onnx"))
    ap.add_argument("--out", default=str(REPO / "docs" / "results" / "ocr.json"))
    ap.add_argument("--quick", action="store_true", help="a third of the frames; no file written")
    ap.add_argument("--weight", type=float, default=None, help="fusion weight (default: chosen on ScrabScrap)")
    args = ap.parse_args(argv)
    cv2.setNumThreads(1)
    t0 = time.time()
    model = Path(args.model)
    card = model.with_suffix("").with_suffix(".card.json")
    res = {"what": "PP-OCRv4 text recogniser as a second tile reader (issue 21)", "wheel": wheel_info(),
           "charset": charset_report()}
    print(json.dumps(res["charset"]), flush=True)

    reader_de = TileReader(model, card, lang="de")
    dev = scrabscrap_dev(reader_de, args.quick)
    res["scrabscrap_dev"] = dev
    prep = dev["chosen_prep"]
    syn, sp_cls, sp_ocr, st = synthetic_dev(reader_de, 10 if args.quick else 40)
    sw, scurve = choose_weight(sp_cls, sp_ocr[prep], st, DISTRIBUTIONS["de"].letters)
    syn.update(weight_curve=scurve, chosen_weight=sw, fused=letters_result(
        st, np.array(DISTRIBUTIONS["de"].letters)[pool_letters(sp_cls, sp_ocr[prep], sw).argmax(1)]))
    res["synthetic_dev"] = syn
    # the synthetic held-out looks are where the classifier meets unseen tiles (the English photos'
    # situation); ScrabScrap is the classifier's own dev set, where it reads every letter right
    weight = sw if args.weight is None else args.weight
    res["fusion_choice"] = {"prep": prep, "prep_chosen_on": "scrabscrap (fewest recogniser errors)",
                            "weight": weight, "weight_chosen_on": "synthetic held-out looks (smallest log loss)",
                            "scrabscrap_weight_would_be": dev["chosen_weight"]}
    print(f"[{time.time() - t0:5.1f} s] chosen: prep {prep} (ScrabScrap), weight {weight} (synthetic; "
          f"ScrabScrap's {dev['chosen_weight']}); synthetic classifier {syn['classifier']['accuracy']}, "
          f"recogniser {syn['prep'][prep]['accuracy']}, fused {syn['fused']['accuracy']}", flush=True)

    alphabet = DISTRIBUTIONS["en"].letters
    al = np.array(alphabet)
    reader = TileReader(model, card, lang="en")
    recs = {p: LetterRecognizer(alphabet, prep=p) for p in PREPS}
    rec = recs[prep]
    rows = [json.loads(x) for x in (EN / "truth.jsonl").read_text(encoding="utf-8").splitlines() if x.strip()]
    if args.quick:
        rows = rows[::3]
    px = int(reader.card["square_px"])
    let_truth, let_cls, let_ocr, sessions = [], [], {p: [] for p in PREPS}, []
    occ = {"ink": [], "mass": [], "truth": []}
    reads = {m: Counter() for m in ("plain", "fused", "fused_scrabscrap_weight")}
    conf_read = {m: Counter() for m in reads}
    turn_truth, turn_best, board_turns = [], [], []
    rng = np.random.default_rng(21)
    for n, row in enumerate(rows):
        image = cv2.imread(str(EN / "frames" / row["frame"]), cv2.IMREAD_COLOR)
        corners = np.float32(row["corners"])
        w32 = warp_board(image, homography_from_corners(corners, px), px)
        w64 = warp_board(image, homography_from_corners(corners, 64), 64)
        flat = "".join(row["board"])
        crops = square_crops_ocr(w64)
        idx = [i for i, ch in enumerate(flat) if ch in alphabet]
        # occupancy signal: plain crops, every square
        plain = recs["plain"].letter_probs(crops)
        occ["ink"] += list(plain.ink[:, 0])
        occ["mass"] += list(plain.letter_mass[:, 0])
        occ["truth"] += list(flat)
        # full read, plain and fused (the recogniser on every square here; see the report)
        logits, rot, emb = reader.embed(reader.crops(w32))
        probs = reader.square_probs(w32, logits, emb)
        p_ocr = rec.letter_probs(crops).probs[:, 0]
        fused = fuse_letter_probs(probs, reader.classes, p_ocr, alphabet, weight)
        fused_ss = fuse_letter_probs(probs, reader.classes, p_ocr, alphabet, dev["chosen_weight"])
        for mode, p in (("plain", probs), ("fused", fused), ("fused_scrabscrap_weight", fused_ss)):
            pred = reader.finish(p, rot, time.perf_counter()).board()
            for a, b in zip(flat, "".join(pred)):
                c = reads[mode]
                c["n"] += 1
                c["ok"] += a == b
                if a == ".":
                    c["empty"] += 1
                    c["e2t"] += b != "."
                else:
                    c["tiles"] += 1
                    c["tiles_ok"] += a == b
                if a != b:
                    conf_read[mode][f"{a}->{b}"] += 1
        if idx:
            let_truth += [flat[i] for i in idx]
            sessions += [row["session"]] * len(idx)
            let_cls.append(cls_letter_probs(reader, w32, idx, alphabet))
            for p in PREPS:
                let_ocr[p].append(plain.probs[idx, 0] if p == "plain" else recs[p].letter_probs(crops[idx]).probs[:, 0])
            # turns: each letter crop turned clockwise by k (np.rot90 by -k), read in all four turns
            k = int(rng.integers(0, 4))       # the whole board turned, as a camera would
            turned = np.stack([np.rot90(c, -k) for c in crops[idx]])
            lp = rec.letter_probs(turned, turns=(0, 1, 2, 3))
            best = lp.probs.max(axis=2)            # (N, 4): each turn's top letter score
            turn_truth += [k] * len(idx)
            turn_best += list(best.argmax(axis=1))
            board_turns.append((k, int(best.sum(axis=0).argmax()), int(lp.ink.sum(axis=0).argmax())))
        print(f"[{time.time() - t0:5.1f} s] english {n + 1}/{len(rows)} {row['frame']}", flush=True)

    truth = np.array(let_truth)
    sess = np.array(sessions)
    p_cls = np.concatenate(let_cls)
    p_ocr = {p: np.concatenate(v) for p, v in let_ocr.items()}
    letters = {"classifier": letters_result(truth, al[p_cls.argmax(1)]),
               "recogniser": {p: letters_result(truth, al[p_ocr[p].argmax(1)]) for p in PREPS}}
    fused_letters = pool_letters(p_cls, p_ocr[prep], weight)
    letters["fused"] = letters_result(truth, al[fused_letters.argmax(1)])
    letters["fused"]["weight"] = weight
    letters["fused"]["prep"] = prep
    letters["fused_by_session"] = {s: letters_result(truth[sess == s], al[fused_letters[sess == s].argmax(1)])["accuracy"]
                                   for s in sorted(set(sessions))}
    letters["fused_at_scrabscrap_weight"] = letters_result(
        truth, al[pool_letters(p_cls, p_ocr[prep], dev["chosen_weight"]).argmax(1)])
    letters["fused_at_scrabscrap_weight"]["weight"] = dev["chosen_weight"]
    letters["fused_product_plain_prep"] = letters_result(truth, al[pool_letters(p_cls, p_ocr["plain"], 0.5).argmax(1)])
    letters["weight_curve_information_only"] = {
        str(w): round(float(np.mean(al[pool_letters(p_cls, p_ocr[prep], w).argmax(1)] == truth)), 5) for w in WEIGHTS}
    both_wrong = (al[p_cls.argmax(1)] != truth) & (al[p_ocr[prep].argmax(1)] != truth)
    letters["both_wrong"] = int(both_wrong.sum())
    letters["oracle_either_right"] = round(float(1 - both_wrong.mean()), 5)
    res["english_letters"] = letters

    def read_summary(c: Counter, conf: Counter) -> dict:
        return {"squares": c["n"], "per_square": round(c["ok"] / c["n"], 5), "tiles": c["tiles"],
                "per_tile": round(c["tiles_ok"] / c["tiles"], 5), "empty_to_tile": round(c["e2t"] / c["empty"], 5),
                "confusions": dict(conf.most_common(12))}
    res["english_read"] = {m: read_summary(reads[m], conf_read[m]) for m in reads}
    res["english_read"]["note"] = ("TileReader.read (caps, lone-tile rule) on true-corner warps; 'fused' re-splits each "
                                   "square's letter probability with the recogniser (vision.fuse) before the caps")

    ot = np.array(occ["truth"])
    ink, mass = np.array(occ["ink"]), np.array(occ["mass"])
    kinds = {"letter": np.char.isalpha(ot.astype(str)), "empty": ot == ".", "blank": ot == "?"}
    occupancy = {}
    for name, sig in (("ink", ink), ("letter_mass", mass)):
        occupancy[name] = {
            "auc_letter_vs_empty": round(auc(sig[kinds["letter"]], sig[kinds["empty"]]), 4),
            "auc_blank_vs_empty": round(auc(sig[kinds["blank"]], sig[kinds["empty"]]), 4),
            "auc_letter_vs_blank": round(auc(sig[kinds["letter"]], sig[kinds["blank"]]), 4),
            "share_over_0.5": {k: round(float((sig[m] > 0.5).mean()), 4) for k, m in kinds.items()},
            "median": {k: round(float(np.median(sig[m])), 4) for k, m in kinds.items()},
            "count": {k: int(m.sum()) for k, m in kinds.items()}}
    res["english_occupancy"] = occupancy

    tt, tb = np.array(turn_truth), np.array(turn_best)
    bt = np.array(board_turns)
    res["english_turns"] = {"letters": len(tt), "per_tile_upright_turn_found": round(float(np.mean(tt == tb)), 4),
                            "boards": len(bt),
                            "per_board_sum_of_top_letter_score": int((bt[:, 0] == bt[:, 1]).sum()),
                            "per_board_sum_of_ink": int((bt[:, 0] == bt[:, 2]).sum()),
                            "note": "each photo's letter crops turned clockwise by one random k; the recogniser reads "
                                    "them in all 4 turns (np.rot90 counter-clockwise j); right when j == k scores most"}

    # timing, one core: a board's letter squares and all 225
    image = cv2.imread(str(EN / "frames" / rows[-1]["frame"]), cv2.IMREAD_COLOR)
    w64 = warp_board(image, homography_from_corners(np.float32(rows[-1]["corners"]), 64), 64)
    crops = square_crops_ocr(w64)
    timing = {}
    for label, batch in (("225_squares", crops), ("60_squares", crops[:60])):
        t_net, t_prep = [], []
        for _ in range(2 if args.quick else 7):
            t = time.perf_counter()
            prepped = rec.prepare(batch)
            t_prep.append(time.perf_counter() - t)
            t = time.perf_counter()
            rec.run(prepped)
            t_net.append(time.perf_counter() - t)
        timing[label] = {"network_ms_per_square": round(1000 * float(np.median(t_net)) / len(batch), 3),
                         "prep_ms_per_square": round(1000 * float(np.median(t_prep)) / len(batch), 3),
                         "network_ms_per_square_min": round(1000 * float(np.min(t_net)) / len(batch), 3)}
    timing["load_average_1min"] = round(os.getloadavg()[0], 2)
    timing["note"] = "one onnxruntime intra-op thread, cv2.setNumThreads(1); median of repeats; machine shared"
    res["timing"] = timing
    res.update(machine=f"{platform.machine()} {platform.system()}, {len(os.sched_getaffinity(0))} cpus",
               commit=git_commit(), date=time.strftime("%Y-%m-%d"), quick=args.quick,
               uncommitted_in_vision=__import__("subprocess").run(
                   ["git", "status", "--porcelain", "vision", "tests/bench/bench_ocr.py"], cwd=REPO,
                   capture_output=True, text=True).stdout.split("\n")[:-1])
    text = json.dumps(res, indent=1, ensure_ascii=False) + "\n"
    if not args.quick:
        Path(args.out).write_text(text, encoding="utf-8")
    print(text)
    print(f"[{time.time() - t0:5.1f} s] done{'' if args.quick else '; written to ' + args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
