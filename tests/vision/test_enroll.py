"""Enrollment: labelled tile sets round-trip and help; the label-free tile check respects counts."""
from __future__ import annotations

import json
import time
from collections import Counter
from pathlib import Path

import cv2
import numpy as np
import pytest

from tilecam.scoring.tiles import DISTRIBUTIONS
from tilecam.vision.classify import TileReader
from tilecam.vision.locate import prewarped_corners
from tilecam.vision.enroll import enroll_labelled, enroll_tile_check
from tilecam.vision.tileset import EnrollError, load_tileset, save_tileset
from tilecam.vision.rectify import homography_from_corners, warp_board

REPO = Path(__file__).resolve().parents[2]
MODEL = REPO / "models" / "tiles.onnx"
CARD = REPO / "models" / "tiles.card.json"


def frames(shared_data: Path, game: str, names: list[str], px: int):
    rows = {r["frame"]: r["board"] for r in map(json.loads, (shared_data / "scrabscrap" / game / "truth.jsonl")
                                                .read_text("utf-8").splitlines())}
    out = []
    for name in names:
        image = cv2.imread(str(shared_data / "scrabscrap" / game / name))
        out.append((warp_board(image, homography_from_corners(prewarped_corners(image), px), px), rows[name]))
    return out


def accuracy(reader, warped, board):
    pred = [ch for row in reader.read(warped).board() for ch in row]
    truth = ["?" if ch.islower() else ch for row in board for ch in row]
    return float(np.mean([p == t for p, t in zip(pred, truth)]))


@pytest.fixture(scope="module")
def reader_de() -> TileReader:
    return TileReader(MODEL, CARD, lang="de")


def test_labelled_round_trip_and_transfer(reader_de, shared_data, tmp_path):
    px = reader_de.card["square_px"]
    train = frames(shared_data, "game06", ["image-11.jpg", "image-22.jpg", "image-33.jpg"], px)
    t0 = time.perf_counter()
    tileset = enroll_labelled(reader_de, train)
    assert time.perf_counter() - t0 < 10
    path = save_tileset(tmp_path / "set.npz", tileset)
    loaded = load_tileset(path)
    assert loaded["labels"] == tileset["labels"]
    assert np.allclose(loaded["embeddings"], tileset["embeddings"])
    assert np.allclose(loaded["colours"], tileset["colours"])
    assert loaded["reading_labels"] == tileset["reading_labels"] and "Q" in loaded["reading_labels"]
    assert np.allclose(loaded["readings"], tileset["readings"])
    assert loaded["meta"]["source"] == "labelled" and "." in loaded["meta"]["classes"]
    # a different game (same tile set): enrollment must not make it worse
    (warped, board), = frames(shared_data, "game08", ["image-18.jpg"], px)
    enrolled = TileReader(MODEL, CARD, tileset=path, lang="de")
    assert accuracy(enrolled, warped, board) >= max(accuracy(reader_de, warped, board) - 0.005, 0.95)


def test_bad_truth_is_refused(reader_de):
    with pytest.raises(EnrollError):
        enroll_labelled(reader_de, [(np.zeros((480, 480, 3), np.uint8), ["..."])])
    with pytest.raises(EnrollError):
        enroll_labelled(reader_de, [])


def tile_check_board(seed: int) -> list[str]:
    """All 100 English tiles face up at random squares."""
    counts = DISTRIBUTIONS["en"].counts
    tiles = [t for t, n in counts.items() for _ in range(n)]
    rng = np.random.default_rng(seed)
    cells = ["."] * 225
    for square, tile in zip(rng.permutation(225)[:len(tiles)], tiles):
        cells[square] = tile
    return ["".join(cells[r * 15:(r + 1) * 15]) for r in range(15)]


def test_label_free_tile_check():
    from tilecam.models.synth import SceneConfig, render_topdown
    reader = TileReader(MODEL, CARD, lang="en")
    board = tile_check_board(3)
    # a trained look; the tile check on held-out looks is measured by tests/bench/bench_read.py
    td = render_topdown(board, 3, SceneConfig(quarter_turn_prob=0.5, design="tournament_green", labels="none",
                                              style="ivory", font="roboto"))
    px = reader.card["square_px"]
    warped = warp_board(td.image, homography_from_corners(td.corners, px), px)
    t0 = time.perf_counter()
    tileset, assigned = enroll_tile_check(reader, warped, DISTRIBUTIONS["en"].counts)
    assert time.perf_counter() - t0 < 10
    used = Counter(ch for row in assigned for ch in row if ch != ".")
    assert all(n <= DISTRIBUTIONS["en"].counts[t] for t, n in used.items())
    truth = [ch for row in board for ch in row]
    got = [ch for row in assigned for ch in row]
    assert np.mean([a == b for a, b in zip(got, truth)]) >= 0.95
    # the tile set then reads the same board at least as well
    enrolled = TileReader(MODEL, CARD, tileset=tileset, lang="en")
    assert accuracy(enrolled, warped, board) >= 0.95


def test_a_tile_check_with_print_read_as_tiles_keeps_the_most_tile_like_squares(monkeypatch):
    """More squares look occupied than the bag holds (a board's printed labels read as tiles):
    the check keeps the 100 squares least like an empty one instead of refusing the board."""
    from tilecam.models.synth import SceneConfig, render_topdown
    reader = TileReader(MODEL, CARD, lang="en")
    board = tile_check_board(4)
    td = render_topdown(board, 4, SceneConfig(labels="full"))
    px = reader.card["square_px"]
    warped = warp_board(td.image, homography_from_corners(td.corners, px), px)
    real = reader.square_probs

    def everything_occupied(*args, **kwargs):
        p = real(*args, **kwargs).copy()
        e = reader.classes.index(".")
        tile = np.array([ch != "." for row in board for ch in row])
        # every square below the occupied threshold, the real tiles further below
        p[:, e] = np.where(tile, 0.05, 0.4)
        return p

    monkeypatch.setattr(reader, "square_probs", everything_occupied)
    _, assigned = enroll_tile_check(reader, warped, DISTRIBUTIONS["en"].counts)
    occupied = [(r, c) for r in range(15) for c in range(15) if assigned[r][c] != "."]
    assert occupied == [(r, c) for r in range(15) for c in range(15) if board[r][c] != "."]


def test_labelled_enrollment_counts_the_tiles_behind_each_class(reader_de, shared_data):
    px = reader_de.card["square_px"]
    train = frames(shared_data, "game06", ["image-11.jpg", "image-22.jpg", "image-33.jpg"], px)
    tileset = enroll_labelled(reader_de, train)
    # a tile stays on its square: the last frame holds every tile of the earlier ones, and a
    # class seen in three frames on the same square is one tile, not three exemplars' worth
    last = Counter("?" if ch.islower() else ch for row in train[-1][1] for ch in row)
    assert tileset["meta"]["tiles_per_class"] == {c: n for c, n in sorted(last.items()) if c != "."}
    assert Counter(tileset["labels"])["E"] > tileset["meta"]["tiles_per_class"]["E"]


def enrolled_with_one_odd_tile(reader, board, seed, style, odd, label):
    """A synthetic board enrolled from three exposures with the tile on ``odd`` relabelled as
    ``label``, and a fourth exposure to read."""
    from tilecam.models.dataset import degrade
    from tilecam.models.synth import SceneConfig, render_topdown
    cfg = SceneConfig(font="dejavu-condensed", style=style, design="standard", square_px=50,
                      quarter_turn_prob=0.0)
    px = reader.card["square_px"]
    td = render_topdown(board, seed, cfg)

    def frame(s):
        image = degrade(td.image, np.random.default_rng(s), 1.0)
        return warp_board(image, homography_from_corners(td.corners, px), px)

    r, c = odd
    labelled = [row[:c] + label + row[c + 1:] if i == r else row for i, row in enumerate(board)]
    return enroll_labelled(reader, [(frame(s), labelled) for s in (1, 2, 3)]), frame(4)


def test_a_class_enrolled_from_one_tile_does_not_take_over_its_look_alikes(reader_de):
    """One tile's exemplars under a rare label (as one Ä among many A): with prior_tiles the
    network's own view of that class weighs in, and the tile is read as what it shows."""
    from tilecam.vision.classify import ReadConfig
    board = ["." * 15] * 5 + ["...AAAAAAAA....", "...ABEAAINA....", "....AAARAA....."] + ["." * 15] * 7
    odd = (6, 3)  # an A tile labelled as the only Ä of the enrollment
    tileset, test = enrolled_with_one_odd_tile(reader_de, board, 21, "ivory", odd, "Ä")
    assert tileset["meta"]["tiles_per_class"]["Ä"] == 1
    p_umlaut = {}
    for prior in (0.0, 2.0):
        reader = TileReader(MODEL, CARD, tileset=tileset, lang="de",
                            cfg=ReadConfig(prior_tiles=prior, cap_counts=False))
        snap = reader.read(test).snapshot
        p_umlaut[prior] = float(snap.probs[odd][reader.classes.index("Ä")])
        if prior:
            assert snap.board()[odd[0]][odd[1]] == "A"
    assert p_umlaut[2.0] < p_umlaut[0.0]


def test_recalibration_trusts_the_exemplars_where_the_network_misreads_this_tile_set(reader_de):
    """This set's Q looks like a G to the network (as the ScrabScrap font's Q does): one G
    tile is enrolled as Q. With recalibration a G reading is evidence for both, so that tile's
    own exemplars count; the other G tiles stay G. (The odd tile shows the same glyph as its
    neighbours, so only its own look separates it: its Q probability rises, it need not win.)"""
    from tilecam.vision.classify import ReadConfig
    board = ["." * 15] * 6 + ["...GGAGGGEG....", "...EGGNGGGG...."] + ["." * 15] * 7
    odd = (7, 5)
    tileset, test = enrolled_with_one_odd_tile(reader_de, board, 22, "wood", odd, "Q")
    p_q = {}
    for recalibrate in (False, True):
        reader = TileReader(MODEL, CARD, tileset=tileset, lang="de",  # more G than the German bag
                            cfg=ReadConfig(recalibrate=recalibrate, cap_counts=False))
        snap = reader.read(test).snapshot
        p_q[recalibrate] = float(snap.probs[odd][reader.classes.index("Q")])
        others = [snap.board()[r][c] for r in (6, 7) for c in range(15) if board[r][c] == "G" and (r, c) != odd]
        assert others.count("G") >= len(others) - 1
    assert p_q[True] > 10 * p_q[False]
    assert p_q[True] > 0.2


def test_self_enroll_is_safe(shared_data):
    from tilecam.vision.enroll import SelfEnrollConfig, self_enroll
    reader = TileReader(MODEL, CARD, lang="en")
    rows = {r["frame"]: r for r in map(json.loads, (shared_data / "english" / "truth.jsonl")
                                        .read_text("utf-8").splitlines()) if r}

    def warped(name):
        image = cv2.imread(str(shared_data / "english" / "frames" / name))
        return warp_board(image, homography_from_corners(np.float32(rows[name]["corners"]), 32), 32)

    # the empty board: no tiles to learn from, so the plain reading comes back unchanged
    empty = warped("IMG_20151016_165303.jpg")
    read, ts = self_enroll(reader, empty)
    assert ts is None and read.board() == reader.read(empty).board()
    # the finished board: a tile set of confident squares, never more of a letter than the bag
    full = warped("IMG_20151016_170757.jpg")
    read, ts = self_enroll(reader, full, SelfEnrollConfig(min_tiles=1, confident_prob=0.5))
    assert ts is not None and ts["meta"]["source"] == "self"
    counts = Counter(ts["labels"])
    assert all(counts[c] <= DISTRIBUTIONS["en"].counts.get(c, 0) for c in counts if c != ".")
    assert "?" not in counts
    assert np.allclose(read.snapshot.probs.sum(axis=2), 1.0, atol=1e-4)
    # asking for more confident tiles than there are: nothing changes
    read, ts = self_enroll(reader, full, SelfEnrollConfig(min_tiles=226))
    assert ts is None and read.board() == reader.read(full).board()
