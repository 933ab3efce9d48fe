"""vision/still.py: one still image read as the commands read it. The grid's corners as given,
fitted to a pre-warped image or located; the warp to the board; the board read from it. On real
photos (the English family game, ScrabScrap's pre-warped frames) against their hand-made truth."""
from __future__ import annotations

import json

import cv2
import numpy as np
import pytest

from tilecam.api.settings import load_settings
from tilecam.vision import BoardNotFound, VisionError, load_tile_reader, read_still, still_corners, warp_still
from tilecam.vision.locate import prewarped_corners
from tilecam.vision.rectify import grid_corners

PHOTO = "IMG_20151016_170125.jpg"   # the family game at 55 tiles, oblique and turned


@pytest.fixture(scope="module")
def settings():
    return load_settings(None)


@pytest.fixture(scope="module")
def photo(shared_data):
    rows = [json.loads(x) for x in (shared_data / "english" / "truth.jsonl").read_text("utf-8").splitlines()]
    truth = next(r for r in rows if r["frame"] == PHOTO)
    image = cv2.imread(str(shared_data / "english" / "frames" / PHOTO))
    assert image is not None
    return image, np.asarray(truth["corners"], np.float32), truth["board"]


def test_corners_given_are_taken_as_they_are(settings, photo):
    image, corners, _ = photo
    assert still_corners(settings, image, corners=corners) is corners


def test_the_grid_of_a_photo_is_located_where_its_truth_says(settings, photo):
    image, truth, _ = photo
    found = still_corners(settings, image)
    assert found.shape == (4, 2)
    tol = 0.015 * max(image.shape[:2])
    for corner in truth:   # located corners run from the image's top left, the truth's from the game's
        assert np.linalg.norm(found - corner, axis=1).min() < tol, (corner, found)


def test_an_image_without_a_board_is_board_not_found(settings):
    table = np.full((600, 800, 3), (60, 110, 160), np.uint8)
    with pytest.raises(BoardNotFound) as exc:
        still_corners(settings, table)
    assert isinstance(exc.value, VisionError)


def test_a_prewarped_frame_has_its_grid_fitted_not_located(settings, shared_data):
    image = cv2.imread(str(shared_data / "scrabscrap" / "game06" / "image-1.jpg"))
    corners = still_corners(settings, image, prewarped=True)
    assert np.allclose(corners, prewarped_corners(image))
    assert np.allclose(corners[0], [28, 24], atol=3) and np.allclose(corners[2], [776, 775], atol=6)


def test_the_warp_maps_the_corners_onto_the_board_of_square_px_squares(photo):
    image, corners, _ = photo
    still = warp_still(image, corners, 40)
    assert still.warped.shape == (600, 600, 3) and still.square_px == 40 and still.image is image
    mapped = cv2.perspectiveTransform(corners.reshape(-1, 1, 2).astype(np.float64), still.homography)[:, 0]
    assert np.allclose(mapped, grid_corners(40), atol=0.5)


def test_a_photo_reads_as_its_truth(settings, photo):
    image, corners, board = photo
    reader = load_tile_reader(settings, "en")
    read = read_still(reader, warp_still(image, corners, int(reader.card["square_px"])))
    got = [ch for row in read.board() for ch in row]
    truth = ["?" if ch.islower() else ch for row in board for ch in row]
    assert np.mean([(g == ".") == (t == ".") for g, t in zip(got, truth)]) >= 0.99
    assert np.mean([g == t for g, t in zip(got, truth)]) >= 0.95
