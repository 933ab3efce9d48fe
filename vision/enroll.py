"""Enrollment: adapt the tile reader to the physical tile set on the table, in seconds.

A tile set is a bag of exemplars in the network's embedding space: (label, unit embedding)
pairs, stored as .npz. ``TileReader(tileset=...)`` scores each square by its similarity to
the nearest exemplars of every class, blended with the network's own scores.

(a) labelled: frames whose contents are known (truth boards, a GCG position) give exemplars
    for every class that appears, empty squares included (so the board's premium colours
    are learnt too).
(b) label-free: the pre-game tile check (every tile face up on the board, any arrangement).
    The tiles are clustered in embedding space with the distribution as capacities: soft
    assignments start from the network's scores, a Sinkhorn balance makes each letter take
    its share of tiles, letter prototypes are re-estimated from the assignment, and after a
    few rounds a greedy pass assigns each tile a letter without exceeding any count.
    numpy only; the distribution comes in as a mapping, this module does not import scoring.
"""
from __future__ import annotations

import time
from collections import Counter
from typing import Mapping, Sequence

import numpy as np
from pydantic import BaseModel, ConfigDict, Field

from tilecam.vision.classify import TileReader, square_colours
from tilecam.vision.tileset import EnrollError
from tilecam.vision.rectify import GRID

EMPTY = "."
BLANK_TILE = "?"


class EnrollConfig(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    max_exemplars: int = Field(default=96, ge=1, le=10000, description="Exemplars kept per letter class.")
    max_empty_exemplars: int = Field(default=256, ge=1, le=10000,
                                     description="Exemplars kept of empty squares (premium colours vary).")
    occupied_prob: float = Field(default=0.5, gt=0.0, lt=1.0,
                                 description="Tile check: a square holds a tile when P(empty) is below this.")
    rounds: int = Field(default=12, ge=1, le=1000, description="Tile check: assignment/prototype rounds.")
    similarity_temperature: float = Field(default=0.05, gt=0.0, le=10.0,
                                          description="Tile check: temperature of prototype similarity.")
    sinkhorn_iters: int = Field(default=60, ge=1, le=10000, description="Tile check: balancing iterations per round.")
    seed: int = Field(default=0, ge=0, le=2**32 - 1, description="Seed of the exemplar subsampling.")


def _farthest_subset(emb: np.ndarray, k: int, rng: np.random.Generator) -> np.ndarray:
    """Indices of k exemplars spread over the class (farthest-point sampling), so rare
    looks (a shadowed tile, a tile under glare) survive the cut."""
    if len(emb) <= k:
        return np.arange(len(emb))
    chosen = [int(rng.integers(len(emb)))]
    dist = 1.0 - emb @ emb[chosen[0]]
    for _ in range(k - 1):
        i = int(np.argmax(dist))
        chosen.append(i)
        dist = np.minimum(dist, 1.0 - emb @ emb[i])
    return np.array(chosen)


def _dir_sims(reader: TileReader, logits: np.ndarray, labels: Sequence[str]) -> np.ndarray:
    """Each exemplar's cosine to its class direction in the network (nan if the model lacks it)."""
    scale = float(reader.card.get("cosine_scale", 16.0))
    model_classes = list(reader.card["classes"])
    out = np.full(len(labels), np.nan, np.float32)
    for i, lab in enumerate(labels):
        if lab in model_classes:
            out[i] = logits[i, model_classes.index(lab)] / scale
    return out


def _tileset(reader: TileReader, emb, logits, colours, labels, cfg: EnrollConfig, meta: dict,
             tiles_per_class: Mapping[str, int]) -> dict:
    rng = np.random.default_rng(cfg.seed)
    labels = np.asarray(labels, dtype=object)
    keep = []
    for lab in sorted(set(labels)):
        idx = np.flatnonzero(labels == lab)
        k = cfg.max_empty_exemplars if lab == EMPTY else cfg.max_exemplars
        keep.extend(idx[_farthest_subset(emb[idx], k, rng)])
    keep = np.array(sorted(keep))
    kept_labels = [str(x) for x in labels[keep]]
    # how the network reads this tile set: per true class, its mean probabilities over the
    # model's classes, from every enrolled crop (before the exemplars are thinned out)
    p = np.exp(logits - logits.max(axis=1, keepdims=True))
    p /= p.sum(axis=1, keepdims=True)
    reading_labels = sorted(set(str(x) for x in labels))
    readings = np.stack([p[labels == lab].mean(axis=0) for lab in reading_labels])
    return {"labels": kept_labels, "embeddings": emb[keep].astype(np.float32),
            "colours": colours[keep].astype(np.float32),
            "dir_sims": _dir_sims(reader, logits[keep], kept_labels),
            "readings": readings.astype(np.float32), "reading_labels": reading_labels,
            "meta": {**meta, "lang": reader.lang, "exemplars": len(keep),
                     "classes": sorted(set(kept_labels)),
                     "tiles_per_class": {c: int(n) for c, n in sorted(tiles_per_class.items()) if c != EMPTY}}}


def _label(ch: str) -> str:
    # a designated blank (lower case) is a blank tile on the board
    return BLANK_TILE if ch.islower() else ch


def enroll_labelled(reader: TileReader, frames: Sequence[tuple[np.ndarray, Sequence[str]]],
                    cfg: EnrollConfig | None = None) -> dict:
    """Tile set from canonical grid images (vision.rectify.warp_board) with known boards."""
    cfg = cfg or EnrollConfig()
    if not frames:
        raise EnrollError("no frames to enroll from")
    t0 = time.perf_counter()
    embs, logits_all, colours, labels = [], [], [], []
    # a tile stays on its square for the rest of a game: distinct (square, tile) pairs count
    # the physical tiles behind a class's exemplars (frames of several games may overcount)
    tiles: dict[str, set] = {}
    for warped, board in frames:
        if len(board) != GRID or any(len(row) != GRID for row in board):
            raise EnrollError("a truth board must be 15 rows of 15 characters")
        crops = reader.crops(warped)
        logits, _, emb = reader.embed(crops)
        colours.append(square_colours(crops))
        embs.append(emb)
        logits_all.append(logits)
        labels.extend(_label(ch) for row in board for ch in row)
        for i, ch in enumerate(ch for row in board for ch in row):
            tiles.setdefault(_label(ch), set()).add(i)
    unknown = sorted(set(labels) - set(reader.classes))
    if unknown:
        raise EnrollError(f"truth has tiles outside the {reader.lang} alphabet: {' '.join(unknown)}")
    ts = _tileset(reader, np.concatenate(embs), np.concatenate(logits_all), np.concatenate(colours), labels, cfg,
                  {"source": "labelled", "frames": len(frames)}, {c: len(v) for c, v in tiles.items()})
    ts["meta"]["seconds"] = round(time.perf_counter() - t0, 3)
    return ts


def _sinkhorn(log_k: np.ndarray, capacity: np.ndarray, iters: int, upper_bounds: bool = False) -> np.ndarray:
    """Soft assignment (tiles x letters): each tile sums to 1, each letter to its capacity (with
    `upper_bounds`, to at most its capacity: a letter over it is scaled down, one under it left)."""
    log_p = log_k.copy()
    log_cap = np.log(np.maximum(capacity, 1e-12))
    if upper_bounds:  # a bound is not scale-free as a balance is: start from each tile summing to 1
        log_p -= _logsumexp(log_p, axis=1)[:, None]
    for _ in range(iters):
        over = _logsumexp(log_p, axis=0) - log_cap
        log_p -= np.maximum(over, 0.0) if upper_bounds else over
        log_p -= _logsumexp(log_p, axis=1)[:, None]
    return np.exp(log_p)


def _logsumexp(x: np.ndarray, axis: int) -> np.ndarray:
    m = np.max(x, axis=axis, keepdims=True)
    m = np.where(np.isfinite(m), m, 0.0)
    return (m + np.log(np.exp(x - m).sum(axis=axis, keepdims=True))).squeeze(axis)


def enroll_tile_check(reader: TileReader, warped: np.ndarray, distribution: Mapping[str, int],
                      cfg: EnrollConfig | None = None, probs: np.ndarray | None = None) -> tuple[dict, list[str]]:
    """Tile set from one image of the tile check, and the board it assigned.

    ``distribution``: tile -> count, '?' for blanks (e.g. 9 A ... 2 blanks). Tiles missing
    from the check are allowed; the counts are upper bounds. ``probs``: (225, K) the reader's
    probabilities for the costs (e.g. a fused reader's); default the network's.
    """
    cfg = cfg or EnrollConfig()
    t0 = time.perf_counter()
    labels, crops, logits, emb = assign_tile_check(reader, warped, distribution, cfg, probs)
    n = sum(lab != EMPTY for lab in labels)
    ts = _tileset(reader, emb, logits, square_colours(crops), labels, cfg, {"source": "tile check", "tiles": n},
                  Counter(labels))
    ts["meta"]["seconds"] = round(time.perf_counter() - t0, 3)
    board = ["".join(labels[r * GRID:(r + 1) * GRID]) for r in range(GRID)]
    return ts, board


def assign_counts(p_tiles: np.ndarray, emb: np.ndarray, counts: np.ndarray, cfg: EnrollConfig | None = None,
                  upper_bounds: bool = True) -> tuple[np.ndarray, np.ndarray]:
    """Tiles labelled under a distribution's counts: (n, L) the readers' probabilities over the
    tile classes (the costs), (n, D) the tiles' unit embeddings (their look), (L,) the counts.
    Soft assignments start from the readings; a Sinkhorn balance makes each letter take no more
    tiles than it has (`upper_bounds`: the counts bound a game under way or a finished board, whose
    tiles may still be on the racks) or its share of them (not `upper_bounds`: a tile check, where
    every tile of the bag is out and the letters take shares of the tiles seen); letter prototypes
    are re-estimated from the assignment; after `cfg.rounds` rounds a greedy pass, most confident
    pairs first, gives each tile a letter without exceeding any count. Returns (n,) the letter index
    of each tile (-1 when the counts ran out: more tiles than the bag) and (n, L) the soft
    assignment of the last round."""
    cfg = cfg or EnrollConfig()
    n = len(p_tiles)
    counts = np.asarray(counts, np.float64)
    if n == 0:
        return np.zeros(0, int), np.zeros((0, len(counts)))
    log_net = np.log(p_tiles / np.maximum(p_tiles.sum(axis=1, keepdims=True), 1e-12) + 1e-9)
    log_net[:, counts == 0] = -np.inf
    # the tiles present take shares of the full bag (a check), or at most its counts (a game)
    capacity = counts if upper_bounds else counts * (n / max(counts.sum(), 1e-9))
    score = log_net
    for _ in range(cfg.rounds):
        p = _sinkhorn(score, capacity, cfg.sinkhorn_iters, upper_bounds)
        centres = p.T @ emb
        norms = np.linalg.norm(centres, axis=1, keepdims=True)
        centres = centres / np.maximum(norms, 1e-9)
        sim = (emb @ centres.T) / cfg.similarity_temperature
        sim[:, norms[:, 0] < 1e-6] = -np.inf
        if upper_bounds:
            # a letter no tile has gone to (the counts allow it, nothing shows it) has no look of
            # its own: its "centre" is whichever tile leans on it most, which would pull that tile
            # over. It looks as unlike a tile as the tile's typical letter does (the row's median)
            shown = p.sum(axis=0) >= 0.5
            if shown.any():
                neutral = np.median(sim[:, shown], axis=1, keepdims=True)
                sim[:, ~shown] = np.broadcast_to(neutral, (n, int((~shown).sum())))
        score = log_net + sim
    p = _sinkhorn(score, capacity, cfg.sinkhorn_iters, upper_bounds)
    left = counts.copy()
    assigned = np.full(n, -1)
    for flat in np.argsort(-p, axis=None):
        i, j = divmod(int(flat), len(counts))
        if assigned[i] < 0 and left[j] > 0:
            assigned[i] = j
            left[j] -= 1
            if (assigned >= 0).all():
                break
    return assigned, p


def assign_tile_check(reader: TileReader, warped: np.ndarray, distribution: Mapping[str, int],
                      cfg: EnrollConfig | None = None, probs: np.ndarray | None = None):
    """The tile check's squares labelled by assignment against the distribution (the counts as
    capacities, the reader's probabilities as costs, refined by prototypes in embedding space):
    (225 labels in the image's orientation, the crops, the logits, the embeddings)."""
    cfg = cfg or EnrollConfig()
    crops = reader.crops(warped)
    logits, _, emb = reader.embed(crops)
    if probs is None:
        probs = reader.square_probs(warped, logits, emb, use_tileset=False)  # with the empty board if known
    classes = list(reader.classes)
    tile_classes = [c for c in classes if c != EMPTY]
    counts = np.array([max(int(distribution.get(c, 0)), 0) for c in tile_classes], np.float64)
    unknown = sorted(set(distribution) - set(tile_classes))
    if unknown:
        raise EnrollError(f"distribution has tiles the {reader.lang} reader does not know: {' '.join(unknown)}")
    p_empty = probs[:, classes.index(EMPTY)]
    occupied = np.flatnonzero(p_empty < cfg.occupied_prob)
    if len(occupied) == 0:
        raise EnrollError("no tiles found in the tile-check image")
    if len(occupied) > counts.sum():
        # the bag holds no more tiles than this: the surplus is print on the board read as
        # tiles, so the squares least like a tile are let go
        occupied = np.sort(occupied[np.argsort(p_empty[occupied])[:int(counts.sum())]])
    cols = [classes.index(c) for c in tile_classes]
    assigned, _ = assign_counts(probs[occupied][:, cols], emb[occupied], counts, cfg, upper_bounds=False)
    labels = [EMPTY] * (GRID * GRID)
    for i, j in zip(occupied, assigned):
        labels[i] = tile_classes[j]
    return labels, crops, logits, emb


class SelfEnrollConfig(BaseModel):
    """Transductive enrollment within one photo: its confident squares teach the reader the rest."""
    model_config = ConfigDict(extra="forbid", frozen=True)

    # Fixed by reasoning, then checked on synthetic renders (tests/bench/select_self_enroll.py);
    # never chosen on the real photos the bench reports.
    confident_prob: float = Field(
        default=0.95, gt=0.0, lt=1.0,
        description="A square is a confident exemplar when its best class has at least this "
                    "probability (and, for a lettered tile, its rotation agrees with the board's).")
    rotation_prob: float = Field(
        default=0.9, gt=0.0, lt=1.0,
        description="A confident lettered tile's rotation head must give the board's majority "
                    "turn at least this probability.")
    min_tiles: int = Field(
        default=8, ge=1,
        description="Fewer confident lettered tiles than this: do nothing (too few to stand for "
                    "the tile set; the network's reading is returned unchanged).")
    blank_exemplars: bool = Field(
        default=False,
        description="Confident blanks become exemplars too. Off: a blank has no letter whose "
                    "rotation could confirm it, and blank vs empty is the network's weakest pair.")


def self_enroll(reader: TileReader, warped: np.ndarray, cfg: SelfEnrollConfig | None = None,
                enroll_cfg: EnrollConfig | None = None):
    """Read one board, then re-read its doubtful squares with the confident ones as exemplars.

    Confident squares (high probability; a lettered tile also needs its rotation to agree with
    the board's majority) become a tile set in the network's embedding space, as
    ``enroll_labelled`` builds one, with at most the language's count of each letter (the most
    confident first); empty squares count too, so the board's own premium squares are
    exemplars of "empty". The other squares are read again with that tile set; confident
    squares keep their reading. With fewer than ``min_tiles`` confident lettered tiles, or when
    the reader already has a tile set, the plain reading is returned.

    Returns (BoardRead, tile set or None)."""
    cfg = cfg or SelfEnrollConfig()
    enroll_cfg = enroll_cfg or EnrollConfig()
    t0 = time.perf_counter()
    crops = reader.crops(warped)
    logits, rot, emb = reader.embed(crops)
    colours = square_colours(crops)
    probs = reader.square_probs(warped, logits, emb, colours)
    first = reader.finish(probs, rot, t0)
    if reader.tileset is not None:
        return first, None
    classes = list(reader.classes)
    capped = first.snapshot.probs.reshape(GRID * GRID, -1)
    best = capped.argmax(axis=1)
    top = capped.max(axis=1)
    rot_p = first.rotation_probs.reshape(GRID * GRID, 4)
    lettered = np.array([classes[b] not in (EMPTY, BLANK_TILE) for b in best])
    # the board's orientation by the one rule (TileReader.finish: scoring.snapshot.board_turns); a
    # lettered tile is an exemplar only upright under it, and none is without an orientation
    k = None if first.orientation_deg is None else first.orientation_deg // 90
    confident = top >= cfg.confident_prob
    confident &= ~lettered | ((rot_p[:, k] >= cfg.rotation_prob) if k is not None else False)
    if not cfg.blank_exemplars:
        confident &= best != classes.index(BLANK_TILE)
    # at most the language's count of each tile class, the most confident first
    keep = np.zeros(len(best), bool)
    for c in np.unique(best[confident]):
        idx = np.flatnonzero(confident & (best == c))
        keep[idx[np.argsort(-top[idx])][:int(reader.caps[c])]] = True
    n_tiles = int((keep & lettered).sum())
    if n_tiles < cfg.min_tiles:
        return first, None
    labels = [classes[b] for b in best[keep]]
    ts = _tileset(reader, emb[keep], logits[keep], colours[keep], labels, enroll_cfg,
                  {"source": "self", "tiles": n_tiles}, Counter(labels))
    second = reader.with_tileset(ts).square_probs(warped, logits, emb, colours)
    # confident squares keep their reading; the doubtful ones take the enrolled one
    mixed = np.where(keep[:, None], probs, second)
    out = reader.finish(mixed, rot, t0, meta={"self_enrolled": n_tiles})
    ts["meta"]["seconds"] = round(time.perf_counter() - t0, 3)
    return out, ts


class TableEnrollment:
    """Exemplars gathered while a game is played on this table, so the reader adapts to the
    tile set as the game goes: tiles the game has committed that the reader read as the same
    letter with confidence, squares still empty that it read empty with confidence, and every
    square an operator corrected (the operator's word is the label, whatever the reading).

    Each class keeps its most recent ``per_class`` crops; ``tileset()`` thins them as
    ``enroll_labelled`` does. A wrong exemplar can only come from a committed tile read
    confidently as that same wrong letter, which a correction then outvotes."""

    def __init__(self, reader: TileReader, cfg: EnrollConfig | None = None, min_prob: float = 0.9,
                 per_class: int = 200) -> None:
        self.reader = reader
        self.cfg = cfg or EnrollConfig()
        self.min_prob = min_prob
        self.per_class = per_class
        self._items: dict[str, list[tuple[np.ndarray, np.ndarray, np.ndarray]]] = {}
        self._squares: dict[str, set[int]] = {}
        self.tiles = 0  # lettered tiles taken in so far
        self.check_tiles = 0  # tiles of the fullest tile check learnt (vision.tilecheck)

    def add(self, warped: np.ndarray, labels: Sequence[str], probs: np.ndarray | None = None,
            forced: Sequence[int] = ()) -> int:
        """Learn from a canonical grid image whose committed contents are ``labels`` (225
        characters in the image's orientation: '.' empty, a letter, '?' a blank, '' unknown).
        ``probs`` (225, K) is how the reader read it: a square counts when its best class is the
        label with at least ``min_prob``; ``forced`` squares count whatever the reading.
        Returns the number of exemplars added."""
        if len(labels) != GRID * GRID:
            raise EnrollError("labels must cover the 225 squares")
        classes = list(self.reader.classes)
        forced = set(int(i) for i in forced)
        use = []
        for i, lab in enumerate(labels):
            lab = _label(lab) if lab else ""
            if not lab or lab not in classes:
                continue
            if i in forced:
                use.append((i, lab))
            elif probs is not None:
                j = int(np.argmax(probs[i]))
                if classes[j] == lab and float(probs[i, j]) >= self.min_prob:
                    use.append((i, lab))
        if not use:
            return 0
        crops = self.reader.crops(warped)
        idx = np.array([i for i, _ in use])
        logits, _, emb = self.reader.embed(crops[idx])
        colours = square_colours(crops)[idx]
        for n, (i, lab) in enumerate(use):
            bag = self._items.setdefault(lab, [])
            bag.append((emb[n], logits[n], colours[n]))
            del bag[:-self.per_class]
            squares = self._squares.setdefault(lab, set())
            if lab != EMPTY and i not in squares:
                self.tiles += 1
            squares.add(i)
        return len(use)

    def tileset(self, min_tiles: int = 8) -> dict | None:
        """The tile set of what was learnt, or None while fewer than ``min_tiles`` tiles are in."""
        if self.tiles < min_tiles:
            return None
        labels, emb, logits, colours = [], [], [], []
        for lab, bag in self._items.items():
            for e, lg, c in bag:
                labels.append(lab)
                emb.append(e)
                logits.append(lg)
                colours.append(c)
        return _tileset(self.reader, np.stack(emb), np.stack(logits), np.stack(colours), labels, self.cfg,
                        {"source": "table", "tiles": self.tiles},
                        {lab: len(sq) for lab, sq in self._squares.items()})
