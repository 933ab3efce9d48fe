"""Train the tile classifier on synthetic crops and export it to ONNX with its model card.

    python -m tilecam.models.train --out models/tiles.onnx [--boards 1800] [--epochs 12] [--seed 0]

CPU only, seeded, 2 torch threads; prints loss, accuracy and ETA per epoch. Whole factors are
held out of training and measured each on its own: font families, a tile style, a board
scheme, a premium-label style and render factors (models.synth.looks.RENDER_FACTORS: Braille,
a kind of printed blank, print beside the grid), for generalisation to a board and tile set
the network has never seen. ``--deadline`` ends training by a wall-clock time: the epochs left
are cut after each epoch when they would not fit, and the learning-rate schedule follows.
Needs the `train` extra (torch, onnx).
"""
from __future__ import annotations

import argparse
import json
import platform
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

from tilecam.models.dataset import CLASSES, INDEX, NO_ROTATION, CropSpec, DataSpec, build

MEAN = (0.5, 0.5, 0.5)
STD = (0.25, 0.25, 0.25)
EMBED_DIM = 64
HIDDEN = 160
COSINE_SCALE = 16.0


def make_model(n_classes: int):
    import torch
    from torch import nn

    def block(i, o, stride=1, k=3):
        return [nn.Conv2d(i, o, k, stride, k // 2, bias=False), nn.BatchNorm2d(o), nn.ReLU(inplace=True)]

    class TileNet(nn.Module):
        """32x32 crop -> class logits (cosine classifier), rotation logits, unit embedding.

        Sized for well under 25 ms per 225 squares on one core: the first two convolutions
        stride, and the widest layer runs at 4x4."""

        def __init__(self) -> None:
            super().__init__()
            self.features = nn.Sequential(*block(3, 24, 2), *block(24, 48, 2), *block(48, 64),
                                          nn.MaxPool2d(2), *block(64, 96), nn.Flatten())
            self.hidden = nn.Sequential(nn.Linear(96 * 16, HIDDEN), nn.ReLU(inplace=True))
            self.embed = nn.Linear(HIDDEN, EMBED_DIM)
            self.rotation = nn.Linear(HIDDEN, 4)
            # cosine classifier: logits are scaled similarities to class directions, so the
            # embedding space is the one enrollment's prototypes live in
            self.class_dirs = nn.Parameter(torch.randn(n_classes, EMBED_DIM) * 0.1)

        def forward(self, x):
            h = self.hidden(self.features(x))
            e = nn.functional.normalize(self.embed(h), dim=1)
            w = nn.functional.normalize(self.class_dirs, dim=1)
            return COSINE_SCALE * e @ w.t(), self.rotation(h), e

    return TileNet()


def load_onnx_weights(model, path: Path) -> None:
    """Start from an exported model: its convolutions carry the batch norms folded in, so each
    convolution takes the folded weight and its batch norm becomes the identity plus the folded
    bias (running mean 0, variance 1 - eps). Train such a model with the batch norms in eval
    mode (``freeze_batchnorm``): the folded statistics stay, the affine parts still learn."""
    import onnx
    import torch
    from onnx import numpy_helper

    graph = onnx.load(str(path)).graph
    weights = {t.name: numpy_helper.to_array(t) for t in graph.initializer}
    convs = [n for n in graph.node if n.op_type == "Conv"]
    layers = [m for m in model.features if isinstance(m, torch.nn.Conv2d)]
    norms = [m for m in model.features if isinstance(m, torch.nn.BatchNorm2d)]
    if len(convs) != len(layers):
        raise SystemExit(f"--init {path}: {len(convs)} convolutions, this network has {len(layers)}")
    with torch.no_grad():
        for node, conv, bn in zip(convs, layers, norms):
            conv.weight.copy_(torch.from_numpy(weights[node.input[1]]))
            bn.weight.fill_(1.0)
            bn.bias.copy_(torch.from_numpy(weights[node.input[2]]))
            bn.running_mean.zero_()
            bn.running_var.fill_(1.0 - bn.eps)
        state = model.state_dict()
        for name in ("hidden.0.weight", "hidden.0.bias", "embed.weight", "embed.bias", "rotation.weight",
                     "rotation.bias", "class_dirs"):
            state[name].copy_(torch.from_numpy(weights[name]))


def freeze_batchnorm(model) -> None:
    import torch
    for m in model.modules():
        if isinstance(m, torch.nn.BatchNorm2d):
            m.eval()


def to_input(x_uint8: np.ndarray):
    import torch
    x = torch.from_numpy(x_uint8).float().div_(255.0).permute(0, 3, 1, 2)
    mean = torch.tensor(MEAN).view(1, 3, 1, 1)
    std = torch.tensor(STD).view(1, 3, 1, 1)
    return (x - mean) / std


def augment(x, rot, gen):
    """Per batch: random quarter turns (rotation label follows), shifts, channel order; per
    crop: light, inversion, grey. Colour and polarity changes stand in for tile sets never
    rendered (white letters on dark tiles, other face colours)."""
    import torch
    if float(torch.rand(1, generator=gen)) < 0.5:
        x = x[:, torch.randperm(3, generator=gen)]
    n = x.shape[0]
    inv = torch.rand(n, 1, 1, 1, generator=gen) < 0.15
    x = torch.where(inv, -x, x)  # normalised input: 1 - v becomes -x
    grey = torch.rand(n, 1, 1, 1, generator=gen) < 0.15
    x = torch.where(grey, x.mean(dim=1, keepdim=True).expand_as(x), x)
    k = int(torch.randint(0, 4, (1,), generator=gen))
    if k:
        x = torch.rot90(x, k=-k, dims=(2, 3))  # clockwise k quarter turns
        rot = torch.where(rot >= 0, (rot + k) % 4, rot)
    dx, dy = (int(v) for v in torch.randint(-2, 3, (2,), generator=gen))
    if dx or dy:
        x = torch.nn.functional.pad(x, (2, 2, 2, 2), mode="replicate")[:, :, 2 + dy:34 + dy, 2 + dx:34 + dx]
    x = x * torch.empty(n, 1, 1, 1).uniform_(0.8, 1.2, generator=gen) \
        + torch.empty(n, 3, 1, 1).uniform_(-0.25, 0.25, generator=gen)
    return x, rot


def accuracy(model, x_uint8, y, rot, batch=1024):
    import torch
    model.eval()
    correct = rot_ok = rot_n = 0
    with torch.no_grad():
        for i in range(0, len(y), batch):
            logits, rl, _ = model(to_input(x_uint8[i:i + batch]))
            correct += int((logits.argmax(1).numpy() == y[i:i + batch]).sum())
            m = rot[i:i + batch] >= 0
            rot_ok += int((rl.argmax(1).numpy()[m] == rot[i:i + batch][m]).sum())
            rot_n += int(m.sum())
    return correct / max(len(y), 1), rot_ok / max(rot_n, 1)


def onnx_accuracy(session, data) -> dict:
    """Per-square, letters-only, blank-tile, empty-square and rotation accuracy of the exported model
    (the blank and empty shares are what printed blanks, Braille and board print move)."""
    from tilecam.vision.classify import preprocess
    card = {"input_size": CropSpec().square_px, "mean": MEAN, "std": STD}
    logits, rl, _ = session.run(None, {session.get_inputs()[0].name: preprocess(data["x"], card)})
    pred = logits.argmax(1)
    letters = data["y"] >= 2
    blanks, empty = data["y"] == INDEX["?"], data["y"] == INDEX["."]
    m = data["rot"] >= 0
    return {"squares": int(len(pred)), "per_square": round(float((pred == data["y"]).mean()), 5),
            "letters": round(float((pred[letters] == data["y"][letters]).mean()), 5),
            "blanks": round(float((pred[blanks] == data["y"][blanks]).mean()), 5) if blanks.any() else None,
            "empty": round(float((pred[empty] == data["y"][empty]).mean()), 5) if empty.any() else None,
            "rotation": round(float((rl.argmax(1)[m] == data["rot"][m]).mean()), 5)}


def export(model, path: Path) -> None:
    import torch
    model.eval()
    n = CropSpec().square_px
    torch.onnx.export(model, torch.zeros(1, 3, n, n), str(path), input_names=["crops"],
                      output_names=["class_logits", "rotation_logits", "embedding"],
                      dynamic_axes={k: {0: "n"} for k in ("crops", "class_logits", "rotation_logits", "embedding")},
                      opset_version=17, dynamo=False)


def one_cycle(progress: float, max_lr: float, warm: float = 0.15) -> tuple[float, float]:
    """(learning rate, Adam beta1) at ``progress`` (0..1) of training: torch's OneCycleLR shape
    (cosine up from max_lr/25 over ``warm``, cosine down to max_lr/25e4, beta1 0.95 -> 0.85 ->
    0.95), as a function of progress so the run can be shortened while it goes."""
    def cos(a, b, t):
        return b + (a - b) * (1 + np.cos(np.pi * min(max(t, 0.0), 1.0))) / 2
    lo, end = max_lr / 25, max_lr / 25e4
    if progress < warm:
        t = progress / warm
        return cos(lo, max_lr, t), cos(0.95, 0.85, t)
    t = (progress - warm) / (1 - warm)
    return cos(max_lr, end, t), cos(0.85, 0.95, t)


def parse_render_holdout(text: str) -> dict[str, tuple[str, ...]]:
    """'braille=dots,legend=coordinates,legend=text' -> {'braille': ('dots',), 'legend': (...)}."""
    from tilecam.models.synth import RENDER_FACTORS
    held: dict[str, tuple[str, ...]] = {}
    for item in filter(None, text.split(",")):
        name, _, option = item.partition("=")
        if name not in RENDER_FACTORS or option not in RENDER_FACTORS[name]:
            raise SystemExit(f"--holdout-render: {item!r} is not a factor=option of {RENDER_FACTORS}")
        held[name] = held.get(name, ()) + (option,)
    for name, options in held.items():
        if set(options) >= set(RENDER_FACTORS[name]):
            raise SystemExit(f"--holdout-render: nothing of {name} left to train on")
    return held


def git_commit() -> str:
    try:
        return subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True,
                              text=True, check=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return "unknown"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", default="models/tiles.onnx", help="ONNX file; the card goes beside it")
    ap.add_argument("--boards", type=int, default=1800, help="rendered training boards")
    ap.add_argument("--epochs", type=int, default=12)
    ap.add_argument("--batch", type=int, default=256)
    ap.add_argument("--lr", type=float, default=3e-3)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--holdout-fonts", default="bookman,lato",
                    help="font families (models.synth.fonts.FACES) never used in training")
    ap.add_argument("--holdout-style", default="jewel", help="tile style never used in training")
    ap.add_argument("--holdout-scheme", default="white", help="board scheme never used in training")
    ap.add_argument("--holdout-labels", default="foreign", help="premium-label style never used in training")
    ap.add_argument("--holdout-render",
                    default="braille=dots,blank_print=logo,blank_print=face,blank_print=heart,marks=dots,"
                            "legend=coordinates,legend=text",
                    help="render factor options (models.synth.looks.RENDER_FACTORS) never used in training, "
                         "as factor=option,...")
    ap.add_argument("--eval-boards", type=int, default=40, help="boards per validation and held-out set")
    ap.add_argument("--deadline", default="",
                    help="UTC time (YYYY-MM-DDTHH:MM) by which training must end: fewer epochs if needed")
    ap.add_argument("--workers", type=int, default=2, help="processes that render the training boards")
    ap.add_argument("--blank-repeat", type=int, default=3,
                    help="blank tiles are rare (5%% of tiles) and easily taken for empty squares: "
                         "each epoch shows every blank crop this many times")
    ap.add_argument("--cache", default="", help="npz to reuse the rendered training set")
    ap.add_argument("--init", default="",
                    help="ONNX model to start from (fine-tuning: batch norms frozen at its statistics)")
    args = ap.parse_args(argv)

    import onnxruntime as ort
    import torch
    from tilecam.models.synth import DESIGNS, LABEL_STYLES, RENDER_FACTORS, STYLES, available_fonts, faces_of, family_of

    torch.manual_seed(args.seed)
    torch.set_num_threads(2)
    t_start = time.time()
    commit = git_commit()  # the code that renders and trains, not whatever HEAD is at the end
    held_families = tuple(f for f in args.holdout_fonts.split(",") if f)
    held = {"fonts": faces_of(held_families), "styles": (args.holdout_style,),
            "designs": (args.holdout_scheme,), "labels": (args.holdout_labels,)}
    for k, v in held.items():
        if not v:
            raise SystemExit(f"nothing to hold out for {k}: {args}")
    trained = {"fonts": tuple(f for f in sorted(available_fonts()) if family_of(f) not in held_families),
               "styles": tuple(s for s in STYLES if s not in held["styles"]),
               "designs": tuple(d for d in DESIGNS if d not in held["designs"]),
               "labels": tuple(s for s in LABEL_STYLES if s not in held["labels"])}
    held_render = parse_render_holdout(args.holdout_render)
    trained_render = {k: tuple(o for o in v if o not in held_render.get(k, ())) for k, v in RENDER_FACTORS.items()}
    trained["render"] = tuple(trained_render.items())
    train_spec = DataSpec(boards=args.boards, seed=args.seed, **trained)
    deadline = None
    if args.deadline:
        from datetime import datetime, timezone
        deadline = datetime.fromisoformat(args.deadline).replace(tzinfo=timezone.utc).timestamp()

    bars = {}

    def progress(i, n, what="train"):
        from tqdm import tqdm
        bar = bars.get(what) or bars.setdefault(what, tqdm(total=n, desc=f"render {what}", unit="board"))
        bar.update(i - bar.n)
        if i == n:
            bar.close()

    cache = Path(args.cache) if args.cache else None
    if cache and cache.is_file():
        data = dict(np.load(cache))
    else:
        data = build(train_spec, progress, workers=args.workers)
        if cache:
            np.savez(cache, **data)
    # each held-out factor on its own, everything else as in training
    nb = args.eval_boards
    sets = {"val": DataSpec(boards=nb, seed=args.seed + 101, **trained)}
    for i, factor in enumerate(("fonts", "styles", "designs", "labels")):
        sets[f"heldout_{factor}"] = DataSpec(boards=nb, seed=args.seed + 102 + i, **{**trained, factor: held[factor]})
    for i, (name, options) in enumerate(held_render.items()):
        render = tuple({**trained_render, name: options}.items())
        sets[f"heldout_{name}"] = DataSpec(boards=nb, seed=args.seed + 111 + i, **{**trained, "render": render})
    evals = {k: build(s, lambda i, n, k=k: progress(i, n, k), workers=args.workers) for k, s in sets.items()}
    n = len(data["y"])
    print(f"{n} training crops ({int((data['y'] == INDEX['.']).sum())} empty), "
          f"{time.time() - t_start:.0f} s", flush=True)

    pool = np.concatenate([np.arange(n)] + [np.flatnonzero(data["y"] == INDEX["?"])] * (args.blank_repeat - 1))
    model = make_model(len(CLASSES))
    if args.init:
        load_onnx_weights(model, Path(args.init))
    opt = torch.optim.AdamW(model.parameters(), lr=args.lr, weight_decay=1e-4)
    per_epoch_steps = len(pool) // args.batch
    epochs = args.epochs
    step = 0
    gen = torch.Generator().manual_seed(args.seed)
    ce = torch.nn.CrossEntropyLoss(label_smoothing=0.05)
    ce_rot = torch.nn.CrossEntropyLoss(ignore_index=NO_ROTATION)
    y_all = torch.from_numpy(data["y"])
    r_all = torch.from_numpy(data["rot"])
    t_train = time.time()
    epoch = 0
    while epoch < epochs:
        model.train()
        if args.init:
            freeze_batchnorm(model)
        perm = pool[torch.randperm(len(pool), generator=gen).numpy()]
        tot = correct = 0
        loss_sum = 0.0
        # whole batches only: a 2-crop tail of empty squares has no rotation label, and its
        # 0/0 rotation loss once turned every weight into NaN
        for i in range(0, len(perm) - args.batch + 1, args.batch):
            idx = perm[i:i + args.batch]
            x, rot = augment(to_input(data["x"][idx]), r_all[idx], gen)
            y = y_all[idx]
            lr, beta1 = one_cycle(step / (epochs * per_epoch_steps), args.lr)
            for group in opt.param_groups:
                group["lr"], group["betas"] = lr, (beta1, group["betas"][1])
            logits, rl, _ = model(x)
            loss = ce(logits, y)
            if bool((rot != NO_ROTATION).any()):
                loss = loss + 0.5 * ce_rot(rl, rot)
            opt.zero_grad()
            loss.backward()
            opt.step()
            step += 1
            loss_sum += float(loss.detach()) * len(idx)
            correct += int((logits.argmax(1) == y).sum())
            tot += len(idx)
        val_acc, val_rot = accuracy(model, evals["val"]["x"], evals["val"]["y"], evals["val"]["rot"])
        torch.set_num_threads(2)  # accuracy() may run on fewer
        per_epoch = (time.time() - t_train) / (epoch + 1)
        epoch += 1
        if deadline is not None and epoch < epochs:
            fit = epoch + int((deadline - time.time() - 120) // per_epoch)  # 2 minutes to export
            if fit < epochs:
                epochs = max(epoch, fit)
                print(f"deadline: {epochs} epochs in all", flush=True)
        print(f"epoch {epoch}/{epochs}: loss {loss_sum / tot:.4f}, train acc {correct / tot:.4f}, "
              f"val acc {val_acc:.4f}, val rotation {val_rot:.4f}, "
              f"ETA {per_epoch * (epochs - epoch):.0f} s", flush=True)

    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    export(model, out)
    opts = ort.SessionOptions()
    opts.intra_op_num_threads = 1
    session = ort.InferenceSession(str(out), opts, providers=["CPUExecutionProvider"])
    measured = {k: onnx_accuracy(session, d) for k, d in evals.items()}
    for k, v in measured.items():
        print(f"{k}: {v}", flush=True)
    crop = CropSpec()
    card = {
        "name": "tilecam tile classifier",
        "classes": list(CLASSES),
        "input_size": crop.square_px,
        "square_px": crop.square_px,
        "margin_frac": crop.margin_frac,
        "channel_order": "BGR",
        "mean": list(MEAN),
        "cosine_scale": COSINE_SCALE,
        "std": list(STD),
        "inputs": {"crops": "(N, 3, 32, 32) float32: (BGR/255 - mean) / std of vision.rectify.square_crops"},
        "outputs": {"class_logits": f"(N, {len(CLASSES)})",
                    "rotation_logits": "(N, 4): k clockwise quarter turns of the letter",
                    "embedding": f"(N, {EMBED_DIM}) L2-normalised (enrollment prototypes live here)"},
        "training": {
            "data": "synthetic: models.synth.render_topdown boards of random tiles (tile side "
                    "0.84-0.97 of a square, 25-80 px per square) in random board schemes, premium "
                    "label styles, centre stars, tile styles and fonts (models/synth/looks.py, "
                    "fonts.py), 75% given height (tops displaced from a camera nadir over or far "
                    "off the board by up to 0.6 square at the far corner, sides drawn), degraded "
                    "(colour cast, uneven light, hard shadows, glare, blur, noise, JPEG 40-95), "
                    "warped with +-1.5 px corner jitter and up to 0.12 square shift; per batch "
                    "crops turned by quarter turns, shifted +-2 px, channels permuted; per crop "
                    "relit, 15% inverted, 15% grey; render factors (models.synth.looks.RENDER_FACTORS: "
                    "value placement, printed blanks, Braille, bold, tiles up to a third of a square "
                    "off, fold seams, print beside the grid) drawn per board from render_factors",
            "init": args.init or None, "lr": args.lr,
            "boards": args.boards, "crops": n, "blank_repeat": args.blank_repeat, "seed": args.seed,
            "epochs": epochs, "epochs_planned": args.epochs,
            **{k: list(v) for k, v in trained.items() if k != "render"},
            "render_factors": {k: list(v) for k, v in trained_render.items()},
            "held_out": {"font_families": list(held_families), "fonts": list(held["fonts"]),
                         "style": args.holdout_style, "scheme": args.holdout_scheme,
                         "labels": args.holdout_labels, "render": {k: list(v) for k, v in held_render.items()}},
            "minutes": round((time.time() - t_start) / 60, 1),
            "torch": torch.__version__, "machine": platform.machine(), "commit": commit,
        },
        "accuracy": {"synthetic": measured},
    }
    card_path = out.with_suffix("").with_suffix(".card.json") if out.suffix == ".onnx" else out.with_name(out.name + ".card.json")
    old = {}
    if card_path.is_file():
        old = json.loads(card_path.read_text(encoding="utf-8")).get("accuracy", {})
    # real-frame numbers come from tests/bench/bench_read.py; keep them until it reruns
    card["accuracy"].update({k: v for k, v in old.items() if k != "synthetic"})
    card_path.write_text(json.dumps(card, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    print(f"wrote {out} ({out.stat().st_size / 1e3:.0f} kB) and {card_path} in "
          f"{(time.time() - t_start) / 60:.1f} min", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
