"""The board seen from straight above: squares, premiums, tiles with letters and values.

Geometry is exact: the grid's corners in the returned image are known to the pixel,
and so is every tile's quarter turn.
"""
from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

import cv2
import numpy as np
from PIL import Image, ImageDraw, ImageFont
from pydantic import BaseModel, ConfigDict, Field

from .fonts import available_fonts
from .layout import LETTER_VALUES, PREMIUM_ROWS, check_board

DESIGNS = ("standard", "tournament_green", "dark")
STYLES = ("wood", "ivory", "coloured")
# RGB colours: plain square, TW, DW, TL, DL, grid lines, rim.
_DESIGN_RGB = {
    "standard": dict(plain=(222, 212, 186), tw=(196, 52, 46), dw=(236, 168, 160), tl=(42, 96, 172),
                     dl=(158, 204, 228), line=(246, 242, 232), rim=(120, 34, 36)),
    "tournament_green": dict(plain=(28, 118, 78), tw=(204, 52, 50), dw=(228, 120, 112), tl=(38, 112, 200),
                             dl=(118, 178, 228), line=(190, 214, 196), rim=(18, 78, 50)),
    "dark": dict(plain=(62, 64, 74), tw=(176, 44, 44), dw=(188, 108, 128), tl=(44, 82, 160),
                 dl=(92, 140, 178), line=(112, 112, 124), rim=(26, 26, 32)),
}
_PREMIUM_KEY = {"=": "tw", "-": "dw", '"': "tl", "'": "dl", "*": "dw", " ": "plain", ".": "plain"}
_LABELS = {"tw": ("TW", "3W"), "dw": ("DW", "2W"), "tl": ("TL", "3L"), "dl": ("DL", "2L")}
VALUES = LETTER_VALUES  # English A-Z, Ä=6 Ö=8 Ü=6 (from scoring, so render and rules agree)


class SceneConfig(BaseModel):
    model_config = ConfigDict(extra="forbid")

    design: str = Field("random", description=f"board design: one of {DESIGNS} or 'random'")
    style: str = Field("random", description=f"tile style: one of {STYLES} or 'random'")
    font: str = Field("random", description="font family (see available_fonts()) or 'random'")
    square_px: int = Field(64, description="pixels per square of the top-down render")
    margin_squares: float = Field(0.9, description="board rim around the grid, in squares")
    tile_frac: float = Field(0.9, description="tile side as a fraction of the square")
    quarter_turn_prob: float = Field(0.3, description="chance a tile is turned 90/180/270 degrees")
    tile_jitter_frac: float = Field(0.06, description="largest off-centre shift of a tile, in squares")
    tile_angle_deg: float = Field(8.0, description="largest small rotation of a tile")
    label_prob: float = Field(0.5, description="chance the premium squares carry printed labels")
    out_w_px: int = Field(1280, description="width of the camera frame")
    out_h_px: int = Field(960, description="height of the camera frame")
    max_tilt_deg: float = Field(25.0, description="largest camera tilt away from straight down")
    rotation_deg: float | None = Field(None, description="turntable rotation of the board; None = any")
    fill_min: float = Field(0.55, description="smallest share of the frame height the board spans")
    fill_max: float = Field(0.95, description="largest share of the frame height the board spans")
    hands: str = Field("random", description="'random', 'always' or 'never': arms and hands over the board")
    hand_prob: float = Field(0.25, description="chance of hands when hands='random'")
    glare_prob: float = Field(0.4, description="chance of specular glare spots")
    light_strength: float = Field(0.35, description="strength of the uneven-light gradient (0 = even)")
    blur_max_px: float = Field(1.4, description="largest Gaussian blur sigma")
    noise_max: float = Field(6.0, description="largest sensor-noise sigma in grey levels")
    jpeg_min: int = Field(55, description="lowest JPEG quality")
    jpeg_max: int = Field(95, description="highest JPEG quality")


@dataclass(frozen=True, eq=False)
class TopDown:
    image: np.ndarray            # BGR uint8, the board from straight above with its rim
    corners: np.ndarray          # 4x2 float32 grid corners TL, TR, BR, BL
    square_px: int
    tile_rotations: np.ndarray   # 15x15 int: -1 empty, else clockwise quarter turns of the letter
    design: str
    style: str
    font: str


def noise_field(rng: np.random.Generator, shape: tuple[int, int], sigma: float) -> np.ndarray:
    """Zero-mean float32 noise of standard deviation `sigma`: the sum of two uniform byte fields
    (triangular, close enough to Gaussian for grain) costs a tenth of rng.normal at frame size."""
    n = shape[0] * shape[1]
    a = np.frombuffer(rng.bytes(n), np.uint8).reshape(shape)
    b = np.frombuffer(rng.bytes(n), np.uint8).reshape(shape)
    return cv2.add(a, b, dtype=cv2.CV_32F) * np.float32(sigma / 104.5) - np.float32(255 * sigma / 104.5)


def _pick(rng: np.random.Generator, value: str, options) -> str:
    options = tuple(options)
    if value == "random":
        return options[int(rng.integers(len(options)))]
    if value not in options:
        raise ValueError(f"unknown choice {value!r}; choose one of {options}")
    return value


def _jitter(rgb, rng, amount=12):
    return tuple(int(np.clip(c + rng.integers(-amount, amount + 1), 0, 255)) for c in rgb)


@lru_cache(maxsize=4096)
def _glyph_masks(font_path: str, letter: str, tile_px: int, with_value: bool) -> tuple[np.ndarray, np.ndarray]:
    """Alpha masks (tile_px x tile_px, float32 0..1) of a tile's letter and its point value."""
    big = ImageFont.truetype(font_path, int(tile_px * 0.64))
    small = ImageFont.truetype(font_path, max(6, int(tile_px * 0.24)))
    letter_img = Image.new("L", (tile_px, tile_px), 0)
    d = ImageDraw.Draw(letter_img)
    box = d.textbbox((0, 0), letter, font=big)
    w, h = box[2] - box[0], box[3] - box[1]
    d.text(((tile_px - w) / 2 - box[0] - tile_px * 0.04, (tile_px - h) / 2 - box[1] - tile_px * 0.03),
           letter, font=big, fill=255)
    value_img = Image.new("L", (tile_px, tile_px), 0)
    if with_value and letter in VALUES:
        dv = ImageDraw.Draw(value_img)
        text = str(VALUES[letter])
        vb = dv.textbbox((0, 0), text, font=small)
        dv.text((tile_px * 0.93 - (vb[2] - vb[0]) - vb[0], tile_px * 0.92 - (vb[3] - vb[1]) - vb[1]),
                text, font=small, fill=255)
    return (np.asarray(letter_img, np.float32) / 255.0, np.asarray(value_img, np.float32) / 255.0)


def _tile_colours(style: str, rng: np.random.Generator) -> tuple[tuple, tuple, float]:
    """(face RGB, ink RGB, corner radius as a fraction of the tile)."""
    if style == "wood":
        return _jitter((226, 198, 156), rng, 14), _jitter((26, 22, 20), rng, 8), 0.08
    if style == "ivory":
        return _jitter((240, 236, 222), rng, 8), _jitter((24, 24, 28), rng, 8), 0.16
    face, ink = [((238, 198, 48), (20, 20, 20)), ((34, 62, 160), (245, 245, 245)),
                 ((28, 28, 30), (240, 240, 236)), ((190, 40, 42), (250, 250, 250))][int(rng.integers(4))]
    return _jitter(face, rng, 10), ink, 0.14


@lru_cache(maxsize=512)
def _tile_face(letter: str, font_path: str, tile_px: int, face: tuple, ink: tuple,
               radius: float) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """An upright tile without grain: (RGB float with bevel and ink, share of face not inked,
    alpha). Cached because a render repeats the same face colour for every tile."""
    face_arr = np.empty((tile_px, tile_px, 3), np.float32)
    face_arr[:] = face
    # Bevel: light top-left edge, dark bottom-right edge.
    ramp = np.linspace(1, 0, max(2, tile_px // 10), dtype=np.float32)
    e = len(ramp)
    face_arr[:e, :, :] += ramp[:, None, None] * 28
    face_arr[:, :e, :] += ramp[None, :, None] * 20
    face_arr[-e:, :, :] -= ramp[::-1, None, None] * 36
    face_arr[:, -e:, :] -= ramp[None, ::-1, None] * 28
    paper = np.ones((tile_px, tile_px), np.float32)
    if letter not in ("?", ""):
        lm, vm = _glyph_masks(font_path, letter, tile_px, True)
        ink_arr = np.asarray(ink, np.float32)
        for m in (lm, vm):
            face_arr = face_arr * (1 - m[..., None]) + ink_arr * m[..., None]
            paper *= 1 - m
    alpha = np.zeros((tile_px, tile_px), np.uint8)
    r = int(radius * tile_px)
    cv2.rectangle(alpha, (r, 0), (tile_px - 1 - r, tile_px - 1), 255, -1)
    cv2.rectangle(alpha, (0, r), (tile_px - 1, tile_px - 1 - r), 255, -1)
    for cx, cy in ((r, r), (tile_px - 1 - r, r), (r, tile_px - 1 - r), (tile_px - 1 - r, tile_px - 1 - r)):
        cv2.circle(alpha, (cx, cy), r, 255, -1, cv2.LINE_AA)
    out = (face_arr, paper, alpha.astype(np.float32))
    for arr in out:
        arr.flags.writeable = False  # shared through the cache
    return out


def _tile_rgba(letter: str, font_path: str, tile_px: int, face, ink, radius: float,
               rng: np.random.Generator, style: str) -> np.ndarray:
    """One upright tile as an RGBA float image with a bevel (and its own grain on wood)."""
    face_arr, paper, alpha = _tile_face(letter, font_path, tile_px, tuple(face), tuple(ink), radius)
    if style == "wood":  # grain: faint stripes, under the ink
        stripes = np.sin(np.linspace(0, rng.uniform(8, 20), tile_px) + rng.uniform(0, 6)).astype(np.float32)
        face_arr = face_arr + (stripes[None, :] * np.float32(rng.uniform(3, 9)) * paper)[..., None]
    return np.dstack([np.clip(face_arr, 0, 255), alpha])


def _paste(canvas: np.ndarray, rgba: np.ndarray, cx: float, cy: float, angle_deg: float) -> None:
    """Alpha-composite a tile centred at (cx, cy), turned by a small angle."""
    h, w = rgba.shape[:2]
    pad = int(max(h, w) * 0.25)  # room for the turned corners; the warp samples zeros outside the tile
    bh, bw = h + 2 * pad, w + 2 * pad
    m = cv2.getRotationMatrix2D((w / 2, h / 2), angle_deg, 1.0)
    m[0, 2] += cx - w / 2
    m[1, 2] += cy - h / 2
    x0, y0 = int(cx - bw / 2) - 1, int(cy - bh / 2) - 1
    x0, y0 = max(x0, 0), max(y0, 0)
    x1, y1 = min(x0 + bw + 2, canvas.shape[1]), min(y0 + bh + 2, canvas.shape[0])
    m[0, 2] -= x0
    m[1, 2] -= y0
    warped = cv2.warpAffine(rgba, m, (x1 - x0, y1 - y0), flags=cv2.INTER_LINEAR,
                            borderMode=cv2.BORDER_CONSTANT, borderValue=(0, 0, 0, 0))
    a = warped[..., 3:4] / 255.0
    region = canvas[y0:y1, x0:x1]
    region[:] = region * (1 - a) + warped[..., :3] * a


def _star(img: np.ndarray, cx: float, cy: float, r: float, colour) -> None:
    pts = []
    for i in range(10):
        rad = r if i % 2 == 0 else r * 0.45
        ang = -np.pi / 2 + i * np.pi / 5
        pts.append((cx + rad * np.cos(ang), cy + rad * np.sin(ang)))
    cv2.fillPoly(img, [np.int32(pts)], colour, cv2.LINE_AA)


def render_topdown(board: list[str], seed: int, cfg: SceneConfig | None = None) -> TopDown:
    """The board from straight above. '.' empty, a letter a tile, '?' a blank tile, lower case a
    designated blank (drawn as a blank tile)."""
    cfg = cfg or SceneConfig()
    board = list(check_board(board))
    rng = np.random.default_rng(seed)
    design = _pick(rng, cfg.design, DESIGNS)
    style = _pick(rng, cfg.style, STYLES)
    fonts = available_fonts()
    font = _pick(rng, cfg.font, sorted(fonts))
    sq = cfg.square_px
    margin = int(round(cfg.margin_squares * sq))
    size = 15 * sq + 2 * margin
    pal = {k: _jitter(v, rng, 10) for k, v in _DESIGN_RGB[design].items()}
    img = np.empty((size, size, 3), np.float32)
    img[:] = pal["rim"]
    layout = PREMIUM_ROWS
    labels = rng.random() < cfg.label_prob
    label_font = ImageFont.truetype(str(fonts[font]), max(8, int(sq * 0.26)))
    for r in range(15):
        for c in range(15):
            key = _PREMIUM_KEY[layout[r][c]]
            x0, y0 = margin + c * sq, margin + r * sq
            img[y0:y0 + sq, x0:x0 + sq] = pal[key]
            if layout[r][c] == "*":
                _star(img, x0 + sq / 2, y0 + sq / 2, sq * 0.36, tuple(v * 0.7 for v in pal["dw"]))
            elif labels and key in _LABELS:
                text = _LABELS[key][int(seed) % 2]
                li = Image.new("L", (sq, sq), 0)
                d = ImageDraw.Draw(li)
                b = d.textbbox((0, 0), text, font=label_font)
                d.text(((sq - (b[2] - b[0])) / 2 - b[0], (sq - (b[3] - b[1])) / 2 - b[1]), text,
                       font=label_font, fill=255)
                m = np.asarray(li, np.float32)[..., None] / 255.0 * 0.8
                img[y0:y0 + sq, x0:x0 + sq] = img[y0:y0 + sq, x0:x0 + sq] * (1 - m) + np.float32(pal["line"]) * m
    lw = max(1, sq // 22)
    for i in range(16):
        p = margin + i * sq
        cv2.line(img, (p, margin), (p, margin + 15 * sq), pal["line"], lw)
        cv2.line(img, (margin, p), (margin + 15 * sq, p), pal["line"], lw)
    img += noise_field(rng, img.shape[:2], 3.0)[..., None]  # printed-cardboard texture

    tile_px = int(sq * cfg.tile_frac)
    face, ink, radius = _tile_colours(style, rng)
    rotations = np.full((15, 15), -1, np.int32)
    shadow = np.zeros(img.shape[:2], np.float32)
    placed = []
    for r in range(15):
        for c in range(15):
            ch = board[r][c]
            if ch == ".":
                continue
            letter = "?" if ch == "?" or ch.islower() else ch
            # Each tile's lie comes from its own square: a tile stays put when others are added.
            trng = np.random.default_rng([seed, r, c])
            k = int(trng.integers(1, 4)) if trng.random() < cfg.quarter_turn_prob else 0
            rotations[r, c] = k
            jx, jy = trng.uniform(-1, 1, 2) * cfg.tile_jitter_frac * sq
            cx, cy = margin + (c + 0.5) * sq + jx, margin + (r + 0.5) * sq + jy
            angle = float(trng.uniform(-1, 1) * cfg.tile_angle_deg)
            placed.append((letter, k, cx, cy, angle))
            half = tile_px / 2
            cv2.rectangle(shadow, (int(cx - half + 3), int(cy - half + 4)), (int(cx + half + 4), int(cy + half + 5)),
                          1.0, -1)
    if placed:
        shadow = 1 - 0.45 * cv2.GaussianBlur(shadow, (0, 0), sq * 0.06)
        img = cv2.multiply(img, cv2.merge([shadow, shadow, shadow]))
    for letter, k, cx, cy, angle in placed:
        rgba = _tile_rgba(letter, str(fonts[font]), tile_px, face, ink, radius,
                          np.random.default_rng([seed, int(cx), int(cy)]), style)
        rgba = np.ascontiguousarray(np.rot90(rgba, k=-k))  # k clockwise quarter turns
        _paste(img, rgba, cx, cy, angle)
    out = cv2.cvtColor(np.clip(img, 0, 255).astype(np.uint8), cv2.COLOR_RGB2BGR)
    g0, g1 = margin, margin + 15 * sq
    corners = np.float32([[g0, g0], [g1, g0], [g1, g1], [g0, g1]])
    return TopDown(out, corners, sq, rotations, design, style, font)
