"""Reading a player's rack from a rack camera's frame, and watching it settle.

``RackReader.read(image) -> RackView``: the rack's slots (the learned finder, vision.rackdetect,
checked by the classical one, vision.rackfind, by default; either alone by ``RackConfig.finder``), each tile's face
rectified from its quad to the crops the table's readers take, and read by the same models the
board uses (the classifier with the table's enrolled tile set, the text recogniser with the
table's calibration; vision.assemble builds them). Which of them names a rack's letters is
``RackConfig.rule``, chosen by tests/bench/bench_rack.py on rendered racks in the training looks
only (docs/racks.md has the figures): there the board's calibrated fusion and the recogniser alone
read about alike and the classifier alone worst. On real broadcast rack crops (not available here)
the recogniser alone read best (93.1 %, the classifier 74.0 %, the fusion 82.4 %), so 'recogniser'
is the rule to try first on a real table. A slot a hand hides
(a gap in the row where the learned finder sees a hidden tile is such a slot, ``hidden_gaps``),
or whose face the frame cuts, is read as nothing (``letter`` None), never guessed; a face with no letter's ink is a blank ('?'),
and so is a printed face (a star, a smiley, a logo: the board's shape rules, vision.fuse.printed_faces).
The text recogniser is the board's PP-OCRv4 pooled with PP-OCRv6 small (``RackConfig.recogniser``).

A frame vouches for a slot only when both readers name its letter (each giving it at least
READER_MIN; a blank: the classifier's, whatever the ink says) and the finder's slot is a whole tile
(not cut by the frame, not much shorter than the row's tiles or narrower than its pitch); chosen on
the training looks only. One frame never makes a slot sure (issue 45): on a look the readers never
saw both can name the same wrong letter, so ``read`` (one frame: `tilecam rack IMAGE`) gives every
letter at most DOUBTED, under [racks] review_below. A slot is SURE (0.9) or more only from the
watch: frames that vouched for it agreeing (``RackWatch``, ``agree_frames``). What it does to the
held-out looks is in docs/racks.md.

``RackWatch(reader).feed(image, t)``: the reads of a rack standing still fused slot by slot (the
mean letter probabilities of the frames that saw the slot), given once the rack has been still
for ``settle_s`` and reads otherwise than the last view given.
"""
from __future__ import annotations

import sys
import time
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

import cv2
import numpy as np
from pydantic import BaseModel, ConfigDict, Field

from tilecam.vision.errors import RackNotFound
from tilecam.vision.rackfind import FindConfig, RackFix, Slot, find_rack

if TYPE_CHECKING:   # loaded with the learned finder, at its first use (RackReader.detector)
    from tilecam.vision.rackdetect import HiddenMap

__all__ = ["BLANK", "DOUBTED", "RULES", "SETTLE_S", "SURE", "UNSEEN", "RackConfig", "RackNotFound", "RackReader", "RackTile", "RackView", "RackWatch",
           "RawReads", "WatchConfig", "tile_crop"]

BLANK = "?"
UNSEEN = "."
RULES = ("recogniser", "classifier", "fused")
# where the tile's face lies in each reader's crop (fractions of the crop's side): the classifier's
# board crop is the square grown by the card's margin, the tile 0.9 of the square; the
# recogniser's is the square at 64 px less 8 px a side (vision.recognizer)
CLASSIFIER_SPAN = (0.154, 0.846)
I_ASPECT = 0.4   # an ink mark narrower than this (width/height) is an I, not a blank's print
RECOGNISER_SPAN = (-0.1, 1.1)
# Certainty that means something (issue 38): a slot read at SURE or above must be right 99 times in
# 100 on looks not tuned on. The fused probability alone was not (95.0 % right on the training
# looks): a face whose ink the ink test missed called a blank at 0.97, O for G, I for J. A slot is
# let reach SURE only when nothing doubts it; a doubted one is capped at DOUBTED.
SURE = 0.9
DOUBTED = 0.85
READER_MIN = 0.3    # each reader gives the letter at least this (a blank: the classifier 0.5)
BLANK_MIN = 0.5
EDGE_PX = 2         # a slot this close to the frame's edge is cut by it
MIN_HEIGHT = 0.85   # of the row's median slot height: less is a piece of a tile (or of the table)
MIN_WIDTH = 0.6     # of the pitch
# a hidden tile is always unseen: a letterless face whose colour runs on above or below it (runs_on;
# a hand reaches in from either side of the frame), or that is a piece of a tile only (partial)
RUN_ON = 0.6
RUN_ON_STRIP = 0.4
RUN_ON_LAB = 20.0
RUN_ON_ENDS = ("top", "bottom")
HIDE_PARTIAL = True
# a gap of a pitch or more between two slots where the learned finder's hidden odds average this is
# a tile under a hand (RackReader.hidden_gaps; on train-look hand racks hidden tiles in such gaps
# averaged 0.65-0.99, tiles the finders missed in view 0.05-0.1)
GAP_HIDDEN = 0.5


class RackConfig(BaseModel):
    """How a rack is read (the rule and threshold chosen by tests/bench/bench_rack.py on the
    rendered training looks; see docs/racks.md)."""
    model_config = ConfigDict(extra="forbid", frozen=True)

    rule: str = Field(default="fused", pattern="^(recogniser|classifier|fused)$",
                      description="Which reader names a rack tile's letter: the text recogniser alone, the "
                                  "classifier alone, or their calibrated product (the board's fusion).")
    recogniser: str = Field(default="both", pattern="^(v4|v6|both)$",
                            description="Which text recogniser reads rack tiles: 'v4' the board's (PP-OCRv4, the "
                                        "rapidocr_onnxruntime wheel), 'v6' PP-OCRv6 small alone, 'both' the two's "
                                        "letter probabilities pooled (geometric mean; chosen on rendered racks, "
                                        "docs/racks.md: it lost no rack v4 read and won some on held-out looks, "
                                        "for about 35 ms a read). v6 needs the rapidocr 3.10 wheel (make install; "
                                        "pip install --no-deps rapidocr==3.10.0); without it a one-line warning "
                                        "and v4 alone.")
    blank_mass: float = Field(default=0.0, ge=0.0, le=1.0,
                              description="A face whose letters the recogniser scores below this in all is "
                                          "a blank (no letter's ink).")
    find: FindConfig = Field(default_factory=FindConfig,
                             description="The classical rack finder's settings (vision.rackfind; with the learned "
                                         "finder it still tells an empty rack from none).")
    finder: str = Field(default="both", pattern="^(classical|learned|both)$",
                        description="Which finder places the rack's slots: 'learned' (vision.rackdetect, "
                                    "models/rackdet.onnx; a frame where it finds no tile goes to the classical "
                                    "finder, which tells an empty rack from none), 'classical' (vision.rackfind), "
                                    "or 'both' (the learned slots when the net is sure of every one and the "
                                    "classical finder sees no more tiles, else the classical). 'both' chosen on "
                                    "rendered training looks (a tie with 'learned', one more empty rack) and "
                                    "held-out looks (stills and games): docs/racks.md, 'A learned finder'.")


@dataclass(frozen=True)
class RawReads:
    """The readers' outputs for the ``n`` seen slots of a rack (None: that reader was not run)."""
    n: int
    p_cls: np.ndarray | None    # (n, K) the classifier's, over RackReader.alphabet
    p_ocr: np.ndarray | None    # (n, L) the recogniser's, over its alphabet (the tile set's letters)
    mass: np.ndarray | None     # (n,) the recogniser's letter mass (vision.recognizer.LetterProbs)
    ink: np.ndarray | None = None   # (n,) width/height of the face's main ink mark; nan: no ink at all
    face: np.ndarray | None = None  # (n,) a printed face, no letter (vision.fuse.printed_faces): a blank


@dataclass(frozen=True)
class RackTile:
    letter: str | None                # None: the slot is unseen (a hand over it); '?' a blank
    certainty: float                  # probability of ``letter`` (0 when unseen)
    box: tuple[int, int, int, int]    # x, y, w, h in the frame
    # the runner-ups (letter, probability), best first: what scoring tries when the rack's letters
    # break the set's counts (a blank read as a second X)
    alts: tuple[tuple[str, float], ...] = ()


_V6: dict = {}   # PP-OCRv6 sessions by (alphabet, threads, shape rules), shared by a process's rack readers

RUNNER_UPS = 3        # runner-ups kept per rack tile
RUNNER_UP_MIN = 1e-3  # below this a letter is no runner-up


def _tile(alphabet: tuple[str, ...], p: np.ndarray, box, doubted: bool = False) -> RackTile:
    """A seen slot's tile from its probabilities over ``alphabet``: the likeliest, and the runner-ups;
    a doubted slot's certainty is at most DOUBTED."""
    order = np.argsort(-p)
    j = int(order[0])
    alts = tuple((alphabet[int(k)], round(float(p[k]), 4)) for k in order[1:RUNNER_UPS + 1] if p[k] >= RUNNER_UP_MIN)
    c = float(p[j])
    return RackTile(alphabet[j], round(min(c, DOUBTED) if doubted else c, 4), box, alts)


def _known_look(tiles: list[RackTile]) -> tuple[RackTile, ...]:
    """A rest's tiles, none sure when half or more of its letters are not (issue 45). The readers part
    on most tiles of a look they never saw, and there their agreement on the others over frames is no
    evidence: with every renderer factor held out, the sure-and-wrong slots were blanks called from a
    face whose ink the look hid (an I, an R, at 0.97 in every frame) in racks whose other letters were
    unsure; on training looks the rule leaves 95 % of the sure slots sure (docs/racks.md)."""
    letters = [t for t in tiles if t.letter is not None]
    if 2 * sum(t.certainty < SURE for t in letters) < len(letters):
        return tuple(tiles)
    return tuple(t if t.letter is None else replace(t, certainty=round(min(t.certainty, DOUBTED), 4)) for t in tiles)


def _said(view) -> list[tuple[str | None, bool]]:
    """What a view says of each slot: its letter and whether it is sure."""
    return [(t.letter, t.letter is not None and t.certainty >= SURE) for t in view.tiles]


@dataclass(frozen=True)
class RackView:
    tiles: tuple[RackTile, ...]       # left to right as the camera sees them
    found: bool
    ms: float

    @property
    def empty(self) -> bool:
        """A rack was found with no tiles on it (the end of a game): not the same as no rack."""
        return self.found and not self.tiles

    @property
    def text(self) -> str:
        """The tiles as one string: '?' a blank, '.' an unseen slot (single-letter tiles)."""
        return "".join(UNSEEN if t.letter is None else t.letter for t in self.tiles)


def tile_crop(image: np.ndarray, quad: np.ndarray, size: int, span: tuple[float, float]) -> np.ndarray:
    """The tile face of ``quad`` (TL, TR, BR, BL) rectified to a ``size`` square crop in which the
    face spans ``span`` of the side (beyond it, what lies around the tile)."""
    lo, hi = span[0] * size, span[1] * size
    dst = np.float32([[lo, lo], [hi, lo], [hi, hi], [lo, hi]])
    h = cv2.getPerspectiveTransform(np.asarray(quad, np.float32), dst)
    return cv2.warpPerspective(image, h, (size, size), flags=cv2.INTER_AREA if size < 40 else cv2.INTER_LINEAR,
                               borderMode=cv2.BORDER_REPLICATE)


def _ink_aspect(crop: np.ndarray) -> float:
    """Width/height of the main ink mark of a recogniser crop (vision.recognizer's own test of a
    letter standing out); nan when the face shows no clear ink."""
    from tilecam.vision.recognizer import _ink_components
    found = _ink_components(crop, 40.0)
    if found is None:
        return float("nan")
    _, _, stats, _, main, _ = found
    return float(stats[main, 2]) / max(float(stats[main, 3]), 1.0)


def runs_on(image: np.ndarray, quad: np.ndarray, ends: tuple[str, ...] = RUN_ON_ENDS) -> bool:
    """Whether the colour of a tile's face runs on out of its top or bottom edge (``ends``): more
    than RUN_ON of a strip beyond the face (RUN_ON_STRIP of the tile's height, its middle 70 %)
    within RUN_ON_LAB of the face's median Lab colour. A letterless face that does is not a blank
    one can call: a hand or arm of the face's colour lies over it (the finder saw no rim there),
    reaching in from above or from below (the rack's side of the frame), or the tile stands
    against something of its own colour; it is made unseen rather than read as a blank."""
    tl, tr, br, bl = np.asarray(quad, np.float32)
    side = (tr - tl) * 0.15
    up = (tl - bl) * RUN_ON_STRIP
    inset = 0.2
    face = np.float32([tl + side + (bl - tl) * inset, tr - side + (br - tr) * inset,
                       br - side - (br - tr) * inset, bl + side - (bl - tl) * inset])
    strips = {"top": np.float32([tl + side + up, tr - side + up, tr - side, tl + side]),
              "bottom": np.float32([bl + side, br - side, br - side - up, bl + side - up])}
    strips = [strips[e] for e in ends]
    every = np.concatenate([face] + strips)
    x0, y0 = np.floor(every.min(axis=0)).astype(int)
    x1, y1 = np.ceil(every.max(axis=0)).astype(int) + 1
    h, w = image.shape[:2]
    x0, y0, x1, y1 = max(x0, 0), max(y0, 0), min(x1, w), min(y1, h)
    if x1 <= x0 or y1 <= y0:
        return False
    lab = cv2.cvtColor(image[y0:y1, x0:x1], cv2.COLOR_BGR2Lab).astype(np.float32)
    off = np.float32([x0, y0])

    def inside(q):
        m = np.zeros(lab.shape[:2], np.uint8)
        cv2.fillConvexPoly(m, np.int32(np.round(q - off)), 1)
        return m > 0
    fm = inside(face)
    if not fm.any():
        return False
    colour = np.median(lab[fm], axis=0)
    for strip in strips:
        sm = inside(strip)
        if sm.any() and float((np.linalg.norm(lab[sm] - colour, axis=1) < RUN_ON_LAB).mean()) > RUN_ON:
            return True
    return False


def cut(shape, slot: Slot) -> bool:
    """Whether ``slot`` is cut by the frame (within EDGE_PX of its edge): its face partly out of view."""
    h, w = shape[:2]
    x, y, bw, bh = slot.box
    return bool(min(x, y, w - (x + bw), h - (y + bh)) <= EDGE_PX)


def partial(shape, fix: RackFix, slot: Slot) -> bool:
    """Whether the finder's ``slot`` of ``fix`` is a part of a tile only (or of the table taken for
    one): cut by the frame (``cut``), or shorter than MIN_HEIGHT of the row's median slot or narrower
    than MIN_WIDTH of the pitch."""
    height = float(np.median([np.ptp(s.quad[:, 1]) for s in fix.slots]))
    return bool(cut(shape, slot) or np.ptp(slot.quad[:, 1]) < MIN_HEIGHT * height
                or np.ptp(slot.quad[:, 0]) < MIN_WIDTH * fix.pitch)


class RackReader:
    """Reads racks with the table's readers. ``reader``: a vision.classify.TileReader (a
    vision.fuse.FusedTileReader brings the recogniser) or a vision.reader.TableReader, whose
    current tile reader is used at each read, so what the table learns (the tile check's
    enrolment, the recogniser's refit) reads the racks too."""

    def __init__(self, reader, cfg: RackConfig | None = None) -> None:
        self.cfg = cfg or RackConfig()
        self._source = reader
        rec = getattr(self.tile_reader, "recognizer", None)
        if rec is not None:
            self.v6(rec)   # loaded now: a missing wheel is said at start, not at the first rack
        self._detector = None
        if self.cfg.finder != "classical":
            self.detector   # likewise: a missing model is said at start

    def v6(self, rec):
        """The PP-OCRv6 recogniser beside the table's ``rec`` (same alphabet, threads and shape rules;
        one session per process), or None (v4 alone, said once on stderr) without its wheel."""
        if self.cfg.recogniser == "v4":
            return None
        key = (tuple(rec.alphabet), rec.threads, rec.strokes)
        if key not in _V6:
            from tilecam.vision.recognizer import LetterRecognizer, RecognizerError, find_model
            try:
                _V6[key] = LetterRecognizer(rec.alphabet, find_model("v6"), threads=key[1], strokes=key[2])
            except RecognizerError as exc:
                _V6[key] = None
                print(f"warning: [rack_read] recogniser {self.cfg.recogniser}: PP-OCRv6 is off, racks read "
                      f"with v4 alone ({exc})", file=sys.stderr, flush=True)
        return _V6[key]

    @property
    def tile_reader(self):
        return getattr(self._source, "tile_reader", self._source)

    @property
    def alphabet(self) -> tuple[str, ...]:
        """The classes a rack tile is read as: the blank, then the tile set's letters."""
        return tuple(c for c in self.tile_reader.classes if c != UNSEEN)

    def find(self, image: np.ndarray) -> RackFix | None:
        """The rack's slots by ``cfg.finder`` (vision.rackdetect, vision.rackfind: as many blanks allowed
        as the tile set has)."""
        from tilecam.scoring import DISTRIBUTIONS
        blanks = int(DISTRIBUTIONS[self.tile_reader.lang].counts.get(BLANK, 2))
        cfg = self.cfg.find if self.cfg.find.max_blanks == blanks else \
            self.cfg.find.model_copy(update={"max_blanks": blanks})
        if self.cfg.finder == "classical":
            return find_rack(image, cfg)
        det = self.detector.detect(image)
        if det.fix is not None and self.cfg.finder == "learned":
            return self.hidden_gaps(image, det.fix, det.hidden)
        if det.fix is not None and det.confidence >= self.detector.cfg.sure:
            # 'both': the net's slots, unless the classical finder sees more tiles (the net, sure of
            # the tiles it found, may miss some of a look it never saw). A rack holds seven: with
            # seven found the classical finder cannot see more, and is not run (the time of a read).
            if len(det.fix.slots) >= 7:
                return det.fix
            fix = find_rack(image, cfg)
            return self.hidden_gaps(image, fix if fix is not None and len(fix.slots) > len(det.fix.slots) else det.fix,
                                    det.hidden)
        # 'both' and the net unsure, or no tile found: the classical finder's fix, which tells an empty
        # rack (no slots) from no rack (None), and never calls a rack empty where it finds tiles; where
        # it finds no rack but the net found tiles, unsurely, the net's (a rack is there: issue 45)
        fix = find_rack(image, cfg)
        return self.hidden_gaps(image, det.fix if fix is None else fix, det.hidden)

    def hidden_gaps(self, image: np.ndarray, fix: RackFix | None, hidden: HiddenMap | None = None) -> RackFix | None:
        """``fix`` with an unseen slot at each pitch of a gap between two of its slots where the
        learned finder's hidden odds (vision.rackdetect) average GAP_HIDDEN or more: a hand over
        tiles mid-row often hides them so well that neither finder places a slot there, and the rack
        read short (four tiles of seven, all seen) says nothing of the three under the hand."""
        if fix is None or len(fix.slots) < 2 or len(fix.slots) >= 7 or fix.pitch <= 0:
            return fix
        centres = [s.quad.mean(axis=0) for s in fix.slots]
        gaps = []
        for i in range(len(fix.slots) - 1):
            d = centres[i + 1] - centres[i]
            k = int(round(float(np.linalg.norm(d)) / fix.pitch)) - 1
            gaps += [(i, fix.slots[i].quad + d * j / (k + 1)) for j in range(1, k + 1)]
        if not gaps:
            return fix
        add = {}
        for (i, q), odds in zip(gaps, self.hidden_odds(image, [q for _, q in gaps], hidden)):
            if odds >= GAP_HIDDEN:
                add.setdefault(i, []).append(Slot(q.astype(np.float32), False))
        if not add or len(fix.slots) + sum(map(len, add.values())) > 7:
            return fix
        slots = []
        for i, s in enumerate(fix.slots):
            slots += [s] + add.get(i, [])
        return RackFix(tuple(slots), fix.face_lab, fix.pitch)

    def hidden_odds(self, image: np.ndarray, quads, hidden: HiddenMap | None = None) -> list[float]:
        """The learned finder's odds (vision.rackdetect) that a hand hides a tile at each quad (its
        hidden map's mean over the quad; 0 for a quad off the map). ``hidden``: the map, when this
        frame's detection has it (the net is not run twice on a frame; a closer look's map covers its
        crop, ``HiddenMap.box``), else the net's on the whole frame."""
        if hidden is None:
            hidden = self.detector.hidden_map(image)
        return hidden.at(quads)

    @property
    def detector(self):
        """The learned finder (vision.rackdetect), loaded at its first use, on the readers' threads."""
        if getattr(self, "_detector", None) is None:
            from tilecam.vision.rackdetect import RackDetector
            threads = getattr(getattr(self.tile_reader, "cfg", None), "threads", 1)
            self._detector = RackDetector(threads=int(threads if isinstance(threads, int) else 1))
        return self._detector

    def raw(self, image: np.ndarray, fix: RackFix, rules=RULES) -> "RawReads":
        """What the readers say of each seen slot of ``fix``: the classifier's class probabilities
        (over ``alphabet``) and the recogniser's letter probabilities and letter mass (each only
        when some rule of ``rules`` needs it and the reader has it)."""
        reader = self.tile_reader
        seen = [s for s in fix.slots if s.seen]
        rec = getattr(reader, "recognizer", None)
        need_cls = bool({"classifier", "fused"} & set(rules)) or rec is None
        need_ocr = rec is not None and bool({"recogniser", "fused"} & set(rules))
        p_cls = p_ocr = mass = face = None
        if need_cls and seen:
            n = int(reader.card["input_size"])
            crops = np.stack([tile_crop(image, s.quad, n, CLASSIFIER_SPAN) for s in seen])
            logits, _, emb = reader.embed(crops)
            from tilecam.vision.classify import square_colours
            colours = square_colours(crops) if reader.tileset is not None else None
            full = reader.class_probs(logits, emb, colours=colours)
            p_cls = np.delete(full, reader.classes.index(UNSEEN), axis=1)
            p_cls = p_cls / np.maximum(p_cls.sum(axis=1, keepdims=True), 1e-12)
        if need_ocr and seen:
            from tilecam.vision.recognizer import INPUT_PX
            crops = np.stack([tile_crop(image, s.quad, INPUT_PX, RECOGNISER_SPAN) for s in seen])
            v6 = self.v6(rec)
            if v6 is not None and self.cfg.recogniser == "v6":
                rec = v6   # v6 alone: its letters, letter mass and printed faces
            lp = rec.letter_probs(crops)
            p_ocr, mass = lp.probs[:, 0], lp.letter_mass[:, 0]
            if v6 is not None and self.cfg.recogniser == "both":
                # the two recognisers' letters pooled (geometric mean); what has ink, a blank's mass and
                # the printed faces stay v4's, the board's
                q = np.sqrt(p_ocr * v6.letter_probs(crops).probs[:, 0])
                p_ocr = q / q.sum(axis=1, keepdims=True)
            ink = np.array([_ink_aspect(c) for c in crops], np.float32)
            # the board's printed-face rules ([read] shape_rules) on the rack's upright faces: a
            # blank's star, smiley or logo is no letter of the set
            if getattr(reader, "faces", False):
                from tilecam.vision.fuse import printed_faces
                face = np.zeros(len(seen), bool)
                face[list(printed_faces(rec, crops, lp))] = True
        got = need_ocr and seen
        return RawReads(len(seen), p_cls, p_ocr, mass, ink if got else None, face if got else None)

    def combine(self, raw: "RawReads", rule: str, blank_mass: float | None = None) -> np.ndarray:
        """(N, K) probabilities over ``alphabet`` of the seen slots by one reading rule (RULES);
        without the recogniser every rule is the classifier's."""
        k = len(self.alphabet)
        if raw.n == 0:
            return np.zeros((0, k), np.float32)
        if rule not in RULES:
            raise ValueError(f"unknown rack reading rule {rule!r}; known: {', '.join(RULES)}")
        if raw.p_ocr is None or rule == "classifier":
            return raw.p_cls.astype(np.float32)
        reader = self.tile_reader
        blank = self.alphabet.index(BLANK)
        cols = [self.alphabet.index(a) for a in reader.recognizer.alphabet]
        out = np.zeros((raw.n, k), np.float64)
        if rule == "recogniser":
            t = self.cfg.blank_mass if blank_mass is None else blank_mass
            # a blank has no letter: no ink at all, or a mark the recogniser finds no letter in (its
            # letters score little in all: a ramp about the bar); a narrow upright stroke is an I,
            # which the recogniser scores low too (it reads l, 1 or |)
            p_blank = np.clip((t - raw.mass) / max(t, 1e-6) * 4.0 + 0.5, 0.0, 1.0) if t > 0 else np.zeros(raw.n)
            if raw.ink is not None:
                p_blank = np.where(np.isnan(raw.ink), 0.97, np.where(raw.ink < I_ASPECT, 0.0, p_blank))
            out[:, cols] = raw.p_ocr * (1.0 - p_blank)[:, None]
            out[:, blank] = p_blank
        else:
            from tilecam.vision.fuse import product_letters
            cal = reader.calibration
            q = product_letters(raw.p_cls[:, cols], raw.p_ocr, cal.classifier_temperature, cal.recogniser_temperature)
            p_blank = raw.p_cls[:, blank]
            if raw.ink is not None:   # a face with no ink at all is a blank, whatever the classifier says
                p_blank = np.where(np.isnan(raw.ink), np.maximum(p_blank, 0.97), p_blank)
            out[:, cols] = q * (1.0 - p_blank)[:, None]
            out[:, blank] = p_blank
        if raw.face is not None and raw.face.any():
            # as the board's FusedTileReader: a printed face's letter mass goes to the blank
            mass = out[np.ix_(raw.face, cols)].sum(axis=1)
            out[np.ix_(raw.face, cols)] *= 0.1
            out[raw.face, blank] += 0.9 * mass
        return out.astype(np.float32)

    def probs(self, image: np.ndarray, fix: RackFix) -> np.ndarray:
        """(N, K) probabilities over ``alphabet`` of the seen slots of ``fix``, by ``cfg.rule``."""
        return self.combine(self.raw(image, fix, (self.cfg.rule,)), self.cfg.rule)

    def read_slots(self, image: np.ndarray, fix: RackFix) -> tuple[RackFix, np.ndarray, np.ndarray]:
        """``reading`` of ``fix``, both readers run whatever the rule (only their agreement lets a
        slot be sure)."""
        return self.reading(image, fix, self.raw(image, fix, RULES))

    def reading(self, image: np.ndarray, fix: RackFix, raw: "RawReads") -> tuple[RackFix, np.ndarray, np.ndarray]:
        """The fix with the slots one cannot read made unseen: a face cut by the frame (``cut``:
        part of it out of view, its ink a piece of a letter, an R read U), and the letterless faces
        that are no blank one can call: a face whose colour runs on out of its tile (``runs_on``: a
        hand of its colour over it) or a part of a tile only (``partial``: no ink on a piece of a
        face says nothing of the rest); its seen slots' probabilities by ``cfg.rule`` and which of
        them are doubted (``doubted``)."""
        probs = self.combine(raw, self.cfg.rule)
        blank = self.alphabet.index(BLANK)
        seen = [k for k, s in enumerate(fix.slots) if s.seen]
        hide = [i for i, k in enumerate(seen) if cut(image.shape, fix.slots[k]) or int(np.argmax(probs[i])) == blank
                and (runs_on(image, fix.slots[k].quad) or (HIDE_PARTIAL and partial(image.shape, fix, fix.slots[k])))]
        if hide:
            gone = {seen[i] for i in hide}
            fix = RackFix(tuple(Slot(s.quad, False) if k in gone else s for k, s in enumerate(fix.slots)),
                          fix.face_lab, fix.pitch)
            keep = np.array([i not in hide for i in range(len(seen))], bool)
            raw = RawReads(int(keep.sum()), *(None if a is None else a[keep] for a in
                                              (raw.p_cls, raw.p_ocr, raw.mass, raw.ink, raw.face)))
            probs = probs[keep]
        return fix, probs, self.doubted(image.shape, fix, raw, probs)

    def doubted(self, shape, fix: RackFix, raw: "RawReads", probs: np.ndarray) -> np.ndarray:
        """(N,) for the seen slots of ``fix``: True where the reading may not be called sure. The
        finder's doubt: a slot cut by the frame (within EDGE_PX of its edge), or shorter than
        MIN_HEIGHT of the row's slots or narrower than MIN_WIDTH of the pitch (a piece of a tile, or
        of the table, taken for one). The readers' doubt: the classifier and the recogniser do not
        both name the slot's letter with at least READER_MIN (a blank: the classifier's blank at
        BLANK_MIN, as the ink test alone calls a letter whose ink it missed a blank); with one reader
        only, nothing vouches for a reading and every slot is doubted."""
        seen = [s for s in fix.slots if s.seen]
        out = np.ones(len(seen), bool)
        if not seen or raw.p_cls is None or raw.p_ocr is None:
            return out
        blank = self.alphabet.index(BLANK)
        ocr = {a: k for k, a in enumerate(self.tile_reader.recognizer.alphabet)}
        for i, s in enumerate(seen):
            j = int(np.argmax(probs[i]))
            if j == blank:
                agree = int(np.argmax(raw.p_cls[i])) == blank and raw.p_cls[i, blank] >= BLANK_MIN
            else:
                k = ocr.get(self.alphabet[j])
                agree = (int(np.argmax(raw.p_cls[i])) == j and raw.p_cls[i, j] >= READER_MIN and k is not None
                         and int(np.argmax(raw.p_ocr[i])) == k and raw.p_ocr[i, k] >= READER_MIN)
            out[i] = partial(shape, fix, s) or not agree
        return out

    def view(self, fix: RackFix | None, probs: np.ndarray | None, ms: float,
             doubted: np.ndarray | None = None) -> RackView:
        """The RackView of a fix and its seen slots' probabilities (``doubted``: which of them may
        not be sure, see ``doubted``; None: all of them, as nothing vouched for them)."""
        if fix is None:
            return RackView((), False, ms)
        tiles, i = [], 0
        for s in fix.slots:
            if not s.seen:
                tiles.append(RackTile(None, 0.0, s.box))
                continue
            tiles.append(_tile(self.alphabet, probs[i], s.box, True if doubted is None else bool(doubted[i])))
            i += 1
        return RackView(tuple(tiles), True, ms)

    def read_found(self, image: np.ndarray) -> RackView:
        """As ``read``, raising vision.errors.RackNotFound when no rack is in the frame."""
        view = self.read(image)
        if not view.found:
            raise RackNotFound("no rack in the frame (no row of tile faces found)")
        return view

    def read(self, image: np.ndarray) -> RackView:
        """The rack in one frame (``found`` False and no tiles when none is seen); no letter of it is
        sure (at most DOUBTED): one frame cannot tell a steady misread of an unseen look, only
        frames agreeing can (RackWatch)."""
        t0 = time.perf_counter()
        fix = self.find(image)
        probs = None
        if fix is not None:
            fix, probs, _ = self.read_slots(image, fix)
        return self.view(fix, probs, (time.perf_counter() - t0) * 1000.0, None)


# How long a rack must be read the same way to count as settled, unless told otherwise: the one
# default ([racks] settle_s starts from it; the station passes that on to RackWatch).
SETTLE_S = 1.0


class WatchConfig(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    settle_s: float = Field(default=SETTLE_S, ge=0.0, le=60.0,
                            description="A rack read the same way for this long is settled.")
    move_frac: float = Field(default=0.35, gt=0.0, le=2.0,
                             description="A slot that moved more than this share of the pitch: the rack moved.")
    sure: float = Field(default=0.8, gt=0.0, le=1.0,
                        description="A slot read this surely as another letter than before, in two frames in "
                                    "a row (and before as surely): the tile was changed.")
    agree_frames: int = Field(default=3, ge=1, le=30,
                              description="A slot is sure only when this many frames of the rest read it as the "
                                          "same letter with nothing doubting it, and no undoubted frame read it "
                                          "otherwise: one frame's two readers agreeing is not enough.")
    reread_s: float = Field(default=0.5, ge=0.0, le=10.0,
                            description="Once a view has settled, the rack is read again only this often (until "
                                        "it reads otherwise): a steady rack camera costs a read per reread_s, not "
                                        "one per frame.")


class RackWatch:
    """Fuses the reads of a rack over frames while it stands still (slot by slot, the mean letter
    probabilities of the frames where that slot is seen; a hand over a slot adds nothing to it) and
    gives a settled view once it has been still for ``settle_s`` seconds and reads otherwise than
    the last view given. The rack moved (slots shifted, a slot more or less) or a tile changed (a
    seen slot's face looks otherwise than when first seen): start over."""

    def __init__(self, reader: RackReader, cfg: WatchConfig | None = None, *, settle_s: float | None = None) -> None:
        self.reader = reader
        self.cfg = cfg or WatchConfig()
        if settle_s is not None:
            self.cfg = self.cfg.model_copy(update={"settle_s": float(settle_s)})
        self.last: RackView | None = None      # the last settled view given
        self._read_at: float | None = None     # when the rack was last read after it settled
        self.frames = 0                        # frames read into the rest so far (0: no rack in the last)
        self._reset()

    def _reset(self, t: float | None = None) -> None:
        self._since = t
        self.frames = 0
        self._centres: np.ndarray | None = None
        self._sums: np.ndarray | None = None
        self._counts: np.ndarray | None = None
        self._doubted: np.ndarray | None = None
        self._alike: np.ndarray | None = None   # per slot and letter: undoubted frames that read it so
        self._other = False  # the last frame read a slot surely otherwise
        self._boxes: list = []
        self._quads: list = []     # the rest's slots where they were first found
        self._pitch = 0.0

    def feed(self, image: np.ndarray, t: float) -> RackView | None:
        """One frame at ``t`` seconds: the settled view when this frame settles the rack, else None."""
        t0 = time.perf_counter()
        if self._read_at is not None and 0.0 <= t - self._read_at < self.cfg.reread_s:
            return None  # settled and read a moment ago: this frame is not read
        self._read_at = None
        r = self.reader
        fix = r.find(image)
        if fix is None:
            self._reset()
            return None
        centres = np.array([s.quad.mean(axis=0) for s in fix.slots])
        if self._centres is not None and 0 < len(centres) < len(self._centres):
            fix = self._ends_hidden(image, fix, centres)
            centres = np.array([s.quad.mean(axis=0) for s in fix.slots])
        if self._centres is None or len(centres) != len(self._centres) or len(centres) and \
                np.abs(centres - self._centres).max() > self.cfg.move_frac * max(fix.pitch, 1.0):
            self._start(t, centres, fix.pitch, fix)
        fix, probs, doubted = r.read_slots(image, fix)
        self.frames += 1
        seen = [i for i, s in enumerate(fix.slots) if s.seen]
        # A tile changed in place (the player swapped it): a slot read surely as another letter than
        # its frames so far read it, in two frames in a row; start over. (Its face's look was tried
        # first: a camera's jitter of a pixel or two changes a small tile's look as much as a swap.)
        other = self._counts is not None and any(
            self._counts[i] and p.max() >= self.cfg.sure and
            (self._sums[i] / self._counts[i]).max() >= self.cfg.sure and
            int(np.argmax(p)) != int(np.argmax(self._sums[i])) for p, i in zip(probs, seen))
        # (a settled rack is read only every reread_s: once is enough then)
        settled = self._since is not None and t - self._since >= self.cfg.settle_s
        if other and (self._other or settled):
            self._start(t, centres, fix.pitch, fix)
        else:
            self._other = bool(other)
        return self._feed_seen(fix, probs, doubted, seen, t, t0)

    def _ends_hidden(self, image: np.ndarray, fix: RackFix, centres: np.ndarray) -> RackFix:
        """A frame that finds fewer slots than the rest, all of them where the rest's are, and the
        rest's others hidden by a hand (the learned finder's hidden odds at their place, GAP_HIDDEN;
        a hand over the row's ends leaves no gap for ``RackReader.hidden_gaps`` to fill): ``fix``
        with those slots unseen, so the rest goes on, read from the frames before and after the
        hand. Tiles taken off the rack leave no hand there: the rack then starts over, short."""
        m, n, limit = len(centres), len(self._centres), self.cfg.move_frac * max(fix.pitch, 1.0)
        for o in range(n - m + 1):
            shift = centres - self._centres[o:o + m]
            if np.abs(shift).max() > limit:
                continue
            rest = [j for j in range(n) if not o <= j < o + m]
            quads = [self._quads[j] + shift.mean(axis=0) for j in rest]
            if min(self.reader.hidden_odds(image, quads)) < GAP_HIDDEN:
                return fix
            slots = [Slot(q.astype(np.float32), False) for q in quads[:o]] + list(fix.slots) + \
                [Slot(q.astype(np.float32), False) for q in quads[o:]]
            return RackFix(tuple(slots), fix.face_lab, fix.pitch)
        return fix

    def _start(self, t: float, centres: np.ndarray, pitch: float, fix: RackFix) -> None:
        self._reset(t)
        self._centres = centres
        self._quads = [s.quad for s in fix.slots]
        self._pitch = pitch
        n, k = len(centres), len(self.reader.alphabet)
        self._sums = np.zeros((n, k), np.float64)
        self._counts = np.zeros(n, np.int64)
        self._doubted = np.zeros(n, np.int64)   # frames that doubted each slot (RackReader.doubted)
        self._alike = np.zeros((n, k), np.int64)

    def _unsure(self, i: int) -> bool:
        """The one rule of when a rest's slot may be called sure (issue 45): the frames agree. Doubted
        in half its frames or more is not sure (one frame's jitter setting the readers apart does
        not doubt it); nor is a slot fewer than ``agree_frames`` undoubted frames read as the fused
        letter, or one an undoubted frame read as another letter. On a look the readers never saw
        both can agree on one wrong letter in a frame; a steady misread over frames is then left to
        scoring's decode against the game (scoring.rack_decode)."""
        alike = self._alike[i]
        j = int(np.argmax(self._sums[i]))
        return bool(2 * self._doubted[i] >= self._counts[i] or alike[j] < self.cfg.agree_frames
                    or alike.sum() > alike[j])

    def _feed_seen(self, fix: RackFix, probs: np.ndarray, doubted: np.ndarray, seen: list[int], t: float,
                   t0: float) -> RackView | None:
        for p, d, i in zip(probs, doubted, seen):
            self._sums[i] += p
            self._counts[i] += 1
            self._doubted[i] += bool(d)
            if not d:
                self._alike[i, int(np.argmax(p))] += 1
        self._boxes = [s.box for s in fix.slots]
        if t - self._since < self.cfg.settle_s:
            return None
        tiles = []
        for i, box in enumerate(self._boxes):
            if not self._counts[i]:
                tiles.append(RackTile(None, 0.0, box))
                continue
            tiles.append(_tile(self.reader.alphabet, self._sums[i] / self._counts[i], box, self._unsure(i)))
        view = RackView(_known_look(tiles), True, (time.perf_counter() - t0) * 1000.0)
        self._read_at = t
        # given again when a letter changed, or a slot became sure (or unsure): the frames that came
        # since agreeing is news to whoever waits on a sure rack
        if self.last is not None and _said(self.last) == _said(view):
            return None
        self.last = view
        return view
