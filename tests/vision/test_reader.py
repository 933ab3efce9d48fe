"""vision/reader.py: a snapshot's reading in game orientation, and what lies over the board.
`covered` on its own (a wide patch of unsure squares reaching in from the board's edge is a hand;
unsure squares scattered or in a play's line are doubts); `TableReader.read` on real photos: the
English family game read through corners given from any of its four corners comes out upright, its
corners named from the game's top left; ScrabScrap's frame with a hand on the board is covered."""
from __future__ import annotations

import json

import cv2
import numpy as np
import pytest

from tilecam.api.settings import load_settings
from tilecam.scoring.board import LAYOUTS, Board
from tilecam.scoring.snapshot import Snapshot, classes_for
from tilecam.vision import build_reader
from tilecam.vision.locate import prewarped_corners
from tilecam.vision.locator import Located
from tilecam.vision.reader import BoardView, covered
from tilecam.vision.rectify import homography_from_corners

PHOTO = "IMG_20151016_170125.jpg"   # the family game at 55 tiles


def patch(*squares) -> np.ndarray:
    mask = np.zeros((15, 15), bool)
    for r, c in squares:
        mask[r, c] = True
    return mask


def test_a_wide_patch_from_the_edge_is_covered():
    arm = patch(*[(r, c) for r in range(0, 3) for c in range(5, 7)])    # 6 squares, 2 wide, from the top edge
    assert covered(arm, 4)
    assert not covered(arm, 6)                                         # no more squares than allowed


def test_unsure_squares_scattered_in_a_line_or_away_from_the_edge_are_not_covered():
    scattered = patch((0, 0), (3, 9), (7, 7), (10, 2), (14, 14), (5, 12))
    line = patch(*[(7, c) for c in range(0, 8)])                     # a play's tiles, from the edge
    inside = patch(*[(r, c) for r in range(5, 8) for c in range(5, 8)])   # wide, but touches no edge
    for mask in (scattered, line, inside):
        assert not covered(mask, 4)


def test_a_view_whose_clear_mask_is_not_the_board_is_refused():
    snap = Snapshot.from_board(["." * 15] * 15, classes_for("AB"))
    with pytest.raises(ValueError, match="clear mask"):
        BoardView(snap, 0, np.ones((14, 15), bool), False, [[0, 0]] * 4)


@pytest.fixture(scope="module")
def photo(shared_data):
    rows = [json.loads(x) for x in (shared_data / "english" / "truth.jsonl").read_text("utf-8").splitlines()]
    truth = next(r for r in rows if r["frame"] == PHOTO)
    return cv2.imread(str(shared_data / "english" / "frames" / PHOTO)), np.asarray(truth["corners"]), truth["board"]


def located(corners, px: int) -> Located:
    return Located("tracked", homography_from_corners(np.asarray(corners, np.float32), px), 1.0, px)


@pytest.mark.parametrize("k", range(4))
def test_a_board_read_from_any_of_its_corners_comes_out_upright(photo, k):
    """The grid image's top left is the game's corner k: the letters' rotations turn the read
    upright (no play committed yet), and the view names the corners from the game's top left."""
    image, corners, board = photo
    settings = load_settings(None)
    reader = build_reader(settings, "en")
    px = settings.reader.square_px
    view = reader.read(image, located(np.roll(corners, -k, axis=0), px), Board(LAYOUTS["standard"]), t=2.0,
                       frame_index=7)
    assert view.turns == (-k) % 4 and reader.turns == view.turns
    got = view.snapshot.board()
    truth = ["".join("?" if ch.islower() else ch for ch in row) for row in board]
    assert np.mean([g == t for gr, tr in zip(got, truth) for g, t in zip(gr, tr)]) >= 0.95
    assert np.allclose(view.corners, corners, atol=2.0)
    assert not view.occluded and view.clear.mean() > 0.9
    assert (view.snapshot.t, view.snapshot.frame_index) == (2.0, 7)


@pytest.fixture(scope="module")
def hand_views(shared_data):
    """game08's frames 5 and 6, read by one reader: frame 6 has a hand on the lower left of the board."""
    settings = load_settings(None)
    reader = build_reader(settings, "de")
    px = settings.reader.square_px
    views = {}
    for name in ("image-5.jpg", "image-6.jpg"):
        image = cv2.imread(str(shared_data / "scrabscrap" / "game08" / name))
        views[name] = reader.read(image, located(prewarped_corners(image), px), Board(LAYOUTS["standard"]))
    return views


def test_the_squares_under_a_hand_are_not_clear_and_the_rest_of_the_board_is(hand_views):
    assert not hand_views["image-5.jpg"].occluded and hand_views["image-5.jpg"].clear.all()
    hand = hand_views["image-6.jpg"]
    assert not hand.clear[10:, :5].all() and hand.clear[:9].all() and hand.clear[:, 6:].all()


@pytest.mark.xfail(strict=True, reason="issue 37, found by this test: the hand's fingers at the board's edge "
                                       "read as sure tiles (a blank at B15), so its unsure patch does not reach "
                                       "the edge and `covered` does not call the frame covered")
def test_a_real_hand_on_the_board_is_covered(hand_views):
    assert hand_views["image-6.jpg"].occluded
