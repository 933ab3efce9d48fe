"""Train the learned rack finder (vision/rackdetect.py) on rendered racks and export it to ONNX
with its model card.

    python -m tilecam.models.train_rackdet [--racks 6000] [--minutes 22] [--min-scale 0.4] [--out models/rackdet.onnx]

The stills (models/rackdet_data.py) are rendered in the training looks only: every option of
RACK_HELD_OUT is kept out whole, so the bench's held-out sets (tests/bench/bench_rack.py) are looks
the net never saw. A still is warped (scale, roll, a little perspective: rolled and tilted
cameras), mirrored, its colours changed (gains, swapped channels, inverted, grey, blur, noise, a glare
spot), and cut to a window CROP_W wide (the net is fully convolutional; the window halves the
cost of a step), so the net learns a tile's shape and ink, not the renderer's colours. The targets,
on the net's output grid (every STRIDE-th input pixel): a tile face's core (the face's middle half
across and 60 % down, so touching tiles' cores stand apart), whether the tile is hidden (a hand
over it), and the offsets from each core pixel to the face's four corners. CPU, seeded, 2 torch
threads, ends by ``--minutes`` (the learning rate's schedule follows the clock), prints the loss
and the time left. Then the ONNX model is checked against torch and measured on 100 fresh training
looks (seeds of their own): tiles found right. Needs the `train` extra (torch, onnx).
"""
from __future__ import annotations

import argparse
import json
import math
import platform
import subprocess
import sys
import time
from pathlib import Path

import cv2
import numpy as np

from tilecam.models.rackdet_data import FULL, HANDS, SEED0, render_set, scene_for
from tilecam.models.synth import RACK_BROAD, RACK_HELD_OUT
from tilecam.vision.rackdetect import INPUT_H, INPUT_W, MEAN, OFFSET_NORM, STD, STRIDE, RackDetector

OUT_W, OUT_H = INPUT_W // STRIDE, INPUT_H // STRIDE
CORE_U = (0.25, 0.75)   # the core: this span across the face
CORE_V = (0.2, 0.8)     # and this span down it
VAL_SEED0 = 200_000
CHANNELS = (12, 24, 40, 56)
CROP_W = 160           # training windows this wide (a multiple of 16): the net is fully convolutional


def make_model():
    import torch
    from torch import nn

    def block(i, o, stride=1, dil=1):
        return nn.Sequential(nn.Conv2d(i, o, 3, stride, dil, dilation=dil, bias=False), nn.BatchNorm2d(o),
                             nn.ReLU(inplace=True))

    c1, c2, c3, c4 = CHANNELS

    class RackNet(nn.Module):
        """(N, 3, 144, 256) -> (N, 10, 72, 128): core logit, hidden logit, 8 corner offsets.
        A small U-net: four stride-2 stages (the last two dilated, to see the row around a tile and
        a hand over it), three up-samplings with the encoder's maps beside."""

        def __init__(self) -> None:
            super().__init__()
            self.e1 = nn.Sequential(block(3, c1, 2), block(c1, c1))
            self.e2 = nn.Sequential(block(c1, c2, 2), block(c2, c2))
            self.e3 = nn.Sequential(block(c2, c3, 2), block(c3, c3), block(c3, c3, dil=2))
            self.e4 = nn.Sequential(block(c3, c4, 2), block(c4, c4), block(c4, c4, dil=2))
            self.d3 = block(c4 + c3, c3)
            self.d2 = block(c3 + c2, c2)
            self.d1 = block(c2 + c1, 12)
            self.head = nn.Conv2d(12, 10, 1)
            self.up = nn.Upsample(scale_factor=2, mode="nearest")

        def forward(self, x):
            a = self.e1(x)
            b = self.e2(a)
            c = self.e3(b)
            d = self.e4(c)
            y = self.d3(torch.cat([self.up(d), c], 1))
            y = self.d2(torch.cat([self.up(y), b], 1))
            y = self.d1(torch.cat([self.up(y), a], 1))
            return self.head(y)

    return RackNet()


def _sub(q: np.ndarray, u: tuple[float, float], v: tuple[float, float]) -> np.ndarray:
    """The part of quad ``q`` (TL, TR, BR, BL) between fractions u across and v down."""
    def at(a, b):
        top = q[0] + (q[1] - q[0]) * a
        bot = q[3] + (q[2] - q[3]) * a
        return top + (bot - top) * b
    return np.array([at(u[0], v[0]), at(u[1], v[0]), at(u[1], v[1]), at(u[0], v[1])], np.float32)


def targets(quads: np.ndarray, hidden: np.ndarray, width: int = INPUT_W) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """For one still's quads (input pixels, nan rows: no tile) in an input ``width`` wide: core
    (H, W), hidden (H, W), offsets (8, H, W) on the output grid."""
    out_w = width // STRIDE
    label = np.zeros((OUT_H, out_w), np.uint8)
    hid = np.zeros((OUT_H, out_w), np.float32)
    off = np.zeros((8, OUT_H, out_w), np.float32)
    for i, q in enumerate(quads):
        if np.isnan(q).any():
            continue
        qo = q / STRIDE
        core = _sub(qo, CORE_U, CORE_V) - 0.5          # to the pixel-centre convention of fillConvexPoly
        cv2.fillConvexPoly(label, np.round(core * 4).astype(np.int32), i + 1, shift=2)
        cx, cy = np.floor(qo.mean(axis=0)).astype(int)
        if 0 <= cx < out_w and 0 <= cy < OUT_H and not (label == i + 1).any():
            label[cy, cx] = i + 1                      # a far tile's core is at least its centre pixel
        ys, xs = np.nonzero(label == i + 1)
        if not len(ys):
            continue
        hid[ys, xs] = float(hidden[i])
        pts = np.stack([xs + 0.5, ys + 0.5], axis=1).astype(np.float32)   # (p, 2)
        off[:, ys, xs] = ((qo[None] - pts[:, None]) / OFFSET_NORM).reshape(len(ys), 8).T
    return (label > 0).astype(np.float32), hid, off


MIN_SCALE = 0.4    # the warp shrinks a still to this at the most (the committed model's: far, small tiles, issue 45)


def augment(img: np.ndarray, quads: np.ndarray, rng: np.random.Generator,
            min_scale: float = MIN_SCALE) -> tuple[np.ndarray, np.ndarray]:
    """A still warped (scale, roll, perspective, shift), maybe mirrored, its colours changed."""
    h, w = img.shape[:2]
    q = quads.copy()
    if rng.random() < 0.85:
        src = np.float32([[0, 0], [w, 0], [w, h], [0, h]])
        s = rng.uniform(min_scale, 1.2)
        a = np.radians(rng.uniform(-24, 24))
        rot = np.array([[np.cos(a), -np.sin(a)], [np.sin(a), np.cos(a)]], np.float32)
        c = np.float32([w / 2, h / 2])
        dst = (src - c) @ rot.T * s + c + np.float32([rng.uniform(-0.15, 0.15) * w, rng.uniform(-0.15, 0.15) * h])
        dst += rng.uniform(-0.06, 0.06, (4, 2)).astype(np.float32) * np.float32([w, h])
        hom = cv2.getPerspectiveTransform(src, dst.astype(np.float32))
        img = cv2.warpPerspective(img, hom, (w, h), flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
        ok = ~np.isnan(q[:, 0, 0])
        if ok.any():
            q[ok] = cv2.perspectiveTransform(q[ok].reshape(-1, 1, 2), hom).reshape(-1, 4, 2)
    if rng.random() < 0.5:
        img = img[:, ::-1]
        q = q[:, [1, 0, 3, 2]]
        q[..., 0] = w - q[..., 0]
    x = img.astype(np.float32)
    if rng.random() < 0.3:
        x = x[..., rng.permutation(3)]
    if rng.random() < 0.12:
        x = 255.0 - x
    if rng.random() < 0.15:
        x = np.repeat(x.mean(axis=2, keepdims=True), 3, axis=2)
    x = x * rng.uniform(0.85, 1.15, 3).astype(np.float32) * rng.uniform(0.55, 1.3) + rng.uniform(-30, 30)
    if rng.random() < 0.15:   # a glare spot
        yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
        gx, gy, r = rng.uniform(0, w), rng.uniform(0, h), rng.uniform(6, 18)
        x += (np.exp(-((xx - gx) ** 2 + (yy - gy) ** 2) / (2 * r * r)) * rng.uniform(60, 140))[..., None]
    if rng.random() < 0.3:
        x = cv2.GaussianBlur(x, (0, 0), rng.uniform(0.4, 1.3))
    if rng.random() < 0.3:
        x = x + rng.normal(0, rng.uniform(2, 8), x.shape).astype(np.float32)
    return np.clip(x, 0, 255), q


def batch(data: dict, idx: np.ndarray, rng: np.random.Generator, aug: bool = True, min_scale: float = MIN_SCALE):
    """Stills ``idx`` as net input and targets; augmented ones cut to a CROP_W window (a tile the
    window cuts keeps its corners outside it)."""
    xs, cores, hids, offs = [], [], [], []
    for i in idx:
        img, q = (augment(data["x"][i], data["quads"][i], rng, min_scale) if aug
                  else (data["x"][i].astype(np.float32), data["quads"][i]))
        if aug:
            x0 = 16 * int(rng.integers(0, (INPUT_W - CROP_W) // 16 + 1))
            img = img[:, x0:x0 + CROP_W]
            q = q - np.float32([x0, 0])
        core, hid, off = targets(q, data["hidden"][i], img.shape[1])
        xs.append(((img / 255.0 - MEAN) / STD).transpose(2, 0, 1))
        cores.append(core)
        hids.append(hid)
        offs.append(off)
    return (np.stack(xs).astype(np.float32), np.stack(cores), np.stack(hids), np.stack(offs))


def found_right(det: RackDetector, n: int, seed0: int) -> dict:
    """On ``n`` fresh training-look stills: racks whose slots are all there, each on its tile and seen
    as the truth (bench_rack's rule), empty racks read with no slot, hidden tiles given a seen slot."""
    right = empties = empty_right = hidden = hidden_seen = 0
    for k in range(n):
        scene = scene_for(seed0 + k)
        m = len(scene.tiles)
        fix = det.detect(scene.image).fix
        slots = fix.slots if fix is not None else ()
        if not m:
            empties += 1
            empty_right += not slots
            continue
        ok = len(slots) == m and all(
            x <= s.quad.mean(axis=0)[0] <= x + bw and y <= s.quad.mean(axis=0)[1] <= y + bh and s.seen != occ
            for s, (x, y, bw, bh), occ in zip(slots, scene.boxes, scene.occluded))
        right += ok
        for (x, y, bw, bh), occ in zip(scene.boxes, scene.occluded):
            if occ:
                hidden += 1
                hidden_seen += any(s.seen and x <= s.quad.mean(axis=0)[0] <= x + bw and
                                   y <= s.quad.mean(axis=0)[1] <= y + bh for s in slots)
    return {"racks": n, "with_tiles": n - empties, "slots_right": right, "empty": empties,
            "empty_read_empty": empty_right, "hidden_tiles": hidden, "hidden_given_a_seen_slot": hidden_seen}


def git_commit() -> str:
    return subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True,
                          cwd=Path(__file__).resolve().parent).stdout.strip() or "unknown"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--out", default=str(Path(__file__).resolve().parent / "rackdet.onnx"))
    ap.add_argument("--racks", type=int, default=6000, help="rendered training stills")
    ap.add_argument("--minutes", type=float, default=22.0, help="training time (the stills' rendering not counted)")
    ap.add_argument("--batch", type=int, default=16)
    ap.add_argument("--lr", type=float, default=3e-3)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--cache", default=str(Path.home() / ".cache" / "tilecam" / "rackdet"),
                    help="folder the rendered stills are kept in (about 110 MB a 1000)")
    ap.add_argument("--val", type=int, default=100, help="fresh training-look stills measured after training")
    ap.add_argument("--min-scale", type=float, default=MIN_SCALE,
                    help="the warp shrinks a still to this at the most (smaller: far tiles)")
    args = ap.parse_args(argv)
    import torch
    torch.manual_seed(args.seed)
    torch.set_num_threads(2)
    cache = Path(args.cache) / f"train_{args.racks}_{SEED0}_broad.npz"   # broad: issue 45's mix among the looks
    if cache.is_file():
        data = dict(np.load(cache))
        print(f"stills from {cache}", flush=True)
    else:
        print(f"rendering {args.racks} training-look racks", flush=True)
        data = render_set(args.racks, SEED0, log=lambda m: print(m, flush=True))
        cache.parent.mkdir(parents=True, exist_ok=True)
        np.savez(cache, **data)
    n = len(data["x"])
    model = make_model()
    params = sum(p.numel() for p in model.parameters())
    print(f"{n} stills, {int(np.isfinite(data['quads'][:, :, 0, 0]).sum())} tiles, "
          f"{int(data['hidden'].sum())} hidden; model {params} parameters", flush=True)
    opt = torch.optim.AdamW(model.parameters(), lr=args.lr, weight_decay=1e-4)
    pos = torch.tensor(3.0)
    rng = np.random.default_rng(args.seed)
    budget = args.minutes * 60.0
    t0 = time.time()
    step = 0
    seen = 0
    avg = None
    model.train()
    while True:
        frac = (time.time() - t0) / budget
        if frac >= 1.0:
            break
        lr = args.lr * (frac / 0.05 if frac < 0.05 else 0.5 * (1 + math.cos(math.pi * (frac - 0.05) / 0.95)))
        for g in opt.param_groups:
            g["lr"] = lr
        idx = rng.integers(0, n, args.batch)
        x, core, hid, off = (torch.from_numpy(a) for a in batch(data, idx, rng, min_scale=args.min_scale))
        out = model(x)
        l_core = torch.nn.functional.binary_cross_entropy_with_logits(out[:, 0], core, pos_weight=pos)
        m = core > 0.5
        if m.any():
            l_hid = torch.nn.functional.binary_cross_entropy_with_logits(out[:, 1][m], hid[m])
            l_off = torch.nn.functional.smooth_l1_loss(out[:, 2:].permute(0, 2, 3, 1)[m],
                                                       off.permute(0, 2, 3, 1)[m], beta=0.05)
        else:
            l_hid = l_off = out.sum() * 0
        loss = l_core + 0.5 * l_hid + 2.0 * l_off
        opt.zero_grad()
        loss.backward()
        opt.step()
        step += 1
        seen += len(idx)
        parts = np.array([loss.item(), l_core.item(), l_hid.item(), l_off.item()])
        avg = parts if avg is None else 0.95 * avg + 0.05 * parts
        if step % 25 == 0:
            el = time.time() - t0
            print(f"step {step} ({seen / n:.1f} passes) loss {avg[0]:.4f} (core {avg[1]:.4f} hidden {avg[2]:.4f} "
                  f"corners {avg[3]:.4f}) lr {lr:.2e}, {el / 60:.1f} of {args.minutes:.0f} min", flush=True)
    train_s = time.time() - t0
    model.eval()
    out_path = Path(args.out)
    dummy = torch.zeros(1, 3, INPUT_H, INPUT_W)
    torch.onnx.export(model, dummy, str(out_path), input_names=["frame"], output_names=["maps"],
                      opset_version=17, dynamo=False,
                      dynamic_axes={"frame": {0: "n", 2: "h", 3: "w"}, "maps": {0: "n", 2: "oh", 3: "ow"}})
    import onnxruntime as ort
    sess = ort.InferenceSession(str(out_path), providers=["CPUExecutionProvider"])
    xb = batch(data, np.arange(2), rng, aug=False)[0]
    with torch.no_grad():
        ref = model(torch.from_numpy(xb)).numpy()
    got = sess.run(None, {"frame": xb})[0]
    diff = float(np.abs(ref - got).max())
    print(f"exported {out_path} ({out_path.stat().st_size / 1e3:.0f} kB); ONNX vs torch max diff {diff:.2e}", flush=True)
    det = RackDetector(out_path, threads=1)
    val = found_right(det, args.val, VAL_SEED0)
    print(f"fresh training looks: {json.dumps(val)}", flush=True)
    card = {
        "name": "tilecam learned rack finder",
        "what": "rack-camera frame -> tile face cores, hidden tiles, corner offsets (vision/rackdetect.py decodes)",
        "input": {"width": INPUT_W, "height": INPUT_H, "resize": "INTER_AREA", "channel_order": "BGR",
                  "mean": MEAN, "std": STD},
        "output": {"stride": STRIDE, "channels": ["core logit", "hidden logit", "TL x", "TL y", "TR x", "TR y",
                                                 "BR x", "BR y", "BL x", "BL y"],
                   "offset_norm": OFFSET_NORM, "core": {"across": CORE_U, "down": CORE_V}},
        "training": {"command": "python -m tilecam.models.train_rackdet " + " ".join(argv or sys.argv[1:]),
                     "commit": git_commit(), "date": time.strftime("%Y-%m-%d"), "racks": n, "seeds_from": SEED0,
                     "full_racks": FULL, "hand_racks": HANDS, "looks": "models.synth.draw_look(seed, 'train', broad=True)",
                     "broad_mix": {k: list(v) for k, v in RACK_BROAD.items()},
                     "held_out_whole": {k: list(v) for k, v in RACK_HELD_OUT.items()},
                     "augmentation": "perspective warp (scale " + f"{args.min_scale:g}-1.2," + " roll +-24 deg, corners +-6 %), mirror, "
                                     "channel gains/swaps, inversion, grey, brightness, glare, blur, noise",
                     "steps": step, "batch": args.batch, "passes": round(seen / n, 2), "minutes": round(train_s / 60, 1),
                     "lr": args.lr, "seed": args.seed, "threads": 2, "torch": torch.__version__,
                     "python": platform.python_version(), "final_loss": [round(float(v), 4) for v in avg]},
        "parameters": params,
        "onnx_vs_torch_max_diff": diff,
        "fresh_training_looks": {"seeds_from": VAL_SEED0, **val},
        "bench": "tests/bench/bench_rack.py --finder learned|both (docs/racks.md, 'A learned finder')",
    }
    card_path = out_path.with_name(out_path.name.removesuffix(".onnx") + ".card.json")
    card_path.write_text(json.dumps(card, indent=2) + "\n", encoding="utf-8")
    print(f"wrote {out_path} and {card_path}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
