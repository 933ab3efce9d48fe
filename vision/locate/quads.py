"""Rough board quadrilaterals: segmentations, the Hough lines' two families, the line segments'
vanishing points; ``candidate_quads`` yields them cheapest first."""
from __future__ import annotations

from collections.abc import Iterator

import cv2
import numpy as np

from tilecam.vision.locate.config import LocateConfig
from tilecam.vision.locate.fix import order_corners


def _quad_from_hull(hull: np.ndarray) -> np.ndarray:
    """4 corners of a convex hull: simplify to 4 vertices, then fit a line to the hull points
    along each side and intersect neighbours (cut or rounded corners would bias a vertex)."""
    peri = cv2.arcLength(hull, True)
    quad = None
    for eps in (0.01, 0.02, 0.03, 0.05, 0.08):
        approx = cv2.approxPolyDP(hull, eps * peri, True)
        if len(approx) == 4:
            quad = approx.reshape(4, 2).astype(np.float64)
            break
    if quad is None:
        return cv2.boxPoints(cv2.minAreaRect(hull)).astype(np.float32)
    # dense points along the hull outline
    pts = hull.reshape(-1, 2).astype(np.float64)
    nxt = np.roll(pts, -1, axis=0)
    steps = np.maximum(2, (np.hypot(*(nxt - pts).T) / 2).astype(int))
    seg = np.repeat(np.arange(len(pts)), steps)
    t = (np.arange(steps.sum()) - np.repeat(np.cumsum(steps) - steps, steps)) / np.repeat(steps, steps)
    dense = pts[seg] + (nxt[seg] - pts[seg]) * t[:, None]
    lines = []
    for i in range(4):
        a, b = quad[i], quad[(i + 1) % 4]
        d = b - a
        length = np.hypot(*d)
        u = d / length
        nrm = np.array([-u[1], u[0]])
        t = (dense - a) @ u
        dist = np.abs((dense - a) @ nrm)
        # the middle of the side only, close to it: corners and cut-offs do not vote
        sel = dense[(t > 0.15 * length) & (t < 0.85 * length) & (dist < 0.02 * peri)]
        if len(sel) < 5:
            lines.append((a, u))
            continue
        vx, vy, x0, y0 = cv2.fitLine(sel.astype(np.float32), cv2.DIST_HUBER, 0, 0.01, 0.01).ravel()
        lines.append((np.array([x0, y0], np.float64), np.array([vx, vy], np.float64)))
    out = []
    for i in range(4):
        (p1, d1), (p2, d2) = lines[i - 1], lines[i]
        m = np.array([d1, -d2]).T
        if abs(np.linalg.det(m)) < 1e-6:
            return quad.astype(np.float32)
        t = np.linalg.solve(m, p2 - p1)
        out.append(p1 + t[0] * d1)
    out = np.array(out)
    if np.abs(out - quad).max() > 0.1 * peri / 4:
        return quad.astype(np.float32)
    return out.astype(np.float32)


def _largest_hull(mask: np.ndarray, min_area: float) -> np.ndarray | None:
    contours, _ = cv2.findContours(mask, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
    if not contours:
        return None
    best = max(contours, key=cv2.contourArea)
    hull = cv2.convexHull(best)
    return hull if cv2.contourArea(hull) >= min_area else None


def _rough_quads(small: np.ndarray, cfg: LocateConfig, board_frac: float = 1.0) -> Iterator[np.ndarray]:
    """Candidate board quads, computed lazily (the search stops at a clear fit); kernels
    assume a board spanning ~``board_frac`` of the frame."""
    h, w = small.shape[:2]
    min_area = cfg.min_board_area_frac * h * w
    grey = cv2.cvtColor(small, cv2.COLOR_BGR2GRAY)
    blur = cv2.GaussianBlur(grey, (5, 5), 0)
    med = float(np.median(blur))
    edges = cv2.Canny(blur, max(10.0, 0.66 * med * 0.5), max(30.0, 1.33 * med * 0.5))
    # Dilating by ~ a third of a square joins grid lines and tile edges into one board blob.
    k = max(3, int(round(board_frac * min(h, w) / 60)))
    blob = cv2.dilate(edges, cv2.getStructuringElement(cv2.MORPH_RECT, (k, k)))
    contours, _ = cv2.findContours(blob, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
    blob_contour = max(contours, key=cv2.contourArea) if contours else None
    blob_hull = None if blob_contour is None else cv2.convexHull(blob_contour)
    if blob_hull is not None and cv2.contourArea(blob_hull) < min_area:
        blob_hull = None
    if blob_hull is not None:
        yield order_corners(_quad_from_hull(blob_hull))
    # The grid is a dense edge area: closing over ~a square makes it solid; opening with a
    # larger kernel then drops thin attachments (an arm's outline, clutter, table edges).
    kc = max(5, int(round(board_frac * min(h, w) / 18)))
    solid = cv2.morphologyEx(edges, cv2.MORPH_CLOSE, cv2.getStructuringElement(cv2.MORPH_RECT, (kc, kc)))
    # The round opening is costly with a big kernel: run it on a 3x smaller mask.
    d = 3
    solid = (cv2.resize(solid, (w // d, h // d), interpolation=cv2.INTER_AREA) > 127).astype(np.uint8)
    ko = max(3, int(round(board_frac * min(h, w) / 10 / d)))
    solid = cv2.morphologyEx(solid, cv2.MORPH_OPEN, cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (ko, ko)))
    n, labels, stats, _ = cv2.connectedComponentsWithStats(solid)
    if n > 1:
        # An arm across the board cuts it in two: keep every large piece, not just the largest.
        areas = stats[1:, cv2.CC_STAT_AREA]
        keep = 1 + np.nonzero(areas >= cfg.piece_area_frac * areas.max())[0]
        contours, _ = cv2.findContours(np.isin(labels, keep).astype(np.uint8), cv2.RETR_EXTERNAL,
                                       cv2.CHAIN_APPROX_SIMPLE)
        hull = cv2.convexHull(np.concatenate(contours)).astype(np.float32) * d + (d - 1) / 2.0
        if cv2.contourArea(hull) >= min_area:
            yield order_corners(_quad_from_hull(hull))

    # The board's dominant colour: the mode of a coarse colour histogram over the middle of the
    # edge blob (the board need not sit in the frame's centre), else of the frame. YCrCb at half
    # the work size: cheap, and unlike Lab it needs no tables built on the first call (~75 ms).
    d = 2
    col = cv2.cvtColor(cv2.resize(cv2.GaussianBlur(small, (5, 5), 0), (w // d, h // d),
                                  interpolation=cv2.INTER_AREA), cv2.COLOR_BGR2YCrCb)
    hd, wd = col.shape[:2]
    region = np.zeros((hd, wd), np.uint8)
    if blob_hull is not None:
        pts = blob_hull.reshape(-1, 2).astype(np.float64) / d
        mid = pts.mean(axis=0)
        cv2.fillPoly(region, [np.int32(mid + 0.5 * (pts - mid)).reshape(-1, 1, 2)], 1)
    if region.sum() < 0.02 * hd * wd:
        region[hd // 4:3 * hd // 4, wd // 4:3 * wd // 4] = 1
    centre = col[region > 0]
    q = (centre // 16).astype(np.int32)
    code = (q[:, 0] * 16 + q[:, 1]) * 16 + q[:, 2]
    mode = np.bincount(code).argmax()
    ref = centre[code == mode].mean(axis=0)
    dist = np.linalg.norm(col.astype(np.float32) - ref.astype(np.float32), axis=2)
    mask = (dist < cfg.colour_tolerance).astype(np.uint8) * 255
    # Closing over ~1.5 squares fills tiles and premium squares inside the board region.
    kc = max(5, int(round(board_frac * min(hd, wd) / 14)))
    mask = cv2.morphologyEx(mask, cv2.MORPH_OPEN, cv2.getStructuringElement(cv2.MORPH_RECT, (3, 3)))
    mask = cv2.morphologyEx(mask, cv2.MORPH_CLOSE, cv2.getStructuringElement(cv2.MORPH_RECT, (kc, kc)))
    hull = _largest_hull(mask, min_area / (d * d))
    if hull is not None:
        yield order_corners(_quad_from_hull(hull.astype(np.float32) * d + (d - 1) / 2.0))

    # The edge blob with what merely touches the board cut off: filled, then opened with a disc
    # a fraction of its largest inscribed radius. A score sheet, a bag or a shadow beside the
    # board is narrower than the board, so it drops off and the board's square stays.
    if blob_hull is not None:
        d = 3
        filled = np.zeros((h // d, w // d), np.uint8)
        cv2.drawContours(filled, [(blob_contour // d).astype(np.int32)], -1, 1, -1)
        inside = cv2.distanceTransform(filled, cv2.DIST_L2, cv2.DIST_MASK_PRECISE)
        # (capped: a blob filling the whole frame has no background to measure from)
        inscribed = min(float(inside.max()), min(filled.shape) / 2.0)
        for frac in cfg.cut_radius_fracs:
            # an opening by a disc of radius r from two distance transforms: the same cost for
            # any r (a large elliptic kernel costs up to ~80 ms at double resolution)
            r = max(2.0, frac * inscribed)
            eroded = (inside > r).astype(np.uint8)
            core = (cv2.distanceTransform(1 - eroded, cv2.DIST_L2, cv2.DIST_MASK_PRECISE) <= r).astype(np.uint8)
            hull = _largest_hull(core, min_area / (d * d))
            if hull is not None:
                yield order_corners(_quad_from_hull(hull.astype(np.float32) * d + (d - 1) / 2.0))

    yield np.float32([[0, 0], [w - 1, 0], [w - 1, h - 1], [0, h - 1]])


def _hough_quad(small: np.ndarray, cfg: LocateConfig) -> np.ndarray | None:
    """A board quad from straight lines: the grid's two line families (any turntable angle),
    each cut to its densest run of lines, intersected. Hands hide parts of lines but rarely
    whole ones, so this survives an arm that spoils the region-based quads."""
    grey = cv2.cvtColor(small, cv2.COLOR_BGR2GRAY)
    h, w = grey.shape
    blur = cv2.GaussianBlur(grey, (5, 5), 0)
    med = float(np.median(blur))
    edges = cv2.Canny(blur, max(10.0, 0.33 * med), max(30.0, 0.66 * med))
    lines = cv2.HoughLines(edges, 1, np.pi / 360, int(cfg.hough_votes_frac * min(h, w)))
    if lines is None or len(lines) < 8:
        return None
    lines = lines[:150, 0, :].astype(np.float64)
    theta = lines[:, 1]
    # the two families are ~90 degrees apart: fold angles mod 90 and take the peak
    hist, edges_ = np.histogram(np.mod(theta, np.pi / 2), bins=90, range=(0, np.pi / 2))
    hist = hist + np.roll(hist, 1) + np.roll(hist, -1)
    t0 = (edges_[hist.argmax()] + edges_[hist.argmax() + 1]) / 2

    def ang(a, b):
        d = np.mod(a - b, np.pi)
        return np.minimum(d, np.pi - d)

    tol = np.radians(cfg.hough_family_deg)
    centre = np.array([w / 2.0, h / 2.0])
    outer = []
    for fam in (lines[ang(theta, t0) < tol], lines[ang(theta, t0 + np.pi / 2) < tol]):
        if len(fam) < 4:
            return None
        r, t = fam[:, 0], fam[:, 1]
        ref = float(np.median(t))
        dist = r - (centre[0] * np.cos(t) + centre[1] * np.sin(t))
        dist = np.where(np.cos(t - ref) < 0, -dist, dist)  # one normal direction per family
        order = np.argsort(dist)
        ds = dist[order]
        gaps = np.diff(ds)
        typical = float(np.median(gaps[gaps > 2])) if (gaps > 2).any() else 10.0
        runs, start = [], 0
        for i, gap in enumerate(gaps):
            if gap > 4 * max(typical, 3.0):  # a far line: table edge, clutter
                runs.append((start, i))
                start = i + 1
        runs.append((start, len(ds) - 1))
        a, b = max(runs, key=lambda ab: ab[1] - ab[0])
        outer.append((fam[order[a]], fam[order[b]]))
    (a1, a2), (b1, b2) = outer
    pts = []
    for (r1, t1), (r2, t2) in ((a1, b1), (b1, a2), (a2, b2), (b2, a1)):
        m = np.array([[np.cos(t1), np.sin(t1)], [np.cos(t2), np.sin(t2)]])
        if abs(np.linalg.det(m)) < 1e-3:
            return None
        pts.append(np.linalg.solve(m, [r1, r2]))
    quad = order_corners(np.array(pts, np.float32))
    if abs(cv2.contourArea(quad)) < cfg.min_board_area_frac * h * w:
        return None
    return quad


def _vanishing_family(lines, mid, unit, length, avail, cos_tol, rng, pairs=400):
    """RANSAC: the point (homogeneous, possibly at infinity) that the most segment length of the
    ``avail`` segments points at; returns (point, members) or None."""
    idx = np.nonzero(avail)[0]
    if len(idx) < 6:
        return None
    p = length[idx] / length[idx].sum()
    ij = rng.choice(idx, (pairs, 2), p=p)
    ij = ij[ij[:, 0] != ij[:, 1]]
    v = np.cross(lines[ij[:, 0]], lines[ij[:, 1]])
    nv = np.linalg.norm(v, axis=1)
    v = v[nv > 1e-12] / nv[nv > 1e-12, None]
    if len(v) == 0:
        return None
    # direction from each segment's middle to each candidate point (a point at infinity: its direction)
    to = v[:, None, :2] - mid[None, idx, :] * v[:, None, 2:3]                   # (pairs, segs, 2)
    cos = np.abs((to * unit[None, idx, :]).sum(axis=2)) / np.maximum(np.linalg.norm(to, axis=2), 1e-12)
    score = (cos > cos_tol).astype(np.float64) @ length[idx]
    best = int(score.argmax())
    return v[best], idx[cos[best] > cos_tol]


def segment_quad(small: np.ndarray, cfg: LocateConfig) -> np.ndarray | None:
    """A board quad for a steep view: line segments grouped by the two vanishing points they
    point at (one may be at infinity), each family's outermost line of its densest run; None
    unless a family fans out by more than ``hough_family_deg`` (a near top-down view is the
    other quads' job).

    Under strong perspective the grid's two line families are not 90 degrees apart and one of
    them fans out, so the Hough quad's folded-angle families miss it; and on a textured floor the
    strongest full-length Hough lines are mostly texture. Segments of the grid's lines, tile edges
    and the rim all point at the same two vanishing points, texture does not. The quad is the
    outermost lines of each family (the board's outline, more or less), which the periodic fit
    then searches for the grid."""
    grey = cv2.cvtColor(small, cv2.COLOR_BGR2GRAY)
    # at about the work size also on the double-resolution retry (the detector's cost grows with
    # the pixels; the board's outline needs no more)
    f = max(1, int(round(max(grey.shape) / cfg.work_px)))
    if f > 1:
        grey = cv2.resize(grey, (grey.shape[1] // f, grey.shape[0] // f), interpolation=cv2.INTER_AREA)
    h, w = grey.shape
    seg = cv2.createLineSegmentDetector(cv2.LSD_REFINE_NONE).detect(grey)[0]
    if seg is None:
        return None
    seg = seg.reshape(-1, 4).astype(np.float64)
    d = seg[:, 2:] - seg[:, :2]
    length = np.hypot(d[:, 0], d[:, 1])
    keep = length >= min(h, w) / 40.0  # about a square's side on a board half the frame
    seg, d, length = seg[keep], d[keep], length[keep]
    if len(seg) < 12:
        return None
    unit = d / length[:, None]
    mid = (seg[:, :2] + seg[:, 2:]) / 2
    ones = np.ones((len(seg), 1))
    lines = np.cross(np.hstack([seg[:, :2], ones]), np.hstack([seg[:, 2:], ones]))
    rng = np.random.default_rng(0)  # deterministic
    cos_tol = np.cos(np.radians(cfg.segment_family_deg))
    avail = np.ones(len(seg), bool)
    centre = np.array([w / 2.0, h / 2.0])
    outer, dirs, fans = [], [], []
    for _ in range(2):
        fam = _vanishing_family(lines, mid, unit, length, avail, cos_tol, rng)
        if fam is None or len(fam[1]) < 8:
            return None
        v, members = fam
        avail[members] = False
        # each member as the line through v and its middle, placed by where it crosses the
        # transversal through the frame's centre
        dv = v[:2] - centre * v[2]
        dv = dv / max(float(np.linalg.norm(dv)), 1e-12)
        dirs.append(dv)
        nrm = np.array([-dv[1], dv[0]])
        ml = np.cross(np.hstack([mid[members], ones[members]]), v[None, :])
        den = ml[:, :2] @ nrm
        ok = np.abs(den) > 1e-9
        t = -(ml[ok, :2] @ centre + ml[ok, 2]) / den[ok]
        wt = length[members][ok]
        order = np.argsort(t)
        t, wt = t[order], wt[order]
        if len(t) < 8:
            return None
        # the segments of one line, then runs of lines without a gap wider than a few squares
        # (texture beyond the board that happens to point at v lies apart)
        cut = np.nonzero(np.diff(t) > 0.004 * max(h, w))[0] + 1
        gt = np.array([np.average(a, weights=b) for a, b in zip(np.split(t, cut), np.split(wt, cut))])
        gl = np.array([b.sum() for b in np.split(wt, cut)])
        gaps = np.diff(gt)
        big = max(4.0 * float(np.median(gaps)) if len(gaps) else 0.0, 0.15 * min(h, w))
        starts = np.r_[0, np.nonzero(gaps > big)[0] + 1]
        ends = np.r_[starts[1:] - 1, len(gt) - 1]
        r = int(np.argmax([gl[a:b + 1].sum() for a, b in zip(starts, ends)]))
        ends_ = [centre + gt[i] * nrm for i in (starts[r], ends[r])]
        outer.append([np.cross(np.r_[p, 1.0], v) for p in ends_])
        # how far the family fans out: the angle between its outermost lines
        d0, d1 = (v[:2] - p * v[2] for p in ends_)
        fans.append(float(np.degrees(np.arccos(np.clip(abs(d0 @ d1) / max(
            float(np.linalg.norm(d0) * np.linalg.norm(d1)), 1e-12), 0.0, 1.0)))))
    between = float(np.degrees(np.arccos(np.clip(abs(float(dirs[0] @ dirs[1])), 0.0, 1.0))))
    if between < 30:  # two families, not one split
        return None
    # Only for a steep view, where a family fans out further than the Hough quad's family
    # tolerance: on near top-down views with an arm over the board, the arm's long edges join a
    # family, and the quad led to grids a square or more off with a fit over min_fit (synthetic
    # seeds 9009, 9134) where every other quad had failed.
    if max(fans) <= cfg.hough_family_deg:
        return None
    (a1, a2), (b1, b2) = outer
    pts = []
    for l1, l2 in ((a1, b1), (b1, a2), (a2, b2), (b2, a1)):
        x = np.cross(l1, l2)
        if abs(x[2]) < 1e-12:
            return None
        pts.append(x[:2] / x[2])
    quad = order_corners(np.array(pts, np.float32))
    if (abs(cv2.contourArea(quad)) < cfg.min_board_area_frac * h * w
            or not cv2.isContourConvex(quad.reshape(-1, 1, 2))):
        return None
    return (quad * f + (f - 1) / 2.0).astype(np.float32)


def candidate_quads(small: np.ndarray, cfg: LocateConfig, board_frac: float, best_so_far):
    """Rough quads, cheapest first; the Hough quad and then the segments' vanishing-point quad
    only when those did not settle it."""
    yield from _rough_quads(small, cfg, board_frac)
    if best_so_far() < cfg.hough_below_fit:
        quad = _hough_quad(small, cfg)
        if quad is not None:
            yield quad
    # (it works at about the work size, so the double-resolution retry would repeat the same quad,
    # and a repeat must not count as a second rough quad agreeing on a grid)
    if board_frac == 1.0 and best_so_far() < cfg.hough_below_fit:
        quad = segment_quad(small, cfg)
        if quad is not None:
            yield quad
