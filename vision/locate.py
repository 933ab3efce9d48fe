"""Markerless localization of the 15x15 grid in a raw overhead frame.

Three steps, each cheap:
1. Coarse quad: on a downscaled copy, the board is the largest region dense in edges
   (grid lines, premium squares, tiles); its convex hull reduced to 4 corners gives a quad
   on the board plane (the rim, the grid, or a bit more).
2. Periodic fit: warp that quad to a square canvas. Any quad on the board plane makes the
   grid lines equally spaced there, so along each axis we search the spacing and offset of
   16 equally spaced lines that maximise the edge response at the lines minus at the
   mid-cells. The half-cell penalty keeps the fit off the rim edge and off tile edges.
3. Refinement: warp again around the fitted grid, locate each of the 32 lines piecewise
   (one peak per cell), fit each line robustly, intersect them (256 points) and fit the
   final homography. The share of line pieces that agree with the fit is the quality.
"""
from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np
from pydantic import BaseModel, ConfigDict, Field

from vision.errors import BoardNotFound
from vision.rectify import GRID, homography_from_corners

LINES = GRID + 1


class LocateConfig(BaseModel):
    model_config = ConfigDict(extra="forbid")

    square_px: int = Field(40, description="pixels per square in the canonical top-down grid image")
    work_px: int = Field(512, description="longest side of the downscaled copy used for the coarse quad")
    fit_square_px: int = Field(24, description="pixels per square of the canvas the periodic line fit runs on")
    refine_square_px: int = Field(32, description="pixels per square of the canvas the per-line refinement runs on")
    canvas_margin_squares: float = Field(2.0, description="squares of margin around the coarse quad on the fit canvas")
    close_frac: float = Field(1 / 14, description="closing kernel of the edge mask, as a fraction of the work image side")
    open_frac: float = Field(1 / 30, description="opening kernel of the edge mask, as a fraction of the work image side")
    min_board_frac: float = Field(0.04, description="smallest board area as a fraction of the image area")
    spacing_range_frac: float = Field(0.35, description="search the square spacing within +-this fraction of the coarse guess")
    edge_clip_pct: float = Field(97.0, description="percentile at which edge responses are clipped (limits letters and tile edges)")
    line_window_frac: float = Field(0.3, description="half-width, in squares, of the search window around each predicted line")
    line_tol_frac: float = Field(0.08, description="distance, in squares, within which a line piece agrees with the fit")
    min_piece_contrast: float = Field(1.3, description="peak over window-median ratio a line piece needs to count as seen")
    min_line_contrast: float = Field(1.15, description="mean response at the 16 lines over the mid-squares that counts as a grid")
    accept_contrast: float = Field(1.8, description="line contrast at which a candidate quad is taken without trying the others")
    min_quality: float = Field(0.35, description="quality below which no board is reported")


@dataclass(frozen=True)
class BoardFix:
    corners: np.ndarray      # 4x2 float32, outer grid corners, clockwise from the one nearest the image's top-left
    homography: np.ndarray   # 3x3 float64, image -> canonical grid image (square_px per square)
    quality: float           # 0..1, share of grid-line pieces that lie on the fitted lines
    square_px: int = 40


# ---------------------------------------------------------------- helpers

def order_corners(pts: np.ndarray) -> np.ndarray:
    """Clockwise on screen (y down), starting at the corner nearest the image's top-left."""
    pts = np.asarray(pts, np.float64).reshape(4, 2)
    c = pts.mean(axis=0)
    ang = np.arctan2(pts[:, 1] - c[1], pts[:, 0] - c[0])
    pts = pts[np.argsort(ang)]  # increasing angle with y down = clockwise on screen
    start = int(np.argmin(pts[:, 0] + pts[:, 1]))
    return np.roll(pts, -start, axis=0).astype(np.float32)


def _transform(h: np.ndarray, pts: np.ndarray) -> np.ndarray:
    return cv2.perspectiveTransform(np.asarray(pts, np.float64).reshape(-1, 1, 2), h).reshape(-1, 2)


def _edges_xy(img: np.ndarray, clip_pct: float, valid: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
    """Clipped |d/dx| and |d/dy|, max over colour channels (premium squares differ in hue)."""
    f = img.astype(np.float32)
    gx = np.abs(cv2.Sobel(f, cv2.CV_32F, 1, 0, ksize=3))
    gy = np.abs(cv2.Sobel(f, cv2.CV_32F, 0, 1, ksize=3))
    if gx.ndim == 3:  # cv2.max is much faster than numpy's reduce over the channel axis
        cx, cy = cv2.split(gx), cv2.split(gy)
        gx, gy = cv2.max(cv2.max(cx[0], cx[1]), cx[2]), cv2.max(cv2.max(cy[0], cy[1]), cy[2])
    hi = max(float(np.percentile(cv2.max(gx, gy)[::4, ::4], clip_pct)), 1e-3)
    gx, gy = cv2.min(gx, hi), cv2.min(gy, hi)
    if valid is not None:  # the image border is not a grid line
        gx, gy = gx * valid, gy * valid
    return gx, gy


def _valid(shape: tuple, h: np.ndarray, canvas: int) -> np.ndarray:
    """1 where the canvas sees the image, 0 near and beyond its border."""
    ones = np.ones((max(1, shape[0] - 6), max(1, shape[1] - 6)), np.float32)
    ones = cv2.copyMakeBorder(ones, 3, 3, 3, 3, cv2.BORDER_CONSTANT, value=0)
    return cv2.warpPerspective(ones, h, (canvas, canvas), flags=cv2.INTER_NEAREST, borderMode=cv2.BORDER_CONSTANT)


def _coarse_quads(small: np.ndarray, cfg: LocateConfig) -> list[np.ndarray]:
    grey = cv2.cvtColor(small, cv2.COLOR_BGR2GRAY) if small.ndim == 3 else small
    grey = cv2.GaussianBlur(grey, (3, 3), 0)
    mag = cv2.magnitude(cv2.Sobel(grey, cv2.CV_32F, 1, 0), cv2.Sobel(grey, cv2.CV_32F, 0, 1))
    if small.ndim == 3:
        hsv = cv2.cvtColor(small, cv2.COLOR_BGR2HSV)
        sat = cv2.GaussianBlur(hsv[:, :, 1], (3, 3), 0).astype(np.float32)
        mag = np.maximum(mag, cv2.magnitude(cv2.Sobel(sat, cv2.CV_32F, 1, 0), cv2.Sobel(sat, cv2.CV_32F, 0, 1)))
    thr = max(40.0, float(np.percentile(mag, 80)))
    edges = (mag > thr).astype(np.uint8)
    side = max(small.shape[:2])
    # Close over a whole square of a board that fills the frame, then open away thin
    # background structure that is smaller than a few squares of a small board.
    kc = max(3, int(side * cfg.close_frac) | 1)
    ko = max(3, int(side * cfg.open_frac) | 1)
    mask = cv2.morphologyEx(edges, cv2.MORPH_CLOSE, cv2.getStructuringElement(cv2.MORPH_RECT, (kc, kc)))
    mask = cv2.morphologyEx(mask, cv2.MORPH_OPEN, cv2.getStructuringElement(cv2.MORPH_RECT, (ko, ko)))
    n, labels, stats, _ = cv2.connectedComponentsWithStats(mask, connectivity=8)
    if n < 2:
        raise BoardNotFound("no edge region large enough for a board")
    best = 1 + int(np.argmax(stats[1:, cv2.CC_STAT_AREA]))
    if stats[best, cv2.CC_STAT_AREA] < cfg.min_board_frac * mask.size:
        raise BoardNotFound("no edge region large enough for a board")
    region = labels == best
    ys, xs = np.nonzero(region)
    pts = np.stack([xs, ys], axis=1).astype(np.int32)
    quads = []
    hull = cv2.convexHull(pts)
    peri = cv2.arcLength(hull, True)
    for eps in (0.01, 0.02, 0.03, 0.05, 0.08):
        approx = cv2.approxPolyDP(hull, eps * peri, True)
        if len(approx) == 4:
            quads.append(order_corners(approx.reshape(4, 2)))
            break
    # The hull bends where tiles, hands or clutter touch the board; a rectangle aligned with
    # the dominant edge direction (grid lines, mod 90 degrees) does not.
    gxs = cv2.Sobel(grey, cv2.CV_32F, 1, 0)
    gys = cv2.Sobel(grey, cv2.CV_32F, 0, 1)
    w = cv2.magnitude(gxs, gys)[region]
    ang = np.mod(np.arctan2(gys[region], gxs[region]), np.pi / 2)
    hist = np.bincount((ang / (np.pi / 2) * 90).astype(int) % 90, weights=w, minlength=90)
    hist = hist + np.roll(hist, 1) + np.roll(hist, -1)  # circular smoothing
    theta = (int(np.argmax(hist)) + 0.5) * np.pi / 180
    u, v = np.array([np.cos(theta), np.sin(theta)]), np.array([-np.sin(theta), np.cos(theta)])
    pu, pv = pts @ u, pts @ v
    lo_u, hi_u = np.percentile(pu, [0.5, 99.5])
    lo_v, hi_v = np.percentile(pv, [0.5, 99.5])
    rect = np.array([lo_u * u + lo_v * v, hi_u * u + lo_v * v, hi_u * u + hi_v * v, lo_u * u + hi_v * v])
    quads.append(order_corners(rect))
    return quads


def _periodic_fit(profile: np.ndarray, p0: float, cfg: LocateConfig) -> tuple[float, float, float]:
    """Offset and spacing of 16 equally spaced lines; returns (offset, spacing, contrast)."""
    n = len(profile)
    prof = profile - profile.min()
    xs = np.arange(n, dtype=np.float64)
    k = np.arange(LINES)

    def best_for(ps: np.ndarray) -> tuple[float, float, float, float]:
        best = (-np.inf, 0.0, p0, 0.0)
        for p in ps:
            offs = np.arange(0.0, n - 1 - GRID * p, 1.0)
            if len(offs) == 0:
                continue
            on = np.interp(offs[:, None] + k * p, xs, prof).mean(axis=1)
            off = np.interp(offs[:, None] + (k[:GRID] + 0.5) * p, xs, prof).mean(axis=1)
            score = on - off
            i = int(np.argmax(score))
            if score[i] > best[0]:
                best = (float(score[i]), float(offs[i]), float(p), float(on[i] / max(off[i], 1e-6)))
        return best

    r = cfg.spacing_range_frac
    ps = np.linspace(p0 * (1 - r), p0 * (1 + r), 21)
    _, _, p1, _ = best_for(ps)
    step = ps[1] - ps[0]
    _, o, p, contrast = best_for(np.linspace(p1 - step, p1 + step, 7))
    return o, p, contrast


def _refine(image: np.ndarray, corners: np.ndarray, cfg: LocateConfig
            ) -> tuple[np.ndarray, float, np.ndarray]:
    """Per-line refinement around a near-correct grid.

    Returns the 16x16 line intersections in the image, the quality (share of line pieces on
    the fitted lines) and, per axis, the support of the 18 lines -1..16 (the two outside the
    grid tell a grid shifted by one square from the true one).
    """
    s = cfg.refine_square_px
    m = 2  # margin: the lines just outside the grid need both their sides in view
    canvas = (GRID + 2 * m) * s
    h = homography_from_corners(corners, s)
    h = np.array([[1, 0, m * s], [0, 1, m * s], [0, 0, 1]], np.float64) @ h
    warped = cv2.warpPerspective(image, h, (canvas, canvas), flags=cv2.INTER_LINEAR,
                                 borderMode=cv2.BORDER_CONSTANT)
    gx, gy = _edges_xy(warped, cfg.edge_clip_pct, _valid(image.shape, h, canvas))
    w = int(round(cfg.line_window_frac * s))
    tol = cfg.line_tol_frac * s
    idx = np.arange(-1, LINES + 1)                                       # lines -1..16
    centres = (idx + m) * s
    cols = centres[:, None] + np.arange(-w, w + 1)[None, :]              # (18, 2w+1)
    along = (np.arange(GRID) + m + 0.5) * s                              # piece centres along the line
    lines = []  # per axis: (16, 2) with across = a*along + b
    support = np.zeros((2, len(idx)))
    seen = good = 0
    for ax, g in enumerate((gx, gy.T)):  # rows of g run along the lines
        band = g[m * s:(m + GRID) * s].reshape(GRID, s, -1).mean(axis=1)  # (15, canvas): one profile per piece
        prof = band[:, cols].transpose(1, 0, 2)                            # (18 lines, 15 pieces, 2w+1)
        i = prof.argmax(axis=2)
        peak = np.take_along_axis(prof, i[..., None], 2)[..., 0]
        med = np.median(prof, axis=2)
        ok = (peak >= cfg.min_piece_contrast * np.maximum(med, 1e-3)) & (i > 0) & (i < 2 * w)
        ic = np.clip(i, 1, 2 * w - 1)
        a_ = np.take_along_axis(prof, (ic - 1)[..., None], 2)[..., 0]
        b_ = np.take_along_axis(prof, ic[..., None], 2)[..., 0]
        c_ = np.take_along_axis(prof, (ic + 1)[..., None], 2)[..., 0]
        den = a_ - 2 * b_ + c_
        sub = np.where(den < 0, 0.5 * (a_ - c_) / np.where(den < 0, den, -1), 0.0)
        pos = centres[:, None] - w + i + sub                                # (18, 15)
        fits = np.zeros((len(idx), 2))
        fits[:, 1] = centres
        for k in range(len(idx)):
            keep = ok[k].copy()
            if keep.sum() < 3:
                continue
            for _ in range(3):
                a, b = np.polyfit(along[keep], pos[k, keep], 1)
                r = np.abs(pos[k] - (a * along + b))
                new = ok[k] & (r <= max(tol, 2.5 * float(np.median(r[ok[k]]))))
                if new.sum() < 3:
                    break
                keep = new
            fits[k] = (a, b)
            # A line piece supports the line if it is sharp, on the fit, and the fit is
            # near where the line was predicted.
            near = abs(a * along.mean() + b - centres[k]) <= w
            support[ax, k] = float((ok[k] & (r <= tol)).sum()) if near else 0.0
        good += int(support[ax, 1:-1].sum())
        seen += LINES * GRID
        lines.append(fits[1:-1])
    # Intersect vertical line k (x = a*y + b) with horizontal line j (y = c*x + d).
    pts = np.empty((LINES, LINES, 2))
    for j, (c, d) in enumerate(lines[1]):
        for k, (a, b) in enumerate(lines[0]):
            x = (a * d + b) / (1 - a * c)
            pts[j, k] = (x, c * x + d)
    img_pts = _transform(np.linalg.inv(h), pts.reshape(-1, 2)).reshape(LINES, LINES, 2)
    return img_pts, good / max(seen, 1), support


def _fit_homography(img_pts: np.ndarray, square_px: float) -> np.ndarray:
    ideal = np.stack(np.meshgrid(np.arange(LINES), np.arange(LINES)), axis=-1).reshape(-1, 2) * float(square_px)
    h, _ = cv2.findHomography(img_pts.reshape(-1, 2), ideal, cv2.RANSAC, 0.1 * square_px)
    if h is None:
        raise BoardNotFound("grid lines do not fit a plane")
    return h / h[2, 2]


def _fix_from_homography(h: np.ndarray, quality: float, cfg: LocateConfig) -> BoardFix:
    s = GRID * cfg.square_px
    corners = _transform(np.linalg.inv(h), np.array([[0, 0], [s, 0], [s, s], [0, s]], np.float64))
    ordered = order_corners(corners)
    hom = homography_from_corners(ordered, cfg.square_px)
    return BoardFix(corners=ordered, homography=hom, quality=float(quality), square_px=cfg.square_px)


def _grid_from_quad(small: np.ndarray, quad: np.ndarray, cfg: LocateConfig) -> tuple[np.ndarray, float]:
    """Periodic fit on a canvas where the quad spans 15 nominal squares plus a margin."""
    s = cfg.fit_square_px
    m = cfg.canvas_margin_squares
    canvas = int(round((GRID + 2 * m) * s))
    h = np.array([[1, 0, m * s], [0, 1, m * s], [0, 0, 1]], np.float64) @ homography_from_corners(quad, s)
    warped = cv2.warpPerspective(small, h, (canvas, canvas), flags=cv2.INTER_LINEAR,
                                 borderMode=cv2.BORDER_CONSTANT)
    gx, gy = _edges_xy(warped, cfg.edge_clip_pct, _valid(small.shape, h, canvas))
    inner = slice(int(m * s), int(canvas - m * s))  # profile only over the quad's interior
    ox, px, cx = _periodic_fit(gx[inner, :].mean(axis=0), s, cfg)
    oy, py, cy = _periodic_fit(gy[:, inner].mean(axis=1), s, cfg)
    grid = np.array([[ox, oy], [ox + GRID * px, oy], [ox + GRID * px, oy + GRID * py], [ox, oy + GRID * py]])
    return _transform(np.linalg.inv(h), grid), min(cx, cy)


# ---------------------------------------------------------------- stage

def find_board(image: np.ndarray, cfg: LocateConfig | None = None) -> BoardFix:
    """Locate the 15x15 grid; raises BoardNotFound with a reason."""
    cfg = cfg or LocateConfig()
    if image is None or image.ndim not in (2, 3) or min(image.shape[:2]) < 32:
        raise BoardNotFound("image too small or not an image")
    if image.ndim == 3 and image.shape[2] == 4:
        image = cv2.cvtColor(image, cv2.COLOR_BGRA2BGR)
    scale = cfg.work_px / max(image.shape[:2])
    small = cv2.resize(image, None, fx=scale, fy=scale, interpolation=cv2.INTER_AREA) if scale < 1 else image
    scale = min(scale, 1.0)
    # Candidate quads: the edge-dense region, and the whole frame (a fixed camera often
    # frames the board tightly, and then the region touches the image border).
    hgt, wid = small.shape[:2]
    frame = np.array([[0, 0], [wid - 1, 0], [wid - 1, hgt - 1], [0, hgt - 1]], np.float32)
    cands = [frame]
    try:
        cands = _coarse_quads(small, cfg) + cands
    except BoardNotFound:
        pass
    best = None
    for quad in cands:
        res = _grid_from_quad(small, quad, cfg)
        if best is None or res[1] > best[1]:
            best = res
        if best[1] >= cfg.accept_contrast:  # clearly a grid: skip the other candidates
            break
    corners, contrast = best
    if contrast < cfg.min_line_contrast:
        raise BoardNotFound(f"no grid of 16 equally spaced lines (contrast {contrast:.2f})")
    corners = corners / scale

    unit = np.array([[0, 0], [GRID, 0], [GRID, GRID], [0, GRID]], np.float64)
    for _ in range(3):
        img_pts, quality, support = _refine(image, corners, cfg)
        hom = _fit_homography(img_pts, cfg.square_px)
        # A grid shifted by one square keeps 15 of its 16 lines, so the periodic fit can land
        # there; the line just outside the true grid has no support (it is the rim).
        d = [0, 0]
        for ax in (0, 1):
            sup = support[ax]  # lines -1..16
            if sup[0] > sup[-2] + 2:
                d[ax] = -1
            elif sup[-1] > sup[1] + 2:
                d[ax] = 1
        corners = _transform(np.linalg.inv(hom), (unit + d) * cfg.square_px)
        if d == [0, 0]:
            break
    if quality < cfg.min_quality:
        raise BoardNotFound(f"grid lines fit poorly (quality {quality:.2f})")
    return _fix_from_homography(hom, quality, cfg)


def grid_quality(image: np.ndarray, corners: np.ndarray, cfg: LocateConfig | None = None) -> float:
    """Quality of a given grid: the share of line pieces that lie on its 32 lines."""
    cfg = cfg or LocateConfig()
    return _refine(image, order_corners(corners), cfg)[1]


def fix_from_corners(corners, cfg: LocateConfig | None = None, image: np.ndarray | None = None) -> BoardFix:
    """Manual fallback: a fix from 4 clicked grid corners (quality measured when the image is given)."""
    cfg = cfg or LocateConfig()
    pts = np.asarray(corners, np.float64).reshape(4, 2)
    ordered = order_corners(pts)
    area = cv2.contourArea(ordered.astype(np.float32))
    if not np.isfinite(pts).all() or area <= 1.0:
        raise BoardNotFound("the 4 corners do not enclose an area")
    quality = grid_quality(image, ordered, cfg) if image is not None else 1.0
    hom = homography_from_corners(ordered, cfg.square_px)
    return BoardFix(corners=ordered, homography=hom, quality=float(quality), square_px=cfg.square_px)
