"""The learned rack finder: a small fully convolutional net (models/rackdet.onnx) beside the
classical one (vision.rackfind), returning the same ``RackFix``.

The frame is shrunk to INPUT_W x INPUT_H (INTER_AREA); the net gives, at every STRIDE-th pixel,
the odds that it lies in a tile face's core (the face's middle half across and 60 % down: touching
tiles' cores are apart), the odds that the tile there is hidden (a hand over it), and the offsets
from the pixel to the face's four corners (TL, TR, BR, BL, in OFFSET_NORM output pixels). Each
connected core is a tile; its quad is the corners its pixels point at, weighted by their odds.
The tiles are kept along one row of one height, at most seven, left to right. Where they are small
at the input (a far or side camera) or unsure, the net looks again, closer, at a 16:9 crop of the
frame around their row; its quads and its hidden map (``HiddenMap``, which carries the crop's box)
are mapped back to the frame, and kept when it finds the same row with more tiles, or as many more
surely (``DetectConfig.zoom_below``). A tile the net calls hidden is an unseen slot, never a guess
(``DetectConfig.hidden``, low: a hidden tile read as a letter is the worst error). No tile found
is no row: the caller (vision.rack.RackReader.find) asks the classical finder, which tells an empty
rack (no slots) from no rack (None). onnxruntime only.
Trained by ``python -m tilecam.models.train_rackdet`` on rendered training looks (its card says how).
"""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np
from pydantic import BaseModel, ConfigDict, Field

from tilecam.vision.errors import SetupError
from tilecam.vision.rackfind import RackFix, Slot, hand_mask, order_quad

__all__ = ["DEFAULT_MODEL", "INPUT_H", "INPUT_W", "DetectConfig", "Detection", "HiddenMap", "RackDetector", "decode",
           "preprocess"]

DEFAULT_MODEL = Path(__file__).resolve().parents[1] / "models" / "rackdet.onnx"   # read as a file
INPUT_W, INPUT_H = 256, 144    # the frame shrunk to this (a 640 x 360 frame by 2.5)
STRIDE = 2                     # output pixel = STRIDE input pixels
OFFSET_NORM = 16.0             # corner offsets are in units of this many output pixels
MEAN, STD = 0.5, 0.25


class DetectConfig(BaseModel):
    """How the learned finder's output is read (chosen on bench_rack's training looks, ties broken on
    its one-factor held-out looks: docs/racks.md, 'A learned finder')."""
    model_config = ConfigDict(extra="forbid", frozen=True)

    core: float = Field(default=0.85, gt=0.0, lt=1.0,
                        description="A pixel with these odds or more is a tile's core (high: a core's rim, where "
                                    "touching tiles' cores nearly meet, stays out).")
    hidden: float = Field(default=0.3, gt=0.0, lt=1.0,
                          description="A tile whose core's mean hidden odds reach this is unseen (low on "
                                      "purpose: a hidden tile read as a letter is the worst error).")
    min_core: int = Field(default=4, ge=1, description="Fewest output pixels in a tile's core.")
    hand_share: float = Field(default=0.1, ge=0.0, le=1.0,
                              description="A tile this much under a hand (vision.rackfind.hand_mask: skin reaching "
                                          "in from the frame's edge) is unseen too, whatever the net says: the net "
                                          "judges a tile by its face's middle, a hand over its corner keeps part of "
                                          "the letter from the readers. 0: no such test.")
    sure: float = Field(default=0.9, gt=0.0, le=1.0,
                        description="finder 'both': the learned slots are used when every core's mean odds "
                                    "reach this, else the classical finder's. The closer look's 'unsure' too.")
    zoom_below: float = Field(default=12.0, ge=0.0,
                              description="A closer look (issue 45, far and side cameras): when the tiles the "
                                          "net found are shorter than this many of its input pixels (their "
                                          "median face height) or any is unsure (below 'sure'), it looks again "
                                          "at a crop of the frame around their row (16:9, as its training "
                                          "frames) and keeps that look's tiles when it finds the same row with "
                                          "more tiles, or as many more surely. 0: no closer look. 12 chosen on "
                                          "training looks (docs/racks.md, 'Issue 45, session 16'): the largest "
                                          "that cost the whole read on the bench's training stills nothing "
                                          "(16 and 24 found small tiles better still, but lost watched racks).")
    zoom_margin: float = Field(default=0.5, ge=0.0,
                               description="The closer look's crop reaches this many pitches past the row's "
                                           "ends, and a pitch more for each tile short of seven (tiles the "
                                           "first look missed at the ends are inside it). 0.5 chosen on "
                                           "training looks: one hidden tile fewer given a seen slot than 1.")
    zoom_max: float = Field(default=3.0, ge=1.0,
                            description="The closer look magnifies the frame at most this much (the crop's "
                                        "width is at least the frame's over this): tiles no larger than "
                                        "the training looks' nearest. 2 to 4 alike on training looks (no "
                                        "crop there came so close).")


@dataclass(frozen=True)
class HiddenMap:
    """The net's odds of a hidden tile (its output grid) over the part of the frame it looked at."""
    odds: np.ndarray
    box: tuple[int, int, int, int]      # x0, y0, x1, y1 in the frame: the whole frame, or a closer look's crop

    def at(self, quads) -> list[float]:
        """The odds' mean over each quad (frame pixels); 0 for a quad off the map."""
        x0, y0, x1, y1 = self.box
        scale = np.float32([self.odds.shape[1] / (x1 - x0), self.odds.shape[0] / (y1 - y0)])
        out = []
        for q in quads:
            m = np.zeros(self.odds.shape, np.uint8)
            cv2.fillConvexPoly(m, np.int32(np.round((np.asarray(q) - np.float32([x0, y0])) * scale)), 1)
            out.append(float(self.odds[m > 0].mean()) if m.any() else 0.0)
        return out


@dataclass(frozen=True)
class Detection:
    fix: RackFix | None     # None: no tile found
    scores: tuple[float, ...]  # per slot: the core's mean odds
    hidden: HiddenMap | None = None    # the gaps' test (vision.rack.RackReader.hidden_odds)
    zoomed: bool = False               # the closer look's tiles (DetectConfig.zoom_below)

    @property
    def confidence(self) -> float:
        return min(self.scores) if self.scores else 0.0


def preprocess(image: np.ndarray) -> np.ndarray:
    """BGR frame -> (1, 3, INPUT_H, INPUT_W) float32, as the net was trained."""
    small = cv2.resize(image, (INPUT_W, INPUT_H), interpolation=cv2.INTER_AREA)
    return ((small.astype(np.float32) / 255.0 - MEAN) / STD).transpose(2, 0, 1)[None]


def _sigmoid(x: np.ndarray) -> np.ndarray:
    return 1.0 / (1.0 + np.exp(-np.clip(x, -30, 30)))


def _row(quads: list[np.ndarray], keep: list[int]) -> list[int]:
    """Of the tiles ``keep``, those along one row of one height (a median height, a line through the
    centres fitted robustly), at most seven."""
    if len(keep) <= 1:
        return keep
    heights = np.array([np.ptp(quads[i][:, 1]) for i in keep])
    h = float(np.median(heights))
    keep = [i for i, hh in zip(keep, heights) if 0.6 * h <= hh <= 1.6 * h]
    if len(keep) <= 2:
        return keep
    c = np.array([quads[i].mean(axis=0) for i in keep])
    best = None
    for a in range(len(keep)):          # the line through two centres most others lie near
        for b in range(a + 1, len(keep)):
            d = c[b] - c[a]
            if abs(d[0]) < 1e-6:
                continue
            slope = d[1] / d[0]
            res = np.abs(c[:, 1] - (c[a, 1] + slope * (c[:, 0] - c[a, 0])))
            near = res < 0.5 * h
            if best is None or near.sum() > best.sum():
                best = near
    return [i for i, ok in zip(keep, best) if ok] if best is not None else keep


def decode(core: np.ndarray, hidden: np.ndarray, offsets: np.ndarray, frame_shape,
           cfg: DetectConfig | None = None) -> tuple[list[np.ndarray], list[bool], list[float]]:
    """The net's outputs (odds, not logits: ``core`` and ``hidden`` (H, W), ``offsets`` (8, H, W))
    -> per tile, left to right: its quad in the frame (TL, TR, BR, BL), seen, and its core's mean odds."""
    cfg = cfg or DetectConfig()
    oh, ow = core.shape
    fy, fx = frame_shape[0] / oh, frame_shape[1] / ow
    n, comp = cv2.connectedComponents((core >= cfg.core).astype(np.uint8), connectivity=4)
    quads, seen, scores = [], [], []
    for k in range(1, n):
        ys, xs = np.nonzero(comp == k)
        if len(ys) < cfg.min_core:
            continue
        w = core[ys, xs]
        off = offsets[:, ys, xs].reshape(4, 2, -1) * OFFSET_NORM      # (corner, xy, pixels)
        # where each pixel (its centre; coordinates count pixel edges) says the corners are
        pts = np.stack([xs + 0.5, ys + 0.5]).astype(np.float32)[None] + off
        q = (pts * w).sum(axis=2) / w.sum() * np.float32([fx, fy])    # (4, 2) in the frame
        quads.append(order_quad(q).astype(np.float32))
        seen.append(float(hidden[ys, xs].mean()) < cfg.hidden)
        scores.append(float(w.mean()))
    keep = _row(quads, list(range(len(quads))))
    if len(keep) > 7:   # the seven likeliest
        keep = sorted(sorted(keep, key=lambda i: -scores[i])[:7])
    keep.sort(key=lambda i: float(quads[i][:, 0].mean()))
    return [quads[i] for i in keep], [seen[i] for i in keep], [scores[i] for i in keep]


def _pitch(quads: list[np.ndarray]) -> float:
    widths = [float(np.linalg.norm(q[1] - q[0])) for q in quads]
    w = float(np.median(widths))
    if len(quads) < 2:
        return w * 1.05
    steps = np.diff([float(q[:, 0].mean()) for q in quads])
    return float(min(np.median(steps), 1.3 * w))


def _closer(quads: list[np.ndarray], scores: list[float], close: list[np.ndarray], close_scores: list[float]) -> bool:
    """Whether the closer look's tiles replace the first's: it found each tile the first found (one of
    its tiles' centres within half a pitch: the same row) and more tiles, or as many and is surer."""
    if not close:
        return False
    centres = np.array([q.mean(axis=0) for q in close])
    half = 0.5 * _pitch(quads)
    if any(np.linalg.norm(centres - q.mean(axis=0), axis=1).min() > half for q in quads):
        return False
    return (len(close), min(close_scores)) > (len(quads), min(scores))


def _share(mask: np.ndarray, quad: np.ndarray) -> float:
    """The share of ``quad``'s pixels ``mask`` holds."""
    m = np.zeros(mask.shape, np.uint8)
    cv2.fillConvexPoly(m, np.round(quad).astype(np.int32), 1)
    n = int(m.sum())
    return float((mask & (m > 0)).sum()) / n if n else 0.0


class RackDetector:
    """The learned finder: ``detect(image) -> Detection``; one onnxruntime session on ``threads``."""

    def __init__(self, path: str | Path | None = None, threads: int = 1, cfg: DetectConfig | None = None) -> None:
        import onnxruntime as ort
        self.path = Path(path) if path else DEFAULT_MODEL
        if not self.path.is_file():   # said once, at set-up (RackReader loads it when built)
            raise SetupError(f"no learned rack finder model at {self.path} ([rack_read] finder = \"classical\" "
                             f"reads racks without it)")
        so = ort.SessionOptions()
        so.intra_op_num_threads = threads
        so.inter_op_num_threads = 1
        self.session = ort.InferenceSession(str(self.path), so, providers=["CPUExecutionProvider"])
        self.input = self.session.get_inputs()[0].name
        self.cfg = cfg or DetectConfig()

    def outputs(self, image: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """The net's odds of a core, of a hidden tile (H, W) and the corner offsets (8, H, W)."""
        out = self.session.run(None, {self.input: preprocess(image)})[0][0]
        return _sigmoid(out[0]), _sigmoid(out[1]), out[2:10]

    def hidden_map(self, image: np.ndarray) -> HiddenMap:
        """The net's hidden odds over the whole frame."""
        return HiddenMap(self.outputs(image)[1], (0, 0, image.shape[1], image.shape[0]))

    def look(self, image: np.ndarray, box: tuple[int, int, int, int] | None = None):
        """The net on ``box`` of the frame (x0, y0, x1, y1; None the whole frame): per tile, left to
        right, its quad in the frame, seen (by the net) and its core's mean odds; and the hidden map."""
        x0, y0, x1, y1 = box or (0, 0, image.shape[1], image.shape[0])
        part = image[y0:y1, x0:x1]
        core, hidden, offsets = self.outputs(part)
        quads, seen, scores = decode(core, hidden, offsets, part.shape, self.cfg)
        quads = [q + np.float32([x0, y0]) for q in quads]
        return quads, seen, scores, HiddenMap(hidden, (x0, y0, x1, y1))

    def zoom_box(self, shape, quads: list[np.ndarray]) -> tuple[int, int, int, int] | None:
        """The closer look's crop around the row of ``quads``: past its ends by ``zoom_margin``
        pitches and a pitch for each tile short of seven, at least a tile and a half above and
        below, widened to 16:9 (the training frames' shape) and to at least the frame's width over
        ``zoom_max``, moved inside the frame. None when that is no smaller than the frame."""
        fh, fw = shape[:2]
        pitch = _pitch(quads)
        h = float(np.median([np.ptp(q[:, 1]) for q in quads]))
        pts = np.concatenate(quads)
        reach = pitch * (self.cfg.zoom_margin + max(0, 7 - len(quads)))
        left, right = float(pts[:, 0].min()) - reach, float(pts[:, 0].max()) + reach
        top, bottom = float(pts[:, 1].min()) - 1.5 * h, float(pts[:, 1].max()) + 1.5 * h
        w = max(right - left, (bottom - top) * INPUT_W / INPUT_H, fw / self.cfg.zoom_max)
        if w >= fw or w * INPUT_H / INPUT_W >= fh:
            return None
        cw, ch = int(round(w)), int(round(w * INPUT_H / INPUT_W))
        cx, cy = (left + right) / 2, (top + bottom) / 2
        x0 = int(round(min(max(cx - cw / 2, 0), fw - cw)))
        y0 = int(round(min(max(cy - ch / 2, 0), fh - ch)))
        return x0, y0, x0 + cw, y0 + ch

    def detect(self, image: np.ndarray) -> Detection:
        """The rack's slots: the net's look at the whole frame, or its closer look at the row it found
        where those tiles are small at its input or unsure (zoom_below; which look is kept: _closer)."""
        quads, seen, scores, hidden = self.look(image)
        zoomed = False
        if quads and self.cfg.zoom_below > 0:
            height = float(np.median([np.ptp(q[:, 1]) for q in quads])) * INPUT_H / image.shape[0]   # input px
            small = height < self.cfg.zoom_below
            box = self.zoom_box(image.shape, quads) if small or min(scores) < self.cfg.sure else None
            if box is not None:
                close = self.look(image, box)
                if _closer(quads, scores, close[0], close[2]):    # its quads, its scores
                    quads, seen, scores, hidden = close
                    zoomed = True
        if not quads:
            return Detection(None, (), hidden)
        if self.cfg.hand_share > 0 and any(seen):
            hand = hand_mask(image)
            if hand.any():
                seen = [s and _share(hand, q) < self.cfg.hand_share for s, q in zip(seen, quads)]
        lab = cv2.cvtColor(image, cv2.COLOR_BGR2Lab)
        mask = np.zeros(image.shape[:2], np.uint8)
        for q, s in zip(quads, seen):
            if s:
                cv2.fillConvexPoly(mask, np.round(q).astype(np.int32), 1)
        face = np.median(lab[mask > 0], axis=0).astype(np.float32) if mask.any() else np.zeros(3, np.float32)
        slots = tuple(Slot(q, s) for q, s in zip(quads, seen))
        return Detection(RackFix(slots, face, _pitch(quads)), tuple(scores), hidden, zoomed)
