"""A rack camera's frame: a player's rack with up to seven tiles standing on it, with exact truth.

The rack is built in 3-D (a ledge, a back wall the tiles lean on, a front lip) in units of one
tile side and photographed by a pinhole camera from the front, from above or from one side; the
tiles are the board renderer's own faces (``board._tile_rgba``, ``TileLook``, the fonts), each
warped onto its quad. Then the table, a hand over some tiles, light, blur, noise and JPEG.

``RACK_FACTORS`` names every factor's options; ``RACK_HELD_OUT`` the options kept out of anything
tuned on these renders (drawn only when a look names them, or by ``draw_look(seed, 'heldout')``,
one factor held out at a time, or ``'heldout_all'``, all at once).
``seed`` fixes the rack, its tiles' look and the camera; ``frame`` moves the rack a little and
redraws the sensor noise, so a run of frames is one rack seen over time.
"""
from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

from .board import TileLook, _luma, _tile_look, _tile_rgba, noise_field
from .fonts import available_fonts, faces_of, family_of
from .looks import RENDER_FACTORS, STYLES
from .scene import SKIN_BGR

__all__ = ["HAND_LOOKS", "RACK_BROAD", "RACK_FACTORS", "RACK_HELD_OUT", "SPLITS", "RackScene", "draw_look", "render_rack"]

RACK_FACTORS: dict[str, tuple[str, ...]] = {
    # the rack: its material and colour (RGB anchors in RACK_COLOURS)
    "rack": ("wood", "black_plastic", "grey_plastic", "coloured_plastic", "acrylic"),
    # where the camera is: level with the rack, higher, nearly straight above, well off to one side
    "view": ("front", "high", "above", "side"),
    # how much of the frame's width the rack spans
    "distance": ("near", "mid", "far"),
    "tile_style": STYLES,
    # typeface families (models.synth.fonts); every face of a family goes with it
    "font": ("dejavu", "dejavu-serif", "helvetica", "times", "gothic", "bookman", "schoolbook", "palatino",
             "courier", "open-sans", "roboto", "lato", "cantarell", "carlito", "inter", "cabin", "league-spartan"),
    "light": ("even", "warm", "cold", "dim", "glare"),
    "table": ("wood", "dark", "light", "cloth"),
    # the gaps between tiles: even, uneven (some touching, some apart), one wide gap
    "spacing": ("even", "uneven", "gapped"),
    # the camera's sharpness: a sharp HD camera, a noisy webcam, a soft (out of focus) one
    "camera": ("sharp", "webcam", "soft"),
    "value_place": RENDER_FACTORS["value_place"],
    "blank_print": RENDER_FACTORS["blank_print"],
    "weight": RENDER_FACTORS["weight"],
}
# Issue 45's broad mix: looks a user's rack camera shows that the first renders lacked (walnut racks
# and tiles, white plastic, flat racks with no ledge, tall tournament racks, pro tiles, fonts the
# rack renders had not used, patterned, felt and marble tables). Drawn only with draw_look(...,
# broad=True), which the learned rack finder trains on; a split alone never draws them, so the
# bench's stills are as before. None is held out: they widen training, the held-out looks are unchanged.
RACK_BROAD: dict[str, tuple[str, ...]] = {
    "rack": ("walnut", "white_plastic", "flat", "tall"),
    "tile_style": ("walnut", "pro"),
    "font": ("comfortaa", "quicksand", "caladea", "libertine", "oxygen", "hack"),
    "table": ("patterned", "felt", "marble"),
}
RACK_FACTORS.update({name: RACK_FACTORS[name] + extra for name, extra in RACK_BROAD.items()})
# Kept out of anything tuned (the reading rule, thresholds): the tile style and fonts the tile
# model never trained on (models/train.py's defaults), and one option of every other factor.
RACK_HELD_OUT: dict[str, tuple[str, ...]] = {
    "rack": ("acrylic",), "view": ("side",), "distance": ("far",), "tile_style": ("jewel",),
    "font": ("bookman", "lato"), "light": ("glare",), "table": ("cloth",), "spacing": ("gapped",),
    "camera": ("soft",), "value_place": ("stacked",), "blank_print": ("logo",), "weight": ("bold",),
}

RACK_COLOURS = {  # RGB
    "wood": ((176, 124, 76), (140, 92, 56), (204, 160, 108)),
    "black_plastic": ((28, 28, 30), (40, 40, 44)),
    "grey_plastic": ((120, 124, 130), (160, 162, 166)),
    "coloured_plastic": ((170, 36, 40), (30, 70, 150), (30, 120, 70), (230, 190, 40)),
    "acrylic": ((200, 214, 222), (150, 176, 190)),
    "walnut": ((84, 54, 36), (66, 44, 30), (102, 68, 44)),
    "white_plastic": ((226, 226, 222), (240, 238, 232)),
    # forms (RACK_FORMS), in a wood or plastic colour
    "flat": ((176, 124, 76), (28, 28, 30), (120, 124, 130), (30, 70, 150), (84, 54, 36)),
    "tall": ((140, 92, 56), (28, 28, 30), (84, 54, 36), (176, 124, 76)),
}
# A rack's shape: its back wall's height and the tiles' lean (degrees) drawn here, the ledge's
# depth and height, whether it has a front lip. The 'ledge' rack is every rack's but these.
RACK_FORMS = {"flat": dict(wall=(0.08, 0.22), lean=(0, 6), base=(0.12, 0.22, 0.12), lip=False),
              "tall": dict(wall=(1.0, 1.35), lean=(12, 22), base=(0.3, 0.5, 0.3), lip=True)}
# camera elevation above the rack's ledge (degrees) and yaw to one side
VIEWS = {"front": ((4, 18), (0, 14)), "high": ((20, 42), (0, 16)), "above": ((44, 66), (0, 12)),
         "side": ((10, 40), (22, 36))}
SPANS = {"near": (0.72, 0.9), "mid": (0.55, 0.72), "far": (0.4, 0.55)}
CAMERAS = {"sharp": ((0.0, 0.6), (1.0, 3.0), (80, 95)), "webcam": ((0.3, 1.0), (3.0, 7.0), (50, 80)),
           "soft": ((1.2, 2.0), (1.0, 4.0), (60, 90))}   # blur sigma, noise sigma, JPEG quality
OUT_W, OUT_H = 640, 360
TILE_PX = 96  # each face is drawn this size, then warped onto its quad


@dataclass(frozen=True, eq=False)
class RackScene:
    image: np.ndarray                                 # BGR uint8 camera frame
    tiles: list[str]                                  # truth left to right in the image, '?' a blank
    boxes: list[tuple[int, int, int, int]]            # per tile (x, y, w, h) of its face in the image
    occluded: list[bool]                              # per tile: a hand covers it
    look: dict                                        # the factors used (every RACK_FACTORS name)
    quads: np.ndarray                                 # (n, 4, 2) float32 face corners TL, TR, BR, BL


def _tokens(tiles) -> list[str]:
    out = list(tiles) if isinstance(tiles, str) else [str(t) for t in tiles]
    if len(out) > 7:
        raise ValueError(f"a rack holds at most 7 tiles, not {len(out)}")
    if any(not t for t in out):
        raise ValueError("an empty tile token")
    return out


SPLITS = ("train", "heldout", "heldout_all")


def draw_look(seed: int, split: str = "train", look: dict | None = None, *, broad: bool = False) -> dict:
    """A full look: the options ``look`` names, the rest drawn by ``split``: 'train' never a
    held-out option; 'heldout' one factor (drawn) at a held-out option, the others as in training
    (how models/train.py measures each held-out factor on its own); 'heldout_all' a held-out option
    of every factor at once. ``broad``: RACK_BROAD's options are drawn too (the finder's training)."""
    if split not in SPLITS:
        raise ValueError(f"split is one of {SPLITS}, not {split!r}")
    rng = np.random.default_rng([seed, 30])
    held_now = set(RACK_HELD_OUT) if split == "heldout_all" else set()
    if split == "heldout":
        names = sorted(RACK_HELD_OUT)
        held_now = {names[int(rng.integers(len(names)))]}
    out = {}
    for name, options in RACK_FACTORS.items():
        held = RACK_HELD_OUT.get(name, ())
        pool = [o for o in options if (o in held) == (name in held_now)
                and (broad or o not in RACK_BROAD.get(name, ()))] or list(options)
        if name == "font":  # only families with a face on this machine
            pool = [f for f in pool if faces_of([f])] or [f for f in options if faces_of([f])]
        drawn = pool[int(rng.integers(len(pool)))]
        given = (look or {}).get(name)
        if given is not None:
            if given not in options:
                raise ValueError(f"unknown {name} {given!r}; choose one of {options}")
            drawn = given
        out[name] = drawn
    unknown = set(look or {}) - set(RACK_FACTORS)
    if unknown:
        raise ValueError(f"not rack factors: {sorted(unknown)}")
    return out


def _rot(axis: str, deg: float) -> np.ndarray:
    a = np.radians(deg)
    c, s = np.cos(a), np.sin(a)
    if axis == "x":
        return np.array([[1, 0, 0], [0, c, -s], [0, s, c]])
    if axis == "y":
        return np.array([[c, 0, s], [0, 1, 0], [-s, 0, c]])
    return np.array([[c, -s, 0], [s, c, 0], [0, 0, 1]])


class _Camera:
    """World: x along the rack, y up, z towards the player. The camera looks at the tiles'
    middle from ``dist`` away, ``elev`` degrees above and ``yaw`` to one side, turned by ``roll``."""

    def __init__(self, elev: float, yaw: float, roll: float, dist: float):
        self.r = _rot("z", roll) @ _rot("x", elev) @ _rot("y", -yaw)
        self.dist = dist
        self.scale, self.offset = 1.0, np.zeros(2)

    def raw(self, pts: np.ndarray) -> np.ndarray:
        p = (np.asarray(pts, np.float64) - [0, 0.45, 0]) @ self.r.T
        p[:, 2] = self.dist - p[:, 2]
        return np.stack([p[:, 0] / p[:, 2], -p[:, 1] / p[:, 2]], axis=1) * self.dist

    def __call__(self, pts: np.ndarray) -> np.ndarray:
        return (self.raw(pts) * self.scale + self.offset).astype(np.float32)


def _box3(x0, x1, y0, y1, z0, z1):
    return np.array([[x0, y0, z0], [x1, y0, z0], [x1, y1, z0], [x0, y1, z0],
                     [x0, y0, z1], [x1, y0, z1], [x1, y1, z1], [x0, y1, z1]], np.float64)


def _fill(img, cam, pts3, colour, shade=1.0):
    p = cam(pts3)
    cv2.fillConvexPoly(img, np.round(p * 4).astype(np.int32), tuple(float(c) * shade for c in colour),
                       cv2.LINE_AA, shift=2)


def _table(rng, kind: str, w: int, h: int) -> np.ndarray:
    # every kind's base is drawn, whatever the kind: the draws after it stay as they were
    bases = {"wood": rng.uniform([110, 70, 40], [170, 120, 80]), "dark": rng.uniform([25, 25, 25], [70, 60, 55]),
             "light": rng.uniform([190, 190, 185], [235, 232, 225]),
             "cloth": rng.uniform([40, 60, 40], [120, 150, 120])}
    brng = np.random.default_rng(rng.integers(1 << 62)) if kind not in bases else None   # RACK_BROAD's tables
    base = (bases[kind] if brng is None else
            {"patterned": brng.uniform([60, 40, 40], [230, 210, 200]),
             "felt": np.array(FELTS[int(brng.integers(len(FELTS)))], float) * brng.uniform(0.8, 1.15),
             "marble": brng.uniform([200, 198, 192], [240, 238, 232])}[kind]).astype(np.float32)
    sw, sh = w // 4, h // 4
    low = cv2.resize(rng.normal(0, 1, (5, 8)).astype(np.float32), (sw, sh), interpolation=cv2.INTER_CUBIC)
    field = low * np.float32(rng.uniform(4, 14))
    if kind == "wood":
        x = np.linspace(0, rng.uniform(20, 60), sw, dtype=np.float32)[None, :] + low * 3
        field += np.sin(x) * np.float32(rng.uniform(4, 12))
    field = cv2.resize(field, (w, h), interpolation=cv2.INTER_LINEAR) + noise_field(rng, (h, w), 2.5)
    img = cv2.merge([field + base[0], field + base[1], field + base[2]])
    if kind == "cloth":  # a checked tablecloth
        p = int(rng.integers(14, 40))
        yy, xx = np.mgrid[0:h, 0:w]
        check = (((xx // p) + (yy // p)) % 2).astype(np.float32)
        img += (check * np.float32(rng.uniform(25, 60)))[..., None]
    if brng is not None:
        img = _broad_table(brng, kind, img)
    for _ in range(int(rng.integers(0, 3))):  # clutter: a score sheet, a pen, a tile bag
        cx, cy = rng.uniform(0, w), rng.uniform(0, h)
        if rng.random() < 0.5:
            box = cv2.boxPoints(((cx, cy), (rng.uniform(60, 160), rng.uniform(80, 200)), rng.uniform(0, 180)))
            cv2.fillPoly(img, [np.int32(box)], tuple(float(v) for v in rng.uniform(215, 250, 3)))
        else:
            cv2.ellipse(img, (int(cx), int(cy)), (int(rng.uniform(30, 90)), int(rng.uniform(20, 60))),
                        rng.uniform(0, 180), 0, 360, tuple(float(v) for v in rng.uniform(20, 120, 3)), -1)
    return img


FELTS = ((30, 60, 140), (140, 30, 40), (20, 100, 50), (90, 24, 40), (26, 26, 60))   # RGB


def _broad_table(rng, kind: str, img: np.ndarray) -> np.ndarray:
    """RACK_BROAD's tables on ``img`` (its base and light texture): a printed pattern (stripes, or
    dots and blots of a second colour), felt (a fine weave, no pattern), marble (dark veins)."""
    h, w = img.shape[:2]
    yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
    if kind == "patterned":
        other = rng.uniform(20, 235, 3).astype(np.float32)
        if rng.random() < 0.5:   # stripes at any angle
            a, p = rng.uniform(0, np.pi), rng.uniform(10, 50)
            m = ((np.cos(a) * xx + np.sin(a) * yy) % p < p * rng.uniform(0.3, 0.6)).astype(np.float32)
        else:                    # dots or blots scattered over the cloth
            m = np.zeros((h, w), np.float32)
            r0 = rng.uniform(4, 22)
            for _ in range(int(rng.integers(30, 160))):
                cv2.ellipse(m, (int(rng.uniform(0, w)), int(rng.uniform(0, h))),
                            (int(r0 * rng.uniform(0.6, 1.6)), int(r0 * rng.uniform(0.6, 1.6))),
                            rng.uniform(0, 180), 0, 360, 1.0, -1)
        m = cv2.GaussianBlur(m, (0, 0), 0.8)[..., None]
        return img * (1 - m) + other * m
    if kind == "felt":
        return img + noise_field(rng, (h, w), 4.0)[..., None]
    # marble: thin dark veins where a wavy field crosses its levels
    low = cv2.resize(rng.normal(0, 1, (4, 6)).astype(np.float32), (w, h), interpolation=cv2.INTER_CUBIC)
    a = rng.uniform(0, np.pi)
    wave = np.sin((np.cos(a) * xx + np.sin(a) * yy) / rng.uniform(30, 90) + low * rng.uniform(2, 4))
    vein = np.exp(-(wave ** 2) / 0.004).astype(np.float32) * np.float32(rng.uniform(60, 120))
    return img - vein[..., None]


def _tile_look_for(style: str, rng, factors: dict) -> TileLook:
    look = _tile_look(style, rng, 0.9, {"value_place": factors["value_place"], "weight": factors["weight"],
                                        "blank_print": factors["blank_print"], "braille": "none"}, rng)
    return look


# Hands no training look has (issue 45, only ever read, never trained or tuned on): an arm in a
# sleeve (the skin only from the wrist, so no skin reaches in from the frame's edge), and skin tones
# beyond SKIN_BGR's (RGB). The draws come from their own stream: a bare hand's still is as before.
HAND_LOOKS = ("bare", "sleeve", "tone")
SLEEVES = ((40, 60, 140), (150, 30, 40), (30, 30, 34), (230, 230, 226), (60, 110, 60), (120, 120, 126))
UNSEEN_SKIN = ((62, 40, 30), (245, 214, 200), (200, 170, 110), (150, 96, 80))


def _hand(rng, img: np.ndarray, quads: np.ndarray, cover: list[int], side: str | None = None,
          look: str = "bare", lrng: np.random.Generator | None = None) -> np.ndarray:
    """A hand reaching over the tiles ``cover`` from the top or the bottom of the frame (``side``
    'top' or 'bottom'; None: drawn, as likely either), in ``look`` (HAND_LOOKS; its draws from ``lrng``)."""
    h, w = img.shape[:2]
    mask = np.zeros((h, w), np.uint8)
    pts = quads[cover].reshape(-1, 2)
    centre = pts.mean(axis=0)
    span = pts[:, 0].max() - pts[:, 0].min()
    tile_h = float(np.median(quads[:, 3, 1] - quads[:, 0, 1]))
    from_top = rng.random() < 0.5   # drawn whatever ``side``: the rest of the frame's draws stay as they were
    if side is not None:
        from_top = side == "top"
    start = np.array([centre[0] + rng.uniform(-0.3, 0.3) * w, -60.0 if from_top else h + 60.0])
    d = centre - start
    n = np.array([-d[1], d[0]]) / max(np.hypot(*d), 1)
    width = max(span * 0.8, tile_h * 0.9)
    arm = np.array([start + n * width / 2, centre + n * width * 0.45, centre - n * width * 0.45,
                    start - n * width / 2], np.int32)
    cv2.fillPoly(mask, [arm], 255)
    cv2.ellipse(mask, (int(centre[0]), int(centre[1])), (int(max(span * 0.55, tile_h * 0.5)), int(tile_h * 0.6)),
                0, 0, 360, 255, -1)
    ang = np.arctan2(d[1], d[0])
    for f in range(4):  # fingers beyond the palm
        a = ang + (f - 1.5) * 0.3
        tip = centre + np.array([np.cos(a), np.sin(a)]) * tile_h * rng.uniform(0.7, 1.1)
        cv2.line(mask, (int(centre[0]), int(centre[1])), (int(tip[0]), int(tip[1])), 255,
                 max(3, int(tile_h * 0.22)))
    skin = np.array(SKIN_BGR[int(rng.integers(len(SKIN_BGR)))][::-1], np.float32) * rng.uniform(0.85, 1.1)
    if look == "tone":
        skin = np.array(UNSEEN_SKIN[int(lrng.integers(len(UNSEEN_SKIN)))], np.float32) * lrng.uniform(0.9, 1.05)
    shade = np.linspace(1.12, 0.85, h, dtype=np.float32)[:, None, None]
    colour = np.broadcast_to(np.clip(skin * shade, 0, 255), img.shape).copy()
    if look == "sleeve":   # the arm's cloth up to the wrist, a tile's height or so short of the palm
        wrist = centre - d / max(np.hypot(*d), 1) * tile_h * lrng.uniform(0.9, 1.6)
        cuff = np.zeros((h, w), np.uint8)
        cv2.fillPoly(cuff, [np.array([start + n * width, wrist + n * width, wrist - n * width, start - n * width],
                                     np.int32)], 1)
        cloth = np.array(SLEEVES[int(lrng.integers(len(SLEEVES)))], np.float32) * lrng.uniform(0.85, 1.1)
        colour[cuff > 0] = np.clip(cloth * shade, 0, 255)[np.nonzero(cuff)[0], 0]
    m = cv2.GaussianBlur(mask.astype(np.float32), (0, 0), 1.5)[..., None] / 255.0
    img[:] = img * (1 - m) + colour * m
    return mask > 127


def render_rack(tiles, seed: int, look: dict | None = None, *, hand: float = 0.0, frame: int = 0,
                hand_from: str | None = None, hand_look: str = "bare") -> RackScene:
    """One rack camera frame. ``tiles`` left to right as the camera sees them (a string of single
    letters or a list of tokens such as 'CH'; '?' a blank); ``look`` names factors (the others are
    drawn from the training options); ``hand`` in [0, 1]: a hand over about that share of the tiles
    (at least one when > 0), reaching in from the frame's ``hand_from`` side ('top' or 'bottom'; None:
    drawn), in ``hand_look`` (HAND_LOOKS: 'bare' as trained, 'sleeve' or 'tone' never trained);
    ``frame``: the same rack a moment later (moved a little, new noise)."""
    tokens = _tokens(tiles)
    if hand_look not in HAND_LOOKS:
        raise ValueError(f"hand_look is one of {HAND_LOOKS}, not {hand_look!r}")
    if not 0.0 <= hand <= 1.0:
        raise ValueError(f"hand {hand} is not in [0, 1]")
    if hand_from not in (None, "top", "bottom"):
        raise ValueError(f"hand_from is 'top', 'bottom' or None, not {hand_from!r}")
    look = draw_look(seed, "train", look)
    rng = np.random.default_rng([seed, 31])
    frng = np.random.default_rng([seed, 32, frame])
    n = len(tokens)

    # -- the rack and its tiles, in tile units
    rack_rgb = np.array(RACK_COLOURS[look["rack"]][int(rng.integers(len(RACK_COLOURS[look["rack"]])))], np.float32)
    rack_rgb = np.clip(rack_rgb + rng.uniform(-12, 12, 3), 0, 255)
    length = 7 * 1.08 + rng.uniform(0.3, 0.9)
    lean = rng.uniform(8, 24)                  # tiles lean back on the wall, degrees
    lip = rng.uniform(0.0, 0.14)               # the front lip's height over the ledge
    form = RACK_FORMS.get(look["rack"])
    frm = np.random.default_rng([seed, 38])    # a flat or tall rack's own draws: a ledge rack's stay as they were
    if form is not None:
        lean = frm.uniform(*form["lean"])
        lip = frm.uniform(0.06, 0.16) if form["lip"] else 0.0
    # Per-tile draws come from their own stream, drawn for a full rack and cut to n, so that a leave
    # (the same seed, fewer tiles) is the same rack, camera and table as the full rack before it.
    trng = np.random.default_rng([seed, 34])
    full = max(n - 1, 0)
    even, uneven, gapped = trng.uniform(0.02, 0.1), trng.uniform(0.0, 0.3, 6) * (trng.random(6) < 0.7), \
        trng.uniform(0.01, 0.08)
    gaps = {"even": np.full(full, even), "uneven": uneven[:full].copy(),
            "gapped": np.full(full, gapped)}[look["spacing"]]
    wide, wide_at = trng.uniform(0.6, 1.4), trng.random()
    if look["spacing"] == "gapped" and n > 1:
        gaps[int(wide_at * (n - 1))] += wide
    lefts = np.concatenate([[0.0], np.cumsum(1.0 + gaps)]) if n else np.zeros(0)
    span = (lefts[-1] + 1.0) if n else 0.0
    start = -span / 2 + trng.uniform(-0.25, 0.25) * max(length - span, 0)
    offsets = trng.normal(0, 0.025, (7, 2))[:n]  # a tile slightly off: along the ledge, and leaning more
    odd_at, odd_p = trng.random(), trng.random()
    odd = int(odd_at * n) if n and odd_p < 0.4 else -1

    # -- the camera, moved a little from frame to frame
    (e0, e1), (y0, y1) = VIEWS[look["view"]]
    elev = rng.uniform(e0, e1) + frng.normal(0, 0.4) * (frame > 0)
    yaw = rng.uniform(y0, y1) * (1 if rng.random() < 0.5 else -1) + frng.normal(0, 0.4) * (frame > 0)
    roll = rng.uniform(-7, 7) + frng.normal(0, 0.3) * (frame > 0)
    cam = _Camera(elev, yaw, roll, rng.uniform(9, 16))
    ends = cam.raw(_box3(-length / 2, length / 2, -0.35, 1.0, -0.5, 0.35))
    lo, hi = ends.min(axis=0), ends.max(axis=0)
    cam.scale = rng.uniform(*SPANS[look["distance"]]) * OUT_W / (hi[0] - lo[0])
    size = (hi - lo) * cam.scale
    room = np.maximum(np.array([OUT_W, OUT_H]) - size, 0)
    cam.offset = -lo * cam.scale + rng.uniform(0.1, 0.9, 2) * room + frng.normal(0, 1.5, 2) * (frame > 0)

    img = _table(rng, look["table"], OUT_W, OUT_H)
    # the rack's shadow on the table, then its body: ledge (base), back wall, tiles, front lip
    sl = np.radians(lean)
    wall_h = rng.uniform(0.45, 0.8)
    height, back, front_z = (0.3, 0.45, 0.3) if form is None else form["base"]
    if form is not None:
        wall_h = frm.uniform(*form["wall"])
    base = _box3(-length / 2, length / 2, -height, 0.0, -back - sl * 0.2, front_z)
    shadow = np.zeros((OUT_H, OUT_W), np.float32)
    cv2.fillConvexPoly(shadow, np.int32(cam(base[[0, 1, 5, 4]] - [0, 0.0, 0]) + rng.uniform(3, 10, 2)), 1.0)
    shadow = 1 - 0.35 * cv2.GaussianBlur(shadow, (0, 0), 6)
    img *= shadow[..., None]
    wall = np.array([[-length / 2, 0, -0.08], [length / 2, 0, -0.08],
                     [length / 2, wall_h * np.cos(sl), -0.08 - wall_h * np.sin(sl)],
                     [-length / 2, wall_h * np.cos(sl), -0.08 - wall_h * np.sin(sl)]])
    _fill(img, cam, wall, rack_rgb, 0.8)
    _fill(img, cam, base[[3, 2, 6, 7]], rack_rgb, 1.05)          # the ledge's top
    _fill(img, cam, base[[4, 5, 6, 7]], rack_rgb, 0.9)           # the base's front face
    _fill(img, cam, base[[0, 1, 5, 4]], rack_rgb, 0.7)

    # -- the tiles: the board renderer's faces, each warped onto its quad
    fonts = available_fonts()
    faces = faces_of([look["font"]], fonts) or tuple(sorted(fonts))
    font_path = str(fonts[faces[int(rng.integers(len(faces)))]])
    tlook = _tile_look_for(look["tile_style"], rng, look)
    quads = np.zeros((n, 4, 2), np.float32)
    src = np.float32([[0, 0], [TILE_PX, 0], [TILE_PX, TILE_PX], [0, TILE_PX]])
    for i, tok in enumerate(tokens):
        x0 = start + lefts[i] + offsets[i, 0]
        tl = sl + (np.radians(rng.uniform(4, 9)) if i == odd else offsets[i, 1])
        top = np.array([0, np.cos(tl), -np.sin(tl)])
        b = np.array([[x0, 0.0, 0.0], [x0 + 1, 0.0, 0.0]])
        corners3 = np.array([b[0] + top, b[1] + top, b[1], b[0]])
        thick = 0.18 * np.array([0, np.sin(tl), -np.cos(tl)]) * -1  # the tile's top edge, towards the wall
        edge = np.array([corners3[0], corners3[1], corners3[1] - thick, corners3[0] - thick])
        q = cam(corners3)
        quads[i] = q
        tile_look = tlook if len(tok) == 1 else TileLook(**{**tlook.__dict__, "size": tlook.size * 0.62,
                                                            "dx": 0.0, "values": False})
        rgba = _tile_rgba(tok, font_path, TILE_PX, tile_look, np.random.default_rng([seed, 33, i]))
        face = np.array(tlook.face, np.float32)
        _fill(img, cam, edge, face, 0.85)
        hom = cv2.getPerspectiveTransform(src, q)
        warped = cv2.warpPerspective(rgba, hom, (OUT_W, OUT_H), flags=cv2.INTER_LINEAR,
                                     borderMode=cv2.BORDER_CONSTANT, borderValue=(0, 0, 0, 0))
        a = warped[..., 3:4] / 255.0
        img[:] = img * (1 - a) + warped[..., :3] * a
    if lip > 0.01:
        front = np.array([[-length / 2, -0.02, 0.3], [length / 2, -0.02, 0.3],
                          [length / 2, lip, 0.3], [-length / 2, lip, 0.3]])
        _fill(img, cam, front, rack_rgb, 1.0)
        _fill(img, cam, np.array([[-length / 2, lip, 0.3], [length / 2, lip, 0.3],
                                  [length / 2, lip, 0.12], [-length / 2, lip, 0.12]]), rack_rgb, 1.15)

    # -- a hand over some tiles
    occluded = [False] * n
    if hand > 0 and n:
        k = max(1, min(n, int(round(hand * n))))
        first = int(frng.integers(n - k + 1))
        cover = list(range(first, first + k))
        hmask = _hand(frng, img, quads, cover, hand_from, hand_look, np.random.default_rng([seed, 36, frame]))
        for i in range(n):
            face_mask = np.zeros((OUT_H, OUT_W), np.uint8)
            cv2.fillConvexPoly(face_mask, np.int32(np.round(quads[i])), 1)
            area = max(int(face_mask.sum()), 1)
            occluded[i] = (hmask & (face_mask > 0)).sum() / area > 0.15

    # -- light, glare, the camera's blur, noise and JPEG
    yy, xx = np.mgrid[0:OUT_H // 8, 0:OUT_W // 8].astype(np.float32)
    yy, xx = (yy + 0.5) / (OUT_H // 8), (xx + 0.5) / (OUT_W // 8)
    ang = rng.uniform(0, 2 * np.pi)
    light = 1 + rng.uniform(0.05, 0.3) * ((xx - 0.5) * np.cos(ang) + (yy - 0.5) * np.sin(ang))
    balance = {"even": (1.0, 1.0, 1.0), "warm": (1.1, 1.0, 0.82), "cold": (0.86, 0.98, 1.12),
               "dim": (0.5, 0.5, 0.5), "glare": (1.0, 1.0, 1.0)}[look["light"]]
    balance = np.array(balance, np.float32) * rng.uniform(0.94, 1.06, 3).astype(np.float32)
    gain = cv2.resize((light[..., None] * balance).astype(np.float32), (OUT_W, OUT_H), interpolation=cv2.INTER_LINEAR)
    img = img * gain
    if look["light"] == "glare" and n:
        gx, gy = quads[int(rng.integers(n))].mean(axis=0) + rng.normal(0, 20, 2)
        r = rng.uniform(15, 40)
        yy, xx = np.mgrid[0:OUT_H, 0:OUT_W].astype(np.float32)
        spot = np.exp(-((xx - gx) ** 2 + (yy - gy) ** 2) / (2 * r * r)) * np.float32(rng.uniform(70, 140))
        img = img + spot[..., None]
    out = cv2.cvtColor(np.clip(img, 0, 255).astype(np.uint8), cv2.COLOR_RGB2BGR)
    blur, noise, quality = CAMERAS[look["camera"]]
    sigma = rng.uniform(*blur)
    if sigma > 0.3:
        out = cv2.GaussianBlur(out, (0, 0), sigma)
    ns = rng.uniform(*noise) + (5.0 if look["light"] == "dim" else 0.0)
    nz = noise_field(frng, (OUT_H, OUT_W), ns)
    out = cv2.add(out, cv2.merge([nz, nz, nz]), dtype=cv2.CV_8U)
    q = int(rng.integers(quality[0], quality[1] + 1))
    out = cv2.imdecode(cv2.imencode(".jpg", out, [cv2.IMWRITE_JPEG_QUALITY, q])[1], cv2.IMREAD_COLOR)

    order = np.argsort(quads[:, :, 0].mean(axis=1)) if n else np.zeros(0, int)
    boxes = []
    for i in order:
        x, y = np.floor(quads[i].min(axis=0)), np.ceil(quads[i].max(axis=0))
        x0, y0 = int(max(x[0], 0)), int(max(x[1], 0))
        x1, y1 = int(min(y[0], OUT_W)), int(min(y[1], OUT_H))
        boxes.append((x0, y0, max(x1 - x0, 0), max(y1 - y0, 0)))
    return RackScene(out, [tokens[i] for i in order], boxes, [occluded[i] for i in order], dict(look),
                     quads[order] if n else quads)
