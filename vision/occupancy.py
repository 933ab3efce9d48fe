"""Occupancy from the board's own consistency: tile or empty, decided per board.

The classifier reads each square alone, and on a board it never saw it reads light tiles on
light squares as empty, wooden blanks as empty and printed labels as blanks. A board is more
than 225 separate crops: the layout says which squares share a print (plain, double letter,
triple word, the centre...), and the empty squares of one print look alike, while the tiles of
one set look alike whatever square they stand on. So each square is compared with this board's
own two looks: its print's empty squares and the set's tiles.

- The look of a square is the median colour (CIE Lab) of its inner part: the face of a tile or
  the square's print, robust to the letter's ink and to a label's small text.
- The tiles' look is taken from the squares the reader is sure hold a letter (seeds). With fewer
  than min_seeds of them (light wooden tiles, faint or blurred letters: issue 44), from the
  standouts: squares the network reads as a tile that stand well off their print's look; such a
  look only finds tiles (the ratio is never positive), it never removes one the network read.
- The empty look of each print is the median of that print's other squares, refined twice with
  the squares that look like the tiles left out (a finished board covers most of a print).
- log LR(empty : tile) = weight * ln((d_tile + s) / (d_empty + s)), clipped, where d are the Lab
  distances to the two looks and s the board's own spread of empty squares about their print's
  look; it is added to the log-odds of P(empty) (vision.classify.fuse_empty_ratio).

Print the board's designers never put there does not pass for a tile: a fold line or a stain on
a plain square leaves its median colour a plain square's; squares coloured without text, or
labels in another language, are one print whose squares look alike. A blank tile has no ink to
read but the set's colour, so it moves away from "empty" as a lettered tile does.

With an empty-board reference (vision.reference, the clear board at the game's start) each
square's own empty look is known and the reference decides; this module is for the boards
without one (a single photo, a recorder before its first clear frame).

The weight, the clip and the seed probability are chosen on real boards leaving one out
(tests/bench/bench_occupancy.py: ScrabScrap's, the 1948 board, the red Hasbro game): each
board's figures are measured with the values chosen on the other two; the defaults here are
the values chosen on all three (weight 3, clip 6, the network's weight on bare squares 0;
models/README.md, docs/results/occupancy.json).
"""
from __future__ import annotations

import cv2
import numpy as np
from pydantic import BaseModel, ConfigDict, Field

from tilecam.vision.rectify import GRID

__all__ = ["OccupancyConfig", "ink_deviations", "ink_shares", "letterless", "light_gradient", "log_ratio", "looks", "print_classes",
           "print_read_as_blank"]

LOOK_PX = 16          # pixels per square at which looks are measured
LOOK_INNER = (3, 13)  # the inner 10 x 10 of 16: off the grid line, and off a neighbour's lean
INK_PX = 32           # pixels per square at which ink is measured
INK_INNER = (6, 26)   # the inner 20 x 20 of 32: the letter, off the tile's edge and bevel
INK_LEVEL = 25        # grey levels from the square's own median that count as ink
INK_PEAK = 99         # percentile of a square's deviations from its median: its ink's contrast


class OccupancyConfig(BaseModel):
    """How the board's own looks become a likelihood ratio on P(empty)."""
    model_config = ConfigDict(extra="forbid", frozen=True)

    weight: float = Field(default=3.0, ge=0.0, le=20.0,
                          description="log LR per unit of ln(distance ratio); 0 turns the rule off")
    clip: float = Field(default=6.0, gt=0.0, le=20.0,
                        description="largest |log LR|: the board's looks never outweigh a reading "
                                    "surer than exp(clip) to 1")
    seed_prob: float = Field(default=0.8, gt=0.5, lt=1.0,
                             description="a square read as a letter with at least this probability "
                                         "is a seed of the tiles' look")
    min_seeds: int = Field(default=4, ge=1,
                           description="fewer tile seeds than this: no tiles' look, no ratio")
    no_ink: float = Field(default=0.2, ge=0.0, lt=1.0,
                          description="a square whose ink share is under this share of the sure tiles' "
                                      "median shows no letter (a blank, or an empty square): its letters "
                                      "keep odds no_ink_factor. Blanks measure 0 on every real board here, "
                                      "letters' 5th percentile 0.47-0.53 of the median: 0.2 lies in the gap "
                                      "on each board; 0 turns it off")
    no_ink_factor: float = Field(default=0.01, gt=0.0, le=1.0,
                                 description="odds a letter keeps on a square that shows no ink "
                                             "(fixed by reasoning, 100:1, as the lone-tile rule)")
    bare_network_weight: float = Field(default=0.0, ge=0.0, le=1.0,
                                       description="on a square with no ink, the weight of the network's "
                                                   "own odds of empty against a blank beside the board's "
                                                   "looks (the network is colour-blind: 0, the looks alone)")
    min_print_squares: int = Field(default=4, ge=1,
                                   description="a print on fewer squares has no empty look of its own "
                                               "(the centre's star: its one square's look is whatever "
                                               "lies on it); no evidence there. Fixed by reasoning")
    outlier_spreads: float = Field(default=5.0, ge=0.0,
                                   description="with fewer sure letters than min_seeds, the tiles' look is "
                                               "taken from the squares the network reads as a tile (P(empty) "
                                               "< 0.5) whose look stands this many spreads off their print's; "
                                               "0 turns it off")
    min_outlier_seeds: int = Field(default=1, ge=1,
                                   description="fewer such squares than this: no tiles' look, no ratio")
    spread_floor: float = Field(default=2.0, gt=0.0,
                                description="smallest spread (Lab units) of the empty squares about "
                                            "their print's look: a camera's noise")


def print_classes(layout_rows) -> np.ndarray:
    """(size*size,) int: squares that share a print in every quarter turn share a class. The
    standard layout is the same in all four turns, so a square's class does not depend on which
    way up the grid image is; a layout that is not gets classes that hold in any turn."""
    grid = np.array([list(r) for r in layout_rows])
    grid[grid == " "] = "."
    keys = np.stack([np.rot90(grid, k) for k in range(4)], axis=-1).reshape(grid.size, 4)
    _, cls = np.unique(["".join(k) for k in keys], return_inverse=True)
    return cls.astype(np.int64)


def inner_pixels(warped: np.ndarray, px: int, inner: tuple[int, int], grey: bool) -> np.ndarray:
    """(225, n, channels) the pixels of each square's inner part, row-major, from a canonical
    grid image of any size resized to ``px`` per square (grey: one channel)."""
    side = GRID * px
    img = warped
    if grey and img.ndim == 3:
        img = cv2.cvtColor(img, cv2.COLOR_BGR2GRAY)
    elif not grey and img.ndim == 2:
        img = cv2.cvtColor(img, cv2.COLOR_GRAY2BGR)
    if img.shape[0] != side or img.shape[1] != side:
        interp = cv2.INTER_AREA if img.shape[0] > side else cv2.INTER_LINEAR
        img = cv2.resize(img, (side, side), interpolation=interp)
    a, b = inner
    ch = 1 if grey else 3
    sq = img.reshape(GRID, px, GRID, px, ch)[:, a:b, :, a:b]
    return sq.transpose(0, 2, 1, 3, 4).reshape(GRID * GRID, -1, ch)


def looks(warped: np.ndarray) -> np.ndarray:
    """(225, 3) median colour of each square's inner part (per channel), in CIE Lab (L 0-100),
    from a canonical grid image of any size."""
    sq = inner_pixels(warped, LOOK_PX, LOOK_INNER, grey=False)
    n = sq.shape[1]   # the median of 8-bit values by one partial sort (np.median's float copy costs more)
    part = np.partition(sq, (n // 2 - 1, n // 2), axis=1)
    median = ((part[:, n // 2 - 1].astype(np.float32) + part[:, n // 2]) / 2.0) / 255.0
    # per channel in BGR, then to Lab: 225 colours converted, not every pixel
    return cv2.cvtColor(median.reshape(1, -1, 3), cv2.COLOR_BGR2LAB).reshape(-1, 3)


def ink_deviations(warped: np.ndarray) -> np.ndarray:
    """(225, n) each square's inner pixels' grey-level distance from the square's own median."""
    sq = inner_pixels(warped, INK_PX, INK_INNER, grey=True)[:, :, 0]
    n = sq.shape[1]
    median = np.partition(sq, n // 2, axis=1)[:, n // 2:n // 2 + 1].astype(np.int16)
    return np.abs(sq.astype(np.int16) - median)


def ink_shares(warped: np.ndarray, level: float = INK_LEVEL) -> np.ndarray:
    """(225,) share of each square's inner pixels more than ``level`` grey levels from the
    square's own median: the letter's (and value's, or a label's) ink; 0 on a blank tile."""
    return (ink_deviations(warped) > level).mean(axis=1)


def letterless(warped: np.ndarray, p_letter: np.ndarray, cfg: OccupancyConfig | None = None) -> np.ndarray | None:
    """(225,) bool: squares that show no letter's ink, measured against this board's sure tiles
    (``p_letter`` >= seed_prob); None without enough of them or when off. A letter always has
    ink; a blank tile is a tile that shows none (issue 28: "a tile that is none of the letters")."""
    cfg = cfg or OccupancyConfig()
    seeds = np.asarray(p_letter) >= cfg.seed_prob
    if cfg.no_ink <= 0 or seeds.sum() < cfg.min_seeds:
        return None
    dev = ink_deviations(warped)
    # A soft or far camera lowers every letter's contrast alike: ink is what stands out by half the
    # contrast of this board's sure letters (never more than INK_LEVEL), or a blurred letter's
    # stroke falls under a fixed level and the letter is taken for a blank (issue 36: the 1948
    # board at 40 px a square, blur 1.5: R and O read as blanks, which the caps then preferred).
    contrast = float(np.median(np.percentile(dev[seeds], INK_PEAK, axis=1)))
    share = (dev > min(INK_LEVEL, contrast / 2)).mean(axis=1)
    return share < cfg.no_ink * float(np.median(share[seeds]))


def light_gradient(f: np.ndarray, classes: np.ndarray, seeds: np.ndarray, trim: float = 2.5) -> np.ndarray:
    """(225, 3) the part of each square's look that uneven light adds: per channel a plane over
    the board, fitted to the squares of the commonest print that are not tile seeds (the plain
    squares, most of them empty), with the squares far off the plane left out of a second pass
    (the tiles among them). The plane's level is left in: only its slopes are returned."""
    yy, xx = np.divmod(np.arange(GRID * GRID), GRID)
    a = np.stack([np.ones(GRID * GRID), (xx - 7) / 7.0, (yy - 7) / 7.0], axis=1)
    plain = np.flatnonzero((classes == np.bincount(classes).argmax()) & ~seeds)
    if len(plain) < 12:
        return np.zeros_like(f)
    rows = plain
    for _ in range(2):   # the three channels at once; a square off the plane in any is left out
        coef, *_ = np.linalg.lstsq(a[rows], f[rows], rcond=None)
        resid = f[plain] - a[plain] @ coef
        dev = np.abs(resid - np.median(resid, axis=0))
        keep = plain[(dev <= trim * 1.4826 * (np.median(dev, axis=0) + 1e-6)).all(axis=1)]
        if len(keep) < 12:
            break
        rows = keep
    return (a[:, 1:] @ coef[1:]).astype(f.dtype)


def standouts(f: np.ndarray, classes: np.ndarray, p_tile: np.ndarray, cfg: OccupancyConfig) -> np.ndarray:
    """(225,) bool: squares the network reads as a tile (``p_tile`` > 0.5) whose look stands more
    than ``outlier_spreads`` of the board's spread off their print's look (each print's median:
    a board with few tiles is mostly empty squares). With few sure letters (a faint or blurred
    letter on a light wooden tile), these still show the set's look: a tile face differs from the
    square under it whatever its letter reads."""
    out = np.zeros(len(f), bool)
    if cfg.outlier_spreads <= 0:
        return out
    dist, spread = print_distances(f, classes, cfg)
    if np.isnan(dist).all():
        return out
    return (np.nan_to_num(dist) > cfg.outlier_spreads * spread) & (np.asarray(p_tile) > 0.5)


def print_distances(f: np.ndarray, classes: np.ndarray, cfg: OccupancyConfig) -> tuple[np.ndarray, float]:
    """(225,) each square's look's distance from its print's median look (NaN on a print of fewer
    than min_print_squares squares), and the board's spread: their median, at least spread_floor."""
    dist = np.full(len(f), np.nan)
    for c in np.unique(classes):
        members = classes == c
        if members.sum() >= cfg.min_print_squares:
            dist[members] = np.linalg.norm(f[members] - np.median(f[members], axis=0), axis=1)
    if np.isnan(dist).all():
        return dist, cfg.spread_floor
    return dist, max(float(np.nanmedian(dist)), cfg.spread_floor)


def print_read_as_blank(warped: np.ndarray, reads_blank: np.ndarray, classes: np.ndarray, blanks: int,
                        cfg: OccupancyConfig | None = None) -> np.ndarray:
    """(225,) bool: squares read as a blank only for their print's look. A print (of at least
    min_print_squares squares) read as a blank on more than half its squares, and on more than the
    set's ``blanks``, is read so for its own print (the red Hasbro board's TRIPLE LETTER squares,
    blue with white text, on its empty boards: 11 of 12 read as blanks), not for tiles; of its
    squares, those whose look stands outlier_spreads off the print's (a tile face on the print) may
    still hold a blank. Needs no tile to have been read: it decides on an empty board too.
    (A blank's look alone is no test: the set's wood stands 0.7-2.9 spreads off the beige plain
    squares, so a print read blank on a few of its squares is left to the caps.)"""
    cfg = cfg or OccupancyConfig()
    reads_blank = np.asarray(reads_blank, bool)
    out = np.zeros(len(reads_blank), bool)
    if cfg.outlier_spreads <= 0:
        return out
    prints = [c for c in np.unique(classes) if (classes == c).sum() >= cfg.min_print_squares
              and (reads_blank & (classes == c)).sum() > max(blanks, (classes == c).sum() / 2)]
    if not prints:
        return out
    dist, spread = print_distances(looks(warped), classes, cfg)
    for c in prints:
        out |= (classes == c) & reads_blank & (dist <= cfg.outlier_spreads * spread)
    return out


def log_ratio(warped: np.ndarray, p_letter: np.ndarray, classes: np.ndarray,
              cfg: OccupancyConfig | None = None, p_tile: np.ndarray | None = None) -> np.ndarray | None:
    """(225,) log LR(empty : tile) of each square from the board's own looks; None when the
    board shows too few sure tiles to know its set's look. ``p_letter``: (225,) the largest probability of any one letter (blanks not counted: a blank's
    reading is what this rule is to check); ``classes``: print_classes of the layout."""
    cfg = cfg or OccupancyConfig()
    if cfg.weight <= 0:
        return None
    f = looks(warped)
    seeds = np.asarray(p_letter) >= cfg.seed_prob
    few = seeds.sum() < cfg.min_seeds
    if few:
        if p_tile is None:
            return None
        seeds = standouts(f, classes, p_tile, cfg)
        if seeds.sum() < cfg.min_outlier_seeds:
            return None
    f = f - light_gradient(f, classes, seeds)
    tile = np.median(f[seeds], axis=0)
    d_tile = np.linalg.norm(f - tile, axis=1)
    d_empty = np.full(len(f), np.inf)
    spreads = []
    for c in np.unique(classes):
        members = np.flatnonzero((classes == c) & ~seeds)
        if (classes == c).sum() < cfg.min_print_squares or not len(members):
            continue   # a print of one square (the centre) has no look but that square's own
        pool = members
        for _ in range(3):
            centre = np.median(f[pool], axis=0)
            d = np.linalg.norm(f[members] - centre, axis=1)
            keep = members[d < d_tile[members]]   # nearer this print than the tiles
            if len(keep) == 0 or np.array_equal(keep, pool):
                break
            pool = keep
        d_empty[classes == c] = np.linalg.norm(f[classes == c] - centre, axis=1)
        spreads.append(np.linalg.norm(f[pool] - centre, axis=1))
    spread = max(float(np.median(np.concatenate(spreads))) if spreads else 0.0, cfg.spread_floor)
    # a print whose every square holds a sure tile has no empty look: no evidence either way
    d_empty = np.where(np.isfinite(d_empty), d_empty, d_tile)
    llr = cfg.weight * np.log((d_tile + spread) / (d_empty + spread))
    # a look learned from a few standouts finds a tile the network missed, never removes one it read:
    # a light tile face can match the light square beside it (the 2015 Hasbro game's E on 8E)
    return np.clip(llr, -cfg.clip, 0.0 if few else cfg.clip)
