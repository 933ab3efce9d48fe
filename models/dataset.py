"""Synthetic square crops for the tile classifier, cut exactly as the reader cuts them.

A board of random tiles is rendered from above (models.synth.render_topdown), degraded like
a camera frame (light, colour cast, blur, noise, JPEG), and warped to the canonical grid with
``vision.rectify`` from the renderer's grid corners plus a small error: each corner jittered
by up to ``corner_jitter_px`` (a slight perspective, as a real localisation leaves) and the
whole grid shifted by up to ``shift_frac`` of a square (tiles are blocks seen a little
off-vertical, so their faces sit off the square). ``square_crops`` then cuts the 225 squares.

Labels: class index into CLASSES and the tile's clockwise quarter turns (-1 where the
rotation means nothing: empty squares and blank tiles).
"""
from __future__ import annotations

from dataclasses import dataclass, field

import cv2
import numpy as np

from vision.rectify import GRID, homography_from_corners, square_crops, warp_board

# Class labels are strings so multi-letter tiles (Spanish CH, LL, RR) and more letters (Ñ)
# are appended later without renumbering the rest; the reader maps by name.
LETTERS = tuple("ABCDEFGHIJKLMNOPQRSTUVWXYZ") + ("Ä", "Ö", "Ü")
CLASSES = (".", "?") + LETTERS
INDEX = {c: i for i, c in enumerate(CLASSES)}
NO_ROTATION = -1


@dataclass(frozen=True)
class CropSpec:
    """How crops are cut; written into the model card so the reader cuts the same."""
    square_px: int = 32          # canonical grid pixels per square = network input size
    margin_frac: float = 0.15    # context around each square (tiles spill over the lines)


@dataclass(frozen=True)
class DataSpec:
    boards: int = 900
    seed: int = 0
    fonts: tuple[str, ...] = ()            # empty = every font the renderer has
    styles: tuple[str, ...] = ()
    designs: tuple[str, ...] = ()
    fill: tuple[float, float] = (0.25, 0.9)
    blank_prob: float = 0.05               # share of tiles that are blanks
    empty_keep: float = 0.35               # keep this share of empty squares (they dominate)
    corner_jitter_px: float = 1.5          # at 50 px per square, as in the real frames
    shift_frac: float = 0.18
    crop: CropSpec = field(default_factory=CropSpec)


def random_board(rng: np.random.Generator, fill: float, blank_prob: float) -> list[str]:
    cells = []
    for _ in range(GRID * GRID):
        if rng.random() >= fill:
            cells.append(".")
        elif rng.random() < blank_prob:
            # a designated blank renders as a blank tile; both are class '?'
            cells.append("?" if rng.random() < 0.5 else str(rng.choice(LETTERS)).lower())
        else:
            cells.append(str(rng.choice(LETTERS)))
    return ["".join(cells[r * GRID:(r + 1) * GRID]) for r in range(GRID)]


def degrade(image: np.ndarray, rng: np.random.Generator, scale: float) -> np.ndarray:
    """Camera-like damage on a rendered board; ``scale`` = render px per 50 real px."""
    h, w = image.shape[:2]
    img = image.astype(np.float32)
    # colour cast and exposure (real frames range from warm to blue and dim to bright)
    gain = rng.uniform(0.75, 1.25) * rng.uniform(0.88, 1.12, size=3)
    contrast = rng.uniform(0.7, 1.25)
    img = (img - 128.0) * contrast + 128.0
    img = img * gain + rng.uniform(-25, 25)
    # uneven light: a linear gradient plus vignetting
    yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
    ang = rng.uniform(0, 2 * np.pi)
    grad = ((xx / w - 0.5) * np.cos(ang) + (yy / h - 0.5) * np.sin(ang)) * rng.uniform(0, 0.5)
    r2 = ((xx / w - 0.5) ** 2 + (yy / h - 0.5) ** 2) * 2
    img *= (1.0 + grad - rng.uniform(0, 0.35) * r2)[..., None]
    sigma = rng.uniform(0.0, 1.6) * scale
    if sigma > 0.3:
        img = cv2.GaussianBlur(img, (0, 0), sigma)
    img += rng.normal(0, rng.uniform(0, 7), img.shape).astype(np.float32)
    img = np.clip(img, 0, 255).astype(np.uint8)
    ok, buf = cv2.imencode(".jpg", img, [cv2.IMWRITE_JPEG_QUALITY, int(rng.integers(40, 96))])
    return cv2.imdecode(buf, cv2.IMREAD_COLOR)


def board_sample(board: list[str], seed: int, spec: DataSpec, rng: np.random.Generator,
                 cfg_kwargs: dict) -> tuple[np.ndarray, np.ndarray, np.ndarray, dict]:
    """Render one board and return its 225 crops, class labels, rotation labels, metadata."""
    from models.synth import SceneConfig, render_topdown

    td = render_topdown(board, seed, SceneConfig(**cfg_kwargs))
    image = degrade(td.image, rng, td.square_px / 50.0)
    sq = td.square_px
    corners = td.corners.astype(np.float32).copy()
    corners += rng.uniform(-1, 1, size=2).astype(np.float32) * spec.shift_frac * sq
    corners += rng.uniform(-1, 1, size=(4, 2)).astype(np.float32) * spec.corner_jitter_px * sq / 50.0
    px = spec.crop.square_px
    warped = warp_board(image, homography_from_corners(corners, px), px)
    crops = square_crops(warped, px, spec.crop.margin_frac)
    labels = np.empty(GRID * GRID, np.int64)
    rots = np.full(GRID * GRID, NO_ROTATION, np.int64)
    for r in range(GRID):
        for c in range(GRID):
            ch = board[r][c]
            label = "?" if ch.islower() else ch
            labels[r * GRID + c] = INDEX[label]
            if label not in (".", "?"):
                rots[r * GRID + c] = int(td.tile_rotations[r, c])
    return crops, labels, rots, {"design": td.design, "style": td.style, "font": td.font}


def build(spec: DataSpec, progress=None) -> dict[str, np.ndarray]:
    """The whole data set: crops (N, s, s, 3) uint8 BGR, labels (N,), rotations (N,)."""
    from models.synth import DESIGNS, STYLES, available_fonts

    rng = np.random.default_rng(spec.seed)
    fonts = spec.fonts or tuple(available_fonts())
    styles = spec.styles or STYLES
    designs = spec.designs or DESIGNS
    xs, ys, rs = [], [], []
    for i in range(spec.boards):
        board = random_board(rng, rng.uniform(*spec.fill), spec.blank_prob)
        cfg = {"font": str(rng.choice(fonts)), "style": str(rng.choice(styles)),
               "design": str(rng.choice(designs)), "square_px": int(rng.integers(40, 72))}
        crops, labels, rots, _ = board_sample(board, spec.seed * 1_000_003 + i, spec, rng, cfg)
        keep = (labels != INDEX["."]) | (rng.random(labels.shape) < spec.empty_keep)
        xs.append(crops[keep])
        ys.append(labels[keep])
        rs.append(rots[keep])
        if progress is not None:
            progress(i + 1, spec.boards)
    return {"x": np.concatenate(xs), "y": np.concatenate(ys), "rot": np.concatenate(rs)}
