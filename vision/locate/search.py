"""find_board: the search over rough quads, each fitted, refined, slid and scored; the best fix."""
from __future__ import annotations

import cv2
import numpy as np

from tilecam.vision.errors import BoardNotFound
from tilecam.vision.locate.config import LocateConfig
from tilecam.vision.locate.fix import BoardFix, order_corners
from tilecam.vision.locate.grid import slide
from tilecam.vision.locate.lines import QUALITY_STRENGTH_FRAC, line_support, quadrant_balance, refine, resolve_shift
from tilecam.vision.locate.periodic import periodic_fit
from tilecam.vision.locate.premium import premium_shift
from tilecam.vision.locate.quads import candidate_quads
from tilecam.vision.rectify import GRID, homography_from_corners


def _aspect(corners: np.ndarray) -> float:
    """Ratio of the shorter to the longer mean side pair of a quadrilateral."""
    c = np.asarray(corners, np.float64)
    side = np.linalg.norm(c - np.roll(c, -1, axis=0), axis=1)
    a, b = side[0] + side[2], side[1] + side[3]
    return float(min(a, b) / max(a, b, 1e-9))


def _finish(small: np.ndarray, grey: np.ndarray, corners: np.ndarray, scale: float,
            cfg: LocateConfig) -> tuple[np.ndarray, float, float]:
    """Final refinement of a candidate grid (small corners in, full-frame corners out), its
    quality and its fit (line pieces found, faint ones included): candidates are compared on
    what they deliver.

    The slides are checked once more on the refined grid: a rough quad can leave the spacing
    off, and once the refinement has fixed it a slide by a whole square may explain more
    pieces. The quality alone hardly sees such a slip (one row of 15 missing), so last the
    premium-square pattern may slide the grid where the lines could not decide. A finished
    grid where the pattern still fits clearly better one or two squares over gets fit 0."""
    corners = corners / scale
    for _ in range(max(1, cfg.refine_iters)):
        corners = refine(grey, corners, cfg, cfg.fit_square_px)
        corners, _, slid = resolve_shift(grey, corners, cfg)
        if not slid:
            break
    dx, dy = premium_shift(small, corners * scale, cfg)
    if dx or dy:
        corners = refine(grey, slide(corners, dx, dy), cfg, cfg.fit_square_px)
    support = (QUALITY_STRENGTH_FRAC, cfg.fit_strength_frac)
    if cfg.refine_iters > 0:
        corners = refine(grey, corners, cfg, cfg.refine_square_px)
        # once more with a narrow window: tile edges a little beside a line no longer pull it
        corners = refine(grey, corners, cfg, cfg.refine_square_px, cfg.final_window_frac)
    quality, fit, inner = line_support(grey, corners, cfg.refine_square_px, cfg.piece_tolerance_frac,
                                        support, cfg.fit_strength_frac)
    if cfg.refine_iters > 0:
        # The outer lines may not be lines of the grid's pitch (a band or outline framing it):
        # the same two passes with their offsets free. The lines both grids agree are lines, the
        # 14 inner ones, judge: the free grid is kept unless it finds fewer of their pieces (a
        # fold line or glare misleading the inner lines is then held back by the outer ones).
        alt = refine(grey, corners, cfg, cfg.refine_square_px, free_outer=True)
        alt = refine(grey, alt, cfg, cfg.refine_square_px, cfg.final_window_frac, free_outer=True)
        q2, f2, inner2 = line_support(grey, alt, cfg.refine_square_px, cfg.piece_tolerance_frac,
                                       support, cfg.fit_strength_frac)
        if inner2 >= inner:
            corners, quality, fit = alt, q2, f2
    if premium_shift(small, corners * scale, cfg) != (0, 0):
        fit = 0.0  # the premium squares still fit clearly better elsewhere: a slipped grid
    return corners, quality, fit


def _square_px(corners: np.ndarray) -> float:
    """Mean side of a grid's squares, px."""
    c = np.asarray(corners, np.float64)
    return float(np.linalg.norm(c - np.roll(c, -1, axis=0), axis=1).mean()) / GRID


def _same_grid(a: np.ndarray, b: np.ndarray, tol_squares: float) -> bool:
    """Whether two grids (corners in the same frame, any cyclic order) agree within tol_squares of a square."""
    side = float(np.linalg.norm(a - np.roll(a, -1, axis=0), axis=1).mean())
    gap = min(float(np.linalg.norm(a - np.roll(b, k, axis=0), axis=1).max()) for k in range(4))
    return gap < tol_squares * side / GRID


def _best_candidate(small, grey_small, grey, scale, cfg: LocateConfig, board_frac: float,
                    arrivals: list | None = None, finished: list | None = None, ends: list | None = None):
    """The best (full-frame corners, quality, fit) over the rough quads, by fit, or None.

    Appends to ``arrivals`` the full-frame grid every rough quad led to (before the finish, also
    when it was not finished again), to ``ends`` where it ended after the finish (its own, or
    that of the earlier quad it arrived with; None if that was not finite), and to ``finished``
    every finished (corners, quality, fit)."""
    arrivals = [] if arrivals is None else arrivals
    finished = [] if finished is None else finished
    ends = [] if ends is None else ends
    best = None
    done: list[tuple[np.ndarray, float, np.ndarray]] = []  # (corners after the slides, final fit, finished)
    for quad in candidate_quads(small, cfg, board_frac, lambda: -1.0 if best is None else best[2]):
        corners, q = periodic_fit(grey_small, quad, cfg)
        if q < cfg.min_periodic_contrast:
            continue
        # Lines first (the rim may act as line 0), then whole-square slides, judged on the
        # full frame: at the work size a square can be only ~12 px and its lines blur.
        # Twice: a slide can reveal the right lines, and refining on them removes the
        # distortion a rough quad left, which can in turn change the best slide.
        for _ in range(2):
            corners = refine(grey_small, corners, cfg, cfg.fit_square_px)
            corners, q, slid = resolve_shift(grey, corners / scale, cfg)
            corners = corners * scale
            if not slid:
                break
        if _aspect(corners) < cfg.min_aspect:  # 15 columns squeezed into a visible part: not the grid
            continue
        arrivals.append(corners / scale)
        seen = [f0 for c, f0, _ in done if _same_grid(corners, c, cfg.same_grid_squares)]
        if seen:
            ends.append(next(e for c, _, e in done if _same_grid(corners, c, cfg.same_grid_squares)))
            # A second rough quad leading to a grid already finished: it would finish the same
            # way. If that grid was good enough, two quads agreeing on it end the search.
            if max(seen) >= cfg.retry_fit:
                break
            continue
        full, quality, fit = _finish(small, grey, corners, scale, cfg)
        ok = bool(np.isfinite(full).all())
        done.append((corners, fit, full if ok else None))
        ends.append(full if ok else None)
        if not ok:
            continue
        finished.append((full, quality, fit))
        if best is None or fit > best[2]:
            best = (full, quality, fit)
        if fit >= cfg.accept_fit:  # clearly the grid: skip the other candidates
            break
    return best


def _support(grid: np.ndarray, arrivals: list, ends: list | None, tol: float) -> int:
    """How many rough quads led to a grid: arrived there, or ended there after the finish."""
    ends = ends if ends is not None else [None] * len(arrivals)
    return sum(_same_grid(grid, a, tol) or (e is not None and _same_grid(grid, e, tol))
               for a, e in zip(arrivals, ends))


def agreed_grid(finished: list, arrivals: list, cfg: LocateConfig, ends: list | None = None,
                grey: np.ndarray | None = None):
    """The best-fitting finished grid under min_fit that several rough quads led to, or None.

    On a heavily tiled board with faint printed lines (the standard beige design) even the true
    grid finds under half of its line pieces. A wrong grid (a slip, a part of the board, the
    table) is reached from one or two rough quads; the true grid from several, at both
    resolutions: with every rough quad finished at both resolutions on synthetic seeds
    1000-1499, 2000-2499 and 3000-3499 (about 3,800 wrong grids, hands included), no grid off
    by more than 5.5 px had more than two quads within 0.1 square of it, while the true grids
    under min_fit had three, five and nine. A quad counts where it arrived, and (``ends``)
    where the finish took it: rough quads off by a square or more that the finish slides onto
    the same grid agree on it too (crowded boards, where the rough quads are poor).

    With ``grey``, a grid from ``agree_low_fit`` up is accepted as well when its line pieces are
    found in every quarter of the board (a soft, crowded photo: tiles hide pieces everywhere).
    The one synthetic wrong grid in that band with agreeing quads (seed 1182, dragged 0.35 square
    off at one corner) found them in two quarters only."""
    def spread(f) -> bool:
        return grey is not None and quadrant_balance(grey, f[0], cfg.refine_square_px, cfg.piece_tolerance_frac,
                                                     cfg.fit_strength_frac) >= cfg.agree_min_balance
    ok = [f for f in finished if f[2] >= min(cfg.agree_min_fit, cfg.agree_low_fit)
          and _support(f[0], arrivals, ends, cfg.agree_squares) >= cfg.agree_min_quads
          and (f[2] >= cfg.agree_min_fit or spread(f))]
    return max(ok, key=lambda f: f[2]) if ok else None


def find_board(image: np.ndarray, cfg: LocateConfig) -> BoardFix:
    """Locate the 15x15 grid; raises BoardNotFound with a reason."""
    if image is None or image.ndim not in (2, 3) or min(image.shape[:2]) < 64:
        raise BoardNotFound("image too small or unreadable")
    if image.ndim == 2:
        image = cv2.cvtColor(image, cv2.COLOR_GRAY2BGR)
    h, w = image.shape[:2]
    # An integer reduction keeps INTER_AREA on its fast path.
    factor = max(1, int(round(max(h, w) / cfg.work_px)))
    small = cv2.resize(image, (w // factor, h // factor), interpolation=cv2.INTER_AREA) if factor > 1 else image
    scale = small.shape[1] / w
    grey_small = cv2.cvtColor(small, cv2.COLOR_BGR2GRAY)
    if float(grey_small.std()) < 2.0:
        raise BoardNotFound("blank image")

    grey = cv2.cvtColor(image, cv2.COLOR_BGR2GRAY)
    arrivals: list[np.ndarray] = []
    ends: list[np.ndarray | None] = []
    finished: list[tuple[np.ndarray, float, float]] = []
    best = _best_candidate(small, grey_small, grey, scale, cfg, 1.0, arrivals, finished, ends)
    if factor > 1 and (best is None or best[2] < cfg.min_fit
                       or (best[2] < cfg.retry_fit and _square_px(best[0]) * scale < cfg.retry_below_square_px)):
        # A small board: its squares may be ~10 px at the work size. Look again at double
        # resolution with kernels for a board half the frame's size.
        f2 = max(1, factor // 2)
        small = cv2.resize(image, (w // f2, h // f2), interpolation=cv2.INTER_AREA) if f2 > 1 else image
        scale = small.shape[1] / w
        grey_small = cv2.cvtColor(small, cv2.COLOR_BGR2GRAY)
        again = _best_candidate(small, grey_small, grey, scale, cfg, 0.5, arrivals, finished, ends)
        if again is not None and (best is None or again[2] > best[2]):
            best = again
    agreed = None
    if best is not None and best[2] < cfg.min_fit:
        agreed = agreed_grid(finished, arrivals, cfg, ends, grey)
        best = agreed or best
    if best is not None and best[2] < cfg.min_fit and agreed is None:
        # Nothing accepted: a second look at the finished grids with the fit measured at the
        # width their lines show (an out-of-focus photo). Only grids whose lines are wider than
        # the piece tolerance are rescored, and the same acceptance applies. This runs only when
        # find_board would otherwise fail, so it changes no grid found without it.
        rescored = []
        for c, q, f in finished:
            f2 = line_support(grey, c, cfg.refine_square_px, cfg.piece_tolerance_frac,
                               (cfg.fit_strength_frac,), blurred=True)[0]
            rescored.append((c, q, max(f, f2)))
        top = max(rescored, key=lambda r: r[2])
        if top[2] >= cfg.min_fit:
            best = top
        else:
            agreed = agreed_grid(rescored, arrivals, cfg, ends, grey)
            best = agreed or best
    if best is None:
        raise BoardNotFound("no periodic 15x15 line pattern")
    corners, quality, fit = best
    side_px = np.sqrt(abs(cv2.contourArea(corners)))
    if side_px < np.sqrt(cfg.min_board_area_frac * grey.size) * 0.7:
        raise BoardNotFound("grid too small")
    if fit < cfg.min_fit and agreed is None:
        raise BoardNotFound(f"grid lines too weak (fit {fit:.2f}, quality {quality:.2f})")
    if _aspect(corners) < cfg.min_aspect:
        raise BoardNotFound("grid sides too unequal")
    corners = order_corners(corners)
    if not cv2.isContourConvex(corners.reshape(-1, 1, 2)):
        raise BoardNotFound("fitted grid is not convex")
    return BoardFix(corners, homography_from_corners(corners, cfg.square_px), quality)
