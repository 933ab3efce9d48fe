"""Fusion of the text recogniser's letter probabilities (vision.recognizer) with the classifier's.

The classifier (vision.classify.TileReader) decides what a square holds: empty, blank tile or
a letter. Only the split of its letter mass among the letters is changed here: within the
letters, log q(k) = (1 - w) log p_cls(k) + w log p_ocr(k) + const (a log-linear pool; w = 0.5
ranks as the plain product), then q is scaled to the classifier's total letter probability, so
P(empty) and P(blank) are the classifier's own and the count caps and lone-tile rule that follow
(``TileReader.finish``) see the same occupancy as without the recogniser. Keeping the mass is not
enough on its own, as a square reads as its most probable class: the mass of letters spread thin,
heaped on one, can outweigh P(empty) or P(blank). So the reader (``FusedTileReader``) re-splits
only the squares the classifier alone reads as a letter; which squares hold a letter is the
classifier's call, which letter the two readers'.

Letters that the recogniser's charset lacks carry a neutral score (their base letter's, or the
square's best; see vision.recognizer), so between those the classifier decides alone.

The weight is chosen on synthetic boards in looks the classifier never saw (tests/bench/bench_ocr.py),
never on the English photos.
"""
from __future__ import annotations

import copy
import json
import time
from collections.abc import Sequence
from dataclasses import dataclass, replace
from pathlib import Path

import cv2
import numpy as np

from tilecam.scoring import BLANK_TILE, DISTRIBUTIONS, EMPTY
from tilecam.vision.classify import BoardRead, TileReader, square_colours
from tilecam.vision.recognizer import SQUARE_PX, LetterRecognizer, base_letter, enclosed_ink, square_crops_ocr
from tilecam.vision.rectify import GRID, warp_board

__all__ = ["CARD_PATH", "DEFAULT_WEIGHT", "Calibration", "FusedTileReader", "fuse_calibrated", "fuse_letter_probs",
           "fit_temperature", "load_calibration", "nll", "pool_letters", "printed_face", "printed_faces", "product_letters",
           "recognised_turn", "temper", "thumbnails"]

# the two readers' temperatures and how they were chosen (tests/bench/calibrate_ocr.py)
CARD_PATH = Path(__file__).resolve().with_name("recognizer.card.json")
EPS = 1e-9

# chosen by tests/bench/bench_ocr.py on synthetic held-out looks (docs/results/ocr.json "fusion_choice")
DEFAULT_WEIGHT = 0.2


def pool_letters(p_cls: np.ndarray, p_ocr: np.ndarray, weight: float = DEFAULT_WEIGHT,
                 eps: float = 1e-6) -> np.ndarray:
    """(N, L) log-linear pool of two (N, L) letter distributions; rows sum to 1."""
    logq = (1.0 - weight) * np.log(p_cls + eps) + weight * np.log(p_ocr + eps)
    logq -= logq.max(axis=1, keepdims=True)
    q = np.exp(logq)
    return q / q.sum(axis=1, keepdims=True)


def fuse_letter_probs(probs: np.ndarray, classes: Sequence[str], p_ocr: np.ndarray,
                      alphabet: Sequence[str], weight: float = DEFAULT_WEIGHT,
                      rows: np.ndarray | None = None) -> np.ndarray:
    """The classifier's (N, K) class probabilities with the letters re-split by the recogniser.

    ``p_ocr`` (M, L) over ``alphabet`` for the squares ``rows`` (indices into N; all N if None),
    e.g. only the squares the classifier thinks hold a tile. Classes not in ``alphabet`` (".",
    "?") keep their probability; so does each square's total letter probability.
    """
    return _resplit(probs, classes, p_ocr, alphabet, rows, lambda p_cls, p: pool_letters(p_cls, p, weight))


def _resplit(probs, classes, p_ocr, alphabet, rows, combine) -> np.ndarray:
    """`probs` with each square's letter mass in `rows` re-split by `combine(p_cls, p_ocr)` (both
    (M, L') over the letters the two readers share); P(empty), P(blank) and the mass unchanged."""
    out = np.array(probs, np.float64, copy=True)
    rows = np.arange(out.shape[0]) if rows is None else np.asarray(rows)
    if rows.size == 0:
        return out.astype(probs.dtype)
    cls_idx = [list(classes).index(a) for a in alphabet if a in classes]
    ocr_idx = [i for i, a in enumerate(alphabet) if a in classes]
    sub = out[np.ix_(rows, cls_idx)]
    mass = sub.sum(axis=1, keepdims=True)
    q = combine(sub / np.maximum(mass, 1e-12), np.asarray(p_ocr, np.float64)[:, ocr_idx])
    out[np.ix_(rows, cls_idx)] = q * mass
    return out.astype(probs.dtype)


def temper(p: np.ndarray, temperature: float = 1.0, eps: float = EPS) -> np.ndarray:
    """(N, L) distributions with temperature scaling: softmax(log p / T); rows sum to 1."""
    logq = np.log(np.asarray(p, np.float64) + eps) / float(temperature)
    logq -= logq.max(axis=1, keepdims=True)
    q = np.exp(logq)
    return q / q.sum(axis=1, keepdims=True)


def nll(p: np.ndarray, truth: np.ndarray, temperature: float = 1.0) -> float:
    """Mean -log q(true letter) of ``temper(p, temperature)``; ``truth``: (N,) column indices."""
    q = temper(p, temperature)
    return float(-np.log(q[np.arange(len(q)), truth] + 1e-12).mean())


def fit_temperature(p: np.ndarray, truth: np.ndarray, low: float = 0.1, high: float = 20.0) -> tuple[float, dict]:
    """The temperature of smallest log loss of (N, L) distributions ``p`` against the (N,) column
    indices ``truth``: a grid from ``low`` to ``high``, then a finer grid about its best. Returns
    (temperature, the fit's log loss at 1 and at T, accuracy, n)."""
    grid = np.exp(np.linspace(np.log(low), np.log(high), 121))
    losses = [nll(p, truth, t) for t in grid]
    i = int(np.argmin(losses))
    fine = np.exp(np.linspace(np.log(grid[max(i - 1, 0)]), np.log(grid[min(i + 1, len(grid) - 1)]), 41))
    best = float(min(fine, key=lambda t: nll(p, truth, t)))
    return round(best, 4), {"nll_at_1": round(nll(p, truth, 1.0), 5), "nll_at_T": round(nll(p, truth, best), 5),
                            "accuracy": round(float((p.argmax(1) == truth).mean()), 5), "n": int(len(truth))}


def product_letters(p_cls: np.ndarray, p_ocr: np.ndarray, t_cls: float, t_ocr: float,
                    eps: float = EPS) -> np.ndarray:
    """(N, L) product of two calibrated letter distributions (independent experts):
    q ∝ p_cls^(1/t_cls) · p_ocr^(1/t_ocr); rows sum to 1."""
    logq = (np.log(np.asarray(p_cls, np.float64) + eps) / float(t_cls)
            + np.log(np.asarray(p_ocr, np.float64) + eps) / float(t_ocr))
    logq -= logq.max(axis=1, keepdims=True)
    q = np.exp(logq)
    return q / q.sum(axis=1, keepdims=True)


@dataclass(frozen=True)
class Calibration:
    """Temperatures of the two readers' letter probabilities (vision/recognizer.card.json)."""
    classifier_temperature: float = 1.0
    recogniser_temperature: float = 1.0
    source: str = "uncalibrated"


def load_calibration(path: str | Path = CARD_PATH) -> Calibration:
    """The temperatures of the card written by tests/bench/calibrate_ocr.py."""
    card = json.loads(Path(path).read_text(encoding="utf-8"))
    return Calibration(float(card["classifier_temperature"]), float(card["recogniser_temperature"]),
                       f"{Path(path).name} at {card.get('commit', '?')}")


def fuse_calibrated(probs: np.ndarray, classes: Sequence[str], p_ocr: np.ndarray, alphabet: Sequence[str],
                    cal: Calibration, rows: np.ndarray | None = None) -> np.ndarray:
    """As ``fuse_letter_probs``, the letters re-split by the product of the calibrated distributions
    (``product_letters``) instead of a weighted pool; P(empty), P(blank) and each square's letter
    mass are the classifier's."""
    return _resplit(probs, classes, p_ocr, alphabet, rows,
                    lambda p_cls, p: product_letters(p_cls, p, cal.classifier_temperature,
                                                     cal.recogniser_temperature))


def thumbnails(crops: np.ndarray, side: int = 8) -> np.ndarray:
    """(N, side*side) grey block means of (N, s, s, 3) crops: a cheap look to tell whether a square
    changed since it was last read."""
    grey = crops.astype(np.float32).mean(axis=3)
    n, s = grey.shape[:2]
    if n == 0:  # no square to read (an empty board whose orientation is known: after a tile check)
        return np.zeros((0, side * side), np.float32)
    if s % side == 0:
        b = s // side
        return grey.reshape(n, side, b, side, b).mean(axis=(2, 4)).reshape(n, -1)
    return np.stack([cv2.resize(g, (side, side), interpolation=cv2.INTER_AREA).ravel() for g in grey])


# A printed face on a blank (a smiley, a star, a logo): the recogniser reads ink there (the
# largest probability of any character) but no letter of the set at any quarter turn. Fixed by
# reasoning (a drawn star reads as '★' with letter mass 0.00-0.03 at every turn), not fitted; a
# soft photo's S or J can read as no letter at its own turn but reads some letter (0.19, 0.39) at
# another, so every turn must read none (a bound of 0.5 there took both for blanks).
FACE_INK = 0.9
FACE_LETTERS = 0.1


def printed_face(ink: float, letters: float, turned: float = 0.0) -> bool:
    """The recogniser reads something there and no letter of the set (``letters``: the letter
    mass at the tile's turn; ``turned``: the largest at the other three)."""
    return ink > FACE_INK and max(letters, turned) < FACE_LETTERS


def printed_faces(recognizer: LetterRecognizer, batch: np.ndarray, lp) -> set[int]:
    """Which upright crops of `batch` (read by `recognizer` as `lp` at their own turn) are a printed
    face, not a letter: ink inside the hole of the main mark (a smiley's eyes in its ring; no letter
    has that), or ink that reads as no letter at this turn nor, read again, at the other three (a
    letter read a quarter turn off can read as no letter). The board's squares and the rack's slots."""
    faces = {j for j in range(len(batch)) if enclosed_ink(batch[j])}
    maybe = [j for j in range(len(batch)) if j not in faces and printed_face(lp.ink[j, 0], lp.letter_mass[j, 0])]
    if maybe:
        turned = recognizer.letter_probs(batch[maybe], turns=(1, 2, 3)).letter_mass.max(axis=1)
        faces |= {j for j, m in zip(maybe, turned) if printed_face(lp.ink[j, 0], lp.letter_mass[j, 0], m)}
    return faces


# A tile's own turn (the rotation head's) is used for the recogniser's crop when at least this sure;
# fixed by reasoning (a majority over the four turns), not fitted. (Weighing it by how the board's
# tiles lie, issue 44, gained English photos but lost plays on held-out rendered videos and on the
# family game recorded in order: taken out, docs/vision.md.)
TURN_SURE = 0.5


def recognised_turn(recognizer: LetterRecognizer, crops: np.ndarray, min_share: float = 0.5,
                    min_lead: float = 2.0) -> int | None:
    """The quarter turn (np.rot90's k) in which the recogniser reads the most of ``crops`` (the
    squares read as a letter, as cut from the grid image) as its surest letter: each crop votes for
    the turn of its most probable letter; the winner needs more than ``min_share`` of the votes and
    ``min_lead`` times the runner-up's (scoring.snapshot.upright_turns' rule), else None. Letters
    that read alike turned (O, S, N/Z, H, I, X) split their votes; the rest carry the board."""
    if not len(crops):
        return None
    lp = recognizer.letter_probs(crops, turns=(0, 1, 2, 3))
    votes = np.bincount(lp.probs.max(axis=2).argmax(axis=1), minlength=4)
    order = np.argsort(-votes)
    win, second = int(votes[order[0]]), int(votes[order[1]])
    if win <= min_share * votes.sum() or win < min_lead * second:
        return None
    return int(lp.turns[order[0]])


class FusedTileReader(TileReader):
    """The classifier (vision.classify.TileReader) with its letters re-read by the text recogniser
    (vision.recognizer.LetterRecognizer): the one reader ``vision.load_tile_reader`` builds
    when the recogniser is available.

    ``read`` classifies the 225 squares as TileReader does, takes the board's upright turn from the
    classifier's rotations (``turn_rule``, default ``scoring.snapshot.board_turns``; no turn: the
    classifier alone), and runs the recogniser only on the squares the classifier alone reads as a
    letter (not empty, not a blank) with P(empty) below ``cfg.recogniser_max_empty``, cut at 64 px
    per square from the frame (``source``: the frame and the homography of ``warped``, warped again
    by ``vision.rectify.warp_board``; without it the warp is resized) and turned upright. The letters are then re-split by ``fuse_calibrated``
    before the count caps and the lone-tile rule.

    A board standing still is not read again at every snapshot: a square keeps its recogniser
    reading while it is read at the same turn, the classifier's top letter there is the one it had
    when the recogniser read it, and no block of its 8 x 8 thumbnail changed by more than
    ``cache_diff`` grey levels beyond the whole square's change (``same_look``). A square the
    recogniser does not read (now empty or a blank) forgets its reading. (The mean over the
    thumbnail, the earlier test, let a tile laid where another had been taken away keep the old
    letter: the demo's phony MAZEY withdrawn and ALGAE laid on its squares read MAZEY again.)
    """

    recognizer: LetterRecognizer
    calibration: Calibration
    pool_weight: float | None = None   # set: the log-linear pool of fuse_letter_probs instead (benches only)
    faces: bool = True                 # off ([read] shape_rules): no printed face is taken for a blank

    @classmethod
    def around(cls, reader: TileReader, recognizer: LetterRecognizer, calibration: Calibration,
               cache_diff: float = 6.0) -> "FusedTileReader":
        """A fused reader sharing ``reader``'s session, tile set and reference."""
        if tuple(recognizer.alphabet) != tuple(DISTRIBUTIONS[reader.lang].letters):
            raise ValueError("the recogniser's alphabet is not the tile reader's letters")
        other = copy.copy(reader)
        other.__class__ = cls
        other.recognizer = recognizer
        other.calibration = calibration
        other.cache_diff = float(cache_diff)
        other._cache = {}
        return other

    def calibrated_on(self, labels: Sequence[str], min_tiles: int = 20) -> "FusedTileReader":
        """This reader with the recogniser's temperature fitted to this table's tiles: ``labels``
        (one per square, grid image orientation) the tiles a tile check is known to hold, read by
        the last ``read`` (the recogniser's cached readings). A tile set whose font the recogniser
        reads confidently wrong gets a flatter recogniser, so the table's enrolled classifier
        decides there; the fit never sharpens it beyond the card's temperature (100 tiles are too
        few to trust it more than the thousands it was calibrated on). Fewer than ``min_tiles``
        letters read: this reader unchanged."""
        alphabet = list(self.recognizer.alphabet)
        known = [(sq, alphabet.index(lab)) for sq, lab in enumerate(labels) if lab in alphabet and sq in self._cache]
        if len(known) < min_tiles:
            return self
        p = np.stack([self._cache[sq][3] for sq, _ in known])
        base = self.calibration.recogniser_temperature
        t_ocr, fit = fit_temperature(p, np.array([i for _, i in known]), low=base, high=max(50.0, base))
        other = copy.copy(self)
        other.calibration = replace(self.calibration, recogniser_temperature=t_ocr,
                                    source=f"{self.calibration.source}; recogniser refitted on the tile check "
                                           f"({fit['n']} tiles, {fit['accuracy']:.0%} read right alone)")
        return other

    def read(self, warped: np.ndarray, t: float = 0.0, frame_index: int = -1, *,
             source: tuple[np.ndarray, np.ndarray] | None = None, turn_rule=None) -> BoardRead:
        t0 = time.perf_counter()
        crops = self.crops(warped)
        logits, rot, emb = self.embed(crops)
        colours = square_colours(crops) if self.tileset is not None else None
        probs = self.square_probs(warped, logits, emb, colours)
        plain = self.finish(probs, rot, t0)
        letters = [self.classes.index(a) for a in self.recognizer.alphabet if a in self.classes]
        # The recogniser says which letter, never whether there is one: it reads only the squares the
        # classifier alone reads as a letter. Re-splitting the letter mass of a square the classifier
        # reads empty or blank heaps that mass on one letter, which then outweighs P(empty) or P(blank)
        # (ScrabScrap: an empty square at P(empty) 0.31, its letters spread thin, read as E). Nor can
        # the recogniser tell a tile from print: it reads the premium squares' labels as text.
        # (Reading the squares before the count caps, issue 44, gained English photos and lost 5 plays
        # of a held-out rendered video: taken out, docs/vision.md.)
        said = plain.snapshot.probs.reshape(len(probs), -1).argmax(axis=1)
        rows = np.flatnonzero((probs[:, self.classes.index(EMPTY)] < self.cfg.recogniser_max_empty)
                              & np.isin(said, letters))
        # A square not read now (empty, a blank: its tile taken away) forgets its reading, so a tile
        # laid there later is read afresh (a phony withdrawn and another word laid on its squares).
        for sq in set(self._cache) - {int(sq) for sq in rows}:
            del self._cache[sq]
        k = turn_rule(plain.snapshot) if turn_rule is not None else \
            (None if plain.orientation_deg is None else plain.orientation_deg // 90)
        cut = None
        head = k is not None
        if k is None and len(rows):
            # The rotation head split its votes (a soft photo): the recogniser says which way up the
            # letters read, under the same majority rule (English 170755: 37 of 100 tiles lost).
            cut = square_crops_ocr(self._warp64(warped, source))
            k = recognised_turn(self.recognizer, cut[rows], self.cfg.min_orientation_share)
        if k is None:
            return self.finish(probs, rot, t0, t=t, frame_index=frame_index,
                               meta={"recogniser": "no orientation: classifier alone"})
        k = int(k) % 4
        # Each tile is read in its own upright turn: players lay tiles facing themselves, so a
        # board holds letters at several turns, and a Z read a quarter turn off is an N. The
        # rotation head's turn weighed by how the board's tiles lie; where the head could not say
        # how the board lies, its tiles' turns are not trusted either: the recogniser's turn.
        turn_p = np.exp(rot - rot.max(axis=1, keepdims=True))
        turn_p /= turn_p.sum(axis=1, keepdims=True)
        own = np.where(turn_p.max(axis=1) >= TURN_SURE, turn_p.argmax(axis=1), k).astype(int) if head \
            else np.full(len(probs), k, int)
        if not head:
            # the recogniser's turn stands for the head's on the tiles it read, so the read's
            # orientation (game_orientation, the recorder's turns) is the one its letters read in:
            # a photo left unturned is every tile wrong (English 170755 through the pipeline)
            rot = rot.copy()
            rot[rows] = np.log(np.where(np.arange(4) == k, 0.97, 0.01))
        p_ocr = np.empty((len(rows), len(self.recognizer.alphabet)), np.float64)
        looks = thumbnails(crops[rows])
        tops = np.asarray(letters)[probs[np.ix_(rows, letters)].argmax(axis=1)] if len(rows) else np.zeros(0, int)
        misses = []
        face = np.zeros(len(rows), bool)
        for i, (sq, look, top) in enumerate(zip(rows, looks, tops)):
            hit = self._cache.get(int(sq))
            if hit is not None and hit[0] == own[sq] and hit[1] == top and self.same_look(hit[2], look):
                p_ocr[i] = hit[3]
                face[i] = hit[4]
            else:
                misses.append(i)
        if misses:
            cut = square_crops_ocr(self._warp64(warped, source)) if cut is None else cut
            batch = np.stack([np.ascontiguousarray(np.rot90(cut[rows[i]], own[rows[i]])) for i in misses])
            lp = self.recognizer.letter_probs(batch)
            read = lp.probs[:, 0]
            faces = self._faces(batch, lp) if self.faces else set()
            for j, i in enumerate(misses):
                p_ocr[i] = read[j]
                face[i] = j in faces
                self._cache[int(rows[i])] = (int(own[rows[i]]), int(tops[i]), looks[i], read[j], face[i])
        if self.pool_weight is None:
            fused = fuse_calibrated(probs, self.classes, p_ocr, self.recognizer.alphabet, self.calibration, rows)
        else:   # the earlier rule, kept for the benches' comparison
            fused = fuse_letter_probs(probs, self.classes, p_ocr, self.recognizer.alphabet, self.pool_weight, rows)
        if face.any():
            # A face that is no letter of the set is the set's blank look: its letter mass goes to the
            # blank, and the count caps (finish) hold it to the set's blanks.
            sq = rows[face]
            letters_at = np.array(letters)
            mass = fused[np.ix_(sq, letters_at)].sum(axis=1)
            fused[np.ix_(sq, letters_at)] *= 0.1
            fused[sq, self.classes.index(BLANK_TILE)] += 0.9 * mass
        # what each reader named alone on the squares both read: the classifier's top letter and the
        # recogniser's (a printed face, the blank's look, is named by neither)
        readers = np.full((len(probs), 2), -1, np.int16)
        if len(rows):
            alphabet = list(self.recognizer.alphabet)
            alpha = np.asarray([self.classes.index(a) if a in self.classes else -1 for a in alphabet])
            top = p_ocr.argmax(axis=1)
            # A letter the recogniser's charset lacks scores as its base letter (Ü as U): the two tie,
            # and where the classifier's letter is among the tied best, that is the one the recogniser
            # names. A letter with no base in the charset scores neutral: the recogniser names none.
            judged = np.array([a in alphabet and (self.recognizer.present[alphabet.index(a)] or
                                                  (base_letter(a) or "") in alphabet)
                               for a in (self.classes[t] for t in tops)], bool)
            own = np.array([alphabet.index(self.classes[t]) if self.classes[t] in alphabet else 0 for t in tops])
            tied = judged & (p_ocr[np.arange(len(rows)), own] >= p_ocr.max(axis=1))
            readers[rows, 0] = tops
            readers[rows, 1] = np.where(tied, alpha[own], alpha[top])
            readers[rows[face]] = -1
        return self.finish(fused, rot, t0, t=t, frame_index=frame_index,
                           meta={"recogniser": {"read": len(misses), "cached": len(rows) - len(misses), "turn": k,
                                                "faces": int(face.sum())}}, readers=readers)

    def _faces(self, batch: np.ndarray, lp) -> set[int]:
        return printed_faces(self.recognizer, batch, lp)

    def same_look(self, before: np.ndarray, now: np.ndarray) -> bool:
        """Two thumbnails of a square show the same thing: no block changed by more than
        ``cache_diff`` grey levels once the square's overall change (the light) is taken out. The
        largest block, not the mean: a letter's strokes cover a few blocks of a tile that is
        otherwise alike, and a mean over the 64 blocks hides another letter (M read where A lies)."""
        d = np.asarray(now, np.float32) - np.asarray(before, np.float32)
        return float(np.abs(d - np.median(d)).max()) <= self.cache_diff

    @staticmethod
    def _warp64(warped: np.ndarray, source) -> np.ndarray:
        """The board at SQUARE_PX per square: from the frame when given, else the warp resized."""
        if source is None:
            return warped
        image, homography = source
        px = warped.shape[0] / GRID
        scale = np.diag([SQUARE_PX / px, SQUARE_PX / px, 1.0])
        return warp_board(image, scale @ np.asarray(homography, np.float64), SQUARE_PX)
