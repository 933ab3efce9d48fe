"""Where a rack's tiles are in a rack camera's frame (classical OpenCV, no model).

A rack is a row of tile faces of one colour, each a letter's ink on a plain face. The frame's
colours are clustered (k-means in Lab on a small copy); each colour's regions, letters filled in,
are candidate faces; the row is the largest set of candidates of one colour that share a height
and lie along one line. A region holding several touching tiles is cut where the faces meet (the
seam's dark bevel and the notches of the tiles' rounded corners, in the region's top and bottom
bands). A slot no face shows because a hand lies over it (skin where the row's pitch says a tile
stands, or a face cut short) is an unseen slot. Each tile is a quad (TL, TR, BR, BL) in the frame.
No row of faces but the rack's body (a long thin strip of one colour, nothing upright on it) is an
empty rack: a fix with no slots (the end of a game), not None (no rack in the frame).
"""
from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np
from pydantic import BaseModel, ConfigDict, Field

__all__ = ["FindConfig", "RackFix", "Slot", "find_rack", "hand_mask", "order_quad", "skin_mask"]


class FindConfig(BaseModel):
    """Settings of the rack finder (fixed by reasoning on rendered racks in the training looks)."""
    model_config = ConfigDict(extra="forbid", frozen=True)

    colours: int = Field(default=10, ge=2, le=16, description="Colour clusters a frame is split into.")
    min_face_frac: float = Field(default=0.0006, gt=0.0, lt=0.5,
                                 description="Smallest tile face, as a share of the frame's area.")
    max_face_frac: float = Field(default=0.08, gt=0.0, lt=1.0,
                                 description="Largest tile face, as a share of the frame's area.")
    min_tiles_seen: int = Field(default=1, ge=1, le=7, description="Faces needed to call a row a rack.")
    height_tolerance: float = Field(default=0.3, gt=0.0, lt=1.0,
                                    description="Faces of one row differ in height by at most this share.")
    skin_share: float = Field(default=0.3, gt=0.0, le=1.0,
                              description="A slot whose tile area is this much skin is a hand over a tile.")
    max_blanks: int = Field(default=2, ge=0, le=7,
                            description="Blank tiles in the bag (vision.rack sets the tile set's own): more "
                                        "letterless faces than this in a row are not blanks but something over "
                                        "the tiles, so unseen.")
    empty_edges: float = Field(default=29.0, gt=0.0,
                               description="An empty rack: the band a tile high above the rack's body shows "
                                           "upright edges weaker than this (grey levels per pixel, Sobel); "
                                           "tiles standing there show their sides and letters (90th percentile "
                                           "of the band's columns).")
    empty_peak: float = Field(default=43.0, gt=0.0,
                              description="An empty rack: and the band's strongest columns (98th percentile) "
                                          "weaker than this; one tile left on the rack is too narrow to lift "
                                          "the 90th percentile (three single tiles were read as empty racks "
                                          "in 140 training racks of 1 to 7 tiles; empty racks read 32 of 40).")
    fragment: float = Field(default=0.72, gt=0.0, lt=1.0,
                            description="A face narrower or shorter than this share of the row's faces is a "
                                        "tile partly hidden: an unseen slot.")


@dataclass(frozen=True)
class Slot:
    quad: np.ndarray     # (4, 2) float32 TL, TR, BR, BL in the frame
    seen: bool           # False: a hand (or something) hides the tile

    @property
    def box(self) -> tuple[int, int, int, int]:
        x0, y0 = np.floor(self.quad.min(axis=0)).astype(int)
        x1, y1 = np.ceil(self.quad.max(axis=0)).astype(int)
        return int(x0), int(y0), int(x1 - x0), int(y1 - y0)


@dataclass(frozen=True)
class RackFix:
    slots: tuple[Slot, ...]   # left to right
    face_lab: np.ndarray      # the faces' median Lab colour
    pitch: float              # tile to tile, pixels along the row


def order_quad(pts: np.ndarray) -> np.ndarray:
    """Four points as TL, TR, BR, BL (by the sums and differences of their coordinates)."""
    pts = np.asarray(pts, np.float32).reshape(4, 2)
    c = pts.mean(axis=0)
    ang = np.arctan2(pts[:, 1] - c[1], pts[:, 0] - c[0])
    pts = pts[np.argsort(ang)]            # clockwise in image coordinates, starting anywhere
    start = int(np.argmin(pts.sum(axis=1)))
    return np.roll(pts, -start, axis=0)


def skin_mask(bgr: np.ndarray) -> np.ndarray:
    """Skin-like pixels (YCrCb box of skin tones, light to dark)."""
    ycc = cv2.cvtColor(bgr, cv2.COLOR_BGR2YCrCb)
    return cv2.inRange(ycc, (25, 135, 77), (250, 180, 127)) > 0


def hand_mask(image: np.ndarray, not_face: np.ndarray | None = None) -> np.ndarray:
    """Where a hand or arm is: skin-coloured regions that reach in from the frame's edge, neither
    tiny nor most of the frame (a wooden table is skin-coloured too)."""
    h, w = image.shape[:2]
    skin = skin_mask(image)
    if not_face is not None:
        skin &= not_face
    skin = cv2.morphologyEx(skin.astype(np.uint8), cv2.MORPH_OPEN, np.ones((5, 5), np.uint8))
    n, comp, stats, _ = cv2.connectedComponentsWithStats(skin, connectivity=8)
    out = np.zeros((h, w), bool)
    if n <= 1:
        return out
    lab = cv2.cvtColor(image, cv2.COLOR_BGR2Lab).astype(np.float32)
    rim = np.concatenate([lab[0], lab[-1], lab[:, 0], lab[:, -1]])
    table = np.median(rim, axis=0)   # what most of the frame's edge shows is the table
    for i in range(1, n):
        x, y, bw, bh, area = stats[i]
        edge = x == 0 or y == 0 or x + bw >= w or y + bh >= h
        if edge and 0.01 * h * w <= area <= 0.3 * h * w:
            part = comp == i
            if float(np.linalg.norm(np.median(lab[part], axis=0) - table)) > 25:
                out |= part
    return out


def _fill_holes(mask: np.ndarray) -> np.ndarray:
    contours, _ = cv2.findContours(mask, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
    out = np.zeros_like(mask)
    cv2.drawContours(out, contours, -1, 255, -1)
    return out


def _quad_of(contour: np.ndarray) -> np.ndarray:
    hull = cv2.convexHull(contour)
    peri = cv2.arcLength(hull, True)
    for eps in (0.02, 0.04, 0.06, 0.09):
        approx = cv2.approxPolyDP(hull, eps * peri, True)
        if len(approx) == 4:
            return order_quad(approx.reshape(4, 2))
    return order_quad(cv2.boxPoints(cv2.minAreaRect(contour)))


@dataclass
class _Face:
    quad: np.ndarray
    area: float
    letters: int = 0                  # letter-sized holes (ink) inside the face
    colour: np.ndarray | None = None  # Lab

    @property
    def centre(self):
        return self.quad.mean(axis=0)

    @property
    def height(self) -> float:
        q = self.quad
        return float((np.linalg.norm(q[3] - q[0]) + np.linalg.norm(q[2] - q[1])) / 2)

    @property
    def width(self) -> float:
        q = self.quad
        return float((np.linalg.norm(q[1] - q[0]) + np.linalg.norm(q[2] - q[3])) / 2)


def _lerp(a, b, t):
    return a + (b - a) * t


def _sub_quad(q: np.ndarray, t0: float, t1: float) -> np.ndarray:
    """The part of quad q between fractions t0 and t1 along its width."""
    return np.float32([_lerp(q[0], q[1], t0), _lerp(q[0], q[1], t1), _lerp(q[3], q[2], t1), _lerp(q[3], q[2], t0)])


def _seam_profile(grey: np.ndarray, mask: np.ndarray, q: np.ndarray, height: int = 40) -> np.ndarray:
    """Seam strength per column of quad q rectified to ``height`` rows: where the top and bottom
    bands leave the face (rounded corners, the gap) and the face darkens (the bevel)."""
    width = max(8, int(round(height * (np.linalg.norm(q[1] - q[0]) / max(np.linalg.norm(q[3] - q[0]), 1)))))
    dst = np.float32([[0, 0], [width, 0], [width, height], [0, height]])
    h = cv2.getPerspectiveTransform(q.astype(np.float32), dst)
    m = cv2.warpPerspective(mask.astype(np.float32), h, (width, height), flags=cv2.INTER_LINEAR)
    g = cv2.warpPerspective(grey.astype(np.float32), h, (width, height), flags=cv2.INTER_LINEAR)
    band = max(2, height // 7)
    off = 1.0 - np.minimum(m[:band].mean(axis=0), m[-band:].mean(axis=0))
    # a dark vertical line through the whole height: each column against its neighbours'
    col = np.median(g, axis=0)
    k = max(3, height // 5)
    local = cv2.blur(col[None, :], (2 * k + 1, 1), borderType=cv2.BORDER_REPLICATE)[0]
    dark = np.clip((local - col) / 25.0, 0, 1)
    return np.maximum(off, dark)


def _split(face: _Face, grey: np.ndarray, mask: np.ndarray, pitch: float | None) -> list[_Face]:
    """A region of several touching tiles cut into its tiles, where the seams are."""
    ratio = face.width / max(face.height, 1.0)
    if pitch is not None:
        guesses = [max(1, int(round(face.width / pitch)))]
    else:
        guesses = [n for n in range(1, 8) if 0.55 <= ratio / n <= 1.6]
    if not guesses or guesses == [1]:
        return [face]
    prof = _seam_profile(grey, mask, face.quad)
    w = len(prof)
    best, best_cuts, best_score = 1, [], -1.0
    for n in guesses:
        if n == 1:
            continue
        cuts, scores = [], []
        for k in range(1, n):
            c = int(round(k * w / n))
            r = max(1, int(w / n * 0.12))
            lo, hi = max(c - r, 1), min(c + r + 1, w - 1)
            j = lo + int(np.argmax(prof[lo:hi]))
            cuts.append(j)
            scores.append(prof[j])
        score = float(min(scores))
        # more tiles only when every cut finds a seam; ties go to more tiles
        if score >= 0.35 and score >= best_score - 0.05:
            best, best_cuts, best_score = n, cuts, score
    if best == 1:
        if pitch is None and len(guesses) == 1:
            n = guesses[0]
            best_cuts = [int(round(k * w / n)) for k in range(1, n)]
        else:
            return [face]
    edges = [0.0] + [c / w for c in best_cuts] + [1.0]
    out = []
    for t0, t1 in zip(edges[:-1], edges[1:]):
        q = _sub_quad(face.quad, t0, t1)
        out.append(_Face(q, face.area * (t1 - t0)))
    return out


def _row(faces: list[_Face], tol: float, colour_tol: float = 28.0) -> list[_Face]:
    """The largest set of faces of about one height and colour along one line, seeded by a face
    that holds a letter (by letters held, then area)."""
    if not faces:
        return []
    c = np.array([f.centre for f in faces])
    hgt = np.array([f.height for f in faces])
    col = np.array([f.colour for f in faces], np.float32)
    let = np.array([f.letters for f in faces])
    area = np.array([f.area for f in faces])
    slopes = np.linspace(-0.6, 0.6, 25)[:, None]
    best, best_key = np.zeros(len(faces), bool), (0, 0.0)
    for i in np.flatnonzero(let > 0):
        alike = (np.abs(hgt - hgt[i]) <= tol * hgt[i]) & (np.linalg.norm(col - col[i], axis=1) <= colour_tol)
        dx, dy = c[:, 0] - c[i, 0], c[:, 1] - c[i, 1]
        members = alike[None, :] & (np.abs(dy[None, :] - slopes * dx[None, :]) <= 0.35 * hgt[i])
        keys = members @ let, members @ area
        j = int(np.lexsort((keys[1], keys[0]))[-1])
        key = (int(keys[0][j]), float(keys[1][j]))
        if key > best_key:
            best, best_key = members[j], key
    return sorted([f for f, m in zip(faces, best) if m], key=lambda f: f.centre[0])


def _regions(mask: np.ndarray, cfg: FindConfig, lab: np.ndarray, colour) -> list[_Face]:
    """Candidate faces of one colour: regions with their letters' holes filled. A letter is a hole
    of letter size whose ink stands out from the face (by its Lab colour)."""
    h, w = lab.shape[:2]
    area_img = float(h * w)
    given = colour
    mask = cv2.morphologyEx(mask, cv2.MORPH_OPEN, np.ones((3, 3), np.uint8))
    contours, hier = cv2.findContours(mask, cv2.RETR_CCOMP, cv2.CHAIN_APPROX_SIMPLE)
    if hier is None:
        return []
    hier = hier[0]
    out = []
    for i, c in enumerate(contours):
        if hier[i][3] != -1:
            continue   # a hole; counted with its parent
        area = cv2.contourArea(c)
        if area < cfg.min_face_frac * area_img or area > 7 * cfg.max_face_frac * area_img:
            continue
        quad = _quad_of(c)
        face = _Face(quad, float(area))
        if face.height < 8 or face.width < 6 or face.height > 0.35 * h:
            continue
        # a face fills its quad (the letter's hole filled); clutter and table patches rarely do
        if area < 0.62 * max(cv2.contourArea(quad.reshape(-1, 1, 2)), 1.0):
            continue
        if face.width / max(face.height, 1) < 0.35:
            continue
        if colour is None:   # the region's own colour
            x, y, bw, bh = cv2.boundingRect(c)
            own = np.zeros((bh, bw), np.uint8)
            cv2.drawContours(own, [c - [x, y]], -1, 1, -1)
            region = (own > 0) & (mask[y:y + bh, x:x + bw] > 0)
            colour = np.median(lab[y:y + bh, x:x + bw][region], axis=0) if region.any() else None
            if colour is None:
                continue
        n_tiles = max(1, round(face.width / max(face.height, 1)))
        letters = _ink_letters(lab, quad, colour, n_tiles)
        out.append(_Face(quad, float(area), letters, colour))
        colour = given
    return out


def _ink_letters(lab: np.ndarray, quad: np.ndarray, colour: np.ndarray, n_tiles: int) -> int:
    """How many of a region's ``n_tiles`` tiles show a letter: ink (far from the face's colour)
    over a letter's share of the tile's middle, tall as a letter."""
    side = 20
    dst = np.float32([[0, 0], [side * n_tiles, 0], [side * n_tiles, side], [0, side]])
    h = cv2.getPerspectiveTransform(quad.astype(np.float32), dst)
    warp = cv2.warpPerspective(lab, h, (side * n_tiles, side), flags=cv2.INTER_LINEAR)
    ink = np.linalg.norm(warp - colour, axis=2) > 40
    count = 0
    for t in range(n_tiles):
        whole = ink[:, t * side:(t + 1) * side]
        cell = whole[3:side - 3, 3:side - 3]
        ring = np.concatenate([whole[:2].ravel(), whole[-2:].ravel(), whole[:, :2].ravel(), whole[:, -2:].ravel()])
        rows = np.flatnonzero(cell.any(axis=1))
        # the ink lies inside a plain face: the face's rim is the face's colour
        if 0.05 <= cell.mean() <= 0.6 and ring.mean() < 0.25 and len(rows) \
                and rows[-1] - rows[0] >= 0.3 * cell.shape[0]:
            count += 1
    return count


def _distinct(faces: list[_Face], limit: int = 400, depth: int = 0) -> list[_Face]:
    """One candidate per place: of faces whose centres lie within each other, the one with more
    letters (then the larger); at most ``limit`` (a busy frame's clutter is not a rack)."""
    out: list[_Face] = []
    boxes = np.zeros((0, 4), np.float32)
    for f in sorted(faces, key=lambda f: (f.letters, f.area), reverse=True)[:limit]:
        c = f.centre
        near = np.flatnonzero((boxes[:, 0] <= c[0]) & (c[0] <= boxes[:, 2]) & (boxes[:, 1] <= c[1]) & (c[1] <= boxes[:, 3]))
        if all(cv2.pointPolygonTest(out[j].quad.reshape(-1, 1, 2), (float(c[0]), float(c[1])), False) < 0 for j in near):
            out.append(f)
            boxes = np.vstack([boxes, np.concatenate([f.quad.min(axis=0), f.quad.max(axis=0)])[None]])
    if depth:
        return out
    # a region that holds other faces showing more letters than its own (the rack's wall or ledge
    # around a few tiles, whose faces it counts as a letter's holes) is those faces, not one face
    # (faces about as tall as it: a letter's own parts inside a tile are not)
    final: list[_Face] = []
    kept = {id(f) for f in out}
    for g in out:
        poly = g.quad.reshape(-1, 1, 2)
        inner = [f for f in faces if id(f) not in kept and f.area < 0.5 * g.area and f.letters and
                 f.height >= 0.6 * g.height and
                 cv2.pointPolygonTest(poly, tuple(map(float, f.centre)), False) >= 0]
        sub = _distinct(inner, limit, depth + 1) if inner else []
        lettered = sum(f.letters for f in sub)
        final += sub if lettered > g.letters else [g]
    return list({id(f): f for f in final}.values())   # a face inside two regions once


def _clusters(image: np.ndarray, k: int) -> np.ndarray:
    """Each pixel's colour cluster (of ``k``): k-means in Lab on a quarter-size copy, every pixel
    of a half-size copy given its nearest cluster."""
    h, w = image.shape[:2]
    small = cv2.resize(image, (w // 4, h // 4), interpolation=cv2.INTER_AREA)
    lab_small = cv2.cvtColor(small, cv2.COLOR_BGR2Lab).reshape(-1, 3).astype(np.float32)
    crit = (cv2.TERM_CRITERIA_EPS + cv2.TERM_CRITERIA_MAX_ITER, 12, 1.0)
    cv2.setRNGSeed(7)
    _, _, centres = cv2.kmeans(lab_small, k, None, crit, 1, cv2.KMEANS_PP_CENTERS)
    half = cv2.cvtColor(image[::2, ::2], cv2.COLOR_BGR2Lab).astype(np.float32)
    d2 = ((half[:, :, None, :] - centres[None, None]) ** 2).sum(axis=3)
    return cv2.resize(d2.argmin(axis=2).astype(np.uint8), (w, h), interpolation=cv2.INTER_NEAREST)


def find_rack(image: np.ndarray, cfg: FindConfig | None = None) -> RackFix | None:
    """The rack's slots left to right (none: an empty rack), or None when no rack is in the frame."""
    cfg = cfg or FindConfig()
    h, w = image.shape[:2]
    labels = _clusters(image, cfg.colours)
    lab = cv2.cvtColor(image, cv2.COLOR_BGR2Lab).astype(np.float32)
    grey = cv2.cvtColor(image, cv2.COLOR_BGR2GRAY)
    # edges part faces from each other and from a rack of their own colour
    edges = cv2.dilate(cv2.Canny(cv2.GaussianBlur(grey, (3, 3), 0), 30, 90), np.ones((2, 2), np.uint8)) > 0
    # candidate faces: the regions the edges enclose, and each colour's regions
    faces = _regions((~edges).astype(np.uint8) * 255, cfg, lab, None)
    for k in range(cfg.colours):
        faces += _regions(((labels == k) & ~edges).astype(np.uint8) * 255, cfg, lab, None)
    faces = _distinct(faces)
    row = _row(faces, cfg.height_tolerance)
    if not row:
        return _empty(labels, grey, cfg, image)
    # second look: the faces' own colour, with a tolerance from their spread (tiles differ in tint)
    inside = np.zeros((h, w), np.uint8)
    for f in row:
        cv2.fillConvexPoly(inside, np.int32(np.round(f.quad)), 1)
    face_lab = np.median([f.colour for f in row], axis=0)
    dist = np.linalg.norm(lab - face_lab, axis=2)
    member = (inside > 0) & (dist < 30)
    d_in = dist[member]
    tol = float(np.clip(2.5 * np.percentile(d_in, 75), 16.0, 45.0)) if d_in.size else 22.0
    face_mask = ((dist < tol) * 255).astype(np.uint8)
    hand = hand_mask(image, dist >= tol)
    slots = _band_slots(row, dist < tol, hand, lab, face_lab, cfg)
    if not slots:
        return _empty(labels, grey, cfg, image)
    if len(slots) > 7:
        # a rack holds 7 tiles: of more slots, the 7 in a row that show the most letters, then the
        # most faces (a patch of paper or table the faces' colour, or a hand beside the rack, at an
        # end is not a tile); an unseen slot dropped here is never read, so no hidden tile is
        lettered = [s.seen and bool(_ink_letters(lab, s.quad, face_lab, 1)) for s in slots]
        seen = [s.seen for s in slots]
        k = max(range(len(slots) - 6), key=lambda i: (sum(lettered[i:i + 7]), sum(seen[i:i + 7]), -i))
        slots = slots[k:k + 7]
    pitch = float(np.median(np.diff([s.quad.mean(axis=0)[0] for s in slots]))) if len(slots) > 1 else \
        float(np.linalg.norm(slots[0].quad[1] - slots[0].quad[0]))
    return RackFix(tuple(slots[:7]), np.asarray(face_lab, np.float32), pitch)


def _line(points: np.ndarray) -> tuple[float, float]:
    """y = a x + b through points (a level line through one point)."""
    if len(points) < 2 or np.ptp(points[:, 0]) < 1:
        return 0.0, float(points[:, 1].mean())
    a, b = np.polyfit(points[:, 0], points[:, 1], 1)
    return float(a), float(b)


def _refine_lines(face: np.ndarray, quads: np.ndarray, ta: float, tb: float, ba: float, bb: float,
                  tile_h: float) -> tuple[float, float, float, float, float]:
    """The row's top and bottom lines fitted again to the face colour itself (letters filled in):
    in each column near the seeds, the run of face through the row's middle, when about a tile
    high. The seeds' own quads are often a tile's part (a seam, a letter's edge cut them)."""
    h, w = face.shape
    filled = _fill_holes(face.astype(np.uint8) * 255) > 0
    x0 = int(max(0, quads[:, :, 0].min() - 2 * tile_h))
    x1 = int(min(w - 1, quads[:, :, 0].max() + 2 * tile_h))
    tops, bots = [], []
    for x in range(x0, x1, 2):
        yc = int(round(((ta + ba) * x + tb + bb) / 2))
        if not 0 <= yc < h or not filled[yc, x]:
            continue
        colm = filled[:, x]
        up = yc
        while up > 0 and colm[up - 1]:
            up -= 1
        dn = yc
        while dn < h - 1 and colm[dn + 1]:
            dn += 1
        if 0.6 * tile_h <= dn - up + 1 <= 1.6 * tile_h:
            tops.append((x, up))
            bots.append((x, dn + 1))
    if len(tops) < 10:
        return ta, tb, ba, bb, tile_h
    out = []
    for pts in (np.array(tops, float), np.array(bots, float)):
        a, b = np.polyfit(pts[:, 0], pts[:, 1], 1)
        for _ in range(2):   # drop the columns off the line (a letter's notch, a neighbour's edge)
            keep = np.abs(pts[:, 1] - (a * pts[:, 0] + b)) <= max(2.0, 0.06 * tile_h)
            if keep.sum() < 6:
                break
            a, b = np.polyfit(pts[keep, 0], pts[keep, 1], 1)
        out += [float(a), float(b)]
    mid = (x0 + x1) / 2
    new_h = (out[2] * mid + out[3]) - (out[0] * mid + out[1])
    if not 0.6 * tile_h <= new_h <= 1.6 * tile_h:
        return ta, tb, ba, bb, tile_h
    return out[0], out[1], out[2], out[3], float(new_h)


def _plain_rim(face: np.ndarray, quad: np.ndarray, side: int = 20, share: float = 0.5) -> bool:
    """The middle of each of a face's four edges is the face's colour (a letter stays inside, the
    value sits in a corner): nothing lies over part of the tile."""
    dst = np.float32([[0, 0], [side, 0], [side, side], [0, side]])
    h = cv2.getPerspectiveTransform(np.asarray(quad, np.float32), dst)
    m = cv2.warpPerspective(face.astype(np.uint8), h, (side, side), flags=cv2.INTER_NEAREST) > 0
    a, b, lo, hi = 1, 5, 6, side - 6
    # each side's band as lines along the edge: a quad a pixel or two off the tile's edge has an
    # outer line off the face but an inner line on it; something over the edge covers every line.
    # The band as a whole stays 30 % face: a hand over a tile's edge's outer part is not let through
    # (without this floor one more hidden tile was given a letter, held-out hands: 3 of 73, not 2)
    sides = (m[a:b, lo:hi].mean(axis=1), m[side - b:side - a, lo:hi].mean(axis=1),
             m[lo:hi, a:b].mean(axis=0), m[lo:hi, side - b:side - a].mean(axis=0))
    return min(float(x.max()) for x in sides) >= share and min(float(x.mean()) for x in sides) >= 0.3


def _covered(hand: np.ndarray, quad: np.ndarray, share: float) -> bool:
    m = np.zeros(hand.shape, np.uint8)
    cv2.fillConvexPoly(m, np.int32(np.round(quad)), 1)
    n = int(m.sum())
    return n > 0 and float((hand & (m > 0)).sum()) / n >= share


def _runs(on: np.ndarray) -> list[tuple[int, int]]:
    """[start, end) of each run of True."""
    d = np.diff(np.concatenate([[0], on.astype(np.int8), [0]]))
    return list(zip(np.flatnonzero(d == 1), np.flatnonzero(d == -1)))


def _band_slots(row: list[_Face], face: np.ndarray, hand: np.ndarray, lab: np.ndarray, face_lab: np.ndarray,
                cfg: FindConfig, height: int = 32) -> list[Slot]:
    """The row's slots read off a band along it: the band between the faces' top and bottom
    lines, rectified to ``height`` rows; a tile is a run of columns whose top and bottom edges
    are face-coloured (letters rarely reach there), runs of several touching tiles cut at the
    tiles' pitch where the faces dip (the rounded corners, the seam), a run of hand as wide as
    tiles an unseen slot."""
    h, w = face.shape
    quads = np.array([f.quad for f in row])
    ta, tb = _line(quads[:, [0, 1]].reshape(-1, 2))
    ba, bb = _line(quads[:, [3, 2]].reshape(-1, 2))
    side = np.median(np.concatenate([quads[:, 3] - quads[:, 0], quads[:, 2] - quads[:, 1]]), axis=0)
    tile_h = float(np.linalg.norm(side))
    if tile_h < 6:
        return []
    vhat = side / tile_h
    ta, tb, ba, bb, tile_h = _refine_lines(face, quads, ta, tb, ba, bb, tile_h)
    x_lo = max(0.0, float(quads[:, :, 0].min()) - 9 * tile_h)
    x_hi = min(w - 1.0, float(quads[:, :, 0].max()) + 9 * tile_h)

    def top(x):
        return np.array([x, ta * x + tb])

    def down(p):   # from a top point along the tiles' sides to the bottom line
        t = (ba * p[0] + bb - p[1]) / (vhat[1] - ba * vhat[0]) if abs(vhat[1] - ba * vhat[0]) > 1e-6 else tile_h
        return p + t * vhat

    tl, tr = top(x_lo), top(x_hi)
    bl, br = down(tl), down(tr)
    scale = height / tile_h
    length = int(np.clip(np.linalg.norm(tr - tl) * scale, 8, 4000))
    src = np.float32([tl, tr, br, bl])
    dst = np.float32([[0, 0], [length, 0], [length, height], [0, height]])
    hom = cv2.getPerspectiveTransform(src, dst)
    inv = np.linalg.inv(hom)
    fm = cv2.warpPerspective(face.astype(np.uint8), hom, (length, height), flags=cv2.INTER_NEAREST) > 0
    hm = cv2.warpPerspective(hand.astype(np.uint8), hom, (length, height), flags=cv2.INTER_NEAREST) > 0
    inside = cv2.warpPerspective(np.ones((h, w), np.uint8), hom, (length, height), flags=cv2.INTER_NEAREST) > 0
    band = max(2, height // 5)
    col = (fm[1:band].mean(axis=0) + fm[-band:-1].mean(axis=0)) / 2   # a tail (Q, J) reaches one band
    full = fm.mean(axis=0)
    handcol = hm.mean(axis=0)
    # the tile's width in the band, from the seeds that look like one tile
    seeds = []
    for q in quads:
        xs = cv2.perspectiveTransform(q.reshape(1, 4, 2).astype(np.float32), hom)[0][:, 0]
        seeds.append((xs.min(), xs.max()))
    on = (col > 0.45) | (full > 0.7)
    # the tile's width in the band: the narrowest runs that can be one tile (touching tiles make
    # longer runs, a multiple of it), else the seeds that look like one tile
    lengths = sorted(b - a for a, b in _runs(on) if b - a >= 0.6 * height)
    widths = [b - a for a, b in seeds if 0.5 * height <= b - a <= 1.5 * height]
    if lengths and lengths[0] <= 2.2 * height:
        tile_w = float(np.median([x for x in lengths if x <= 1.3 * lengths[0]]))
    else:
        tile_w = float(np.median(widths)) if widths else 0.95 * height
    # no run a lone tile (all of them touching tiles): the faces found on their own (three or
    # more, alike) tell one tile
    alike = [x for x in widths if abs(x - np.median(widths)) <= 0.15 * np.median(widths)] if widths else []
    if len(alike) >= 3 and tile_w >= 1.4 * float(np.median(alike)):
        tile_w = 1.05 * float(np.median(alike))
    # runs of touching tiles are whole multiples of the pitch: when the runs say a tile is narrower
    # than the narrowest run (that run a tile and a gap, or a leaning tile), take the width that
    # makes them whole, at most 7 tiles in all
    multi = np.array([x for x in lengths if x >= 1.5 * tile_w], float)
    if len(multi):
        def misfit(tw):
            r = multi / tw
            return float(np.sum((r - np.round(r)) ** 2))
        cands = [tw for tw in np.linspace(0.75 * tile_w, 1.1 * tile_w, 36)
                 if sum(max(1, round(x / tw)) for x in lengths) <= 7]
        if cands and misfit(tile_w) > 0.05:
            best = min(cands, key=lambda tw: misfit(tw) + 0.02 * abs(tw / tile_w - 1))
            if misfit(best) < 0.5 * misfit(tile_w):
                tile_w = float(best)
    segments: list[tuple[float, float, bool]] = []
    for a, b in _runs(on):
        n = int(round((b - a) / tile_w))
        if n == 0:
            if (b - a) >= 0.55 * tile_w:
                n = 1
            else:
                continue
        cuts = [float(a)]
        for k in range(1, n):
            c = a + k * (b - a) / n
            r = max(1, int(0.18 * tile_w))
            lo, hi = int(max(c - r, a + 1)), int(min(c + r + 1, b - 1))
            cuts.append(float(lo + int(np.argmin(col[lo:hi] + 0.5 * full[lo:hi]))) if hi > lo else c)
        cuts.append(float(b))
        for x0, x1 in zip(cuts[:-1], cuts[1:]):
            if x1 - x0 < 0.55 * tile_w:
                continue
            near_hand = handcol[max(int(x0 - tile_w), 0):int(x1 + tile_w)].mean() >= 0.05
            seen = (x1 - x0) >= cfg.fragment * tile_w and handcol[int(x0):int(x1)].mean() < cfg.skin_share
            if not seen and not near_hand:
                # a tile cut short with no hand about (a letter's tail, a shadow): the whole tile
                mid = (x0 + x1) / 2
                x0, x1, seen = max(mid - tile_w / 2, 0.0), min(mid + tile_w / 2, float(length)), True
            if seen:
                # a tile: face colour down its whole height, and a letter's ink or none at all (a
                # blank); a stretch of rack of the faces' colour shows neither
                q = cv2.perspectiveTransform(np.float32([[[x0, 0], [x1, 0], [x1, height], [x0, height]]]), inv)[0]
                filled = float(full[int(x0):int(x1)].mean())
                lettered = bool(_ink_letters(lab, q, face_lab, 1))
                if filled < 0.5 or (filled < 0.85 and not lettered):
                    continue
                segments.append((x0, x1, seen, lettered))
                continue
            segments.append((x0, x1, seen, False))
    # hand over tile-wide stretches next to the tiles: unseen slots
    hidden = (handcol > cfg.skin_share) & ~on & inside.mean(axis=0).astype(bool)
    # a face with no letter (a blank, or the table's colour) counts only in a chain of slots that
    # reaches a lettered face, each within a tile and a half of the next
    keep = [i for i, sg in enumerate(segments) if sg[3] or not sg[2]]
    grown = True
    while grown:
        grown = False
        for i, sg in enumerate(segments):
            if i in keep:
                continue
            mid = (sg[0] + sg[1]) / 2
            if any(abs(mid - (segments[j][0] + segments[j][1]) / 2) <= 1.6 * tile_w for j in keep
                   if segments[j][2]):
                keep.append(i)
                grown = True
    segments = [segments[i][:3] for i in sorted(keep)]
    tiles_at = [(x0, x1) for x0, x1, _ in segments]
    for a, b in _runs(hidden):
        if not any(abs(a - x1) <= 0.5 * tile_w or abs(b - x0) <= 0.5 * tile_w for x0, x1 in tiles_at):
            continue   # a hand beside the rack, not over a slot next to its tiles
        n = int(round((b - a) / (tile_w * 1.05)))
        for k in range(n):
            x0 = a + k * (b - a) / n
            segments.append((x0, x0 + (b - a) / n, False))
    if not any(s for _, _, s in segments):
        return []
    segments.sort()
    # only the stretch of the row around its faces: drop far runs that are no tiles (clutter)
    seen_x = [(x0 + x1) / 2 for x0, x1, s in segments if s]
    seed_mid = [(a + b) / 2 for a, b in seeds]
    lo_x, hi_x = min(seed_mid) - 7.5 * tile_w, max(seed_mid) + 7.5 * tile_w
    out = []
    for x0, x1, seen in segments:
        if not lo_x <= (x0 + x1) / 2 <= hi_x:
            continue
        q = cv2.perspectiveTransform(np.float32([[[x0, 0], [x1, 0], [x1, height], [x0, height]]]), inv)[0]
        out.append(Slot(q.astype(np.float32), bool(seen)))
    del seen_x
    # a face found on its own that the band missed (a tile leaning out of line): a slot of its own
    for f in row:
        single = 0.5 <= f.width / max(f.height, 1.0) <= 1.5
        c = tuple(map(float, f.centre))
        if single and all(cv2.pointPolygonTest(s.quad.reshape(-1, 1, 2), c, False) < 0 or not s.seen for s in out) \
                and handcol.mean() < 1.0 and not _covered(hand, f.quad, cfg.skin_share):
            out = [s for s in out if cv2.pointPolygonTest(f.quad.reshape(-1, 1, 2),
                                                          tuple(map(float, s.quad.mean(axis=0))), False) < 0]
            out.append(Slot(f.quad.astype(np.float32), True))
    # a slot a hand reaches over at all is unseen: never read a tile part hidden. A hand not told
    # by its colour still breaks the face's plain rim; and a rack holds no more blanks than the bag
    # (cfg.max_blanks): more faces without a letter are something over the rack, not blanks
    out = [Slot(s.quad, False) if s.seen and (_covered(hand, s.quad, 0.08) or not _plain_rim(face, s.quad))
           else s for s in out]
    u = np.array([1.0, ta])
    out = sorted(out, key=lambda s: float(s.quad.mean(axis=0) @ u))
    letterless = [i for i, s in enumerate(out) if s.seen and not _ink_letters(lab, s.quad, face_lab, 1)]
    if len(letterless) > cfg.max_blanks and not hand.any():
        # no hand in the frame: more faces with no letter than the bag has blanks are a stretch of
        # rack (or table) the faces' colour beside fewer than seven tiles, not tiles: no slots (a
        # blank among them goes with them; better than calling bare rack blanks or hidden tiles)
        out = [s for i, s in enumerate(out) if i not in letterless]
        letterless = []
    if len(letterless) > cfg.max_blanks:
        out = [Slot(s.quad, False) if i in letterless else s for i, s in enumerate(out)]
    return out


def _slots(tiles: list[_Face], face_lab: np.ndarray, skin: np.ndarray, cfg: FindConfig) -> RackFix:
    widths = np.array([t.width for t in tiles])
    heights = np.array([t.height for t in tiles])
    full_w, full_h = float(np.percentile(widths, 75)), float(np.percentile(heights, 75))
    cx = np.array([t.centre[0] for t in tiles])
    steps = np.diff(cx)
    pitch = float(np.median(steps[steps > 0.7 * full_w])) if (steps > 0.7 * full_w).any() else full_w * 1.06
    slots: list[Slot] = []
    for i, t in enumerate(tiles):
        if i:
            prev = tiles[i - 1]
            gap = t.centre[0] - prev.centre[0]
            n_missing = int(round(gap / pitch)) - 1
            if n_missing > 0:
                for j in range(1, n_missing + 1):
                    q = _shift(prev.quad if prev.width >= cfg.fragment * full_w else t.quad,
                               j / (n_missing + 1) * (t.centre - prev.centre) + prev.centre -
                               (prev.quad if prev.width >= cfg.fragment * full_w else t.quad).mean(axis=0))
                    if _skin_share(skin, q) >= cfg.skin_share:
                        slots.append(Slot(q, False))
        short = t.width < cfg.fragment * full_w or t.height < cfg.fragment * full_h
        slots.append(Slot(t.quad, not short))
    # slots hidden at either end of the row
    seen = [s for s in slots if s.seen] or slots
    step = (seen[-1].quad.mean(axis=0) - seen[0].quad.mean(axis=0)) / max(len(seen) - 1, 1) \
        if len(seen) > 1 else np.array([pitch, 0.0])
    if np.linalg.norm(step) < 0.5 * full_w:
        step = np.array([pitch, 0.0])
    step = step / np.linalg.norm(step) * pitch
    for side in (-1, 1):
        edge = slots[0] if side < 0 else slots[-1]
        base = edge.quad if edge.seen else seen[0 if side < 0 else -1].quad
        k = 1
        while len(slots) < 7:
            q = _shift(base, side * k * step + (edge.quad.mean(axis=0) - base.mean(axis=0)))
            if not _inside(q, skin.shape) or _skin_share(skin, q) < cfg.skin_share:
                break
            if side < 0:
                slots.insert(0, Slot(q, False))
            else:
                slots.append(Slot(q, False))
            k += 1
    return RackFix(tuple(slots[:7]), np.asarray(face_lab, np.float32), pitch)


def _shift(q: np.ndarray, d) -> np.ndarray:
    return (np.asarray(q, np.float32) + np.asarray(d, np.float32)).astype(np.float32)


def _inside(q: np.ndarray, shape) -> bool:
    h, w = shape[:2]
    c = q.mean(axis=0)
    return 0 <= c[0] < w and 0 <= c[1] < h


def _skin_share(skin: np.ndarray, q: np.ndarray) -> float:
    m = np.zeros(skin.shape, np.uint8)
    cv2.fillConvexPoly(m, np.int32(np.round(q)), 1)
    n = int(m.sum())
    return float((skin & (m > 0)).sum()) / n if n else 0.0


def _empty(labels: np.ndarray, grey: np.ndarray, cfg: FindConfig,
           image: np.ndarray | None = None) -> RackFix | None:
    """No row of tiles: an empty rack (a fix with no slots) when the rack's body shows as a long
    thin strip and nothing stands on it (few upright edges a tile and more above it), else None.
    No strip in the frame's clusters: looked for again in the clusters of a blurred copy of
    ``image``, when given; in a dim, noisy frame (a webcam's) the clusters split the rack and the
    table into grain and no strip holds together (one of bench_rack's four empty training racks, and
    14 of 40 more, were "no rack" so). Nothing may stand on the strip: few upright edges along the
    band (cfg.empty_edges) and no tile-wide peak of them (cfg.empty_peak: a lone tile)."""
    bar = _find_bar(labels, cfg.colours)
    if bar is None and image is not None:
        bar = _find_bar(_clusters(cv2.GaussianBlur(image, (0, 0), BAR_BLUR), cfg.colours), cfg.colours)
    if bar is None:
        return None
    edges = _above(grey, bar)
    if np.percentile(edges, 90) >= cfg.empty_edges or np.percentile(edges, 98) >= cfg.empty_peak:
        return None
    return RackFix((), np.zeros(3, np.float32), float(bar[1][0]) / 8.2)


BAR_BLUR = 2.0   # px: the blur before the second look for an empty rack's strip (_empty)


def _bar(masks: list[np.ndarray], w: int) -> tuple | None:
    """The longest long thin strip of one colour in the frame (the rack's ledge, wall or base,
    seen without tiles): its minAreaRect, when it spans 30 % of the frame's width or more, is at
    least 6 times as long as thick, fills its rectangle and lies within 30 degrees of level."""
    best = None
    for mask in masks:
        contours, _ = cv2.findContours(mask, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
        for c in contours:
            if len(c) < 5:
                continue
            (cx, cy), (rw, rh), ang = cv2.minAreaRect(c)
            long, short = max(rw, rh), max(min(rw, rh), 1.0)
            if long < 0.3 * w or long / short < 3.5 or cv2.contourArea(c) < 0.7 * rw * rh:
                continue
            tilt = ang if rw >= rh else ang - 90.0
            tilt = (tilt + 90.0) % 180.0 - 90.0
            if abs(tilt) > 30:
                continue
            if best is None or long > best[1][0]:
                best = ((cx, cy), (long, short), tilt)
    return best


def _find_bar(labels: np.ndarray, k: int):
    """The rack's body without tiles: a long thin strip (_bar) of one colour cluster, on a
    half-size copy of the frame's cluster labels (closed, so a shading line does not cut it)."""
    small = labels[::2, ::2]
    h, w = small.shape
    masks = []
    for i in range(k):
        m = (small == i).astype(np.uint8) * 255
        m = cv2.morphologyEx(m, cv2.MORPH_OPEN, np.ones((3, 3), np.uint8))
        masks.append(cv2.morphologyEx(m, cv2.MORPH_CLOSE, np.ones((5, 5), np.uint8)))
    # and what is not the table (the clusters along the frame's edge): a rack shaded in parts
    # (wall, ledge, lip) that k-means puts in different clusters is one strip here
    rim = np.concatenate([small[0], small[-1], small[:, 0], small[:, -1]])
    share = np.bincount(rim, minlength=k) / len(rim)
    m = (~np.isin(small, np.flatnonzero(share >= 0.1))).astype(np.uint8) * 255
    m = cv2.morphologyEx(m, cv2.MORPH_OPEN, np.ones((3, 3), np.uint8))
    masks.append(cv2.morphologyEx(m, cv2.MORPH_CLOSE, np.ones((5, 5), np.uint8)))
    bar = _bar(masks, w)
    if bar is None:
        return None
    (cx, cy), (long, short), tilt = bar
    return (2 * cx + 0.5, 2 * cy + 0.5), (2 * long, 2 * short), tilt


def _above(grey: np.ndarray, bar, tiles: float = 1.3) -> np.ndarray:
    """Upright edges in the strip and the band a tile and more high above it, along its middle 90 %
    (the mean of each column's): tiles standing on the rack show their sides and letters there (or
    are the strip, touching); an empty rack shows its wall and ledge, whose edges run along it."""
    (cx, cy), (long, short), tilt = bar
    t = np.radians(tilt)
    u, v = np.array([np.cos(t), np.sin(t)]), np.array([np.sin(t), -np.cos(t)])   # along, up
    tile = long / 8.2
    c = np.array([cx, cy])
    half = 0.45 * long
    base, up = c - v * short / 2, short + tiles * tile   # from the strip's bottom (its face may be the tiles')
    src = np.float32([base - u * half + v * up, base + u * half + v * up, base + u * half, base - u * half])
    bh = 24
    bw = int(round(bh * 2 * half / up))
    hom = cv2.getPerspectiveTransform(src, np.float32([[0, 0], [bw, 0], [bw, bh], [0, bh]]))
    band = cv2.warpPerspective(grey, hom, (bw, bh), flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
    gx = np.abs(cv2.Sobel(band.astype(np.float32), cv2.CV_32F, 1, 0, ksize=3))
    return gx.mean(axis=0)
