"""A camera photo of the board: pose, table, light, glare, hands, blur, noise, JPEG."""
from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

from .board import SceneConfig, noise_field, render_topdown

SKIN_BGR = ((120, 150, 210), (95, 125, 185), (70, 100, 160), (50, 75, 120), (140, 170, 225), (40, 55, 90))


@dataclass(frozen=True, eq=False)
class Scene:
    image: np.ndarray            # BGR uint8 camera frame
    corners: np.ndarray          # 4x2 float32 grid corners in the board's own order (row 0/col 0 first, clockwise)
    board: list[str]
    rotation_deg: float          # turntable rotation of the board in the image
    tilt_deg: float
    tile_rotations: np.ndarray   # 15x15 int: -1 empty, else clockwise quarter turns relative to the board
    design: str
    style: str
    font: str
    hand_mask: np.ndarray        # HxW bool: where an arm or hand covers the frame


def _camera(rng, cfg: SceneConfig, size: int) -> tuple[np.ndarray, float, float]:
    """Where the top-down image's corners land in the frame: a board turned on its turntable,
    tilted away from the camera, scaled to fill part of the frame."""
    rot = float(rng.uniform(0, 360)) if cfg.rotation_deg is None else float(cfg.rotation_deg)
    tilt = float(rng.uniform(0, cfg.max_tilt_deg))
    axis = float(rng.uniform(0, 2 * np.pi))
    half = size / 2
    pts = np.array([[-half, -half, 0], [half, -half, 0], [half, half, 0], [-half, half, 0]], np.float64)
    t = np.radians(rot)
    rz = np.array([[np.cos(t), -np.sin(t), 0], [np.sin(t), np.cos(t), 0], [0, 0, 1]])
    a = np.radians(tilt)
    ux, uy = np.cos(axis), np.sin(axis)  # tilt about an in-plane axis (Rodrigues)
    k = np.array([[0, 0, uy], [0, 0, -ux], [-uy, ux, 0]])
    rt = np.eye(3) + np.sin(a) * k + (1 - np.cos(a)) * (k @ k)
    world = pts @ rz.T @ rt.T
    dist = size * 2.2
    proj = world[:, :2] / (world[:, 2:3] + dist) * dist
    span = proj.max(axis=0) - proj.min(axis=0)
    fill = rng.uniform(cfg.fill_min, cfg.fill_max)
    scale = fill * min(cfg.out_h_px / span[1], cfg.out_w_px / span[0])
    proj = proj * scale
    lo, hi = proj.min(axis=0), proj.max(axis=0)
    room = np.array([cfg.out_w_px, cfg.out_h_px]) - (hi - lo)
    offset = -lo + rng.uniform(0.15, 0.85, 2) * np.maximum(room, 0)
    return (proj + offset).astype(np.float32), rot, tilt


def _table(rng, w: int, h: int) -> np.ndarray:
    base = np.array(rng.uniform([40, 40, 40], [200, 190, 180]), np.float32)
    # Smooth fields are computed at 1/4 size and enlarged: full-size sin/normal cost ~30 ms.
    sw, sh = w // 4, h // 4
    low = cv2.resize(rng.normal(0, 1, (6, 8)).astype(np.float32), (sw, sh), interpolation=cv2.INTER_CUBIC)
    field = low * np.float32(rng.uniform(5, 20))
    if rng.random() < 0.5:  # wood grain
        x = np.linspace(0, rng.uniform(20, 60), sw, dtype=np.float32)[None, :] + low * 3
        field += np.sin(x) * np.float32(rng.uniform(4, 12))
    field = cv2.resize(field, (w, h), interpolation=cv2.INTER_LINEAR) + noise_field(rng, (h, w), 3.0)
    img = cv2.merge([field + base[0], field + base[1], field + base[2]])
    # Clutter beside the board: a score sheet, a tile bag, a rack.
    for _ in range(int(rng.integers(0, 4))):
        kind = rng.integers(3)
        cx, cy = rng.uniform(0, w), rng.uniform(0, h)
        if kind == 0:
            sw, sh = rng.uniform(120, 260), rng.uniform(160, 340)
            box = cv2.boxPoints(((cx, cy), (sw, sh), rng.uniform(0, 180)))
            cv2.fillPoly(img, [np.int32(box)], tuple(float(v) for v in rng.uniform(215, 250, 3)))
        elif kind == 1:
            cv2.ellipse(img, (int(cx), int(cy)), (int(rng.uniform(50, 120)), int(rng.uniform(40, 90))),
                        rng.uniform(0, 180), 0, 360, tuple(float(v) for v in rng.uniform(20, 120, 3)), -1)
        else:
            box = cv2.boxPoints(((cx, cy), (rng.uniform(250, 420), rng.uniform(30, 50)), rng.uniform(0, 180)))
            cv2.fillPoly(img, [np.int32(box)], (60.0, 110.0, 150.0))
    return img


def _hands(rng, img: np.ndarray, quad: np.ndarray) -> np.ndarray:
    """Arms entering from a frame edge and reaching over the board, with a soft shadow."""
    h, w = img.shape[:2]
    mask = np.zeros((h, w), np.uint8)
    for _ in range(int(rng.integers(1, 3))):
        centre = quad.mean(axis=0)
        target = centre + rng.uniform(-0.35, 0.35, 2) * (quad.max(axis=0) - quad.min(axis=0))
        edge = int(rng.integers(4))
        start = [(rng.uniform(0, w), -40), (w + 40, rng.uniform(0, h)), (rng.uniform(0, w), h + 40),
                 (-40, rng.uniform(0, h))][edge]
        start = np.array(start, np.float64)
        d = target - start
        length = np.hypot(*d)
        n = np.array([-d[1], d[0]]) / max(length, 1)
        width = rng.uniform(0.06, 0.1) * min(h, w)
        arm = np.array([start + n * width / 2, target + n * width * 0.45, target - n * width * 0.45,
                        start - n * width / 2], np.int32)
        one = np.zeros((h, w), np.uint8)
        cv2.fillPoly(one, [arm], 255)
        hand_r = width * 0.9
        cv2.ellipse(one, (int(target[0]), int(target[1])), (int(hand_r), int(hand_r * 0.75)),
                    float(np.degrees(np.arctan2(d[1], d[0]))), 0, 360, 255, -1)
        for f in range(4):  # fingers fanning out beyond the palm
            ang = np.arctan2(d[1], d[0]) + (f - 1.5) * 0.28
            tip = target + np.array([np.cos(ang), np.sin(ang)]) * hand_r * 1.7
            cv2.line(one, (int(target[0]), int(target[1])), (int(tip[0]), int(tip[1])), 255,
                     max(3, int(width * 0.16)))
        # Shadow and skin are composited only inside the hand's box: full-frame blurs cost ~40 ms.
        pad = int(width * 1.2)
        x, y, bw, bh = cv2.boundingRect(one)
        x0, y0, x1, y1 = max(x - pad, 0), max(y - pad, 0), min(x + bw + pad, w), min(y + bh + pad, h)
        roi, sub = img[y0:y1, x0:x1], one[y0:y1, x0:x1]
        dy, dx = int(width * 0.25), int(width * 0.2)  # light from the top left, falling down-right
        cast = np.zeros(sub.shape, np.float32)
        cast[dy:, dx:] = sub[:sub.shape[0] - dy, :sub.shape[1] - dx]
        shadow = cv2.GaussianBlur(cast, (0, 0), width * 0.2) / 255.0
        roi *= 1 - 0.35 * shadow[..., None]
        skin = np.array(SKIN_BGR[int(rng.integers(len(SKIN_BGR)))], np.float32) * rng.uniform(0.85, 1.1)
        shade = np.linspace(1.15, 0.8, w, dtype=np.float32)[None, x0:x1, None]
        m = cv2.GaussianBlur(sub.astype(np.float32), (0, 0), 1.5)[..., None] / 255.0
        roi[:] = roi * (1 - m) + np.clip(skin * shade, 0, 255) * m
        mask |= one
    return mask > 127


def render_scene(board: list[str], seed: int, cfg: SceneConfig | None = None, frame: int = 0, *,
                 room_light: float = 1.0, jitter_px: float = 0.0) -> Scene:
    """`seed` fixes the camera, table, board and light; `frame` varies what changes from one video
    frame to the next (hands, noise, JPEG), so a video of a fixed camera is a run of frames.
    `room_light` < 1: a dark room, the frame darker by that factor and the sensor's noise raised as a
    camera raises its gain; `jitter_px`: the camera's shake from frame to frame (sigma, pixels)."""
    if not 0.05 <= room_light <= 1.0:
        raise ValueError(f"room_light {room_light} is not in [0.05, 1]")
    cfg = cfg or SceneConfig()
    rng = np.random.default_rng([seed, 1])
    frng = np.random.default_rng([seed, 2, frame])
    top = render_topdown(board, seed, cfg)
    size = top.image.shape[0]
    quad, rot, tilt = _camera(rng, cfg, size)
    if jitter_px > 0:
        quad = quad + frng.normal(0.0, jitter_px, 2).astype(np.float32)
    src = np.float32([[0, 0], [size, 0], [size, size], [0, size]])
    hom = cv2.getPerspectiveTransform(src, quad)
    w, h = cfg.out_w_px, cfg.out_h_px
    img = _table(rng, w, h)
    # The board's own shadow on the table (soft, so drawn and blurred at 1/4 size), then the board.
    shadow = np.zeros((h // 4, w // 4), np.float32)
    cv2.fillPoly(shadow, [np.int32((quad + rng.uniform(4, 14, 2)) / 4)], 1.0)
    shadow = 1 - 0.4 * cv2.resize(cv2.GaussianBlur(shadow, (0, 0), 2), (w, h), interpolation=cv2.INTER_LINEAR)
    img = cv2.multiply(img, cv2.merge([shadow, shadow, shadow]))
    board_img = cv2.warpPerspective(top.image, hom, (w, h), flags=cv2.INTER_LINEAR).astype(np.float32)
    inside = cv2.warpPerspective(np.ones((size, size), np.float32), hom, (w, h), flags=cv2.INTER_LINEAR)
    img = cv2.blendLinear(board_img, img, inside, 1 - inside)
    hands = cfg.hands == "always" or (cfg.hands == "random" and frng.random() < cfg.hand_prob)
    hand_mask = _hands(frng, img, quad) if hands else np.zeros((h, w), bool)
    # Light is smooth, so the gradient, vignette, white balance and glare are built at 1/8 size.
    lh, lw = h // 8, w // 8
    yy, xx = np.mgrid[0:lh, 0:lw].astype(np.float32)
    yy, xx = (yy + 0.5) / lh, (xx + 0.5) / lw
    ang = rng.uniform(0, 2 * np.pi)
    grad = ((xx - 0.5) * np.cos(ang) + (yy - 0.5) * np.sin(ang))
    light = 1 + cfg.light_strength * rng.uniform(0.2, 1) * grad
    light *= 1 - rng.uniform(0, 0.25) * (((xx - 0.5) ** 2 + (yy - 0.5) ** 2) * 2)
    balance = np.array(rng.uniform(0.9, 1.1, 3), np.float32)  # white balance
    gain = cv2.resize((light[..., None] * balance).astype(np.float32), (w, h), interpolation=cv2.INTER_LINEAR)
    img = cv2.multiply(img, gain)
    if rng.random() < cfg.glare_prob:
        glare = np.zeros((lh, lw), np.float32)
        for _ in range(int(rng.integers(1, 3))):
            gx, gy = rng.uniform(0.2, 0.8), rng.uniform(0.2, 0.8) * h / w
            r = rng.uniform(0.03, 0.1)
            glare += np.exp(-((xx - gx) ** 2 + (yy * h / w - gy) ** 2) / (2 * r * r)) * np.float32(rng.uniform(60, 150))
        glare = cv2.resize(glare.astype(np.float32), (w, h), interpolation=cv2.INTER_CUBIC)
        img = cv2.add(img, cv2.merge([glare, glare, glare]))
    out = cv2.convertScaleAbs(img, alpha=room_light)  # saturating cast to uint8; blur and noise are cheaper in 8 bits
    sigma = rng.uniform(0, cfg.blur_max_px)
    if sigma > 0.3:
        out = cv2.GaussianBlur(out, (0, 0), sigma)
    # a dark room: the camera's gain raises the sensor noise (up to ~10 grey levels more at 0.3)
    noise = noise_field(frng, (h, w), rng.uniform(0, cfg.noise_max) + 14.0 * (1.0 - room_light))
    out = cv2.add(out, cv2.merge([noise, noise, noise]), dtype=cv2.CV_8U)
    quality = int(rng.integers(cfg.jpeg_min, cfg.jpeg_max + 1))
    out = cv2.imdecode(cv2.imencode(".jpg", out, [cv2.IMWRITE_JPEG_QUALITY, quality])[1], cv2.IMREAD_COLOR)
    corners = cv2.perspectiveTransform(top.corners[None], hom)[0].astype(np.float32)
    return Scene(out, corners, list(board), rot % 360, tilt, top.tile_rotations, top.design, top.style,
                 top.font, hand_mask)
