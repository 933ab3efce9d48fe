"""A second tile reader: a general text recogniser (PP-OCRv4) reading each square's letter.

The model is ``ch_PP-OCRv4_rec_infer.onnx`` shipped in the ``rapidocr_onnxruntime`` wheel
(Apache-2.0; installed with ``pip install --no-deps`` so that its opencv-python GUI build is not
pulled in). Only the model file is used: it is found with ``importlib.util.find_spec``, which does
not run the package (importing it would need pyclipper, shapely and the GUI cv2), and its character
list is read from the ONNX metadata (``character``), as the package itself does.

The recogniser is a CTC text-line reader: input (N, 3, 48, W) BGR, ``(v/255 - 0.5) / 0.5``; output
(N, W/8, 6625) per-time-step probabilities over [CTC blank] + 6,623 characters + [space]. A square
is one 48 x 48 image (6 time steps). A letter's score is its probability's maximum over the time
steps; the scores of the alphabet's letters are then normalised to sum to 1. Letters that the
charset lacks (German Ö, Polish Ł, Spanish Ñ, ...) take the score of their base letter (the
recogniser cannot tell Ö from O, so it neither favours nor opposes either) or, for letters with
no base in the charset, the best score of the square (neutral); ``present`` says which letters the
recogniser really reads, so a fusion can leave the others to the classifier.

Crops: the board warped at 64 px per square (``vision.rectify.warp_board``), each square shrunk by
8 px on every side (the tile's face without the grid line and the neighbour's edge), 48 x 48.
"""
from __future__ import annotations

import importlib.util
import time
import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np
from tilecam.vision.errors import VisionError
from tilecam.vision.rectify import GRID

__all__ = [
    "INPUT_PX",
    "INSET_PX",
    "MODEL_FILE",
    "MODELS",
    "PACKAGE",
    "PREPS",
    "SQUARE_PX",
    "RINGS",
    "SHAPES",
    "STROKES",
    "LetterProbs",
    "LetterRecognizer",
    "RecognizerError",
    "bare_stroke",
    "centre_on_letter",
    "enclosed_ink",
    "erase_subscript",
    "find_model",
    "prepare",
    "ring_mark",
    "square_crops_ocr",
]

PACKAGE = "rapidocr_onnxruntime"
MODEL_FILE = "models/ch_PP-OCRv4_rec_infer.onnx"
# A second recogniser the rack reader may add ([rack_read] recogniser): PP-OCRv6 small, shipped in the
# rapidocr 3.10 wheel with its character list in the ONNX metadata as v4's (installed, as v4's, with
# --no-deps; found and read as a file, never imported, nothing downloaded)
MODELS = {"v4": (PACKAGE, MODEL_FILE, "rapidocr_onnxruntime==1.4.4"),
          "v6": ("rapidocr", "models/PP-OCRv6_rec_small.onnx", "rapidocr==3.10.0")}
SQUARE_PX = 64   # warp scale the crops are cut from
INSET_PX = 8     # cut off on every side of the square
INPUT_PX = 48    # the recogniser's input height (and our square width)

# letters whose base letter unicodedata cannot give (no canonical decomposition)
_BASE_EXTRA = {"Ł": "L", "Ø": "O", "Đ": "D"}

# The recogniser's characters for a bare vertical stroke. On a capital tile a bare stroke is an I,
# whatever the recogniser calls it: it reads a narrow I with a dot or its value beside it as "!" or
# "1" (a real unseen edition: I right 15 of 73 alone), and a sans-serif I is the glyph of "l".
STROKES = ("!", "1", "|", "l", "i", "丨", "│", "｜", "！", "Ｉ", "ｉ", "ｌ")
# Likewise a ring is an O: the recogniser reads a capital O alone on a tile as the digit 0 (a drawn O:
# O's own score 0.06), and no tile set has digits. But it reads other round letters as 0 too (a real
# German Ü, a U with two dots: 0 at 0.64, U at 0.09), so a ring character counts as O only where the
# crop's letter is a ring (ring_mark: its main mark closes round a hole; a U's, C's or G's does not).
RINGS = ("0", "o", "〇", "○", "Ｏ", "ｏ", "０")
# letter -> the recogniser's characters of the same shape, counted as that letter
SHAPES = {"I": STROKES, "O": RINGS}


class RecognizerError(VisionError):
    """The recogniser's model cannot be found or loaded."""


def find_model(which: str = "v4") -> Path:
    """A recogniser's ONNX file (MODELS: v4 the board's, v6 small) inside its installed wheel,
    without importing the package."""
    package, model_file, pin = MODELS[which]
    spec = importlib.util.find_spec(package)  # top-level: locates, does not execute __init__
    if spec is None or not spec.submodule_search_locations:
        raise RecognizerError(f"{package} is not installed: pip install --no-deps {pin}")
    for root in spec.submodule_search_locations:
        path = Path(root) / model_file
        if path.is_file():
            return path
    raise RecognizerError(f"{package} has no {model_file} (pip install --no-deps {pin})")


def base_letter(letter: str) -> str | None:
    """Ö -> O, Ł -> L, Ñ -> N; None for letters with no single base (CH) or already plain."""
    if letter in _BASE_EXTRA:
        return _BASE_EXTRA[letter]
    if len(letter) != 1:
        return None
    decomp = unicodedata.normalize("NFD", letter)
    return decomp[0] if decomp[0] != letter and decomp[0].isascii() else None


def square_crops_ocr(warped: np.ndarray, square_px: int = SQUARE_PX, inset_px: int = INSET_PX,
                     size: int = INPUT_PX) -> np.ndarray:
    """(225, size, size, 3) uint8 BGR, row-major: each square of a canonical grid image
    (``warp_board`` at any scale; resized to ``square_px`` per square) shrunk by ``inset_px``."""
    side = GRID * int(square_px)
    if warped.ndim == 2:
        warped = cv2.cvtColor(warped, cv2.COLOR_GRAY2BGR)
    if warped.shape[0] != side or warped.shape[1] != side:
        interp = cv2.INTER_AREA if warped.shape[0] > side else cv2.INTER_LINEAR
        warped = cv2.resize(warped, (side, side), interpolation=interp)
    s, m = int(square_px), int(inset_px)
    out = np.empty((GRID * GRID, size, size, 3), np.uint8)
    for r in range(GRID):
        for c in range(GRID):
            crop = warped[r * s + m:(r + 1) * s - m, c * s + m:(c + 1) * s - m]
            if crop.shape[0] != size:
                crop = cv2.resize(crop, (size, size), interpolation=cv2.INTER_AREA)
            out[r * GRID + c] = crop
    return out


def _ink_components(crop: np.ndarray, min_contrast: float):
    """Otsu ink mask of a crop (ink = the class the crop's outer ring is not), its components,
    the main one (largest with its centre in the middle 60 %) and the background colour; None
    when the crop has no clear ink (empty square, blank tile)."""
    grey = cv2.cvtColor(crop, cv2.COLOR_BGR2GRAY)
    t, mask = cv2.threshold(grey, 0, 255, cv2.THRESH_BINARY + cv2.THRESH_OTSU)
    hi, lo = grey > t, grey <= t   # as THRESH_BINARY splits (two flat grey levels: t is the lower)
    if not hi.any() or not lo.any() or grey[hi].mean() - grey[lo].mean() < min_contrast:
        return None
    ring = np.concatenate([mask[:2].ravel(), mask[-2:].ravel(), mask[:, :2].ravel(), mask[:, -2:].ravel()])
    ink = (mask == 0) if (ring > 0).mean() >= 0.5 else (mask > 0)   # background = the ring's class
    n, labels, stats, cent = cv2.connectedComponentsWithStats(ink.astype(np.uint8), connectivity=8)
    h, w = grey.shape
    # the letter: the tallest component with its centre in the middle (a narrow I is tall, the
    # value beside it is not; by area a value "10" can outweigh the I), larger area on a tie; one
    # that spans the whole crop only when no other will do (the board's edge or a neighbour
    # tile's seam, an L along two sides of the crop, has its centre in the middle too)
    best, best_key = 0, (False, 0, 0)
    for i in range(1, n):
        x, y, bw, bh, area = stats[i]
        cx, cy = x + bw / 2.0, y + bh / 2.0
        letter_sized = bh < h - 1 and bw < w - 1
        if 0.2 * w <= cx <= 0.8 * w and 0.2 * h <= cy <= 0.8 * h and area >= 0.01 * h * w \
                and (letter_sized, bh, area) > best_key:
            best, best_key = i, (letter_sized, bh, area)
    if best == 0:
        return None
    background = np.median(crop[~ink], axis=0) if (~ink).any() else np.median(crop.reshape(-1, 3), axis=0)
    return ink, labels, stats, cent, best, background


def bare_stroke(crop: np.ndarray, min_contrast: float = 40.0) -> bool:
    """The crop's letter is a bare vertical stroke: its main ink component (the tallest in the middle,
    as for erase_subscript) is narrow (width at most 0.3 of its height) and no row of it is much
    wider than its stem (at most 1.8 times the median row: no foot, no bar, no hook, no serif;
    dots printed above or below it, as wide as the stem, may touch it), and tall (at least 0.35 of
    the crop). On capital tiles only an I is that; an L's foot, a T's bar or a J's hook is a row
    wider than the stem, and a value beside the stroke is another component. A stroke an edge of the
    crop cuts or touches may be the stem of a larger letter (a tile leaning off its square shows a
    T's stem without its bar, a B's without its bowls), so it is not bare. Fixed by reasoning, not fitted."""
    found = _ink_components(crop, min_contrast)
    if found is None:
        return False
    _, labels, stats, _, main, _ = found
    x, y, bw, bh, _ = stats[main]
    h, w = crop.shape[:2]
    whole = y > 0 and y + bh < h and x > 0 and x + bw < w
    # the crop's main ink: no other mark outweighs it (a tile's seam in the middle of a crop that
    # caught a leaning B beside it is a thin line, the B the larger mark)
    heaviest = stats[1:, cv2.CC_STAT_AREA].max()
    if not (whole and bh >= 0.35 * h and bw <= 0.3 * bh and stats[main, cv2.CC_STAT_AREA] >= 0.5 * heaviest):
        return False
    rows = (labels[y:y + bh, x:x + bw] == main).sum(axis=1)
    rows = rows[rows > 0]
    return bool(rows.size and rows.max() <= 1.8 * np.median(rows))


def _holes(labels: np.ndarray, main: int) -> np.ndarray:
    """The holes of component ``main``: the pixels not of it that no path from the crop's corners
    reaches without crossing it (the inside of an O, and of an O the crop's edge cuts: a tile leaning
    off its square; a U's inside is open at its top)."""
    outside = (labels != main).astype(np.uint8)
    h, w = outside.shape
    reach = np.zeros((h + 2, w + 2), np.uint8)
    flood = outside.copy()
    for y, x in ((0, 0), (0, w - 1), (h - 1, 0), (h - 1, w - 1)):
        if flood[y, x] == 1:
            cv2.floodFill(flood, reach, (x, y), 2)
    return flood == 1


def ring_mark(crop: np.ndarray, min_contrast: float = 40.0, min_hole: float = 0.02) -> bool:
    """The crop's letter is a ring: its main ink component closes round a hole of at least
    ``min_hole`` of the crop (an O's, Ö's, D's, Q's; a U's, Ü's, C's or G's is open; a blurred A's or
    R's eye can be smaller). What lets the recogniser's ring characters count as O. Fixed by reasoning
    (an O's hole is 0.09-0.17 of the crop on the real sets), not fitted."""
    found = _ink_components(crop, min_contrast)
    if found is None:
        return False
    _, labels, _, _, main, _ = found
    holes = _holes(labels, main)
    return bool(holes.sum() >= min_hole * holes.size)


def enclosed_ink(crop: np.ndarray, min_contrast: float = 40.0, min_area: float = 0.008) -> bool:
    """Ink inside a hole of the crop's main ink component: a smiley's eyes inside its ring. No
    capital letter holds a mark inside its own hole (an O's, A's or R's hole is clear; Ö's dots
    stand above it), so such a crop is a printed face, not a letter. Marks smaller than
    ``min_area`` of the crop are grain, not print. Fixed by reasoning, not fitted."""
    found = _ink_components(crop, min_contrast)
    if found is None:
        return False
    _, labels, stats, _, main, _ = found
    holes = _holes(labels, main)
    h, w = holes.shape
    for i in range(1, stats.shape[0]):
        if i != main and stats[i, cv2.CC_STAT_AREA] >= min_area * h * w and holes[labels == i].all():
            return True
    return False


def erase_subscript(crop: np.ndarray, min_contrast: float = 40.0) -> np.ndarray:
    """The crop with the tile's value painted over in the tile's colour, wherever it is printed:
    every ink component other than the letter that is under 0.7 of the letter's height and
    either lies below right of the letter's centre (the usual place) or has its centre beside
    the letter, left or right of its ink (a value printed up or down the side, close to a narrow
    I). Marks above or below the letter within its width (umlaut dots, a cedilla) are kept.
    Unchanged when no letter stands out (empty squares, blanks)."""
    found = _ink_components(crop, min_contrast)
    if found is None:
        return crop
    ink, labels, stats, cent, main, background = found
    mx, my = cent[main]
    x0, mw, mh = stats[main, cv2.CC_STAT_LEFT], stats[main, cv2.CC_STAT_WIDTH], stats[main, cv2.CC_STAT_HEIGHT]
    erase = np.zeros(ink.shape, np.uint8)
    for i in range(1, stats.shape[0]):
        if i == main or stats[i, cv2.CC_STAT_HEIGHT] >= 0.7 * mh:
            continue
        cx, cy = cent[i]
        if (cx > mx and cy > my) or cx < x0 or cx > x0 + mw:
            erase[labels == i] = 1
    if not erase.any():
        return crop
    erase = cv2.dilate(erase, np.ones((3, 3), np.uint8)).astype(bool)
    out = crop.copy()
    out[erase] = background.astype(np.uint8)
    return out


def centre_on_letter(crop: np.ndarray, pad: float = 0.3, min_contrast: float = 40.0) -> np.ndarray:
    """A square crop centred on the letter's component (side = its larger extent x (1 + 2 pad)),
    resized back to the crop's size; unchanged when no letter stands out."""
    found = _ink_components(crop, min_contrast)
    if found is None:
        return crop
    _, _, stats, _, main, _ = found
    x, y, bw, bh = stats[main, :4]
    side = max(bw, bh) * (1 + 2 * pad)
    cx, cy = x + bw / 2.0, y + bh / 2.0
    h, w = crop.shape[:2]
    m = np.float32([[w / side, 0, w / 2.0 - cx * w / side], [0, h / side, h / 2.0 - cy * h / side]])
    return cv2.warpAffine(crop, m, (w, h), flags=cv2.INTER_AREA if side > w else cv2.INTER_LINEAR,
                          borderMode=cv2.BORDER_REPLICATE)


PREPS = ("plain", "erase", "centre", "erase+centre")


def prepare(crops: np.ndarray, prep: str) -> np.ndarray:
    """(N, s, s, 3) crops after one of PREPS (chosen on ScrabScrap: erase+centre)."""
    if prep == "plain":
        return crops
    out = crops
    if "erase" in prep:
        out = np.stack([erase_subscript(c) for c in out])
    if "centre" in prep:
        out = np.stack([centre_on_letter(c) for c in out])
    return out


@dataclass
class LetterProbs:
    """Per crop and turn: ``probs`` (N, R, K) over the alphabet (rows sum to 1); ``ink`` (N, R)
    the largest probability, over the time steps, of any character (1 - P(CTC blank) - P(space));
    ``letter_mass`` (N, R) the sum of the alphabet's raw scores before normalising;
    ``turns`` the R quarter turns applied (np.rot90 k, counter-clockwise)."""
    probs: np.ndarray
    ink: np.ndarray
    letter_mass: np.ndarray
    turns: tuple[int, ...]
    ms: float


class LetterRecognizer:
    """Our own onnxruntime session on the wheel's recogniser; ``letter_probs(crops)``.

    ``alphabet``: the tile set's letters (scoring.tiles ``Distribution.letters``). ``case_fold``:
    also count the lower-case character (off: it adds lower-case l to L, and a sans-serif I is
    that glyph). ``prep``: what is done to each crop before reading (PREPS): "erase" paints the
    tile's value over, "centre" re-cuts the crop around the letter, "erase+centre" (default) both,
    "plain" nothing. ``tie_diacritics``: a letter and its base letter both in the alphabet (Ü and
    U, Ó and O) both get the larger of their two scores: the recogniser reads German Ü as U, so it
    is left neutral between them and the classifier decides. ``floor`` is added to every score
    before normalising, so that one reading that gives the true letter nothing cannot veto it.
    """

    def __init__(self, alphabet: Sequence[str], model_path: str | Path | None = None,
                 threads: int = 1, case_fold: bool = False, floor: float = 1e-4,
                 prep: str = "erase+centre", tie_diacritics: bool = True, strokes: bool = True) -> None:
        import onnxruntime as ort  # heavy; only readers pay for it

        path = Path(model_path) if model_path is not None else find_model()
        opts = ort.SessionOptions()
        opts.intra_op_num_threads = int(threads)
        opts.inter_op_num_threads = 1
        try:
            self.session = ort.InferenceSession(str(path), opts, providers=["CPUExecutionProvider"])
        except Exception as exc:  # onnxruntime raises its own untyped errors
            raise RecognizerError(f"cannot load recogniser {path}: {exc}") from exc
        meta = self.session.get_modelmeta().custom_metadata_map
        if "character" not in meta:
            raise RecognizerError(f"recogniser {path} has no character list in its metadata")
        # index 0 is the CTC blank, the last the space (as rapidocr's CTCLabelDecode builds it)
        self.charset = ["<blank>"] + meta["character"].splitlines() + [" "]
        self.model_path = path
        self.threads, self.strokes = int(threads), bool(strokes)
        self.input_name = self.session.get_inputs()[0].name
        self.alphabet = tuple(alphabet)
        self.floor = float(floor)
        if prep not in PREPS:
            raise RecognizerError(f"unknown crop preparation {prep!r}; known: {', '.join(PREPS)}")
        self.prep = prep
        index = {ch: i for i, ch in enumerate(self.charset)}
        self.present = np.array([a in index for a in self.alphabet])
        self.columns: list[list[int]] = []
        for a in self.alphabet:
            cols = [index[a]] if a in index else []
            if case_fold and a.lower() in index and a.lower() != a:
                cols.append(index[a.lower()])
            self.columns.append(cols)
        # absent letters borrow their base letter's column(s), if that letter is in the alphabet's charset
        self.borrow = np.full(len(self.alphabet), -1)
        for k, a in enumerate(self.alphabet):
            if not self.present[k]:
                b = base_letter(a)
                if b is not None and b in self.alphabet and self.present[self.alphabet.index(b)]:
                    self.borrow[k] = self.alphabet.index(b)
        self.ties = [(k, self.alphabet.index(base_letter(a))) for k, a in enumerate(self.alphabet)
                     if tie_diacritics and base_letter(a) in self.alphabet] if tie_diacritics else []
        # (letter index, the recogniser's columns of its shape) for the set's letters in SHAPES
        self._shapes = [(self.alphabet.index(a), np.array([index[ch] for ch in chars if ch in index], np.int64))
                        for a, chars in SHAPES.items() if strokes and a in self.alphabet]
        self._stroke_letter = self.alphabet.index("I") if strokes and "I" in self.alphabet else -1
        self._ring_letter = self.alphabet.index("O") if strokes and "O" in self.alphabet else -1
        self._flat = np.array([c for cols in self.columns for c in cols], np.int64)
        self._owner = np.array([k for k, cols in enumerate(self.columns) for _ in cols], np.int64)
        self.run(np.zeros((1, INPUT_PX, INPUT_PX, 3), np.uint8))  # warm-up

    @property
    def missing(self) -> list[str]:
        """The alphabet's letters that the recogniser's charset lacks."""
        return [a for a, p in zip(self.alphabet, self.present) if not p]

    def crops(self, warped: np.ndarray) -> np.ndarray:
        """The 225 squares, cut at 64 px per square (not yet prepared; letter_probs does that)."""
        return square_crops_ocr(warped)

    def prepare(self, crops: np.ndarray) -> np.ndarray:
        """Apply ``prep`` to each crop (upright crops: the value sits below right of the letter)."""
        return prepare(crops, self.prep)

    def run(self, crops: np.ndarray) -> np.ndarray:
        """(N, h, w, 3) uint8 BGR crops -> (N, T, C) per-time-step probabilities."""
        if crops.shape[1] != INPUT_PX:
            w = int(round(crops.shape[2] * INPUT_PX / crops.shape[1]))
            crops = np.stack([cv2.resize(c, (w, INPUT_PX), interpolation=cv2.INTER_AREA) for c in crops])
        x = np.ascontiguousarray(crops.transpose(0, 3, 1, 2)).astype(np.float32)
        x *= 2.0 / 255.0
        x -= 1.0
        return self.session.run(None, {self.input_name: x})[0]

    def letter_probs(self, crops: np.ndarray, turns: Sequence[int] = (0,)) -> LetterProbs:
        """Letter probabilities of (N, s, s, 3) crops, each read in every quarter turn of ``turns``
        (one batch of N * len(turns))."""
        t0 = time.perf_counter()
        turns = tuple(int(k) % 4 for k in turns)
        n = crops.shape[0]
        batch = np.concatenate([self.prepare(np.ascontiguousarray(np.rot90(crops, k, axes=(1, 2))))
                                for k in turns])
        p = self.run(batch)                                   # (N*R, T, C)
        # the shape before prep (centring re-scales it), upright or lying: a bare bar is an I read a
        # quarter turn off (an I's own turn is the one a rotation head is least sure of)
        bare = np.array([bare_stroke(c) or bare_stroke(np.ascontiguousarray(np.rot90(c)))
                         for k in turns for c in np.rot90(crops, k, axes=(1, 2))], bool) \
            if self._stroke_letter >= 0 else None
        ink = (1.0 - p[:, :, 0] - p[:, :, -1]).max(axis=1)
        sel = p[:, :, self._flat]                             # (N*R, T, cols)
        col_scores = sel.max(axis=1)                          # max over time, per column
        scores = np.zeros((p.shape[0], len(self.alphabet)), np.float32)
        np.add.at(scores.T, self._owner, col_scores.T)        # sum a letter's columns (case fold)
        raw = scores.copy()
        # the crops whose letter is a ring (a quarter turn keeps a hole a hole)
        rings = np.tile([ring_mark(c) for c in crops], len(turns)) if self._ring_letter >= 0 else None
        for k, cols in self._shapes:
            # a shape character beside a letter read at another time step (an A and its value 1) is
            # discounted by how surely that letter is read; a ring character counts only on a ring
            shape = p[:, :, cols].sum(axis=2).max(axis=1)
            if k == self._ring_letter:
                shape = np.where(rings, shape, 0.0)
            others = np.delete(raw, k, axis=1).max(axis=1)
            scores[:, k] = np.minimum(1.0, scores[:, k] + shape * (1.0 - others))
        mass = scores.sum(axis=1)
        for k in np.flatnonzero(~self.present):
            scores[:, k] = scores[:, self.borrow[k]] if self.borrow[k] >= 0 else scores.max(axis=1)
        for k, b in self.ties:
            scores[:, k] = scores[:, b] = np.maximum(scores[:, k], scores[:, b])
        if bare is not None and bare.any():
            # the shape decides: the recogniser reads a clean bar as '-', '.' or nothing at all
            scores[bare] = 0.0
            scores[bare, self._stroke_letter] = 1.0
            mass[bare] = 1.0   # a letter's shape: no face (vision.fuse.printed_face)
        scores += self.floor
        probs = scores / scores.sum(axis=1, keepdims=True)
        r = len(turns)
        return LetterProbs(probs.reshape(r, n, -1).transpose(1, 0, 2), ink.reshape(r, n).T,
                           mass.reshape(r, n).T, turns, (time.perf_counter() - t0) * 1000.0)

    def read_board(self, warped: np.ndarray, turns: Sequence[int] = (0,)) -> LetterProbs:
        """All 225 squares of a canonical grid image (any scale; cut at 64 px per square)."""
        return self.letter_probs(self.crops(warped), turns)
