"""Read every square: the ONNX tile classifier over the 225 rectified squares in one batch.

The model and its card (models/tiles.onnx, models/tiles.card.json) are read as files; this
module never imports models/. Class labels are strings (".", "?", "A", ..., "Ä"; later "CH"),
so a language's alphabet is picked out of the model's classes by name and the other logits
are masked. A tile set enrolled with vision.enroll adds prototypes in the model's embedding
space, which also covers letters the model was never trained on.

Rotation convention: the model predicts k, the number of quarter turns CLOCKWISE that were
applied to the upright letter as it appears in the warped image. ``orientation_deg`` is
90*k for the majority k of the board's tiles, and ``np.rot90(grid, k=k)`` (which turns
counter-clockwise k times) makes the letters upright.

Game orientation (``game_orientation``, ``to_game``): the board as the players read it, row 1
at the top and column A at the left, letters upright. ``orientation`` = 90*k means the board's
print (and its tiles) is turned k quarter turns CLOCKWISE in the grid image the reader was
given, whose corners run TL, TR, BR, BL as the camera sees them; the game board is
``np.rot90(grid, k)`` and its corners, in game order A1, O1, O15, A15 (each the square's outer
grid corner), are the camera corners rolled by k: ``corners[(i + k) % 4]``. It is None when
no tiles are read or their rotation votes have no clear majority.

Occupancy with an empty-board reference (vision.reference): a square that still looks as it
did on the empty board is evidence for "empty"; the reference's log likelihood ratio is added
to the log-odds of P(empty), and the tile classes share the rest in their old proportions.
"""
from __future__ import annotations

import copy
import json
import time
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Mapping

import cv2
import numpy as np
from pydantic import BaseModel, ConfigDict, Field

from tilecam.scoring import BLANK_TILE, DISTRIBUTIONS, EMPTY, LAYOUTS, Snapshot, board_turns, classes_for
from tilecam.vision.errors import VisionError
from tilecam.vision.rectify import GRID, square_crops, turn_corners
from tilecam.vision.occupancy import OccupancyConfig, letterless, print_classes, print_read_as_blank
from tilecam.vision.occupancy import log_ratio as occupancy_log_ratio
from tilecam.vision.reference import EmptyBoardRef, EmptyRefError
from tilecam.vision.tileset import load_tileset


class ReadConfig(BaseModel):
    """Settings of the tile reader."""
    model_config = ConfigDict(extra="forbid", frozen=True)

    # Where the reader's files are; the caller opens them (TileReader takes the paths).
    model_path: str | None = Field(
        default=None, min_length=1,
        description="The tile classifier (ONNX); its card (<name>.card.json) sits beside it. "
                    "Unset: the model installed with tilecam (models/tiles.onnx).")
    tileset_path: str | None = Field(
        default=None, min_length=1,
        description="An enrolled tile set (.npz from `tilecam enroll`) for the tiles on this table. "
                    "Unset: the network alone, plus self-enrollment as the game goes.")
    empty_reference_path: str | None = Field(
        default=None, min_length=1,
        description="An empty-board reference of this board (.npz from `tilecam enroll --empty-board`): "
                    "a square that still looks as it did empty is read as empty, whatever is printed "
                    "on it, from the first frame. Unset: the recorder learns it from the clear board "
                    "before the first play (recorder.empty_reference).")
    # The enrollment defaults (prototype_weight, prior_tiles, recalibrate, knn, colour_weight)
    # were chosen by tests/bench/select_enroll.py on synthetic games in tile sets held out of
    # training, never on the real dev frames (docs/results/select_enroll.json).
    prototype_weight: float = Field(
        default=0.2, ge=0.0, le=1.0,
        description="With an enrolled tile set: weight of the exemplar similarity against the "
                    "network's own class scores (log-probabilities are blended).")
    prototype_temperature: float = Field(
        default=0.05, gt=0.0, le=10.0,
        description="Softmax temperature of the cosine similarity to the prototypes.")
    colour_weight: float = Field(
        default=0.2, ge=0.0, le=100.0,
        description="With an enrolled tile set: similarity lost per unit of colour distance "
                    "(log-ratio of a square's centre colour to the board's median) between a "
                    "square and an exemplar. The network is trained colour-blind on purpose "
                    "(tile sets come in every colour); the enrolled set knows this board's colours, "
                    "which is what tells a plain blank tile from a plain empty square.")
    prior_tiles: float = Field(
        default=0.0, ge=0.0, le=1000.0,
        description="With an enrolled tile set: a class's exemplar similarity is shrunk toward the "
                    "network's own class direction as if that direction were this many more tiles: "
                    "(n*exemplars + prior*direction)/(n + prior), n = distinct tiles the class was "
                    "enrolled from. Exemplars of a letter seen on one tile (one Ä in the enrollment "
                    "game) are copies of that tile, not a picture of the letter. 0 = exemplars alone.")
    recalibrate: bool = Field(
        default=True,
        description="With an enrolled tile set: read the network's output through the confusion it "
                    "made on the enrolled tiles. Where the network reads this set's Q as G, a G "
                    "reading is evidence for both, and the exemplars decide; where it reads a class "
                    "right, nothing changes. Each class's measured row counts as its distinct tiles "
                    "against one tile of the network's own claim (the identity).")
    knn: int = Field(default=3, ge=1, le=32,
                     description="A class's similarity is the mean of its k best exemplar matches.")
    threads: int = Field(default=1, ge=1, le=8, description="onnxruntime intra-op threads.")
    reference_weight: float = Field(
        default=1.0, ge=0.0, le=100.0,
        description="With an empty-board reference: multiplier of its log likelihood ratio "
                    "on the log-odds of P(empty). 1 = take the fitted ratio at face value (it is "
                    "calibrated on synthetic renders, vision.reference); fixed by reasoning.")
    occupancy: OccupancyConfig = Field(
        default_factory=OccupancyConfig,
        description="Without an empty-board reference: tile or empty decided from this board's own "
                    "looks, each square against its print's empty squares and the set's sure tiles "
                    "(vision.occupancy). weight = 0 turns it off.")
    min_orientation_share: float = Field(
        default=0.5, ge=0.0, lt=1.0,
        description="Game orientation: the winning quarter turn needs more than this share of "
                    "the tiles' rotation votes, and twice the runner-up's votes; else no "
                    "orientation (fixed by reasoning: a majority, and a clear one).")
    cap_counts: bool = Field(
        default=True,
        description="A board cannot hold more of a tile than the language's distribution has "
                    "(2 blanks, 1 Q, ...): surplus readings of a class keep only its most "
                    "probable squares, the others fall to their next class.")
    lone_tiles: bool = Field(
        default=True,
        description="No tile stands alone on a game board (every play is two or more tiles in "
                    "a line, joined to the tiles already down): a tile read where all four "
                    "neighbours read empty has its tile classes weighed by lone_tile_factor, so "
                    "a printed premium label read as a letter amid empty squares falls back to "
                    "empty unless the network is very sure.")
    lone_tile_factor: float = Field(
        default=0.01, gt=0.0, le=1.0,
        description="Odds a lone tile keeps: a lone tile needs the network's odds above 1/this. "
                    "Fixed by reasoning (100:1), not fitted to any photos.")
    recogniser: bool = Field(
        default=True,
        description="Also read the letters with the text recogniser shipped in the rapidocr_onnxruntime "
                    "wheel (vision.recognizer) and multiply its calibrated letter probabilities with the "
                    "classifier's (vision.fuse). Used when the wheel's model is found; without it a one-line "
                    "warning and the classifier alone.")
    recogniser_max_empty: float = Field(
        default=0.5, gt=0.0, le=1.0,
        description="The recogniser reads only the squares the classifier gives P(empty) below this "
                    "(the squares that may hold a tile).")
    shape_rules: bool = Field(
        default=True,
        description="Letters by their shape, whatever the set (issue 36): a bare stroke is an I and the "
                    "recogniser's stroke and ring characters count as I and O; a printed face (ink in a "
                    "letter's hole, or ink that reads as no letter at any turn) is the set's blank. Off: "
                    "the recogniser's letters alone, as before (for comparison).")


# The squares that share a print (the reader reads 15 x 15 boards of the standard premium layout,
# which is the same in all four quarter turns, so the grid image's turn does not matter).
PRINT_CLASSES = print_classes(LAYOUTS["standard"].rows)


class ReaderError(VisionError):
    """The model, its card or a tile set cannot be used."""


@dataclass(frozen=True)
class BoardRead:
    snapshot: Snapshot            # per-square probabilities over the language's classes
    rotations: np.ndarray         # (15, 15) int: clockwise quarter turns of each tile, -1 empty
    orientation_deg: int | None   # 90*k of the tiles' majority rotation; None without tiles
    ms: float                     # time spent in read()
    rotation_probs: np.ndarray | None = None   # (15, 15, 4) softmax of the rotation head

    def board(self) -> list[str]:
        return self.snapshot.board()


@dataclass(frozen=True)
class GameRead:
    """A read turned into game orientation (row 1 at the top, column A at the left)."""
    board: list[str]              # 15 rows in game orientation (as the camera sees it if orientation is None)
    snapshot: Snapshot            # probabilities in the same orientation
    rotations: np.ndarray         # (15, 15) tiles' clockwise quarter turns left after the turn, -1 empty
    orientation: int | None       # clockwise degrees the board's print is turned in the grid image
    corners: np.ndarray | None    # (4, 2) outer grid corners of A1, O1, O15, A15 (camera order if None)


def game_orientation(read: BoardRead, min_share: float = 0.5) -> int | None:
    """Clockwise degrees (0, 90, 180, 270) the board's print is turned in the grid image; None
    without tiles or without a clear majority of their rotations (scoring.snapshot.upright_turns
    decides, on the rotations this read measured)."""
    k = board_turns(_with_rotations(read), min_share=min_share)
    return None if k is None else 90 * k


def _with_rotations(read: BoardRead) -> Snapshot:
    """The read's snapshot carrying its tiles' rotation probabilities (one-hot from the argmax
    rotations when the read kept no probabilities)."""
    if read.snapshot.rotations is not None:
        return read.snapshot
    if read.rotation_probs is not None:
        rot = read.rotation_probs
    else:
        rot = np.eye(4, dtype=np.float32)[np.clip(read.rotations, 0, 3)] * (read.rotations >= 0)[..., None]
    return replace(read.snapshot, rotations=np.asarray(rot, np.float32))


def to_game(read: BoardRead, corners: np.ndarray | None = None, min_share: float = 0.5) -> GameRead:
    """The read in game orientation; ``corners`` are the grid image's TL, TR, BR, BL in the
    photo (the order they were warped in). Without an orientation nothing is turned. The
    snapshot turns by scoring's rule (Snapshot.turned); the corners, pixels, turn here."""
    deg = game_orientation(read, min_share)
    k = 0 if deg is None else deg // 90
    snap = _with_rotations(read).turned(k)
    snap = replace(snap, meta={**snap.meta, "game_orientation_deg": deg})
    rots = np.rot90(read.rotations, k)
    rots = np.where(rots >= 0, (rots - k) % 4, -1)
    out_corners = None if corners is None else turn_corners(np.asarray(corners, np.float32), k)
    return GameRead(snap.board(), snap, rots.astype(np.int64), deg, out_corners)


def load_card(card_path: str | Path) -> dict:
    try:
        card = json.loads(Path(card_path).read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise ReaderError(f"cannot read model card {card_path}: {exc}") from exc
    for key in ("classes", "input_size", "square_px", "margin_frac", "mean", "std"):
        if key not in card:
            raise ReaderError(f"model card {card_path} has no {key!r}")
    return card


def preprocess(crops: np.ndarray, card: Mapping) -> np.ndarray:
    """(N, s, s, 3) uint8 BGR crops -> (N, 3, n, n) float32 network input, as in training."""
    n = int(card["input_size"])
    if crops.shape[1] != n:
        crops = np.stack([cv2.resize(c, (n, n), interpolation=cv2.INTER_AREA) for c in crops])
    # channels first before the float conversion: one copy of bytes, then in-place arithmetic
    x = np.ascontiguousarray(crops.transpose(0, 3, 1, 2)).astype(np.float32)
    std = np.asarray(card["std"], np.float32).reshape(1, 3, 1, 1)
    mean = np.asarray(card["mean"], np.float32).reshape(1, 3, 1, 1)
    x *= 1.0 / (255.0 * std)
    x -= mean / std
    return x


def board_crops(warped: np.ndarray, card: Mapping) -> np.ndarray:
    """The 225 crops of a canonical grid image of any square size, cut as in training."""
    px = int(card["square_px"])
    side = GRID * px
    if warped.shape[0] != side or warped.shape[1] != side:
        interp = cv2.INTER_AREA if warped.shape[0] > side else cv2.INTER_LINEAR
        warped = cv2.resize(warped, (side, side), interpolation=interp)
    return square_crops(warped, px, float(card["margin_frac"]))


class TileReader:
    """Loads the ONNX model once; ``read(warped)`` classifies all 225 squares in one batch."""

    def __init__(self, model_path: str | Path, card_path: str | Path,
                 tileset: str | Path | Mapping | None = None, lang: str = "en",
                 cfg: ReadConfig | None = None, empty_ref=None) -> None:
        """``empty_ref``: a vision.reference.EmptyBoardRef (or the path of one) of this board."""
        import onnxruntime as ort  # heavy; only readers pay for it

        self.cfg = cfg or ReadConfig()
        self.card = load_card(card_path)
        if lang not in DISTRIBUTIONS:
            raise ReaderError(f"unknown language {lang!r}; known: {', '.join(DISTRIBUTIONS)}")
        self.lang = lang
        self.classes = classes_for(DISTRIBUTIONS[lang].letters)
        opts = ort.SessionOptions()
        opts.intra_op_num_threads = self.cfg.threads
        opts.inter_op_num_threads = 1
        try:
            self.session = ort.InferenceSession(str(model_path), opts,
                                                providers=["CPUExecutionProvider"])
        except Exception as exc:  # onnxruntime raises its own untyped errors
            raise ReaderError(f"cannot load model {model_path}: {exc}") from exc
        self.input_name = self.session.get_inputs()[0].name
        model_classes = list(self.card["classes"])
        # Language class -> model logit index; -1 = the model has no such class.
        self.logit_index = np.array([model_classes.index(c) if c in model_classes else -1
                                     for c in self.classes])
        self._letters = np.array([k for k, c in enumerate(self.classes) if c not in (EMPTY, BLANK_TILE)])
        dist = DISTRIBUTIONS[lang].counts
        self.caps = np.array([GRID * GRID if c == EMPTY else int(dist.get(c, 0))
                              for c in self.classes])
        self.empty_ref = None
        if empty_ref is not None:
            try:
                self.empty_ref = (empty_ref if isinstance(empty_ref, EmptyBoardRef)
                                  else EmptyBoardRef.load(empty_ref))
            except EmptyRefError as exc:
                raise ReaderError(str(exc)) from exc
        self.tileset = None
        if tileset is not None:
            self.tileset = load_tileset(tileset) if not isinstance(tileset, Mapping) else tileset
            self._prepare_tileset()
        self.embed(np.zeros((GRID * GRID, int(self.card["input_size"]),
                             int(self.card["input_size"]), 3), np.uint8))  # warm-up

    @property
    def unreadable(self) -> tuple[str, ...]:
        """The set's letters this reader never reads: the model has no class for them (its card's
        classes are the sets it was trained on) and no enrolled tile set teaches them (a tile set's
        readings of a letter, with `recalibrate`, give it its probability; vision.enroll)."""
        taught = set(self.tileset.get("reading_labels", ())) if self.tileset is not None and self.cfg.recalibrate \
            else set()
        return tuple(c for c, i in zip(self.classes, self.logit_index)
                     if i < 0 and c not in (EMPTY, BLANK_TILE) and c not in taught)

    def calibrated_on(self, labels) -> "TileReader":
        """This reader fitted to a table's known tiles (the tile check): the classifier alone
        learns them as exemplars of the tile set (vision.tilecheck), nothing more to fit here
        (vision.fuse.FusedTileReader refits its recogniser)."""
        return self

    def with_tileset(self, tileset: Mapping | None) -> "TileReader":
        """A reader that shares this one's model session but uses another tile set."""
        other = copy.copy(self)
        other.tileset = tileset
        if tileset is not None:
            other._prepare_tileset()
        return other

    def _prepare_tileset(self) -> None:
        ts = self.tileset
        labels = [str(x) for x in ts["labels"]]
        emb = np.asarray(ts["embeddings"], np.float32)
        emb = emb / np.maximum(np.linalg.norm(emb, axis=1, keepdims=True), 1e-6)
        # exemplars per language class; classes outside the language are ignored
        colours = np.asarray(ts.get("colours", np.zeros((len(labels), 3))), np.float32)
        members = [[i for i, lab in enumerate(labels) if lab == c] for c in self.classes]
        self._exemplars = [emb[idx] for idx in members]
        self._exemplar_colours = [colours[idx] for idx in members]
        if not any(len(e) for e in self._exemplars):
            raise ReaderError("the tile set has no exemplar for any class of this language")
        # A class the tile set has no exemplar of (a letter that never showed up during
        # enrollment) falls back to the network's class direction. Real exemplars match their
        # own kind more closely than that direction does, so the direction gets the measured gap.
        dir_sims = np.asarray(ts.get("dir_sims", np.full(len(labels), np.nan)), np.float32)
        gaps = []
        for idx, ex, col in zip(members, self._exemplars, self._exemplar_colours):
            if len(ex) >= 2 and np.isfinite(dir_sims[idx]).all():
                s = self._similarity(ex, col, ex, col)
                np.fill_diagonal(s, -np.inf)
                kk = min(self.cfg.knn, len(ex) - 1)
                gaps.append(np.sort(s, axis=1)[:, -kk:].mean(axis=1) - dir_sims[idx])
        self._direction_gap = float(np.concatenate(gaps).mean()) if gaps else 0.0
        # all exemplars in one matrix, class by class, so a read is one product
        self._ex_all = np.concatenate(self._exemplars).astype(np.float32)
        self._ex_col_all = np.concatenate(self._exemplar_colours).astype(np.float32)
        self._ex_bounds = np.cumsum([0] + [len(e) for e in self._exemplars])
        # distinct tiles behind each class's exemplars (older tile sets do not say: many)
        tiles = ts.get("meta", {}).get("tiles_per_class", {})
        self._class_tiles = np.array([float(tiles.get(c, np.inf)) if len(ex) else 0.0
                                      for c, ex in zip(self.classes, self._exemplars)])
        # confusion of the network on this tile set (rows: true class, columns: its reading),
        # each measured row counted as its tiles against one tile of the identity
        k = len(self.classes)
        self._confusion = np.eye(k, dtype=np.float32)
        self._reliability = np.ones(k, np.float32)
        readings = np.asarray(ts.get("readings", np.zeros((0, 0))), np.float32)
        have = self.logit_index >= 0
        for lab, row in zip(ts.get("reading_labels", []), readings):
            if lab not in self.classes:
                continue
            i = self.classes.index(lab)
            measured = np.zeros(k, np.float32)
            measured[have] = row[self.logit_index[have]]
            measured /= max(float(measured.sum()), 1e-9)
            n = min(float(tiles.get(lab, 1e6)), 1e6)
            self._confusion[i] = (n * measured + self._confusion[i]) / (n + 1.0)
            self._reliability[i] = measured[i]

    def _similarity(self, emb, colours, ex, ex_colours) -> np.ndarray:
        s = emb @ ex.T
        if self.cfg.colour_weight > 0:
            # squared distances as one product: |a|^2 + |b|^2 - 2 a.b
            d2 = ((colours ** 2).sum(axis=1)[:, None] + (ex_colours ** 2).sum(axis=1)[None, :]
                  - 2.0 * colours @ ex_colours.T)
            s -= self.cfg.colour_weight * np.sqrt(np.maximum(d2, 0.0))
        return s

    def embed(self, crops: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Raw network outputs for (N, s, s, 3) crops: class logits, rotation logits, embedding."""
        logits, rot, emb = self.session.run(None, {self.input_name: preprocess(crops, self.card)})
        return logits, rot, emb

    def crops(self, warped: np.ndarray) -> np.ndarray:
        return board_crops(warped, self.card)

    def class_probs(self, logits: np.ndarray, emb: np.ndarray, use_tileset: bool = True,
                    colours: np.ndarray | None = None) -> np.ndarray:
        """(N, K) probabilities over the language's classes; ``colours`` from square_colours()
        of the same crops (needed only with a tile set)."""
        n = logits.shape[0]
        scores = np.full((n, len(self.classes)), -np.inf, np.float32)
        have = self.logit_index >= 0
        scores[:, have] = logits[:, self.logit_index[have]]
        scores = _log_softmax(scores)
        if self.tileset is not None and use_tileset and self.cfg.recalibrate:
            # likelihood of each true class given the reading: sum_j C[k, j] p(j | x)
            scores = _log_softmax(np.log(np.exp(scores) @ self._confusion.T + 1e-12))
        if self.tileset is not None and use_tileset:
            scale = float(self.card.get("cosine_scale", 16.0))
            sims = np.full_like(scores, -np.inf)
            if colours is None:
                colours = np.zeros((n, 3), np.float32)
            s_all = self._similarity(emb.astype(np.float32), colours.astype(np.float32),
                                     self._ex_all, self._ex_col_all)
            for k, (a, b) in enumerate(zip(self._ex_bounds[:-1], self._ex_bounds[1:])):
                direction = (logits[:, self.logit_index[k]] / scale + self._direction_gap
                             if self.logit_index[k] >= 0 else None)
                if b > a:
                    kk = min(self.cfg.knn, b - a)
                    s = s_all[:, a:b]
                    if kk == 1:
                        sims[:, k] = s.max(axis=1)
                    else:
                        sims[:, k] = np.partition(s, b - a - kk, axis=1)[:, -kk:].mean(axis=1)
                    n, prior = self._class_tiles[k], self.cfg.prior_tiles
                    if self.cfg.recalibrate:
                        prior *= self._reliability[k]  # no lean on a direction that misreads this set
                    if prior > 0 and direction is not None and np.isfinite(n):
                        sims[:, k] = (n * sims[:, k] + prior * direction) / (n + prior)
                elif direction is not None:
                    sims[:, k] = direction
            proto = _log_softmax(sims / self.cfg.prototype_temperature)
            w = self.cfg.prototype_weight
            scores = _log_softmax(np.where(np.isfinite(proto), w * proto + (1 - w) * scores, scores))
        p = np.exp(scores)
        return (p / p.sum(axis=1, keepdims=True)).astype(np.float32)

    def read(self, warped: np.ndarray, t: float = 0.0, frame_index: int = -1, *,
             source: tuple[np.ndarray, np.ndarray] | None = None, turn_rule=None) -> BoardRead:
        """Classify every square of a canonical grid image (``vision.rectify.warp_board``).

        ``source`` (the frame and the homography that made ``warped``) and ``turn_rule`` (the
        board's orientation from a snapshot, scoring.snapshot.board_turns as the caller applies
        it) serve readers that read more than the warp (vision.fuse.FusedTileReader); unused here."""
        t0 = time.perf_counter()
        crops = self.crops(warped)
        logits, rot, emb = self.embed(crops)
        colours = square_colours(crops) if self.tileset is not None else None
        probs = self.square_probs(warped, logits, emb, colours)
        return self.finish(probs, rot, t0, t=t, frame_index=frame_index)

    def square_probs(self, warped: np.ndarray, logits: np.ndarray, emb: np.ndarray,
                     colours: np.ndarray | None = None, use_tileset: bool = True) -> np.ndarray:
        """(225, K) class probabilities before the count caps: the network, the tile set if
        any, and the empty-board reference if any."""
        probs = self.class_probs(logits, emb, use_tileset=use_tileset, colours=colours)
        e = self.classes.index(EMPTY)
        llr = None
        if self.empty_ref is not None and self.cfg.reference_weight > 0:
            llr = self.cfg.reference_weight * self.empty_ref.log_ratio(
                warped, probs[:, e].reshape(GRID, GRID)).ravel()
        elif self.cfg.occupancy.weight > 0:
            # no reference of this board's empty look: the board's own looks (vision.occupancy)
            llr = occupancy_log_ratio(warped, probs[:, self._letters].max(axis=1), PRINT_CLASSES,
                                      self.cfg.occupancy, p_tile=1.0 - probs[:, e])
        if llr is None:
            return probs if self.empty_ref is not None else self._unprint_blanks(warped, probs)
        looked = fuse_empty_ratio(probs, llr, e)
        if self.empty_ref is not None:
            # the empty board itself says what is empty here; settling inkless squares on colour
            # alone on top of it turned an empty square into a blank play in ScrabScrap game07/08
            return looked
        # a square that shows no ink holds no letter: a blank, or nothing (vision.occupancy)
        bare = letterless(warped, looked[:, self._letters].max(axis=1), self.cfg.occupancy)
        if bare is None or not bare.any():
            return self._unprint_blanks(warped, looked)
        return self._unprint_blanks(warped, settle_bare_squares(
            probs, llr, bare, e, self.classes.index(BLANK_TILE), self._letters,
            self.cfg.occupancy.no_ink_factor, self.cfg.occupancy.bare_network_weight))

    def _unprint_blanks(self, warped: np.ndarray, probs: np.ndarray) -> np.ndarray:
        """``probs`` with the blank readings that are their print's look (vision.occupancy
        .print_read_as_blank: a print read as a blank on most of its squares) given to empty."""
        if BLANK_TILE not in self.classes or self.cfg.occupancy.weight <= 0:
            return probs
        b, e = self.classes.index(BLANK_TILE), self.classes.index(EMPTY)
        printed = print_read_as_blank(warped, probs.argmax(axis=1) == b, PRINT_CLASSES,
                                      int(self.caps[b]), self.cfg.occupancy)
        if not printed.any():
            return probs
        out = probs.copy()
        out[printed, e] += out[printed, b]
        out[printed, b] = 0.0
        return out

    def finish(self, probs: np.ndarray, rot: np.ndarray, t0: float, t: float = 0.0,
               frame_index: int = -1, meta: Mapping | None = None, readers: np.ndarray | None = None) -> BoardRead:
        """The BoardRead of (225, K) class probabilities and the rotation logits; `readers` (225, 2)
        the class each reader alone named (Snapshot.readers)."""
        if self.cfg.cap_counts:
            probs = cap_counts(probs, self.caps)
        if self.cfg.lone_tiles:
            # after the caps: a surplus blank that fell to "I" is still alone. The weighing only
            # moves weight to empty, so the caps still hold.
            probs = weigh_lone_tiles(probs, self.classes.index(EMPTY), self.cfg.lone_tile_factor)
        best = probs.argmax(axis=1)
        occupied = np.array([self.classes[b] != EMPTY for b in best])
        rotations = np.where(occupied, rot.argmax(axis=1), -1).reshape(GRID, GRID)
        rot_p = _softmax(rot).reshape(GRID, GRID, 4).astype(np.float32)
        snap = Snapshot(self.classes, probs.reshape(GRID, GRID, -1), t=t, frame_index=frame_index,
                        meta={"lang": self.lang, "tileset": self.tileset is not None,
                              "empty_ref": self.empty_ref is not None, **(meta or {})}, rotations=rot_p,
                        readers=None if readers is None else np.asarray(readers, np.int16).reshape(GRID, GRID, 2))
        # the one orientation rule (scoring.snapshot.board_turns), as every caller decides it
        k = board_turns(snap, min_share=self.cfg.min_orientation_share)
        orientation = None if k is None else 90 * k
        snap = replace(snap, meta={**snap.meta, "orientation_deg": orientation})
        ms = (time.perf_counter() - t0) * 1000.0
        return BoardRead(snap, rotations.astype(np.int64), orientation, ms, rot_p)


def fuse_empty_ratio(probs: np.ndarray, log_ratio: np.ndarray, empty_index: int = 0) -> np.ndarray:
    """(N, K) probabilities with log LR(empty : tile) added to the log-odds of P(empty); the
    other classes keep their proportions among themselves."""
    p = probs.astype(np.float64)
    pe = np.clip(p[:, empty_index], 1e-9, 1 - 1e-9)
    new_pe = 1.0 / (1.0 + np.exp(-(np.log(pe / (1 - pe)) + np.asarray(log_ratio, np.float64))))
    out = p * ((1 - new_pe) / (1 - pe))[:, None]
    out[:, empty_index] = new_pe
    return (out / out.sum(axis=1, keepdims=True)).astype(np.float32)


def settle_bare_squares(probs: np.ndarray, log_ratio: np.ndarray, bare: np.ndarray, empty_index: int,
                        blank_index: int, letters: np.ndarray, letter_factor: float = 0.01,
                        network_weight: float = 0.0) -> np.ndarray:
    """(N, K) probabilities with ``log_ratio`` (log LR empty : tile) added to every square's
    log-odds of P(empty), and on the ``bare`` squares (no ink: no letter) the letters weighed by
    ``letter_factor`` and the odds of empty against a blank set to ``network_weight`` times the
    network's own plus the ratio. The network is trained colour-blind, so on a square with no ink
    it cannot tell a plain blank tile from a plain square; the board's looks can (0: they alone)."""
    p = fuse_empty_ratio(probs, log_ratio, empty_index).astype(np.float64)
    rows = np.flatnonzero(bare)
    p[np.ix_(rows, letters)] *= letter_factor
    q = probs.astype(np.float64)
    odds = network_weight * np.log((q[rows, empty_index] + 1e-9) / (q[rows, blank_index] + 1e-9)) \
        + np.asarray(log_ratio, np.float64)[rows]
    both = p[rows, empty_index] + p[rows, blank_index]
    p[rows, empty_index] = both / (1.0 + np.exp(-odds))
    p[rows, blank_index] = both - p[rows, empty_index]
    return (p / p.sum(axis=1, keepdims=True)).astype(np.float32)


def square_colours(crops: np.ndarray) -> np.ndarray:
    """(N, 3) colour of each square's centre relative to the board: log mean BGR of the
    central half of the crop minus its median over the crops, so exposure and colour cast
    of the frame cancel and a cream tile on a green board stays apart from the green."""
    s = crops.shape[1]
    a, b = s // 4, s - s // 4
    centre = np.log(crops[:, a:b, a:b].reshape(len(crops), -1, 3).mean(axis=1) + 1.0)
    return (centre - np.median(centre, axis=0)).astype(np.float32)


def weigh_lone_tiles(probs: np.ndarray, empty_index: int = 0, factor: float = 0.01) -> np.ndarray:
    """(225, K) probabilities with the tile classes of each square whose four neighbours are
    all read empty multiplied by ``factor`` (then renormalised): such a tile is kept only when
    the network is sure of it by more than 1/factor to 1. Neighbours are taken as read, in one
    pass. (A soft neighbour weight does not work: the network leaves a few percent of tile
    probability on every plain empty square, so it never says "all four are empty" firmly.)"""
    p = probs.astype(np.float64)
    occ = (p.argmax(axis=1) != empty_index).reshape(GRID, GRID)
    support = np.zeros_like(occ)
    support[1:] |= occ[:-1]
    support[:-1] |= occ[1:]
    support[:, 1:] |= occ[:, :-1]
    support[:, :-1] |= occ[:, 1:]
    lone = (occ & ~support).ravel()
    if not lone.any():
        return probs
    w = np.where(lone, factor, 1.0)
    out = p * w[:, None]
    out[:, empty_index] = p[:, empty_index]
    return (out / out.sum(axis=1, keepdims=True)).astype(np.float32)


def cap_counts(probs: np.ndarray, caps: np.ndarray) -> np.ndarray:
    """(N, K) probabilities with at most caps[k] squares whose best class is k.

    Where a class is read on more squares than exist (an empty light-blue square taken for a
    third blank), only its caps[k] most probable squares keep it; on the others its
    probability goes to zero and the row is renormalised, so they fall to their next class.
    """
    p = probs.copy()
    for _ in range(2 * p.shape[1]):  # each pass settles at least one class
        best = p.argmax(axis=1)
        over = np.flatnonzero(np.bincount(best, minlength=p.shape[1]) > caps)
        if not len(over):
            break
        for k in over:
            rows = np.flatnonzero(best == k)
            surplus = rows[np.argsort(-p[rows, k])][caps[k]:]
            p[surplus, k] = 0.0
        p /= np.maximum(p.sum(axis=1, keepdims=True), 1e-12)
    return p


def _log_softmax(x: np.ndarray) -> np.ndarray:
    m = np.max(np.where(np.isfinite(x), x, -1e30), axis=1, keepdims=True)
    e = np.exp(x - m)
    return x - m - np.log(e.sum(axis=1, keepdims=True))


def _softmax(x: np.ndarray) -> np.ndarray:
    e = np.exp(x - x.max(axis=1, keepdims=True))
    return e / e.sum(axis=1, keepdims=True)
