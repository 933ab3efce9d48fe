"""The fused reader (vision.fuse.FusedTileReader: classifier x calibrated text recogniser), as
vision.load_tile_reader builds it from the settings, and the recogniser's install (no GUI OpenCV beside the
headless one)."""
from __future__ import annotations

import importlib.metadata
import sys
from pathlib import Path

import numpy as np
import pytest

from tilecam.api.settings import Settings
from tilecam.vision.classify import ReadConfig, TileReader
from tilecam.vision.fuse import (CARD_PATH, Calibration, FusedTileReader, fuse_calibrated, load_calibration,
                                 product_letters, temper)
from tilecam.vision.rectify import homography_from_corners, warp_board

BOARD = ["...............", "...............", "...............", "...............",
         "...............", "...............", "...............", "....WORDS......",
         "......O........", "......DOG......", "...............", "...............",
         "...............", "...............", "..............."]
LOOK = dict(design="standard", labels="short", style="wood", font="dejavu-sans")


def settings(**read) -> Settings:
    return Settings().model_copy(update={"read": ReadConfig(**read)})


@pytest.fixture(scope="module")
def fused():
    from tilecam.vision import load_tile_reader
    return load_tile_reader(settings(), "en")


@pytest.fixture(scope="module")
def rendered():
    from tilecam.models.synth import SceneConfig, render_topdown
    td = render_topdown(BOARD, 5, SceneConfig(**LOOK))
    return td


def test_cv2_is_the_headless_build_only():
    import cv2
    assert cv2.imdecode is not None
    have = {d.metadata["Name"].lower() for d in importlib.metadata.distributions()}
    assert "opencv-python-headless" in have
    assert "opencv-python" not in have and "opencv-contrib-python" not in have   # a second cv2 package


def test_model_is_found_without_importing_the_wheel():
    from tilecam.vision.recognizer import find_model
    assert find_model().is_file()
    assert "rapidocr_onnxruntime" not in sys.modules


def test_temperatures_and_product():
    p = np.array([[0.7, 0.2, 0.1]])
    np.testing.assert_allclose(temper(p, 1.0), p, atol=1e-6)
    assert temper(p, 2.0)[0, 0] < 0.7 < temper(p, 0.5)[0, 0]
    q = product_letters(p, np.array([[0.1, 0.8, 0.1]]), 1.0, 1.0)
    np.testing.assert_allclose(q[0], np.array([0.07, 0.16, 0.01]) / 0.24, atol=1e-6)


def test_fusion_keeps_empty_blank_and_letter_mass():
    classes = (".", "?", "A", "B")
    probs = np.array([[0.5, 0.1, 0.3, 0.1], [0.9, 0.0, 0.05, 0.05]], np.float32)
    out = fuse_calibrated(probs, classes, np.array([[0.01, 0.99]]), ("A", "B"), Calibration(1.0, 1.0), rows=[0])
    np.testing.assert_allclose(out[:, :2], probs[:, :2])
    np.testing.assert_allclose(out[0, 2:].sum(), 0.4, atol=1e-6)
    assert out[0, 3] > out[0, 2]
    np.testing.assert_allclose(out[1], probs[1])


def test_calibration_card_says_how_it_was_chosen():
    import json
    card = json.loads(CARD_PATH.read_text(encoding="utf-8"))
    cal = load_calibration()
    assert cal.classifier_temperature > 0 and cal.recogniser_temperature > 0
    assert "classifier" in card["chosen_on"] and "recogniser" in card["chosen_on"]
    assert "english" in card["never_fitted_on"]


def test_system_builds_the_fused_reader_by_default(fused):
    assert isinstance(fused, FusedTileReader) and isinstance(fused, TileReader)
    assert fused.recognizer.alphabet == tuple("ABCDEFGHIJKLMNOPQRSTUVWXYZ")


def test_recogniser_off_by_setting():
    from tilecam.vision import load_tile_reader
    reader = load_tile_reader(settings(recogniser=False), "en")
    assert type(reader) is TileReader


def test_missing_model_warns_once_and_reads_alone(monkeypatch, capsys):
    import tilecam.vision.recognizer as recognizer
    from tilecam.vision import assemble as system

    def missing():
        raise recognizer.RecognizerError("rapidocr_onnxruntime is not installed")
    monkeypatch.setattr(recognizer, "find_model", missing)
    monkeypatch.setattr(system, "_RECOGNISERS", {})
    monkeypatch.setattr(system, "_WARNED", set())
    a = system.load_tile_reader(settings(), "en")
    b = system.load_tile_reader(settings(), "en")
    assert type(a) is TileReader and type(b) is TileReader
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "recogniser is off" in err[0] and "not installed" in err[0]


def test_fused_read_from_the_frame_and_cached(fused, rendered):
    td = rendered
    px = int(fused.card["square_px"])
    h = homography_from_corners(td.corners, px)
    warped = warp_board(td.image, h, px)
    first = fused.read(warped, source=(td.image, h))
    assert first.board() == BOARD
    info = first.snapshot.meta["recogniser"]
    assert info["turn"] == 0 and info["read"] == 9 and info["cached"] == 0
    again = fused.read(warped, source=(td.image, h))
    assert again.board() == BOARD and again.snapshot.meta["recogniser"]["read"] == 0
    # the same board turned: every square is read again in its new upright turn
    turned = np.ascontiguousarray(np.rot90(td.image, 1))
    hh, ww = td.image.shape[:2]
    corners = np.float32([[y, ww - 1 - x] for x, y in td.corners])   # rot90 maps (x, y) -> (y, w-1-x)
    corners = np.roll(corners, -1, axis=0)   # as the camera now sees them: its top-left is the board's top-right
    h2 = homography_from_corners(corners, px)
    read2 = fused.read(warp_board(turned, h2, px), source=(turned, h2))
    assert read2.snapshot.meta["recogniser"]["read"] == 9 and read2.snapshot.meta["recogniser"]["turn"] != 0
    assert np.array_equal(np.rot90(np.array([list(r) for r in read2.board()]), read2.orientation_deg // 90),
                          np.array([list(r) for r in BOARD]))


def test_recogniser_outvotes_a_wrong_classifier(fused, rendered):
    """Where the classifier is unsure between two letters, the recogniser's reading decides."""
    td = rendered
    px = int(fused.card["square_px"])
    h = homography_from_corners(td.corners, px)
    warped = warp_board(td.image, h, px)
    fused._cache.clear()
    plain = TileReader.read(fused, warped)
    base = plain.snapshot.probs.reshape(225, -1)
    sq = 7 * 15 + 4   # the W
    classes = fused.classes
    # a classifier torn between W and M
    probs = base.copy()
    probs[sq] = 0.0
    probs[sq, classes.index("M")] = 0.55
    probs[sq, classes.index("W")] = 0.45
    from tilecam.vision.recognizer import square_crops_ocr
    crop = square_crops_ocr(warp_board(td.image, homography_from_corners(td.corners, 64), 64))[sq]
    p_ocr = fused.recognizer.letter_probs(crop[None]).probs[:, 0]
    out = fuse_calibrated(probs, classes, p_ocr, fused.recognizer.alphabet, fused.calibration, rows=[sq])
    assert classes[int(out[sq].argmax())] == "W"


def _read_rendered(fused, board):
    from tilecam.models.synth import SceneConfig, render_topdown
    td = render_topdown(board, 5, SceneConfig(**LOOK))
    px = int(fused.card["square_px"])
    h = homography_from_corners(td.corners, px)
    return fused.read(warp_board(td.image, h, px), source=(td.image, h))


def test_cache_reads_a_changed_tile_again(fused):
    """The demo's phony withdrawn and another word laid on its squares (MAZEY, then ALGAE): a square
    whose tile changed is read again, never given the old tile's reading from the cache."""
    fused._cache.clear()
    assert _read_rendered(fused, BOARD).board() == BOARD
    # DOG -> DIG: one tile swapped for another letter, nothing else moved
    swapped = BOARD[:9] + ["......DIG......"] + BOARD[10:]
    read = _read_rendered(fused, swapped)
    assert read.board() == swapped
    assert read.snapshot.meta["recogniser"]["read"] >= 1
    # a tile taken away and laid again: read again
    taken = BOARD[:9] + ["......D.G......"] + BOARD[10:]
    assert _read_rendered(fused, taken).board() == taken
    read = _read_rendered(fused, BOARD)
    assert read.board() == BOARD and read.snapshot.meta["recogniser"]["read"] >= 1
    # a square read empty (P(empty) at least recogniser_max_empty) keeps no reading
    bare = BOARD[:9] + ["..............."] + BOARD[10:]
    read = _read_rendered(fused, bare)
    empty = read.snapshot.probs.reshape(225, -1)[:, fused.classes.index(".")]
    gone = [9 * 15 + c for c in (6, 7, 8) if empty[9 * 15 + c] >= fused.cfg.recogniser_max_empty]
    assert gone and not set(gone) & set(fused._cache)


def test_same_look_takes_the_light_out_and_sees_one_block(fused):
    look = np.full(64, 120.0, np.float32)
    assert fused.same_look(look, look + 25.0)          # the light changed over the whole square
    stroke = look.copy()
    stroke[27:29] += 40.0                              # a stroke in two of the 64 blocks: another letter
    assert abs(float(np.abs(stroke - look).mean())) < fused.cache_diff   # the mean alone would miss it
    assert not fused.same_look(look, stroke)


def test_recogniser_never_makes_a_letter_of_a_square_the_classifier_reads_empty(fused, rendered, monkeypatch):
    """A square the classifier reads empty with its letter mass spread thin (P(empty) 0.3, 0.7 over
    26 letters) stays empty, even on a tile whose letter the recogniser reads: heaped on one letter,
    that mass would outweigh P(empty) (an empty ScrabScrap square read as E; the recogniser reads
    the premium squares' labels as text, so it cannot tell a tile from print)."""
    td = rendered
    px = int(fused.card["square_px"])
    h = homography_from_corners(td.corners, px)
    warped = warp_board(td.image, h, px)
    classes = fused.classes
    letters = [classes.index(a) for a in fused.recognizer.alphabet]
    bare, tile = 11 * 15 + 11, 7 * 15 + 4      # an empty square away from the words; the W
    real = TileReader.square_probs.__get__(fused)

    def spread(*args, **kw):
        probs = real(*args, **kw).copy()
        for sq in (bare, tile):
            probs[sq] = 0.0
            probs[sq, classes.index(".")] = 0.3
            probs[sq, letters] = 0.7 / len(letters)
        return probs
    monkeypatch.setattr(fused, "square_probs", spread)
    fused._cache.clear()
    plain = TileReader.read(fused, warped).board()
    assert plain[11][11] == "." and plain[7][4] == "."
    read = fused.read(warped, source=(td.image, h), turn_rule=lambda snap: 0)
    assert read.board()[11][11] == "." and read.board()[7][4] == "."
    assert read.snapshot.meta["recogniser"]["read"] == 8     # the other 8 tiles


def test_fit_temperature_flattens_a_confidently_wrong_reader():
    from tilecam.vision.fuse import fit_temperature
    rng = np.random.default_rng(0)
    truth = rng.integers(0, 26, 200)
    sure = np.full((200, 26), 1e-4)
    sure[np.arange(200), truth] = 1.0
    t_right, fit = fit_temperature(sure, truth)
    assert t_right <= 0.2 and fit["accuracy"] == 1.0 and fit["n"] == 200
    wrong = sure.copy()
    wrong[:40] = np.roll(wrong[:40], 1, axis=1)   # a fifth read confidently as the next letter
    t_wrong, fit = fit_temperature(wrong, truth)
    assert t_wrong >= 1.5 and fit["nll_at_T"] < fit["nll_at_1"]


def test_the_tile_check_refits_the_recogniser_for_this_table(fused, rendered):
    """The check's known tiles set the recogniser's temperature for this table, never sharper than
    the card's: labels it reads right keep the card's; labels it contradicts flatten it."""
    td = rendered
    px = int(fused.card["square_px"])
    h = homography_from_corners(td.corners, px)
    fused._cache.clear()
    fused.read(warp_board(td.image, h, px), source=(td.image, h))
    labels = "".join(BOARD)
    base = fused.calibration.recogniser_temperature
    assert fused.calibrated_on(labels) is fused   # 9 letters: too few to fit
    same = fused.calibrated_on(labels, min_tiles=5)
    assert same is not fused and same.calibration.recogniser_temperature == pytest.approx(base, rel=0.05)
    assert "tile check (9 tiles, 100% read right alone)" in same.calibration.source
    # a set whose letters the recogniser gets wrong: WORDS labelled as the next letters
    shifted = "".join(chr(ord(c) + 1) if c.isalpha() and c < "Z" else c for c in labels)
    flat = fused.calibrated_on(shifted, min_tiles=5)
    assert flat.calibration.recogniser_temperature > 5 * base
    assert fused.calibration.recogniser_temperature == base   # the shared reader is left as it was
    # the classifier alone has nothing more to fit
    assert TileReader.calibrated_on(fused, labels) is fused


def test_each_reader_names_its_letter_on_every_tile_it_reads(fused, rendered):
    """Snapshot.readers (issue 44): the classifier's own letter and the recogniser's on every square
    both read; what the table learns from (scoring.trust). Nothing named where no tile lies."""
    td = rendered
    px = int(fused.card["square_px"])
    h = homography_from_corners(td.corners, px)
    fused._cache.clear()
    snap = fused.read(warp_board(td.image, h, px), source=(td.image, h)).snapshot
    assert snap.readers is not None and snap.readers.shape == (15, 15, 2)
    for r, row in enumerate(BOARD):
        for c, ch in enumerate(row):
            assert snap.named_by(r, c) == ((ch, ch) if ch != "." else ("", "")), (r, c)


def test_the_recogniser_names_an_umlaut_it_cannot_tell_from_its_base_letter(shared_data):
    """The recogniser reads Ü as U (its charset has no Ü; tie_diacritics leaves the two tied): where
    the classifier's letter is among the recogniser's tied best, the recogniser names that letter.
    A real ScrabScrap frame (game06's last, Ä Ö Ü on the board)."""
    import json

    import cv2
    from tilecam.vision import load_tile_reader
    from tilecam.vision.locate.prewarped import prewarped_corners

    data = shared_data / "scrabscrap" / "game06"
    row = [json.loads(x) for x in (data / "truth.jsonl").read_text(encoding="utf-8").splitlines() if x.strip()][-1]
    image = cv2.imread(str(data / row["frame"]))
    reader = load_tile_reader(settings(), "de")
    px = int(reader.card["square_px"])
    h = homography_from_corners(prewarped_corners(image), px)
    snap = reader.read(warp_board(image, h, px), source=(image, h)).snapshot
    umlauts = [(r, c, ch) for r, line in enumerate(row["board"]) for c, ch in enumerate(line) if ch in "ÄÖÜ"]
    assert umlauts
    for r, c, ch in umlauts:
        assert snap.named_by(r, c) == (ch, ch), (r, c, ch, snap.named_by(r, c))


def _read_english(shared_data, frame: str, reader=None, roll: int = 0):
    """A real English photo (shared/data/english) warped with its labelled corners (``roll``: their
    order rolled, the grid image a quarter turn per step off game orientation) and read as
    bench_real_letters.py reads it; (the read, its truth as 225 characters)."""
    import json

    import cv2
    from tilecam.vision import load_tile_reader

    folder = shared_data / "english"
    row = next(r for r in (json.loads(x) for x in (folder / "truth.jsonl").read_text(encoding="utf-8").splitlines()
                           if x.strip()) if r["frame"] == frame)
    reader = reader or load_tile_reader(settings(), "en")
    image = cv2.imread(str(folder / "frames" / frame))
    px = int(reader.card["square_px"])
    h = homography_from_corners(np.roll(np.float32(row["corners"]), roll, axis=0), px)
    reader._cache.clear()
    return reader.read(warp_board(image, h, px), source=(image, h)), "".join(row["board"])


def test_the_recogniser_turns_the_letters_when_the_rotation_head_cannot(shared_data):
    """A soft photo of a finished board (English 170755) splits the rotation head's votes (0.46 /
    0.21 / 0.04 / 0.29): no orientation, and the classifier alone read 63 of its 100 tiles. The
    recogniser reads the letters upright in one turn far more often than in any other: that turn, read
    in it and reported as the read's orientation, so a grid image a quarter turn off is turned back."""
    from tilecam.vision.classify import to_game
    read, truth = _read_english(shared_data, "IMG_20151016_170755.jpg", roll=1)
    assert read.snapshot.meta["recogniser"] != "no orientation: classifier alone"
    assert read.orientation_deg is not None
    game = "".join(to_game(read).board)
    right = sum(t == r for t, r in zip(truth, game) if t != ".")
    assert right >= 95, right
