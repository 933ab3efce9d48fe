"""vision.recognizer (the PP-OCRv4 recogniser from the rapidocr_onnxruntime wheel) and vision.fuse.

Needs the wheel installed without its dependencies: pip install --no-deps rapidocr_onnxruntime.
A missing wheel fails (RecognizerError names the install command); it is not skipped.
"""
from __future__ import annotations

import cv2
import numpy as np
import pytest
from tilecam.scoring.tiles import DISTRIBUTIONS
from tilecam.vision.fuse import fuse_letter_probs
from tilecam.vision.recognizer import LetterRecognizer, erase_subscript, find_model, square_crops_ocr
from tilecam.vision.rectify import GRID

TILE = (150, 200, 225)   # BGR: a beige wooden tile
INK = (30, 25, 20)


def tile(letter: str, value: str | None = None, size: int = 48) -> np.ndarray:
    """A tile-coloured square with a bold letter in the middle and its value below right."""
    img = np.full((size, size, 3), TILE, np.uint8)
    font = cv2.FONT_HERSHEY_SIMPLEX
    (w, h), _ = cv2.getTextSize(letter, font, 1.2, 3)
    cv2.putText(img, letter, ((size - w) // 2 - 2, (size + h) // 2), font, 1.2, INK, 3, cv2.LINE_AA)
    if value:
        cv2.putText(img, value, (size - 11, size - 5), font, 0.35, INK, 1, cv2.LINE_AA)
    return img


@pytest.fixture(scope="module")
def rec() -> LetterRecognizer:
    return LetterRecognizer(DISTRIBUTIONS["en"].letters)


def test_model_comes_from_the_installed_wheel_without_importing_it():
    import sys
    path = find_model()
    assert path.name == "ch_PP-OCRv4_rec_infer.onnx" and path.stat().st_size > 5_000_000
    assert "rapidocr_onnxruntime" not in sys.modules   # found, not imported (it would want GUI cv2)


def test_reads_rendered_letters(rec):
    letters = "AKRWEMSOD"
    crops = np.stack([tile(ch, "1") for ch in letters])
    lp = rec.letter_probs(crops)
    assert lp.probs.shape == (len(letters), 1, 26)
    np.testing.assert_allclose(lp.probs.sum(axis=2), 1.0, atol=1e-5)
    assert "".join(rec.alphabet[k] for k in lp.probs[:, 0].argmax(axis=1)) == letters
    assert (lp.ink[:, 0] > 0.5).all()


def test_board_crops_and_turns(rec):
    board = np.full((GRID * 64, GRID * 64, 3), (60, 120, 60), np.uint8)
    board[7 * 64 + 8:7 * 64 + 56, 7 * 64 + 8:7 * 64 + 56] = tile("R")
    crops = square_crops_ocr(board)
    assert crops.shape == (225, 48, 48, 3)
    centre = crops[7 * GRID + 7]
    assert rec.alphabet[rec.letter_probs(centre[None]).probs[0, 0].argmax()] == "R"
    # the letter turned clockwise once: reading it turned back (np.rot90 k=1) scores best
    lp = rec.letter_probs(np.rot90(centre, -1)[None], turns=(0, 1, 2, 3))
    assert lp.probs[0].max(axis=1).argmax() == 1
    assert rec.alphabet[lp.probs[0, 1].argmax()] == "R"


def test_erase_subscript_paints_the_value_over_and_keeps_the_letter():
    crop = tile("I", "1")
    out = erase_subscript(crop)
    corner = (slice(34, 48), slice(36, 48))
    assert crop[corner].min() < 100 and out[corner].min() > 120     # the "1" is gone
    np.testing.assert_array_equal(out[:, 15:33], crop[:, 15:33])    # the letter is untouched
    blank = np.full((48, 48, 3), TILE, np.uint8)
    assert erase_subscript(blank) is blank                           # no ink: unchanged


def narrow_i(value: str, where: str, gap: int = 0, size: int = 48) -> np.ndarray:
    """A narrow I with its value printed close beside it: below right, up the right side or
    below left (sets print the value wherever they like)."""
    img = np.full((size, size, 3), TILE, np.uint8)
    font = cv2.FONT_HERSHEY_SIMPLEX
    (w, h), _ = cv2.getTextSize("I", font, 1.2, 3)
    (vw, vh), _ = cv2.getTextSize(value, font, 0.35, 1)
    x0, y0 = (size - w) // 2 - 2, (size + h) // 2
    cv2.putText(img, "I", (x0, y0), font, 1.2, INK, 3, cv2.LINE_AA)
    at = {"below right": (x0 + w + gap, y0), "up the right": (x0 + w + gap, y0 - h + vh),
          "below left": (x0 - vw - gap, y0)}[where]
    cv2.putText(img, value, at, font, 0.35, INK, 1, cv2.LINE_AA)
    return img


@pytest.mark.parametrize("where", ["below right", "up the right", "below left"])
def test_a_narrow_i_reads_i_wherever_its_value_is_printed(rec, where):
    # before the value was looked for beside the letter: I with "1" up the right read T, with
    # "10" below left O or L (the digits read as the letter's bar)
    crops = np.stack([narrow_i(v, where, gap) for v in ("1", "3", "10") for gap in (0, 2, 4)])
    got = "".join(rec.alphabet[k] for k in rec.letter_probs(crops).probs[:, 0].argmax(axis=1))
    assert got == "I" * len(crops)


def test_erase_subscript_keeps_marks_above_the_letter():
    crop = tile("U", "1")
    cv2.circle(crop, (18, 6), 2, INK, -1)   # umlaut dots over the U
    cv2.circle(crop, (28, 6), 2, INK, -1)
    out = erase_subscript(crop)
    assert out[4:9, 16:31].min() < 100      # the dots stay
    assert out[34:48, 36:48].min() > 120    # the value goes


def test_charset_gaps_are_neutral():
    de = LetterRecognizer(DISTRIBUTIONS["de"].letters, prep="plain")
    assert de.missing == ["Ä", "Ö"]
    lp = de.letter_probs(tile("O")[None]).probs[0, 0]
    a = {ch: lp[k] for k, ch in enumerate(de.alphabet)}
    assert a["O"] == pytest.approx(a["Ö"]) and a["O"] > 0.3        # cannot tell O from Ö: tied


def test_fusion_keeps_occupancy_and_resplits_letters():
    classes = [".", "?", "D", "O"]
    probs = np.array([[0.1, 0.1, 0.6, 0.2], [0.9, 0.05, 0.03, 0.02]], np.float32)
    p_ocr = np.array([[0.02, 0.98], [0.5, 0.5]])
    out = fuse_letter_probs(probs, classes, p_ocr, ["D", "O"], weight=0.5)
    np.testing.assert_allclose(out[:, :2], probs[:, :2], atol=1e-6)              # empty, blank kept
    np.testing.assert_allclose(out[:, 2:].sum(1), probs[:, 2:].sum(1), atol=1e-6)  # letter mass kept
    assert out[0, 3] > out[0, 2]                                                   # O wins now
    assert out[1, 2] > out[1, 3]                   # no opinion from the recogniser: the classifier's order
    np.testing.assert_allclose(fuse_letter_probs(probs, classes, p_ocr, ["D", "O"], weight=0.0), probs, atol=1e-6)


def bare_stroke(value: str | None = "1", dots: bool = False, size: int = 48) -> np.ndarray:
    """A narrow I with nothing but a stroke (no serifs), its value at its foot, raised dots
    above and below when ``dots`` (the look of a real edition whose I the recogniser read as
    '!' or '1')."""
    img = np.full((size, size, 3), TILE, np.uint8)
    x = size // 2 - 3
    cv2.rectangle(img, (x, 10), (x + 4, size - 11), INK, -1)
    if value:
        cv2.putText(img, value, (x + 9, size - 10), cv2.FONT_HERSHEY_SIMPLEX, 0.35, INK, 1, cv2.LINE_AA)
    if dots:
        cv2.circle(img, (x + 2, 5), 2, INK, -1)
        cv2.circle(img, (x + 2, size - 5), 2, INK, -1)
    return img


def test_a_bare_stroke_is_an_I_whatever_sits_at_its_foot(rec):
    """Issue 36: the recogniser's own top reading of a bare stroke is '!' or '1' (no letter), and
    among the letters T or L; on capital tiles it is an I."""
    crops = np.stack([bare_stroke("1"), bare_stroke("1", dots=True), bare_stroke(None, dots=True),
                      bare_stroke("10")])
    plain = LetterRecognizer(DISTRIBUTIONS["en"].letters, strokes=False)
    without = [plain.alphabet[k] for k in plain.letter_probs(crops).probs[:, 0].argmax(axis=1)]
    read = [rec.alphabet[k] for k in rec.letter_probs(crops).probs[:, 0].argmax(axis=1)]
    assert read == ["I"] * len(crops), (read, without)


def test_a_value_one_beside_another_letter_does_not_make_it_an_I(rec):
    """The stroke rule counts a stroke as I only in so far as no letter is read: an A, L or T
    with a '1' beside it (the value left after erasing fails) stays itself."""
    crops = np.stack([tile(ch, "1") for ch in "ALTEN"])
    read = "".join(rec.alphabet[k] for k in rec.letter_probs(crops, ).probs[:, 0].argmax(axis=1))
    assert read == "ALTEN"


def printed(kind: str, size: int = 48) -> np.ndarray:
    """A blank with a printed face: no letter of any set."""
    img = np.full((size, size, 3), TILE, np.uint8)
    c = size // 2
    if kind == "smiley":
        cv2.circle(img, (c, c), 14, INK, 2)
        cv2.circle(img, (c - 5, c - 4), 2, INK, -1)
        cv2.circle(img, (c + 5, c - 4), 2, INK, -1)
        cv2.ellipse(img, (c, c + 2), (8, 6), 0, 20, 160, INK, 2)
    elif kind == "star":
        pts = [(c + (15 if k % 2 == 0 else 6) * np.cos(-np.pi / 2 + k * np.pi / 5),
                c + (15 if k % 2 == 0 else 6) * np.sin(-np.pi / 2 + k * np.pi / 5)) for k in range(10)]
        cv2.fillPoly(img, [np.int32(pts)], INK)
    return img


def test_a_printed_face_reads_as_no_letter_and_a_ring_as_O(rec):
    """Issue 36: a blank with a printed face was read as G, O or B. A star reads as ink but no letter
    of the set at any turn (vision.fuse.printed_face); a drawn O (which the recogniser reads as the
    digit 0), a G and a bare stroke are letters. (A smiley is told by the ink in its ring:
    enclosed_ink.)"""
    from tilecam.vision.fuse import printed_face
    crops = np.stack([printed("star"), tile("O"), tile("G"), bare_stroke("1")])
    lp = rec.letter_probs(crops, turns=(0, 1, 2, 3))
    faces = [printed_face(lp.ink[n, 0], lp.letter_mass[n, 0], lp.letter_mass[n, 1:].max()) for n in range(len(crops))]
    assert faces == [True, False, False, False]
    assert rec.alphabet[lp.probs[1, 0].argmax()] == "O"


def test_ink_inside_a_letters_hole_is_a_face_not_a_letter():
    """A smiley's eyes sit inside its ring; no capital letter holds a mark inside its own hole."""
    from tilecam.vision.recognizer import enclosed_ink
    assert enclosed_ink(printed("smiley"))
    assert not any(enclosed_ink(tile(ch, "1")) for ch in "OABDPQR")
    assert not enclosed_ink(printed("star")) and not enclosed_ink(bare_stroke("1", dots=True))


def test_a_ring_character_counts_as_O_only_on_a_ring(shared_data):
    """Issue 44: the recogniser reads a real German Ü (game05's last frame, row 7, column 3: a U with two
    dots) as the digit 0 (0.64; U 0.09, O 0.09). Counted as O, the ring made the recogniser say O/Ö
    five to one against U/Ü, and on a frame of another game turned the Ü into Ö. A U's mark is open,
    so its 0 counts for no letter; a real O's and Ö's ring still count (the English board's O read D)."""
    import sys
    from pathlib import Path
    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "bench"))
    from bench_read import load_frames
    from tilecam.vision.fuse import FusedTileReader
    from tilecam.vision.recognizer import ring_mark
    frames, _ = load_frames(shared_data / "scrabscrap", "game05", 50)
    _, warped, board, source = frames[-1]
    cut = square_crops_ocr(FusedTileReader._warp64(warped, source))
    squares = {"Ü": 6 * 15 + 2, "O": 4, "Ö": 9 * 15 + 1}
    assert {ch: board[sq // 15][sq % 15] for ch, sq in squares.items()} == {ch: ch for ch in squares}
    crops = np.stack([cut[sq] for sq in squares.values()])
    assert [ring_mark(c) for c in crops] == [False, True, True]
    de = LetterRecognizer(DISTRIBUTIONS["de"].letters)
    p = de.letter_probs(crops).probs[:, 0]
    at = {a: k for k, a in enumerate(de.alphabet)}
    u, o = p[0, at["U"]] + p[0, at["Ü"]], p[0, at["O"]] + p[0, at["Ö"]]
    assert u >= o, (u, o)
    assert all(p[n, at["O"]] + p[n, at["Ö"]] > 0.9 for n in (1, 2))
