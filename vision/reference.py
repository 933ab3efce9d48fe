"""Empty-board reference: how each square looked while the board was empty.

One frame of the empty board (any camera, any light) gives, per square, a small colour patch
of its inner part (3 x 3 cells of mean BGR). A later frame is compared square by square: a
square that still looks as it did empty is evidence for "empty", whatever is printed on it
("DOUBLE LETTER SCORE"); a square that changed is evidence for a tile. The comparison is a
likelihood ratio on P(empty), fused into the tile reader's class probabilities
(``TileReader(empty_ref=...)``).

Light: per channel the new frame's patches are fitted as (a + b * reference) times a plane
over the board (exposure, colour cast, contrast, uneven light) on the squares most likely
still empty (a prior P(empty) weights them, outliers are trimmed); a square's distance is the
RMS difference from that mapped reference relative to its expected level.

Orientation: a reference built from an empty board has no tiles to say which way is up, and a
later photo may be taken from another side. The reference is compared in all four quarter
turns; its own turn is kept unless another fits clearly better (the premium layout is
symmetric, so the printed labels decide, and a wrong turn still matches the colours).

The likelihood ratio's two constants were fitted by logistic regression on synthetic renders
(``tests/bench/fit_reference.py``: models.synth boards with printed labels, an empty render as
the reference and the same board with tiles, leaning tiles, other light and corner error as
the frame; docs/results/fit_reference.json), never on real photos. numpy + opencv only.
"""
from __future__ import annotations

import json
import zipfile
from dataclasses import dataclass, field
from pathlib import Path

import cv2
import numpy as np
from pydantic import BaseModel, ConfigDict, Field

from tilecam.vision.errors import VisionError
from tilecam.vision.rectify import GRID

CELL_PX = 20      # pixels per square at which patches are taken
INNER = (4, 16)   # the inner 60 % of a square (a leaning neighbour spills over the edges)
PATCH = 3         # patch cells per side: 12 px / 3 = 4 px blocks (3 gave the best synthetic per-square of 1, 2, 3, 4)
DARK = 16.0       # grey levels added to the expected level when a difference is made relative


class ReferenceConfig(BaseModel):
    """How a square's distance from its empty look becomes a likelihood ratio."""
    model_config = ConfigDict(extra="forbid", frozen=True)

    # log LR(empty : tile) = intercept - slope * ln(distance), clipped to +-clip.
    # intercept and slope: logistic fit on synthetic renders, balanced classes
    # (tests/bench/fit_reference.py, docs/results/fit_reference.json).
    intercept: float = Field(default=-2.87, description="log likelihood ratio at distance 1")
    slope: float = Field(default=1.89, gt=0.0,
                         description="log LR lost per unit of ln(distance) (distance: RMS relative difference)")
    clip: float = Field(default=6.0, gt=0.0,
                        description="largest |log LR|: a square's look alone never outweighs a "
                                    "network reading of more than ~400:1 (fixed by reasoning)")
    trim: float = Field(default=3.0, gt=0.0,
                        description="light fit: squares whose offset is this many median deviations "
                                    "off the plane are left out of the next pass")
    turn_margin: float = Field(default=0.8, gt=0.0, le=1.0,
                               description="another quarter turn replaces the reference's own only "
                                           "when its median distance is below this share of it")
    turn_floor: float = Field(default=0.05, ge=0.0,
                              description="the reference's own turn is kept while its median distance "
                                          "is below this (a typical empty square's distance on the "
                                          "synthetic renders, docs/results/fit_reference.json)")
    min_empty_frac: float = Field(default=0.2, gt=0.0, lt=1.0,
                                  description="light fit needs at least this share of squares "
                                              "weighted as empty, else it uses all squares")


class EmptyRefError(VisionError, ValueError):
    """A reference file cannot be read or does not fit."""


def descriptors(warped: np.ndarray) -> np.ndarray:
    """(15, 15, 3, 3, 3) mean BGR patches of each square's inner part, from a canonical grid
    image of any square size (vision.rectify.warp_board)."""
    side = GRID * CELL_PX
    img = warped
    if img.ndim == 2:
        img = cv2.cvtColor(img, cv2.COLOR_GRAY2BGR)
    if img.shape[0] != side or img.shape[1] != side:
        interp = cv2.INTER_AREA if img.shape[0] > side else cv2.INTER_LINEAR
        img = cv2.resize(img, (side, side), interpolation=interp)
    a, b = INNER
    blk = (b - a) // PATCH
    g = img.astype(np.float32).reshape(GRID, CELL_PX, GRID, CELL_PX, 3)[:, a:b, :, a:b]
    g = g.reshape(GRID, PATCH, blk, GRID, PATCH, blk, 3).mean(axis=(2, 5))   # (15, 4, 15, 4, 3)
    return np.ascontiguousarray(g.transpose(0, 2, 1, 3, 4)).astype(np.float32)


def _turn(desc: np.ndarray, k: int) -> np.ndarray:
    """The descriptors of the board turned by np.rot90(., k) (grid and patches alike)."""
    if k % 4 == 0:
        return desc
    return np.rot90(np.rot90(desc, k, axes=(0, 1)), k, axes=(2, 3))


def light_map(cur: np.ndarray, ref: np.ndarray, weight: np.ndarray, cfg: ReferenceConfig) -> np.ndarray:
    """(15, 15, 3, 3, 3) the reference as the new frame's light would show it. Per channel,
    new = (a + b * ref) * (1 + gx * x + gy * y) to first order, i.e. the linear least-squares
    fit of new on [1, x, y, ref, x * ref, y * ref] over the board: exposure, colour cast and
    contrast are a and b, uneven light the x and y terms. Fitted on the squares weighted by
    ``weight`` (P(empty)); squares far off the fit are trimmed."""
    yy, xx = np.mgrid[0:GRID, 0:GRID]
    px = np.broadcast_to(((xx - 7) / 7.0)[:, :, None, None], cur.shape[:4]).reshape(GRID * GRID, -1)
    py = np.broadcast_to(((yy - 7) / 7.0)[:, :, None, None], cur.shape[:4]).reshape(GRID * GRID, -1)
    w = np.clip(np.asarray(weight, np.float64).ravel(), 0.0, 1.0)
    if w.sum() < cfg.min_empty_frac * len(w):
        w = np.ones_like(w)
    fits = []
    for c in range(3):
        r = ref[..., c].reshape(GRID * GRID, -1).astype(np.float64)
        y = cur[..., c].reshape(GRID * GRID, -1).astype(np.float64)
        fits.append((np.stack([np.ones_like(r), px, py, r, px * r, py * r], axis=-1), y))
    preds = [np.zeros_like(y) for _, y in fits]
    for _ in range(3):
        sw = np.repeat(np.sqrt(w), PATCH * PATCH)[:, None]
        resid = np.zeros(GRID * GRID)
        for c, (a, y) in enumerate(fits):
            coef, *_ = np.linalg.lstsq(a.reshape(-1, a.shape[-1]) * sw, y.reshape(-1) * sw[:, 0], rcond=None)
            preds[c] = a @ coef
            resid += _relative(y, preds[c]).mean(axis=1)
        scale = np.median(resid[w > 0.5]) if (w > 0.5).sum() >= 10 else np.median(resid)
        keep = resid <= cfg.trim * max(scale, 0.01)
        if keep.sum() < 10:
            break
        w = np.where(keep, w, 0.0)
    out = np.empty_like(cur)
    for c, pred in enumerate(preds):
        out[..., c] = pred.reshape(cur.shape[:4])
    return out


def _relative(cur: np.ndarray, pred: np.ndarray) -> np.ndarray:
    """Squared difference relative to the expected level (a dark square's noise counts less)."""
    return ((cur - pred) / (np.abs(pred) + DARK)) ** 2


@dataclass
class EmptyBoardRef:
    """Per-square look of the empty board; ``log_ratio`` gives log LR(empty : tile) per square."""
    desc: np.ndarray                     # (15, 15, 3, 3, 3) mean BGR
    frames: int = 1                      # how many frames went into desc
    cfg: ReferenceConfig = field(default_factory=ReferenceConfig)
    meta: dict = field(default_factory=dict)

    @classmethod
    def from_frame(cls, warped: np.ndarray, cfg: ReferenceConfig | None = None, **meta) -> "EmptyBoardRef":
        return cls(descriptors(warped), 1, cfg or ReferenceConfig(), dict(meta))

    def _aligned(self, cur: np.ndarray, prior: np.ndarray) -> tuple[int, np.ndarray, np.ndarray]:
        """(turn, difference from the light-mapped reference, distance per square). The
        reference's own turn is kept unless another quarter turn fits clearly better (median
        distance below ``cfg.turn_margin`` of it, and its own above ``cfg.turn_floor``): the premium layout is symmetric, so on a
        board seen from the same side every turn fits almost as well."""
        fits = []
        for k in range(4):
            mapped = light_map(cur, _turn(self.desc, k), prior, self.cfg)
            dist = np.sqrt(_relative(cur, mapped).mean(axis=(2, 3, 4)))
            fits.append((float(np.median(dist)), k, cur - mapped, dist))
            if k == 0 and fits[0][0] < self.cfg.turn_floor:
                return fits[0][1], fits[0][2], fits[0][3]  # kept whatever the other turns give
        best = min(fits[1:], key=lambda f: f[0])
        if fits[0][0] < self.cfg.turn_floor or not best[0] < self.cfg.turn_margin * fits[0][0]:
            best = fits[0]
        return best[1], best[2], best[3]

    def distance(self, warped: np.ndarray, prior_empty: np.ndarray | None = None) -> tuple[np.ndarray, int]:
        """(15, 15) RMS relative difference of each square from its empty look, after the
        light change is taken out; and the quarter turn (np.rot90 k) of the reference used."""
        prior = np.ones((GRID, GRID)) if prior_empty is None else np.asarray(prior_empty).reshape(GRID, GRID)
        k, _, dist = self._aligned(descriptors(warped), prior)
        return dist, k

    def log_ratio(self, warped: np.ndarray, prior_empty: np.ndarray | None = None) -> np.ndarray:
        """(15, 15) log LR(empty : tile) of each square, clipped to +-cfg.clip."""
        dist, _ = self.distance(warped, prior_empty)
        llr = self.cfg.intercept - self.cfg.slope * np.log(np.maximum(dist, 1e-3))
        return np.clip(llr, -self.cfg.clip, self.cfg.clip)

    def update(self, warped: np.ndarray, empty: np.ndarray, rate: float | None = None) -> int:
        """Blend the look of squares known empty in a new frame into the reference (light
        change taken out first, so the reference keeps its own exposure). ``empty``: (15, 15)
        bool. ``rate``: weight of the new frame, default 1/(frames+1) (a running mean).
        Returns the number of squares updated."""
        empty = np.asarray(empty, bool).reshape(GRID, GRID)
        if not empty.any():
            return 0
        cur = descriptors(warped)
        k, diff, _ = self._aligned(cur, empty.astype(np.float64))
        # the new look in the reference's turn and light: reference + difference from the mapped
        new = _turn(self.desc, k) + diff
        r = 1.0 / (self.frames + 1) if rate is None else float(rate)
        turned = _turn(self.desc, k).copy()
        turned[empty] = (1 - r) * turned[empty] + r * new[empty]
        self.desc = np.ascontiguousarray(_turn(turned, -k))
        self.frames += 1
        return int(empty.sum())

    def save(self, path: str | Path) -> Path:
        path = Path(path)
        path.parent.mkdir(parents=True, exist_ok=True)
        with open(path, "wb") as fh:  # a file handle keeps numpy from appending .npz
            np.savez_compressed(fh, kind=np.asarray("empty-board reference"), desc=self.desc,
                                frames=np.asarray(self.frames),
                                meta=np.asarray(json.dumps(self.meta, ensure_ascii=False)))
        return path

    @classmethod
    def load(cls, path: str | Path, cfg: ReferenceConfig | None = None) -> "EmptyBoardRef":
        """The file holds the looks only; the settings are ``cfg`` (default: this module's)."""
        try:
            with np.load(Path(path), allow_pickle=False) as z:
                if "kind" not in z or str(z["kind"]) != "empty-board reference":
                    raise EmptyRefError(f"{path} is not an empty-board reference (tilecam enroll --empty-board)")
                desc = z["desc"].astype(np.float32)
                ref = cls(desc, int(z["frames"]), cfg or ReferenceConfig(), json.loads(str(z["meta"])))
        except (OSError, KeyError, ValueError, zipfile.BadZipFile) as exc:  # a cut-short .npz: BadZipFile
            if isinstance(exc, EmptyRefError):
                raise
            raise EmptyRefError(f"cannot read empty-board reference {path}: {exc}") from exc
        if ref.desc.shape != (GRID, GRID, PATCH, PATCH, 3):
            raise EmptyRefError(f"{path}: descriptors of shape {ref.desc.shape}, expected "
                                 f"{(GRID, GRID, PATCH, PATCH, 3)}")
        return ref


def is_reference(path: str | Path) -> bool:
    """Whether an .npz file is an empty-board reference (rather than a tile set)."""
    try:
        with np.load(Path(path), allow_pickle=False) as z:
            return "kind" in z and str(z["kind"]) == "empty-board reference"
    except (OSError, ValueError, zipfile.BadZipFile):
        return False
