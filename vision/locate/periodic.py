"""The periodic line fit: 16 equally spaced lines per axis inside a rough quad."""
from __future__ import annotations

import cv2
import numpy as np

from tilecam.vision.locate.config import LocateConfig
from tilecam.vision.locate.grid import LINES
from tilecam.vision.rectify import GRID


def _profiles(grey_warp: np.ndarray, lo: int, hi: int) -> tuple[np.ndarray, np.ndarray]:
    """Gradient profiles across rows (for horizontal lines) and columns (vertical lines).

    Median over column/row bands instead of the mean: a grid line runs through every band,
    a tile edge only through a few.
    """
    g = grey_warp.astype(np.float32)
    gy = np.abs(cv2.Sobel(g, cv2.CV_32F, 0, 1, ksize=3))
    gx = np.abs(cv2.Sobel(g, cv2.CV_32F, 1, 0, ksize=3))
    bands = 10
    edges = np.linspace(lo, hi, bands + 1).astype(int)
    widths = np.diff(edges).astype(np.float32)
    py = np.median(np.add.reduceat(gy[:, lo:hi], edges[:-1] - lo, axis=1) / widths, axis=1)
    px = np.median(np.add.reduceat(gx[lo:hi, :], edges[:-1] - lo, axis=0) / widths[:, None], axis=0)
    return px, py


def _fit_axis(p: np.ndarray, s_lo: float, s_hi: float, o_lo: float = 0.0,
              o_hi: float | None = None) -> tuple[float, float, float, float]:
    """Best (offset, spacing) of 16 equally spaced lines on profile p; returns (o, s, score, quality)."""
    n = len(p)
    k = np.arange(LINES, dtype=np.float64)
    xs = np.arange(n, dtype=np.float64)
    # Clipping at a high percentile keeps one strong straight edge (the rim, a table edge)
    # from outvoting sixteen moderate grid lines.
    p = np.minimum(p, np.percentile(p, 92))
    # Coarse: offsets in 1 px and spacings in 0.5 px on a smoothed profile sampled every 0.25 px,
    # so every candidate line position is an integer index (no interpolation in the inner loop).
    coarse = cv2.GaussianBlur(p.reshape(1, -1).astype(np.float32), (0, 0), 1.5).ravel().astype(np.float64)
    up = np.interp(np.arange(0, n - 1, 0.25), xs, coarse)
    s_idx = np.arange(int(np.ceil(s_lo * 4)), int(s_hi * 4) + 1, 2)        # spacing in 1/4 px
    o_top = len(up) if o_hi is None else min(len(up), int(o_hi * 4) + 1)
    o_idx = np.arange(max(0, int(o_lo * 4)), o_top, 4)                      # offsets in 1/4 px
    pos = o_idx[None, :, None] + s_idx[:, None, None] * np.arange(LINES)[None, None, :]
    valid = pos[..., -1] < len(up)
    sc = up[np.minimum(pos, len(up) - 1)].mean(axis=2)
    sc[~valid] = -1.0
    si, oi = np.unravel_index(int(sc.argmax()), sc.shape)
    o0, s0 = o_idx[oi] / 4.0, s_idx[si] / 4.0
    fine = cv2.GaussianBlur(p.reshape(1, -1).astype(np.float32), (0, 0), 0.7).ravel().astype(np.float64)
    ss, oo = np.meshgrid(np.arange(s0 - 0.4, s0 + 0.4001, 0.04), np.arange(o0 - 1.0, o0 + 1.0001, 0.1))
    pos = oo[..., None] + k * ss[..., None]
    sc = np.interp(pos, xs, fine).mean(axis=-1)
    i = np.unravel_index(int(sc.argmax()), sc.shape)
    o, s, on = float(oo[i]), float(ss[i]), float(sc[i])
    off = float(np.interp(o + (np.arange(GRID) + 0.5) * s, xs, fine).mean())
    quality = max(0.0, min(1.0, (on - off) / max(on, 1e-6)))
    return o, s, on, quality


def _warp_quad(img: np.ndarray, quad: np.ndarray, side: float, margin: float):
    """Homography putting quad on [margin, margin+side]^2; returns (H, warped, size)."""
    n = int(round(side + 2 * margin))
    dst = np.float32([[margin, margin], [margin + side, margin],
                      [margin + side, margin + side], [margin, margin + side]])
    h = cv2.getPerspectiveTransform(np.asarray(quad, np.float32), dst)
    return h, cv2.warpPerspective(img, h, (n, n), flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE), n


def periodic_fit(grey: np.ndarray, quad: np.ndarray, cfg: LocateConfig):
    """Fit the 16x16 line pattern inside a rough quad, then once more inside the fitted grid
    (now aligned with the lines rather than the rim); returns (grid corners in grey coords, quality)."""
    corners, _ = _periodic_fit_once(grey, quad, cfg, cfg.grid_to_quad_min, cfg.grid_to_quad_max)
    return _periodic_fit_once(grey, corners, cfg, 0.97, 1.03)


def _periodic_fit_once(grey: np.ndarray, quad: np.ndarray, cfg: LocateConfig, ratio_lo: float, ratio_hi: float):
    side = GRID * cfg.fit_square_px
    margin = cfg.quad_margin_frac * side
    h, warp, n = _warp_quad(grey, quad, side, margin)
    px, py = _profiles(warp, int(margin), int(margin + side))
    s_lo, s_hi = ratio_lo * side / GRID, ratio_hi * side / GRID
    # the grid's first line can only be where a grid of an allowed size still fits the quad
    o_lo, o_hi = margin - max(0.0, ratio_hi - 1.0) * side, margin + max(0.0, 1.0 - ratio_lo) * side
    ox, sx, _, qx = _fit_axis(px, s_lo, s_hi, o_lo, o_hi)
    oy, sy, _, qy = _fit_axis(py, s_lo, s_hi, o_lo, o_hi)
    g = np.float32([[ox, oy], [ox + GRID * sx, oy], [ox + GRID * sx, oy + GRID * sy], [ox, oy + GRID * sy]])
    corners = cv2.perspectiveTransform(g.reshape(-1, 1, 2), np.linalg.inv(h)).reshape(4, 2)
    return corners, min(qx, qy)
