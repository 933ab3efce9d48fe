"""The committed tile model through vision.classify: synthetic renders and real ScrabScrap frames."""
from __future__ import annotations

import json
from pathlib import Path

import cv2
import numpy as np
import pytest
from pydantic import ValidationError

from tilecam.vision.classify import ReadConfig, TileReader, cap_counts, weigh_lone_tiles
from tilecam.vision.locate import prewarped_corners
from tilecam.vision.rectify import homography_from_corners, warp_board

REPO = Path(__file__).resolve().parents[2]
MODEL = REPO / "models" / "tiles.onnx"
CARD = REPO / "models" / "tiles.card.json"
BOARD = ["...............", "...............", "...............", "...............",
         "....QUIZ.......", "......E........", "......B........", "..JOKERS?......",
         "......A.X......", "......eVÄ......", "...............", "...............",
         "...............", "...............", "..............."]


@pytest.fixture(scope="module")
def reader() -> TileReader:
    return TileReader(MODEL, CARD, lang="de")


def truth_cells(board):
    return ["?" if ch.islower() else ch for row in board for ch in row]


# A look the network was trained on: these tests are about the reader's mechanics; boards and
# tile sets held out of training are measured by tests/bench/bench_read.py.
TRAINED_LOOK = dict(design="standard", labels="short", style="wood", font="dejavu-sans")


def render_warped(board, seed, px, **cfg):
    from tilecam.models.synth import SceneConfig, render_topdown
    td = render_topdown(board, seed, SceneConfig(**{**TRAINED_LOOK, **cfg}))
    return warp_board(td.image, homography_from_corners(td.corners, px), px), td


def real_frame(shared_data: Path, game: str, frame: str, px: int):
    rows = [json.loads(x) for x in (shared_data / "scrabscrap" / game / "truth.jsonl").read_text("utf-8").splitlines()]
    board = next(r["board"] for r in rows if r["frame"] == frame)
    image = cv2.imread(str(shared_data / "scrabscrap" / game / frame))
    return warp_board(image, homography_from_corners(prewarped_corners(image), px), px), board


def test_card_describes_the_model(reader):
    card = json.loads(CARD.read_text("utf-8"))
    assert card["classes"][:2] == [".", "?"] and "Ä" in card["classes"]
    assert MODEL.stat().st_size < 5_000_000
    assert reader.classes[:2] == (".", "?") and len(reader.classes) == 31


def test_reads_a_synthetic_render(reader):
    warped, _ = render_warped(BOARD, seed=7, px=reader.card["square_px"], quarter_turn_prob=0.0)
    result = reader.read(warped)
    pred = [ch for row in result.board() for ch in row]
    acc = np.mean([p == t for p, t in zip(pred, truth_cells(BOARD))])
    assert acc >= 0.95
    assert result.snapshot.probs.shape == (15, 15, 31)
    assert np.allclose(result.snapshot.probs.sum(axis=2), 1.0, atol=1e-4)
    assert result.orientation_deg == 0
    assert (result.rotations[np.array(pred).reshape(15, 15) == "."] == -1).all()


def test_orientation_follows_the_tiles(reader):
    warped, _ = render_warped(BOARD, seed=8, px=reader.card["square_px"], quarter_turn_prob=0.0)
    # np.rot90 turns counter-clockwise, i.e. the letters end up 3 clockwise quarter turns round
    turned = np.ascontiguousarray(np.rot90(warped, k=1))
    assert reader.read(turned).orientation_deg == 270


def test_empty_board_has_no_orientation(reader):
    warped, _ = render_warped(["." * 15] * 15, seed=9, px=reader.card["square_px"])
    result = reader.read(warped)
    assert result.orientation_deg is None and (result.rotations == -1).all()


@pytest.mark.parametrize("game,frame", [("game06", "image-33.jpg"), ("game08", "image-18.jpg")])
def test_reads_real_prewarped_frames(reader, shared_data, game, frame):
    warped, board = real_frame(shared_data, game, frame, reader.card["square_px"])
    pred = [ch for row in reader.read(warped).board() for ch in row]
    truth = truth_cells(board)
    occupied_ok = np.mean([(p == ".") == (t == ".") for p, t in zip(pred, truth)])
    assert occupied_ok >= 0.98
    assert np.mean([p == t for p, t in zip(pred, truth)]) >= 0.85


def test_prewarped_grid_fit(shared_data):
    image = cv2.imread(str(shared_data / "scrabscrap" / "game06" / "image-1.jpg"))
    corners = prewarped_corners(image)
    # measured from the grid-line profile: about 28 px in from the left, 24 from the top, 50 px cells
    assert np.allclose(corners[0], [28, 24], atol=3)
    assert np.allclose(corners[2], [776, 775], atol=6)


def test_config_rejects_typos():
    with pytest.raises(ValidationError):
        ReadConfig(prototype_wieght=0.5)


def test_readings_beyond_the_distribution_fall_to_their_next_class():
    # classes (".", "?", "A"): one blank in the bag, three squares read as blanks
    probs = np.array([[0.3, 0.7, 0.0], [0.45, 0.55, 0.0], [0.1, 0.5, 0.4]], np.float32)
    capped = cap_counts(probs, np.array([225, 1, 9]))
    assert list(capped.argmax(axis=1)) == [1, 0, 2]
    assert np.allclose(capped.sum(axis=1), 1.0)


def test_a_lone_tile_needs_the_network_sure_by_more_than_the_factor():
    # classes (".", "A"); every square empty but three
    probs = np.tile(np.float32([0.97, 0.03]), (225, 1))
    probs[0] = [0.04, 0.96]            # A1 alone, 24:1      -> empty
    probs[100] = [0.002, 0.998]        # alone, 499:1        -> stays a tile
    probs[200] = [0.3, 0.7]            # two side by side    -> both stay
    probs[201] = [0.2, 0.8]
    out = weigh_lone_tiles(probs, 0, factor=0.01)
    assert list(np.flatnonzero(out.argmax(axis=1) == 1)) == [100, 200, 201]
    assert np.allclose(out[200:202], probs[200:202])
    assert np.allclose(out.sum(axis=1), 1.0)
    # a tile on the edge with its only neighbour read as a tile keeps it
    probs[1] = [0.1, 0.9]
    assert weigh_lone_tiles(probs, 0, factor=0.01)[0].argmax() == 1


def _fake_read(classes, board, rotations, rot_probs=None):
    from tilecam.scoring.snapshot import Snapshot
    from tilecam.vision.classify import BoardRead
    probs = np.zeros((15, 15, len(classes)), np.float32)
    for r in range(15):
        for c in range(15):
            probs[r, c, classes.index(board[r][c])] = 1.0
    return BoardRead(Snapshot(tuple(classes), probs), np.asarray(rotations), None, 0.0, rot_probs)


def test_game_orientation_needs_a_clear_majority():
    from tilecam.scoring.snapshot import classes_for
    from tilecam.scoring.tiles import DISTRIBUTIONS
    from tilecam.vision.classify import game_orientation, to_game
    classes = list(classes_for(DISTRIBUTIONS["en"].letters))
    board = ["." * 15] * 7 + ["...CAT.DOG.....", "..............."] + ["." * 15] * 6
    rot = np.full((15, 15), -1)
    rot[7, 3:6] = 1
    rot[7, 7:10] = 1
    read = _fake_read(classes, board, rot)
    assert game_orientation(read) == 90
    game = to_game(read, np.float32([[0, 0], [10, 0], [10, 10], [0, 10]]))
    # the print is turned 90 degrees clockwise in the camera's grid, so a word the camera sees
    # left to right along row 8 runs from the bottom up column H of the game board
    assert game.orientation == 90 and [row[7] for row in game.board][9:12] == list("TAC")
    assert game.corners.tolist() == [[10, 0], [10, 10], [0, 10], [0, 0]]
    assert set(game.rotations[game.rotations >= 0].tolist()) == {0}
    rot[7, 7:10] = 3  # half the tiles one way, half the other: no orientation, nothing turned
    split = to_game(_fake_read(classes, board, rot), np.float32([[0, 0], [10, 0], [10, 10], [0, 10]]))
    assert split.orientation is None and split.board == board and split.corners[0].tolist() == [0, 0]
    assert game_orientation(_fake_read(classes, ["." * 15] * 15, np.full((15, 15), -1))) is None


def test_fuse_empty_ratio_moves_only_p_empty():
    from tilecam.vision.classify import fuse_empty_ratio
    p = np.array([[0.1, 0.6, 0.3], [0.8, 0.1, 0.1]], np.float32)
    out = fuse_empty_ratio(p, np.array([np.log(9.0 * 9.0), 0.0]))
    assert np.allclose(out.sum(axis=1), 1.0, atol=1e-6)
    assert np.isclose(out[0, 0], 0.9, atol=1e-4)           # odds 1:9 times 81 -> 9:1
    assert np.isclose(out[0, 1] / out[0, 2], 2.0, atol=1e-4)  # the tiles keep their proportions
    assert np.allclose(out[1], p[1], atol=1e-6)
