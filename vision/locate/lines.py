"""Line pieces of a fitted grid: sub-pixel refinement (a homography fitted to them), whole-square
slides they explain, and the share of them found (quality and fit)."""
from __future__ import annotations

import cv2
import numpy as np

from tilecam.vision.locate.config import LocateConfig
from tilecam.vision.locate.grid import LINES, grid_warp
from tilecam.vision.rectify import GRID

# Line pieces keep only ridges of the sign most pieces show at the predicted lines (a board prints
# its lines all lighter or all darker than the squares; gaps between tiles are dark shadows).
LINE_POLARITY = True


def _piece_table(warp: np.ndarray, sq: int, lpos: np.ndarray, cpos: np.ndarray, window: float,
                 cfg_sigma: float = 1.0, ridge_px: int = 0):
    """Where each line piece really is, for both axes of a warp with (nearly) axis-aligned lines.

    A piece is line k (expected at pixel lpos[k]) inside cell j (centred at cpos[j] along the
    line); it is the gradient peak within +-window squares of lpos[k], averaged over the middle
    60% of the cell (the crossings respond on both axes). With ridge_px, the peak is instead
    that of the grey's difference to both sides ridge_px away (the smaller one): a line differs
    from both sides, a tile's edge (bevel, shadow) only from one. Only ridges of the sign most
    pieces show at the predicted lines count (LINE_POLARITY), and a piece where the other sign
    is stronger (the dark gap between two tiles on a board with light lines) is not found. Returns per axis (0 = vertical lines,
    x measured; 1 = horizontal lines) a tuple (delta px, strength, found) of (cells, lines) arrays.
    """
    g = warp.astype(np.float32)
    w = int(round(window * sq))
    half = int(0.3 * sq)
    lpos = np.round(lpos).astype(int)
    idx = lpos[:, None] + np.arange(-w, w + 1)[None, :]                    # (lines, 2w+1)
    profs = []
    for axis in (0, 1):
        src = g if ridge_px > 0 else np.abs(cv2.Sobel(g, cv2.CV_32F, 1 - axis, axis, ksize=3))
        # the mean over the middle of each cell, across the lines: only the cells' own columns
        # (rows for axis 0) are read, not a box filter over the whole warp
        c = np.clip(np.round(cpos).astype(int), half, src.shape[axis] - 1 - half)
        band = c[:, None] + np.arange(-half, half + 1)[None, :]               # (cells, 2*half+1)
        if axis == 1:
            profs.append(src[:, band].mean(axis=2).T)                         # (cells, rows)
        else:
            profs.append(src[band].mean(axis=1))                              # (cells, cols)
    if ridge_px > 0:
        # a line is lighter (or darker) than both sides; a tile's edge is a step, one side
        ridges = []
        for prof in profs:
            left = prof - np.roll(prof, ridge_px, axis=1)
            right = prof - np.roll(prof, -ridge_px, axis=1)
            ridges.append((np.minimum(left, right).clip(0, None), np.minimum(-left, -right).clip(0, None)))
        if LINE_POLARITY:
            # A board prints all its lines one way, lighter or darker than the squares; the
            # gaps between tiles are dark shadows. Only ridges of the board's own sign count.
            # Each piece votes for the sign of its stronger ridge by the predicted line (a vote,
            # not a sum: the gaps between tiles can be far more contrasted than faint lines).
            near = idx[:, w - 1:w + 2]
            votes = 0
            for lt, dk in ridges:
                a, b = lt[:, near].max(axis=2), dk[:, near].max(axis=2)
                votes += int((a > b).sum()) - int((b > a).sum())
            profs = [lt if votes >= 0 else dk for lt, dk in ridges]
            # A piece where a ridge of the other sign is stronger (a gap between two tiles) is
            # dropped rather than moved to the nearest ridge of the board's sign (a tile's lit
            # bevel beside the line).
            others = [dk if votes >= 0 else lt for lt, dk in ridges]
        else:
            profs = [np.maximum(a, b) for a, b in ridges]
    out = []
    for axis in (0, 1):
        cells = profs[axis]
        other = others[axis] if ridge_px > 0 and LINE_POLARITY else None
        # a little smoothing across the line merges the two flanks of a thick line into one peak
        cells = cv2.GaussianBlur(cells, (0, 0), sigmaX=cfg_sigma, sigmaY=1e-3) if cfg_sigma > 0 else cells
        seg = cells[:, idx]                                                 # (cells, lines, 2w+1)
        i = seg.argmax(axis=2)
        found = (i > 0) & (i < 2 * w)
        if other is not None:
            other = cv2.GaussianBlur(other, (0, 0), sigmaX=cfg_sigma, sigmaY=1e-3) if cfg_sigma > 0 else other
            found &= seg.max(axis=2) >= other[:, idx].max(axis=2)
        ic = np.clip(i, 1, 2 * w - 1)
        l = np.take_along_axis(seg, (ic - 1)[..., None], 2)[..., 0]
        m = np.take_along_axis(seg, ic[..., None], 2)[..., 0]
        r = np.take_along_axis(seg, (ic + 1)[..., None], 2)[..., 0]
        den = l - 2 * m + r
        d = np.where(den < 0, 0.5 * (l - r) / np.where(den < 0, den, -1.0), 0.0)
        med = np.partition(seg, w, axis=2)[..., w]                         # the median (2w+1 values)
        out.append((ic - w + d + (lpos - np.round(lpos))[None, :], m - med, found))
    return out


def _line_pieces(warp: np.ndarray, sq: int, window: float, sigma: float = 1.0, ridge_px: int = 0):
    """Pieces of the 16 lines x 15 cells per axis in a warp with one square of margin.

    Returns rows of (along, across_measured, line_index, axis, strength).
    """
    k = np.arange(LINES)
    lpos = (k + 1.0) * sq
    cpos = (np.arange(GRID) + 1.5) * sq
    out = []
    for axis, (delta, strength, found) in enumerate(_piece_table(warp, sq, lpos, cpos, window, sigma, ridge_px)):
        jj, kk = np.nonzero(found)
        out.append(np.stack([cpos[jj], lpos[kk] + delta[jj, kk], kk.astype(np.float64),
                             np.full(len(jj), float(axis)), strength[jj, kk]], 1))
    return np.concatenate(out).astype(np.float64)


def resolve_shift(grey: np.ndarray, corners: np.ndarray, cfg: LocateConfig) -> tuple[np.ndarray, float, bool]:
    """Slide the fitted 16x16 lines by whole squares where that explains more line pieces.

    A board rim about one square wide looks like one more grid line to the periodic fit. The
    pieces tell them apart: grid lines cross the outer squares, but nothing crosses the rim.
    Returns (corners, mean fraction of pieces found on both axes, whether it slid).
    """
    sq, m = cfg.fit_square_px, cfg.max_shift_squares
    hw, warp = grid_warp(grey, corners, sq, m)
    lpos = np.arange(LINES + 2 * m) * float(sq)
    lpos[0], lpos[-1] = lpos[0] + sq * 0.5, lpos[-1] - sq * 0.5  # keep windows inside the warp
    cpos = (np.arange(GRID + 2 * m) + 0.5) * sq
    tables = _piece_table(warp, sq, lpos, cpos, 0.3)
    ok = []
    for delta, strength, found in tables:
        core = strength[m:m + GRID, m:m + LINES]
        # loose: before refinement the predicted lines can be a few px off under tilt
        ok.append(found & (np.abs(delta) < 1.5 * cfg.piece_tolerance_frac * sq)
                  & (strength > 0.2 * np.percentile(core, 90)))
        ok[-1][:, 0] = ok[-1][:, -1] = False  # the clamped border lines
    best = (-1.0, 0, 0)
    for dy in range(-m + 1, m):
        for dx in range(-m + 1, m):
            vx = ok[0][m + dy:m + dy + GRID, m + dx:m + dx + LINES].mean()
            hy = ok[1][m + dx:m + dx + GRID, m + dy:m + dy + LINES].mean()
            # both axes count: a slide along x changes the vertical lines' count of pieces and the
            # horizontal lines' count alike, so a min() would tie; ties keep the periodic fit
            score = 0.5 * (vx + hy) - 0.005 * (abs(dx) + abs(dy))
            if score > best[0]:
                best = (score, dx, dy)
    _, dx, dy = best
    g = np.float32([[m + dx, m + dy], [m + dx + GRID, m + dy], [m + dx + GRID, m + dy + GRID],
                    [m + dx, m + dy + GRID]]) * sq
    new = cv2.perspectiveTransform(g.reshape(-1, 1, 2), np.linalg.inv(hw)).reshape(4, 2)
    return new.astype(np.float32), float(best[0] + 0.005 * (abs(dx) + abs(dy))), bool(dx or dy)


def fit_homography_to_lines(pieces: np.ndarray, sq: int, outlier: float,
                             free_outer: bool = False) -> np.ndarray | None:
    """Homography G: warp px -> canonical squares with X(piece)=k (axis 0) / Y(piece)=k (axis 1).

    Each piece gives one linear equation in G's 8 unknowns; robustly reweighted twice.

    With ``free_outer`` each of the four outer lines gets an offset of its own (X = k + delta):
    its pieces then fix only its direction, and the grid's edge is where the 14 inner lines'
    pitch puts it. A board may frame its grid with something that is not one more line (a thick
    outline, a coloured band, the rim's print beside the last row), and the line pieces found
    there lie up to ~0.2 square outside the edge. (An offset is a 9th-12th unknown; its
    coefficient is the previous pass's denominator, so it is exact once the fit settles.)
    """
    if len(pieces) < 40:
        return None
    along, across, k, axis, strength = pieces.T
    x = np.where(axis == 0, across, along) / sq - 1.0
    y = np.where(axis == 0, along, across) / sq - 1.0
    # unknowns h = [a b c d e f g h], X = (a x + b y + c)/(g x + h y + 1), Y = (d x + e y + f)/(...)
    zeros = np.zeros_like(x)
    ones = np.ones_like(x)
    vx = axis == 0
    rows = np.where(vx[:, None],
                    np.stack([x, y, ones, zeros, zeros, zeros, -k * x, -k * y], 1),
                    np.stack([zeros, zeros, zeros, x, y, ones, -k * x, -k * y], 1))
    rhs = k.copy()
    w = np.clip(strength, 0, None)
    w = w / (w.max() + 1e-9)
    keep = w > 0.05
    outer = (k == 0) | (k == LINES - 1)
    which = np.zeros((len(k), 4))                    # the outer line (axis, first/last) of each piece
    which[np.nonzero(outer)[0], (2 * axis + (k == LINES - 1))[outer].astype(int)] = 1.0
    # the inner lines must fix the edges on their own
    free = (free_outer and (keep & ~outer & vx).sum() >= 12 and (keep & ~outer & ~vx).sum() >= 12)
    den = ones
    h = None
    for _ in range(3):
        if keep.sum() < 30 or (keep & vx).sum() < 12 or (keep & ~vx).sum() < 12:
            return h
        a = np.hstack([rows, -which * den[:, None]]) if free else rows
        sw = np.sqrt(w[keep])
        sol, *_ = np.linalg.lstsq(a[keep] * sw[:, None], rhs[keep] * sw, rcond=None)
        delta = sol[8:] if free else np.zeros(4)
        sol = sol[:8]
        h = np.append(sol, 1.0).reshape(3, 3)
        den = sol[6] * x + sol[7] * y + 1.0
        pred = np.where(vx, (sol[0] * x + sol[1] * y + sol[2]) / den, (sol[3] * x + sol[4] * y + sol[5]) / den)
        res = np.abs(pred - k - which @ delta)
        keep = (w > 0.05) & (res < max(outlier, 2.5 * float(np.median(res[keep]))))
    return h


def refine(grey: np.ndarray, corners: np.ndarray, cfg: LocateConfig, sq: int,
            window: float | None = None, free_outer: bool = False) -> np.ndarray:
    """One refinement pass in ``grey`` coordinates; returns new grid corners (TL, TR, BR, BL of the fit).
    ``free_outer``: the outer lines' pieces fix their direction only (fit_homography_to_lines)."""
    hw, warp = grid_warp(grey, corners, sq, 1)
    pieces = _line_pieces(warp, sq, cfg.refine_window_frac if window is None else window,
                          ridge_px=max(1, int(round(cfg.ridge_frac * sq))))
    g = fit_homography_to_lines(pieces, sq, cfg.refine_outlier_frac, free_outer)
    if g is None:
        return corners
    # canonical squares -> warp px (1 square margin) -> grey coords
    to_warp = np.array([[sq, 0, sq], [0, sq, sq], [0, 0, 1]], np.float64) @ np.linalg.inv(g)
    unit = np.float32([[0, 0], [GRID, 0], [GRID, GRID], [0, GRID]]).reshape(-1, 1, 2)
    new = cv2.perspectiveTransform(unit, np.linalg.inv(hw) @ to_warp).reshape(4, 2)
    if not np.isfinite(new).all():
        return corners
    return new.astype(np.float32)


QUALITY_STRENGTH_FRAC = 0.2  # BoardFix.quality counts line pieces at least this strong (of the 90th pct)


def line_half_width(warp: np.ndarray, sq: int) -> float:
    """Half the width (at half height, px) of the mean grey profile across the 14 inner lines of
    a grid warp with one square of margin: about 1.5 px for a sharp printed line at 32 px per
    square, 3-4 px in an out-of-focus photo. Tiles average out; 0 when no ridge shows."""
    g = warp.astype(np.float32)
    lp = (np.arange(1, LINES - 1) + 1) * sq
    u = np.arange(-(sq // 2), sq // 2 + 1)
    across = lp[:, None] + u[None, :]                                   # (14, sq+1)
    inside = slice(sq, (GRID + 1) * sq)
    p = g[inside][:, across].mean(axis=(0, 1)) + g[across, inside].mean(axis=(0, 2))
    p = p - np.median(p)
    c0 = len(u) // 2
    near = max(1, int(round(0.15 * sq)))
    c = c0 - near + int(np.abs(p[c0 - near:c0 + near + 1]).argmax())
    r = p * np.sign(p[c])
    if r[c] <= 0:
        return 0.0
    lo = hi = c
    while lo > 0 and r[lo - 1] >= r[c] / 2:
        lo -= 1
    while hi < len(r) - 1 and r[hi + 1] >= r[c] / 2:
        hi += 1
    return (hi - lo + 1) / 2.0


def line_support(grey: np.ndarray, corners: np.ndarray, sq: int, tol: float,
                  strength_fracs: tuple[float, ...], inner_frac: float | None = None,
                  blurred: bool = False) -> list[float]:
    """Fraction of the 240 line pieces per axis found where 16 equally spaced lines put them
    (the weaker axis), counting pieces whose gradient peak is at least each given fraction of
    the strong pieces'. Tiles and hands hide pieces, so a covered board scores lower. With
    ``inner_frac``, last the number of pieces of the 14 inner lines found (both axes, at least
    that strong)."""
    _, warp = grid_warp(grey, corners, sq, 1)
    # ``blurred``: a blurred line's gradient peaks on its two flanks, half its width from its
    # middle. Where that is further than the tolerance (an out-of-focus photo), pieces are found
    # as ridges of the line's own half width instead (lighter or darker than both sides, peaking
    # in the middle); else, and without ``blurred``, as gradient peaks.
    half = line_half_width(warp, sq) if blurred else 0.0
    ridge = int(round(half)) if half > tol * sq else 0
    pieces = _line_pieces(warp, sq, 0.3, sigma=0.0, ridge_px=ridge)
    if len(pieces) == 0:  # a blank frame (the lens covered, a dark room): no line anywhere
        return [0.0] * len(strength_fracs) + ([] if inner_frac is None else [0.0])
    _, across, k, axis, strength = pieces.T
    near = np.abs(across - (k + 1) * sq) < tol * sq
    p90 = np.percentile(strength, 90)
    out = []
    for frac in strength_fracs:
        ok = near & (strength > frac * p90)
        out.append(float(min(ok[axis == a].sum() for a in (0, 1)) / (GRID * LINES)))
    if inner_frac is not None:
        out.append(float((near & (k > 0) & (k < LINES - 1) & (strength > inner_frac * p90)).sum()))
    return out


def quadrant_balance(grey: np.ndarray, corners: np.ndarray, sq: int, tol: float, strength_frac: float) -> float:
    """The least share of line pieces found in a quarter of the grid over the mean share of the four
    (pieces counted as for the fit). Tiles hide pieces all over a crowded board, so a right grid
    finds its pieces in every quarter; a grid right in one part and dragged off in another (one
    corner off) finds them where it fits."""
    _, warp = grid_warp(grey, corners, sq, 1)
    pieces = _line_pieces(warp, sq, 0.3, sigma=0.0)
    if len(pieces) == 0:
        return 0.0
    along, across, k, axis, strength = pieces.T
    ok = (np.abs(across - (k + 1) * sq) < tol * sq) & (strength > strength_frac * np.percentile(strength, 90))
    # where a piece is, in squares from the grid's corner: its line's place across, its cell's along
    line_at, cell_at = k, along / sq - 1.0
    x = np.where(axis == 0, line_at, cell_at)
    y = np.where(axis == 0, cell_at, line_at)
    slot_line, slot_cell = (a.ravel() for a in np.meshgrid(np.arange(LINES), np.arange(GRID) + 0.5))
    half = GRID / 2
    shares = []
    for hi_x in (False, True):
        for hi_y in (False, True):
            found = ok & ((x >= half) == hi_x) & ((y >= half) == hi_y)
            slots = sum((((np.where(a == 0, slot_line, slot_cell) >= half) == hi_x)
                         & ((np.where(a == 0, slot_cell, slot_line) >= half) == hi_y)).sum() for a in (0, 1))
            shares.append(found.sum() / slots)
    return float(min(shares) / max(np.mean(shares), 1e-9))


def _quality(grey: np.ndarray, corners: np.ndarray, sq: int, tol: float) -> float:
    """BoardFix.quality: line pieces found, the strong ones only (how clearly the grid is seen)."""
    return line_support(grey, corners, sq, tol, (QUALITY_STRENGTH_FRAC,))[0]


def grid_quality(image: np.ndarray, corners: np.ndarray, cfg: LocateConfig) -> float:
    """BoardFix.quality of given grid corners on an image (same measure find_board reports)."""
    grey = cv2.cvtColor(image, cv2.COLOR_BGR2GRAY) if image.ndim == 3 else image
    return _quality(grey, corners, cfg.refine_square_px, cfg.piece_tolerance_frac)
