"""The board seen from straight above: squares, premiums, tiles with letters and values.

Geometry is exact: the grid's corners in the returned image are known to the pixel,
and so is every tile's quarter turn.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from functools import lru_cache

import cv2
import numpy as np
from PIL import Image, ImageDraw, ImageFont
from pydantic import BaseModel, ConfigDict, Field

from .fonts import available_fonts
from .layout import LETTER_VALUES, PREMIUM_ROWS, check_board
from .looks import (BRAILLE_DOTS, FOREIGN_LABELS, FULL_LABELS, LABEL_STYLES, LATER_FACTORS, LEGEND_TEXT, NAMED_ONLY,
                    PLACEMENT_JITTER,
                    RENDER_FACTORS, SCHEMES, SHORT_LABELS, STAR_FORMS, STYLES, TILE_STYLES)

DESIGNS = tuple(SCHEMES)
_PREMIUM_KEY = {"=": "tw", "-": "dw", '"': "tl", "'": "dl", "*": "dw", " ": "plain", ".": "plain"}
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
    label_prob: float = Field(0.6, description="with labels='random': chance the premium squares carry printed labels")
    labels: str = Field("random", description=f"premium labels: one of {LABEL_STYLES} or 'random'")
    star: str = Field("random", description=f"the centre square: one of {STAR_FORMS} or 'random'")
    value_prob: float = Field(0.9, description="chance the tiles carry point values (where value_place prints them)")
    value_place: str = Field("subscript", description=f"point values: one of {RENDER_FACTORS['value_place']} or 'random'")
    blank_print: str = Field("plain", description=f"blank tiles' print: one of {RENDER_FACTORS['blank_print']} or 'random'")
    braille: str = Field("none", description=f"Braille cells on the tiles: one of {RENDER_FACTORS['braille']} or 'random'")
    weight: str = Field("regular", description=f"letter stroke: one of {RENDER_FACTORS['weight']} or 'random'")
    placement: str = Field("neat", description=f"tiles off their squares: one of {RENDER_FACTORS['placement']} or 'random'")
    fold: str = Field("occasional", description=f"fold lines: one of {RENDER_FACTORS['fold']} or 'random'")
    legend: str = Field("none", description=f"print beside the grid: one of {RENDER_FACTORS['legend']} or 'random'")
    marks: str = Field("none", description=f"print above and below each letter: one of {RENDER_FACTORS['marks']} or 'random'")
    line_frac: float | None = Field(None, description="grid line width as a fraction of a square; None = random 0.02-0.07")
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
    factors: dict = field(default_factory=dict)   # the RENDER_FACTORS options this render drew


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
        drawn = tuple(o for o in options if o not in NAMED_ONLY)
        return drawn[int(rng.integers(len(drawn)))]
    if value not in options:
        raise ValueError(f"unknown choice {value!r}; choose one of {options}")
    return value


def _jitter(rgb, rng, amount=12):
    return tuple(int(np.clip(c + rng.integers(-amount, amount + 1), 0, 255)) for c in rgb)


@lru_cache(maxsize=4096)
def _glyph_masks(font_path: str, letter: str, tile_px: int, with_value: bool, size: float = 0.64,
                 dx: float = -0.04, dy: float = -0.03, place: str = "subscript", vsize: float = 0.24,
                 vside: int = 0, stroke: float = 0.0) -> tuple[np.ndarray, np.ndarray]:
    """Alpha masks (tile_px x tile_px, float32 0..1) of a tile's letter and its point value.
    ``size`` is the letter's em size and (dx, dy) its offset from centre, as fractions of the tile;
    ``place`` where the value goes (RENDER_FACTORS['value_place']) at em size ``vsize``, ``vside``
    which corner or side (0-3), ``stroke`` the extra stroke of a bold set."""
    big = ImageFont.truetype(font_path, max(6, int(tile_px * size)))
    sw = int(round(stroke * tile_px))
    letter_img = Image.new("L", (tile_px, tile_px), 0)
    d = ImageDraw.Draw(letter_img)
    box = d.textbbox((0, 0), letter, font=big, stroke_width=sw)
    w, h = box[2] - box[0], box[3] - box[1]
    d.text(((tile_px - w) / 2 - box[0] + tile_px * dx, (tile_px - h) / 2 - box[1] + tile_px * dy),
           letter, font=big, fill=255, stroke_width=sw, stroke_fill=255)
    value_img = Image.new("L", (tile_px, tile_px), 0)
    if with_value and letter in VALUES and place != "none":
        dv = ImageDraw.Draw(value_img)
        text = str(VALUES[letter])
        if place == "subscript":  # the first renders' value, kept exact
            small = ImageFont.truetype(font_path, max(6, int(tile_px * 0.24)))
            vb = dv.textbbox((0, 0), text, font=small)
            dv.text((tile_px * 0.93 - (vb[2] - vb[0]) - vb[0], tile_px * 0.92 - (vb[3] - vb[1]) - vb[1]),
                    text, font=small, fill=255)
        else:
            small = ImageFont.truetype(font_path, max(6, int(tile_px * vsize)))
            vsw = sw // 2
            vb = dv.textbbox((0, 0), text, font=small, stroke_width=vsw)
            vw, vh = vb[2] - vb[0], vb[3] - vb[1]
            ink = np.asarray(letter_img) > 127
            cols, rows = np.flatnonzero(ink.any(axis=0)), np.flatnonzero(ink.any(axis=1))
            lx0, lx1 = (cols[0], cols[-1]) if len(cols) else (tile_px // 3, 2 * tile_px // 3)
            ly0, ly1 = (rows[0], rows[-1]) if len(rows) else (tile_px // 3, 2 * tile_px // 3)
            gap, edge = tile_px * 0.04, tile_px * 0.07
            if place == "corner":      # vside: 0 top left, 1 top right, 2 bottom right, 3 bottom left
                x = edge if vside in (0, 3) else tile_px - edge - vw
                y = edge if vside in (0, 1) else tile_px - edge - vh
            elif place == "beside":    # right or left of the letter, level with its foot or its middle
                x = lx1 + gap if vside % 2 == 0 else lx0 - gap - vw
                y = ly1 - vh if vside < 2 else (ly0 + ly1 - vh) / 2
            else:                      # stacked: below or above the letter, centred on it
                x = (lx0 + lx1 - vw) / 2
                y = ly1 + gap if vside % 2 == 0 else ly0 - gap - vh
            x = float(np.clip(x, tile_px * 0.03, tile_px * 0.97 - vw))
            y = float(np.clip(y, tile_px * 0.03, tile_px * 0.97 - vh))
            dv.text((x - vb[0], y - vb[1]), text, font=small, fill=255, stroke_width=vsw, stroke_fill=255)
    return (np.asarray(letter_img, np.float32) / 255.0, np.asarray(value_img, np.float32) / 255.0)


@dataclass(frozen=True)
class TileLook:
    """One tile set's look, drawn once per render."""
    style: str
    face: tuple
    ink: tuple
    radius: float
    values: bool
    size: float          # letter em size, fraction of the tile
    dx: float            # letter offset from centre
    dy: float
    engraved: bool       # ink sunk into the face: a light rim below, a dark one above
    tint: float          # per-tile face tint spread (wood varies tile to tile)
    grain: bool
    value_place: str = "subscript"
    value_size: float = 0.24
    value_side: int = 0  # which corner or side (see _glyph_masks)
    stroke: float = 0.0  # extra letter stroke, fraction of the tile
    blank_print: str = "plain"
    braille: bool = False
    braille_left: bool = False
    marks: bool = False  # a printed dot above and below the letter


def _tile_look(style: str, rng: np.random.Generator, value_prob: float, factors: dict | None = None,
               frng: np.random.Generator | None = None) -> TileLook:
    """A tile set's look. ``factors`` names the RENDER_FACTORS options; their details come from
    ``frng`` so the old draws from ``rng`` (and the old looks) stay as they were."""
    spec = TILE_STYLES[style]
    face = _jitter(spec["faces"][int(rng.integers(len(spec["faces"])))], rng, 14)
    ink = spec["inks"][int(rng.integers(len(spec["inks"])))]
    if abs(_luma(face) - _luma(ink)) < 90:  # yellow ink on a yellow face: take the darkest
        ink = (20, 20, 20) if _luma(face) > 128 else (245, 245, 240)
    look = TileLook(style, face, _jitter(ink, rng, 8), float(rng.uniform(*spec["radius"])),
                    bool(rng.random() < value_prob), float(rng.uniform(0.5, 0.72)),
                    float(rng.uniform(-0.07, 0.02)), float(rng.uniform(-0.06, 0.02)),
                    style in ("ivory", "white") and rng.random() < 0.6,
                    float(rng.uniform(0.02, 0.1)) if spec["grain"] else float(rng.uniform(0, 0.02)),
                    bool(spec["grain"]))
    if not factors:
        return look
    place = factors["value_place"]
    side = int(frng.integers(4))
    size, dx, dy = look.size, look.dx, look.dy
    if place == "beside":      # the letter moves over to make room for its value
        dx = float(frng.uniform(-0.17, -0.08)) if side % 2 == 0 else float(frng.uniform(0.08, 0.17))
    elif place == "stacked":
        size = size * float(frng.uniform(0.72, 0.85))
        dy = float(frng.uniform(-0.17, -0.1)) if side % 2 == 0 else float(frng.uniform(0.1, 0.17))
    elif place == "corner":
        dx, dy = dx * 0.5, dy * 0.5
    return TileLook(**{**look.__dict__, "size": size, "dx": dx, "dy": dy, "value_place": place,
                       "value_size": float(frng.uniform(0.16, 0.32)), "value_side": side,
                       "stroke": float(frng.uniform(0.015, 0.04)) if factors["weight"] == "bold" else 0.0,
                       "blank_print": factors["blank_print"], "braille": factors["braille"] == "dots",
                       "braille_left": bool(frng.random() < 0.3), "marks": factors.get("marks") == "dots"})


def _luma(rgb) -> float:
    return 0.299 * rgb[0] + 0.587 * rgb[1] + 0.114 * rgb[2]


def _tile_colours(style: str, rng: np.random.Generator) -> tuple[tuple, tuple, float]:
    """(face RGB, ink RGB, corner radius as a fraction of the tile) of a tile style."""
    look = _tile_look(style, rng, 1.0)
    return look.face, look.ink, look.radius


@lru_cache(maxsize=512)
def _tile_face(letter: str, font_path: str, tile_px: int, look: TileLook) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """An upright tile without grain or tint: (RGB float with bevel and ink, share of face not
    inked, alpha). Cached because a render repeats the same look for every tile."""
    face_arr = np.empty((tile_px, tile_px, 3), np.float32)
    face_arr[:] = look.face
    # Bevel: light top-left edge, dark bottom-right edge.
    ramp = np.linspace(1, 0, max(2, tile_px // 10), dtype=np.float32)
    e = len(ramp)
    face_arr[:e, :, :] += ramp[:, None, None] * 28
    face_arr[:, :e, :] += ramp[None, :, None] * 20
    face_arr[-e:, :, :] -= ramp[::-1, None, None] * 36
    face_arr[:, -e:, :] -= ramp[None, ::-1, None] * 28
    paper = np.ones((tile_px, tile_px), np.float32)
    ink_arr = np.asarray(look.ink, np.float32)
    if letter == "?" and look.blank_print != "plain":
        m = _blank_print(look.blank_print, tile_px)
        face_arr = face_arr * (1 - m[..., None]) + ink_arr * m[..., None]
        paper *= 1 - m
    if look.braille and letter in BRAILLE_DOTS:
        face_arr = _braille(face_arr, BRAILLE_DOTS[letter], tile_px, look.braille_left)
    if letter not in ("?", ""):
        if look.value_place == "subscript" and not look.stroke:
            lm, vm = _glyph_masks(font_path, letter, tile_px, look.values, round(look.size, 2),
                                  round(look.dx, 2), round(look.dy, 2))
        else:
            lm, vm = _glyph_masks(font_path, letter, tile_px, look.values, round(look.size, 2),
                                  round(look.dx, 2), round(look.dy, 2), look.value_place,
                                  round(look.value_size, 2), look.value_side, round(look.stroke, 3))
        if look.marks:
            lm = _with_marks(lm, tile_px)
        for m in (lm, vm):
            if look.engraved:  # the groove's lit lower edge and shaded upper edge
                s = max(1, tile_px // 40)
                below = np.roll(m, s, axis=0) * (1 - m)
                above = np.roll(m, -s, axis=0) * (1 - m)
                face_arr += (below * 30 - above * 30)[..., None]
            face_arr = face_arr * (1 - m[..., None]) + ink_arr * m[..., None]
            paper *= 1 - m
    alpha = np.zeros((tile_px, tile_px), np.uint8)
    r = int(look.radius * tile_px)
    cv2.rectangle(alpha, (r, 0), (tile_px - 1 - r, tile_px - 1), 255, -1)
    cv2.rectangle(alpha, (0, r), (tile_px - 1, tile_px - 1 - r), 255, -1)
    for cx, cy in ((r, r), (tile_px - 1 - r, r), (r, tile_px - 1 - r), (tile_px - 1 - r, tile_px - 1 - r)):
        cv2.circle(alpha, (cx, cy), r, 255, -1, cv2.LINE_AA)
    out = (face_arr, paper, alpha.astype(np.float32))
    for arr in out:
        arr.flags.writeable = False  # shared through the cache
    return out


@lru_cache(maxsize=64)
def _blank_print(kind: str, tile_px: int) -> np.ndarray:
    """Alpha (tile_px x tile_px) of what a printed blank carries: a face, a star or a logo."""
    m = np.zeros((tile_px, tile_px), np.float32)
    c, t = tile_px / 2, tile_px
    th = max(1, int(t * 0.045))
    if kind == "face":
        cv2.circle(m, (int(c), int(c)), int(t * 0.3), 1.0, th, cv2.LINE_AA)
        for ex in (-0.1, 0.1):
            cv2.circle(m, (int(c + ex * t), int(c - 0.08 * t)), max(1, int(t * 0.04)), 1.0, -1, cv2.LINE_AA)
        cv2.ellipse(m, (int(c), int(c + 0.02 * t)), (int(t * 0.15), int(t * 0.13)), 0, 20, 160, 1.0, th, cv2.LINE_AA)
    elif kind == "star":
        _star(m, c, c * 1.02, t * 0.3, 1.0)
    elif kind == "heart":  # two lobes and a point: no letter's shape
        r = int(t * 0.12)
        cv2.circle(m, (int(c - 0.11 * t), int(c - 0.06 * t)), r, 1.0, -1, cv2.LINE_AA)
        cv2.circle(m, (int(c + 0.11 * t), int(c - 0.06 * t)), r, 1.0, -1, cv2.LINE_AA)
        cv2.fillPoly(m, [np.int32([(c - 0.225 * t, c - 0.02 * t), (c + 0.225 * t, c - 0.02 * t), (c, c + 0.26 * t)])],
                     1.0, cv2.LINE_AA)
    elif kind == "logo":  # a ring around a diamond, with a bar through: no letter's shape
        cv2.circle(m, (int(c), int(c)), int(t * 0.28), 1.0, th, cv2.LINE_AA)
        h = t * 0.13
        cv2.fillPoly(m, [np.int32([(c, c - h), (c + h, c), (c, c + h), (c - h, c)])], 1.0, cv2.LINE_AA)
        cv2.line(m, (int(c - 0.36 * t), int(c + 0.3 * t)), (int(c + 0.36 * t), int(c + 0.3 * t)), 1.0, th, cv2.LINE_AA)
    else:
        raise ValueError(f"unknown blank print {kind!r}")
    m.flags.writeable = False
    return m


def _with_marks(letter: np.ndarray, tile_px: int) -> np.ndarray:
    """The letter's mask with a round dot printed above and below its ink, centred on it."""
    ys, xs = np.nonzero(letter > 0.5)
    if ys.size == 0:
        return letter
    out = np.array(letter, np.float32, copy=True)
    r, gap = max(1, int(round(tile_px * 0.03))), tile_px * 0.07
    cx = int(round((xs.min() + xs.max()) / 2))
    for cy in (ys.min() - gap, ys.max() + gap):
        cy = int(round(min(max(cy, r + 1), tile_px - r - 2)))
        cv2.circle(out, (cx, cy), r, 1.0, -1, cv2.LINE_AA)
    out.flags.writeable = False
    return out


def _braille(face_arr: np.ndarray, dots: str, tile_px: int, left: bool) -> np.ndarray:
    """Emboss a Braille cell in a top corner: raised dots, lit on the upper left, shaded below."""
    raised = np.zeros((tile_px, tile_px), np.float32)
    pitch, r = tile_px * 0.085, max(1, int(round(tile_px * 0.03)))
    x0 = tile_px * (0.1 if left else 0.9) - (0 if left else pitch)
    y0 = tile_px * 0.1
    for d in dots:
        i = int(d) - 1
        cx, cy = x0 + (i // 3) * pitch, y0 + (i % 3) * pitch
        cv2.circle(raised, (int(round(cx)), int(round(cy))), r, 1.0, -1, cv2.LINE_AA)
    s = max(1, tile_px // 60)
    lit = np.roll(np.roll(raised, -s, axis=0), -s, axis=1)
    shade = np.roll(np.roll(raised, s, axis=0), s, axis=1)
    return face_arr * (1 - 0.12 * raised[..., None]) + ((lit - shade) * 40)[..., None]


def _tile_rgba(letter: str, font_path: str, tile_px: int, look: TileLook, rng: np.random.Generator) -> np.ndarray:
    """One upright tile as an RGBA float image with a bevel, its own tint and (wood) grain."""
    face_arr, paper, alpha = _tile_face(letter, font_path, tile_px, look)
    tint = (1 + rng.normal(0, look.tint, 3)).astype(np.float32)
    face_arr = face_arr * (paper[..., None] * (tint - 1) + 1)  # the ink keeps its colour
    if look.grain:  # faint stripes, under the ink
        stripes = np.sin(np.linspace(0, rng.uniform(8, 30), tile_px) + rng.uniform(0, 6)).astype(np.float32)
        if rng.random() < 0.5:
            stripes = stripes + 0.5 * np.sin(np.linspace(0, rng.uniform(30, 60), tile_px)).astype(np.float32)
        grain = stripes[None, :] if rng.random() < 0.5 else stripes[:, None]
        face_arr = face_arr + (grain * np.float32(rng.uniform(3, 14)) * paper)[..., None]
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


def _star(img: np.ndarray, cx: float, cy: float, r: float, colour, points: int = 5, outline: bool = False) -> None:
    pts = []
    for i in range(2 * points):
        rad = r if i % 2 == 0 else r * 0.45
        ang = -np.pi / 2 + i * np.pi / points
        pts.append((cx + rad * np.cos(ang), cy + rad * np.sin(ang)))
    if outline:
        cv2.polylines(img, [np.int32(pts)], True, colour, max(1, int(r * 0.12)), cv2.LINE_AA)
    else:
        cv2.fillPoly(img, [np.int32(pts)], colour, cv2.LINE_AA)


@lru_cache(maxsize=256)
def _text_mask(lines: tuple[str, ...], font_path: str, sq: int, fill: float) -> np.ndarray:
    """Alpha (sq x sq) of centred lines of text filling about ``fill`` of the square's width."""
    n = len(lines)
    longest = max(lines, key=len)
    size = max(6, int(sq * 0.8))
    font = ImageFont.truetype(font_path, size)
    probe = ImageDraw.Draw(Image.new("L", (1, 1)))
    b = probe.textbbox((0, 0), longest, font=font)
    scale = min(fill * sq / max(b[2] - b[0], 1), 0.8 * sq / n / max(b[3] - b[1], 1))
    font = ImageFont.truetype(font_path, max(5, int(size * scale)))
    img = Image.new("L", (sq, sq), 0)
    d = ImageDraw.Draw(img)
    line_h = sq * 0.8 / n if n > 1 else 0
    for i, text in enumerate(lines):
        tb = d.textbbox((0, 0), text, font=font)
        y = sq / 2 + (i - (n - 1) / 2) * line_h * 0.95 - (tb[3] + tb[1]) / 2
        d.text(((sq - (tb[2] - tb[0])) / 2 - tb[0], y), text, font=font, fill=255)
    out = np.asarray(img, np.float32) / 255.0
    out.flags.writeable = False
    return out


def _label_lines(style: str, key: str, rng: np.random.Generator) -> tuple[str, ...] | None:
    # each square draws its own wording (TW, 3W, TWS on one board): a real board prints one;
    # kept so the committed model's training renders are reproduced
    table = {"short": SHORT_LABELS, "full": FULL_LABELS, "foreign": FOREIGN_LABELS}.get(style)
    if table is None or key not in table:
        return None
    options = table[key]
    return options[int(rng.integers(len(options)))]


def _serrate(img: np.ndarray, x0: int, y0: int, sq: int, colour, teeth: int, depth: float) -> None:
    """Hasbro-style premium squares: triangular teeth reach into the neighbouring squares."""
    pts = []
    for side in range(4):
        for t in range(teeth):
            a, b = t / teeth, (t + 1) / teeth
            mid = (a + b) / 2
            if side == 0:
                pts.append([(x0 + a * sq, y0), (x0 + mid * sq, y0 - depth * sq), (x0 + b * sq, y0)])
            elif side == 1:
                pts.append([(x0 + sq, y0 + a * sq), (x0 + sq + depth * sq, y0 + mid * sq), (x0 + sq, y0 + b * sq)])
            elif side == 2:
                pts.append([(x0 + a * sq, y0 + sq), (x0 + mid * sq, y0 + sq + depth * sq), (x0 + b * sq, y0 + sq)])
            else:
                pts.append([(x0, y0 + a * sq), (x0 - depth * sq, y0 + mid * sq), (x0, y0 + b * sq)])
    cv2.fillPoly(img, [np.int32(p) for p in pts], colour, cv2.LINE_AA)


def _rim_print(img: np.ndarray, margin: int, sq: int, ink, font_path: str, rng: np.random.Generator) -> None:
    """The maker's print beyond the grid: a name, a letter-distribution column, a frame line."""
    size = img.shape[0]
    g0, g1 = margin, size - margin
    if rng.random() < 0.5:  # an outline or band right around the grid
        w = max(1, int(sq * rng.uniform(0.03, 0.25)))
        colour = tuple(float(v) for v in rng.uniform(0, 255, 3)) if rng.random() < 0.5 else ink
        cv2.rectangle(img, (g0 - w, g0 - w), (g1 + w, g1 + w), colour, w)
    pil = Image.new("L", (size, size), 0)
    d = ImageDraw.Draw(pil)
    font = ImageFont.truetype(font_path, max(6, int(sq * rng.uniform(0.3, 0.7))))
    for _ in range(int(rng.integers(0, 4))):
        text = str(rng.choice(["SCRABBLE", "S C R A B B L E", "CROSSWORD GAME", "Hasbro", "A-9 B-2 C-2 D-4",
                               "E-12 F-2 G-3", "MATTEL", "TOURNAMENT", "WORD GAME"]))
        side = int(rng.integers(4))
        along = rng.uniform(0.1, 0.6) * size
        across = rng.uniform(0.15, 0.75) * margin
        pos = [(along, across), (along, size - margin + across), (across, along), (size - margin + across, along)][side]
        d.text(pos, text, font=font, fill=255)
    m = np.asarray(pil, np.float32)[..., None] / 255.0
    m[g0:g1, g0:g1] = 0
    img[:] = img * (1 - m) + np.float32(ink) * m


def _fold_seams(img: np.ndarray, margin: int, sq: int, rng: np.random.Generator) -> None:
    """A folding board's seam down the middle (through the centre column's squares), on some
    boards across too: a dark crease with a lit edge beside it, one half a little darker."""
    size = img.shape[0]
    mid = margin + 7.5 * sq
    for axis in (1, 0) if rng.random() < 0.4 else (int(rng.integers(2)),):
        p = int(round(mid + rng.uniform(-0.04, 0.04) * sq))
        w = max(1, int(round(sq * rng.uniform(0.015, 0.05))))
        dark, lit, half = rng.uniform(0.3, 0.65), rng.uniform(1.08, 1.3), rng.uniform(0.86, 1.04)
        sl = (lambda a, b: (slice(None), slice(a, b))) if axis == 1 else (lambda a, b: (slice(a, b), slice(None)))
        img[sl(p, size)] *= np.float32(half)
        img[sl(p - w // 2, p - w // 2 + w)] *= np.float32(dark)
        img[sl(p - w // 2 + w, p - w // 2 + 2 * w)] = np.minimum(img[sl(p - w // 2 + w, p - w // 2 + 2 * w)] * np.float32(lit), 255)


def _legend(img: np.ndarray, margin: int, sq: int, kind: str, rim, font_path: str, rng: np.random.Generator) -> None:
    """Print just outside the grid: column letters and row numbers, or lines of text, a fraction
    of a square from the grid's edge (where the edge squares' crops reach)."""
    size = img.shape[0]
    g0, g1 = margin, margin + 15 * sq
    pil = Image.new("L", (size, size), 0)
    d = ImageDraw.Draw(pil)
    font = ImageFont.truetype(font_path, max(6, int(sq * rng.uniform(0.25, 0.5))))
    gap = sq * rng.uniform(0.05, 0.3)
    sides = [s for s in range(4) if s < 2 or rng.random() < 0.5]  # top and left, sometimes all four
    if kind == "coordinates":
        for i in range(15):
            for side in sides:
                text = "ABCDEFGHIJKLMNO"[i] if side % 2 == 0 else str(i + 1)
                b = d.textbbox((0, 0), text, font=font)
                tw, th = b[2] - b[0], b[3] - b[1]
                along = margin + (i + 0.5) * sq
                x, y = [(along - tw / 2, g0 - gap - th), (g0 - gap - tw, along - th / 2),
                        (along - tw / 2, g1 + gap), (g1 + gap, along - th / 2)][side]
                d.text((x - b[0], y - b[1]), text, font=font, fill=255)
    else:
        for side in sides:
            strip = Image.new("L", (15 * sq, sq), 0)
            ds = ImageDraw.Draw(strip)
            text = "   ".join(str(t) for t in rng.choice(LEGEND_TEXT, size=2, replace=False))
            b = ds.textbbox((0, 0), text, font=font)
            ds.text((rng.uniform(0, 0.3) * sq - b[0], -b[1]), text, font=font, fill=255)
            th = b[3] - b[1]
            band = np.asarray(strip, np.uint8)[:th + 1]
            band = np.rot90(band, k=-side)  # read along each side, facing outwards
            h, w = band.shape
            off = int(gap)
            y, x = [(g0 - off - h, g0), (g0, g0 - off - w), (g1 + off, g0), (g0, g1 + off)][side]
            if y >= 0 and x >= 0 and y + h <= size and x + w <= size:
                region = np.asarray(pil)[y:y + h, x:x + w]
                pil.paste(Image.fromarray(np.maximum(region, band)), (x, y))
    ink = (20, 20, 20) if _luma(rim) > 110 else (240, 240, 236)
    m = np.asarray(pil, np.float32)[..., None] / 255.0
    m[g0:g1, g0:g1] = 0
    img[:] = img * (1 - m) + np.float32(ink) * m


def render_topdown(board: list[str], seed: int, cfg: SceneConfig | None = None) -> TopDown:
    """The board from straight above. '.' empty, a letter a tile, '?' a blank tile, lower case a
    designated blank (drawn as a blank tile)."""
    cfg = cfg or SceneConfig()
    board = list(check_board(board))
    rng = np.random.default_rng(seed)
    # issue 28's factors draw from their own stream: the old draws, and the old looks, stay put
    frng = np.random.default_rng([seed, 28])
    factors = {name: _pick(frng, getattr(cfg, name), options) for name, options in RENDER_FACTORS.items()
               if name not in LATER_FACTORS}
    factors.update({name: _pick(np.random.default_rng([seed, stream]), getattr(cfg, name), RENDER_FACTORS[name])
                    for name, stream in LATER_FACTORS.items()})
    design = _pick(rng, cfg.design, DESIGNS)
    style = _pick(rng, cfg.style, STYLES)
    fonts = available_fonts()
    font = _pick(rng, cfg.font, sorted(fonts))
    sq = cfg.square_px
    margin = int(round(cfg.margin_squares * sq))
    size = 15 * sq + 2 * margin
    amount = int(rng.choice([10, 18, 28]))
    pal = {k: _jitter(v, rng, amount) for k, v in SCHEMES[design].items()}
    img = np.empty((size, size, 3), np.float32)
    img[:] = pal["rim"]
    layout = PREMIUM_ROWS
    if cfg.labels == "random":
        label_style = (str(rng.choice([s for s in LABEL_STYLES if s != "none"]))
                       if rng.random() < cfg.label_prob else "none")
    else:
        label_style = _pick(rng, cfg.labels, LABEL_STYLES)
    star = _pick(rng, cfg.star, STAR_FORMS)
    # label print: dark (a darker shade of the square) or white, as boards do
    label_dark = rng.random() < 0.6
    label_font_path = str(fonts[_pick(rng, "random", sorted(fonts))])
    serrate = rng.random() < 0.35
    teeth, depth = int(rng.integers(2, 5)), float(rng.uniform(0.06, 0.14))
    lw_frac = rng.uniform(0.02, 0.07)
    lw = max(1, int(round(sq * (lw_frac if cfg.line_frac is None else cfg.line_frac))))
    for r in range(15):
        for c in range(15):
            key = _PREMIUM_KEY[layout[r][c]]
            x0, y0 = margin + c * sq, margin + r * sq
            img[y0:y0 + sq, x0:x0 + sq] = pal[key]
    for r in range(15):
        for c in range(15):
            key = _PREMIUM_KEY[layout[r][c]]
            if serrate and key != "plain":
                _serrate(img, margin + c * sq, margin + r * sq, sq, pal[key], teeth, depth)
    for i in range(16):
        p = margin + i * sq
        cv2.line(img, (p, margin), (p, margin + 15 * sq), pal["line"], lw)
        cv2.line(img, (margin, p), (margin + 15 * sq, p), pal["line"], lw)
    lrng = np.random.default_rng([seed, 7])
    for r in range(15):
        for c in range(15):
            key = _PREMIUM_KEY[layout[r][c]]
            x0, y0 = margin + c * sq, margin + r * sq
            cell = img[y0:y0 + sq, x0:x0 + sq]
            ink = (np.float32(pal[key]) * 0.35 if label_dark else np.float32((248, 248, 246)))
            if layout[r][c] == "*":
                colour = tuple(float(v) for v in (np.float32(pal["dw"]) * 0.65 if label_dark else ink))
                if star in ("star", "star_outline"):
                    _star(img, x0 + sq / 2, y0 + sq / 2, sq * lrng.uniform(0.3, 0.42), colour,
                          int(lrng.choice([5, 5, 6])), star == "star_outline")
                elif star == "diamond":
                    h = sq * lrng.uniform(0.25, 0.4)
                    cv2.fillPoly(img, [np.int32([(x0 + sq / 2, y0 + sq / 2 - h), (x0 + sq / 2 + h, y0 + sq / 2),
                                                 (x0 + sq / 2, y0 + sq / 2 + h), (x0 + sq / 2 - h, y0 + sq / 2)])],
                                 colour, cv2.LINE_AA)
                elif star == "circle":
                    cv2.circle(img, (int(x0 + sq / 2), int(y0 + sq / 2)), int(sq * lrng.uniform(0.15, 0.35)),
                               colour, -1, cv2.LINE_AA)
                elif star == "label" and label_style in ("full", "foreign", "short"):
                    m = _text_mask(("STAR",) if label_style != "full" else ("DOUBLE", "WORD", "SCORE"),
                                   label_font_path, sq, 0.8)[..., None]
                    cell[:] = cell * (1 - m) + ink * m
            elif label_style == "dots" and key != "plain":
                n = 3 if key in ("tw", "tl") else 2
                rad = max(1, int(sq * 0.07))
                for j in range(n):
                    px = x0 + sq * (0.5 + (j - (n - 1) / 2) * 0.22)
                    cv2.circle(img, (int(px), int(y0 + sq * 0.5)), rad, tuple(float(v) for v in ink), -1, cv2.LINE_AA)
            elif key != "plain":
                lines = _label_lines(label_style, key, lrng)
                if lines:
                    m = _text_mask(lines, label_font_path, sq, float(lrng.uniform(0.7, 0.92)))[..., None]
                    strength = np.float32(lrng.uniform(0.7, 1.0))
                    cell[:] = cell * (1 - m * strength) + ink * m * strength
    if rng.random() < 0.7:
        _rim_print(img, margin, sq, tuple(float(v) for v in rng.uniform(0, 255, 3)), label_font_path, rng)
    if rng.random() < 0.2:  # a fold line across the board
        p = margin + int(rng.integers(5, 10)) * sq + int(rng.integers(-sq // 3, sq // 3 + 1))
        a, b = (p, 0), (p + int(rng.integers(-sq, sq + 1)), size - 1)
        if rng.random() < 0.5:
            a, b = a[::-1], b[::-1]
        cv2.line(img, a, b, (30, 30, 30), max(1, sq // 25), cv2.LINE_AA)
    if factors["fold"] == "middle":
        _fold_seams(img, margin, sq, frng)
    if factors["legend"] != "none":
        _legend(img, margin, sq, factors["legend"], pal["rim"], label_font_path, frng)
    img += noise_field(rng, img.shape[:2], 3.0)[..., None]  # printed-cardboard texture

    tile_px = int(sq * cfg.tile_frac)
    look = _tile_look(style, rng, cfg.value_prob, factors, frng)
    loose = PLACEMENT_JITTER[factors["placement"]]
    jitter_frac = cfg.tile_jitter_frac if loose is None else float(frng.uniform(*loose))
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
            jx, jy = trng.uniform(-1, 1, 2) * jitter_frac * sq
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
        rgba = _tile_rgba(letter, str(fonts[font]), tile_px, look, np.random.default_rng([seed, int(cx), int(cy)]))
        rgba = np.ascontiguousarray(np.rot90(rgba, k=-k))  # k clockwise quarter turns
        _paste(img, rgba, cx, cy, angle)
    out = cv2.cvtColor(np.clip(img, 0, 255).astype(np.uint8), cv2.COLOR_RGB2BGR)
    g0, g1 = margin, margin + 15 * sq
    corners = np.float32([[g0, g0], [g1, g0], [g1, g1], [g0, g1]])
    return TopDown(out, corners, sq, rotations, design, style, font, factors)
