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

from tilecam.models.synth.layout import LETTERS, PREMIUM_ROWS
from tilecam.vision.rectify import GRID, homography_from_corners, square_crops, warp_board

# Class labels are strings so multi-letter tiles (Spanish CH, LL, RR) and more letters (Ñ)
# are appended later without renumbering the rest; the reader maps by name. The letters are the trained
# sets' (models.synth.layout.TRAINED_SETS, read off scoring.tiles): A-Z, Ä, Ö, Ü.
CLASSES = (".", "?") + LETTERS
INDEX = {c: i for i, c in enumerate(CLASSES)}
NO_ROTATION = -1
# plain squares (no premium print) in row-major order
PLAIN = np.array([ch in " ." for row in PREMIUM_ROWS for ch in row])


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
    labels: tuple[str, ...] = ()           # premium label styles (empty = every one)
    # issue 28's render factors (models.synth.looks.RENDER_FACTORS), SceneConfig field -> options
    # drawn from (a factor not named: every option)
    render: tuple[tuple[str, tuple[str, ...]], ...] = ()
    fill: tuple[float, float] = (0.05, 0.9)
    blank_prob: float = 0.05               # share of tiles that are blanks
    empty_keep: float = 0.25               # keep this share of plain empty squares (they dominate)
    premium_keep: float = 0.8              # and of empty premium squares (their print looks like letters)
    corner_jitter_px: float = 1.5          # at 50 px per square, as in the real frames
    shift_frac: float = 0.12
    lean_prob: float = 0.75                # share of boards whose tiles get height (raise_tiles)
    max_lean: float = 0.6                  # largest shift of a tile's top at the board's far edge, in squares
    tile_frac: tuple[float, float] = (0.84, 0.97)
    square_px: tuple[int, int] = (25, 80)  # camera pixels per square
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
    if rng.random() < 0.3:  # a hard shadow (a lamp behind a player, the camera arm)
        pts = np.float32(rng.uniform(-0.3, 1.3, size=(int(rng.integers(3, 6)), 2)) * [w, h])
        m = np.zeros((h, w), np.float32)
        cv2.fillPoly(m, [np.int32(cv2.convexHull(pts))], 1.0)
        m = cv2.GaussianBlur(m, (0, 0), rng.uniform(0.5, 4) * scale)
        img *= (1.0 - rng.uniform(0.25, 0.6) * m)[..., None]
    if rng.random() < 0.3:  # glare: specular spots that wash out tiles and print
        for _ in range(int(rng.integers(1, 3))):
            gx, gy, r = rng.uniform(0, w), rng.uniform(0, h), rng.uniform(0.05, 0.25) * w
            spot = np.exp(-((xx - gx) ** 2 + (yy - gy) ** 2) / (2 * r * r))
            img += (spot * rng.uniform(60, 180))[..., None]
    sigma = rng.uniform(0.0, 1.6) * scale
    if sigma > 0.3:
        img = cv2.GaussianBlur(img, (0, 0), sigma)
    img += rng.normal(0, rng.uniform(0, 7), img.shape).astype(np.float32)
    img = np.clip(img, 0, 255).astype(np.uint8)
    ok, buf = cv2.imencode(".jpg", img, [cv2.IMWRITE_JPEG_QUALITY, int(rng.integers(40, 96))])
    return cv2.imdecode(buf, cv2.IMREAD_COLOR)


def tile_mask(with_tiles: np.ndarray, empty: np.ndarray) -> np.ndarray:
    """Pixels that belong to tiles: the same render without tiles differs there by more than
    the tiles' shadow, which only darkens the board evenly across the channels."""
    a = with_tiles.astype(np.float32) + 1.0
    b = empty.astype(np.float32) + 1.0
    ratio = a / b
    shadow_only = (np.ptp(ratio, axis=2) < 0.08) & (ratio.mean(axis=2) > 0.5) & (ratio.mean(axis=2) < 1.03)
    mask = (~shadow_only).astype(np.uint8)
    mask = cv2.morphologyEx(mask, cv2.MORPH_OPEN, np.ones((3, 3), np.uint8))
    return cv2.morphologyEx(mask, cv2.MORPH_CLOSE, np.ones((5, 5), np.uint8)).astype(bool)


def raise_tiles(with_tiles: np.ndarray, empty: np.ndarray, rng: np.random.Generator,
                max_lean: float) -> np.ndarray:
    """Give the flat tiles height. A camera above point ``c`` sees a tile's top face at
    c + (1 + k)(p - c), k = tile height / camera height, and the tile's side between base and
    top: a real overhead frame shows the tops displaced away from the camera's nadir by up
    to half a square at the far edge, with a strip of tile side beside them."""
    h, w = with_tiles.shape[:2]
    # the camera's nadir: over the board (overhead camera) or far off it (a phone at an angle)
    c = np.array([w, h], np.float64) * (0.5 + rng.uniform(-1.0, 1.0, size=2) * rng.choice([0.6, 1.5]))
    far = max(np.hypot(*(np.array(p, np.float64) - c)) for p in ((0, 0), (w, 0), (0, h), (w, h)))
    k = rng.uniform(0.0, max_lean) * (w / 16.8) / far  # max_lean squares of shift at the far corner
    if k < 1e-3:
        return with_tiles
    mask = tile_mask(with_tiles, empty).astype(np.float32)
    out = with_tiles.astype(np.float32)
    out = np.where(mask[..., None] > 0, empty.astype(np.float32), out)  # take the flat tiles off
    layer = with_tiles.astype(np.float32)
    side_shade = rng.uniform(0.55, 0.85)
    steps = np.linspace(0.0, k, 6)
    for i, s in enumerate(steps):
        m = np.float32([[1 + s, 0, -s * c[0]], [0, 1 + s, -s * c[1]]])
        lm = cv2.warpAffine(mask, m, (w, h), flags=cv2.INTER_LINEAR)[..., None]
        li = cv2.warpAffine(layer, m, (w, h), flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
        shade = 1.0 if i == len(steps) - 1 else side_shade
        out = out * (1 - lm) + li * shade * lm
    return np.clip(out, 0, 255).astype(np.uint8)


def board_sample(board: list[str], seed: int, spec: DataSpec, rng: np.random.Generator,
                 cfg_kwargs: dict) -> tuple[np.ndarray, np.ndarray, np.ndarray, dict]:
    """Render one board and return its 225 crops, class labels, rotation labels, metadata."""
    from tilecam.models.synth import SceneConfig, render_topdown

    cfg = SceneConfig(**cfg_kwargs)
    td = render_topdown(board, seed, cfg)
    image = td.image
    if spec.max_lean > 0 and rng.random() < spec.lean_prob:
        empty = render_topdown(["." * GRID] * GRID, seed, cfg).image
        image = raise_tiles(image, empty, rng, spec.max_lean)
    image = degrade(image, rng, td.square_px / 50.0)
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


CHUNK = 25  # boards per unit of work: the data set is the same whatever the number of workers


def _build_chunk(spec: DataSpec, chunk: int) -> dict[str, np.ndarray]:
    from tilecam.models.synth import DESIGNS, LABEL_STYLES, RENDER_FACTORS, STYLES, available_fonts

    cv2.setNumThreads(1)
    rng = np.random.default_rng([spec.seed, chunk])
    fonts = spec.fonts or tuple(sorted(available_fonts()))
    styles = spec.styles or STYLES
    designs = spec.designs or DESIGNS
    labels_ = spec.labels or LABEL_STYLES
    render = {**RENDER_FACTORS, **dict(spec.render)}
    xs, ys, rs = [], [], []
    for i in range(chunk * CHUNK, min((chunk + 1) * CHUNK, spec.boards)):
        board = random_board(rng, rng.uniform(*spec.fill), spec.blank_prob)
        cfg = {"font": str(rng.choice(fonts)), "style": str(rng.choice(styles)),
               "design": str(rng.choice(designs)), "labels": str(rng.choice(labels_)),
               "square_px": int(rng.integers(*spec.square_px)),
               "tile_frac": float(rng.uniform(*spec.tile_frac)),
               # a factor with one option draws nothing, so a spec of the old looks renders the old data
               **{name: str(options[0] if len(options) == 1 else rng.choice(options)) for name, options in render.items()}}
        crops, labels, rots, _ = board_sample(board, spec.seed * 1_000_003 + i, spec, rng, cfg)
        keep_empty = np.where(PLAIN, spec.empty_keep, spec.premium_keep)
        keep = (labels != INDEX["."]) | (rng.random(labels.shape) < keep_empty)
        xs.append(crops[keep])
        ys.append(labels[keep])
        rs.append(rots[keep])
    return {"x": np.concatenate(xs), "y": np.concatenate(ys), "rot": np.concatenate(rs)}


def build(spec: DataSpec, progress=None, workers: int = 1) -> dict[str, np.ndarray]:
    """The whole data set: crops (N, s, s, 3) uint8 BGR, labels (N,), rotations (N,).
    Rendered in chunks of CHUNK boards, in ``workers`` processes."""
    chunks = range((spec.boards + CHUNK - 1) // CHUNK)
    parts = []
    if workers <= 1:
        for c in chunks:
            parts.append(_build_chunk(spec, c))
            if progress is not None:
                progress(min((c + 1) * CHUNK, spec.boards), spec.boards)
    else:
        from concurrent.futures import ProcessPoolExecutor
        import multiprocessing as mp
        with ProcessPoolExecutor(workers, mp_context=mp.get_context("fork")) as pool:
            for c, part in enumerate(pool.map(_build_chunk, [spec] * len(chunks), chunks)):
                parts.append(part)
                if progress is not None:
                    progress(min((c + 1) * CHUNK, spec.boards), spec.boards)
    return {k: np.concatenate([p[k] for p in parts]) for k in ("x", "y", "rot")}
