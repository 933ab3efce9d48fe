"""find_board on real ScrabScrap frames: the rectified grid must line up with the truth board."""
from __future__ import annotations

import json

import cv2
import numpy as np
import pytest

from vision.errors import BoardNotFound
from vision.locate import BoardFix, LocateConfig, find_board, fix_from_corners, order_corners
from vision.rectify import warp_board

# Corners measured with this code (full-resolution px), clockwise from the top-left.
MEASURED = {
    ("game05", "image-1.jpg"): [[42.1, 48.3], [935.6, 29.6], [963.2, 931.3], [49.2, 945.7]],
    ("game05", "image-20.jpg"): [[42.8, 48.1], [936.2, 29.2], [965.3, 929.4], [47.9, 947.4]],
    ("game05", "image-35.jpg"): [[38.2, 45.8], [937.9, 27.3], [966.1, 929.8], [48.8, 948.0]],
    ("game12", "board-00.png"): [[103.5, 118.7], [1390.1, 98.6], [1417.3, 1378.6], [130.0, 1411.3]],
    ("game12", "board-10.png"): [[104.6, 118.3], [1390.8, 99.4], [1415.5, 1377.9], [130.4, 1411.2]],
    ("game12", "board-20.png"): [[104.6, 120.9], [1394.3, 97.9], [1422.1, 1380.9], [131.0, 1409.2]],
}


def truth_board(shared_data, game: str, frame: str) -> np.ndarray:
    for line in (shared_data / "scrabscrap" / game / "truth.jsonl").read_text("utf-8").splitlines():
        row = json.loads(line)
        if row["frame"] == frame:
            return np.array([[c != "." for c in r] for r in row["board"]])
    raise KeyError(frame)


def separation_accuracy(image: np.ndarray, fix: BoardFix, occupied: np.ndarray, square_px: int) -> float:
    """Ivory tiles are unsaturated, the green board and its premium squares are not: a fixed
    threshold on each square centre's saturation (relative to the grid image's median) must
    reproduce the truth occupancy if, and only if, the grid lines up."""
    s = square_px
    warped = warp_board(image, fix.homography, s)
    sat = cv2.cvtColor(warped, cv2.COLOR_BGR2HSV)[..., 1].astype(np.float64)
    lo, hi = int(0.3 * s), int(0.7 * s)
    centre = sat.reshape(15, s, 15, s)[:, lo:hi, :, lo:hi].mean(axis=(1, 3)) / np.median(sat)
    return float(((centre < 0.72) == occupied).mean())


@pytest.mark.parametrize("game,frame", sorted(MEASURED), ids=lambda v: v)
def test_find_board_lines_up_on_real_frames(shared_data, game, frame):
    cfg = LocateConfig()
    image = cv2.imread(str(shared_data / "scrabscrap" / game / frame))
    assert image is not None
    fix = find_board(image, cfg)
    assert fix.corners.shape == (4, 2) and fix.corners.dtype == np.float32
    assert 0.5 < fix.quality <= 1.0
    assert separation_accuracy(image, fix, truth_board(shared_data, game, frame), cfg.square_px) >= 0.95
    assert np.abs(fix.corners - np.array(MEASURED[(game, frame)])).max() < 6.0


def test_game05_grid_sits_inside_the_rim(shared_data):
    """game.ini's warp-coord is the board's outer rim: every grid corner lies 1-5% of the side inside it."""
    rim = np.array([[9.0, 16.0], [967.0, 0.0], [991.0, 963.0], [15.0, 975.0]])
    image = cv2.imread(str(shared_data / "scrabscrap" / "game05" / "image-7.jpg"))
    fix = find_board(image, LocateConfig())
    inset = np.linalg.norm(fix.corners - rim, axis=1) / 960.0
    assert np.all((inset > 0.01) & (inset < 0.07)), inset
    assert cv2.pointPolygonTest(rim.astype(np.float32).reshape(-1, 1, 2), tuple(map(float, fix.corners[0])), False) > 0


def test_rotated_frame_keeps_the_grid(shared_data):
    image = cv2.imread(str(shared_data / "scrabscrap" / "game12" / "board-05.png"))
    small = cv2.resize(image, (752, 752), interpolation=cv2.INTER_AREA)
    h, w = small.shape[:2]
    rot = cv2.getRotationMatrix2D((w / 2, h / 2), 33.0, 0.8)
    turned = cv2.warpAffine(small, rot, (w, h), borderValue=(60, 90, 120))
    base = find_board(small, LocateConfig())
    fix = find_board(turned, LocateConfig())
    expected = cv2.transform(base.corners.reshape(-1, 1, 2), rot).reshape(4, 2)
    err = min(np.abs(np.roll(fix.corners, i, 0) - expected).max() for i in range(4))
    assert err < 3.0


def test_noise_and_blank_images_raise():
    cfg = LocateConfig()
    rng = np.random.default_rng(3)
    noise = rng.integers(0, 256, (600, 800, 3), dtype=np.uint8)
    with pytest.raises(BoardNotFound):
        find_board(noise, cfg)
    with pytest.raises(BoardNotFound):
        find_board(np.full((600, 800, 3), 128, np.uint8), cfg)
    with pytest.raises(BoardNotFound):
        find_board(np.zeros((10, 10, 3), np.uint8), cfg)


def test_fix_from_corners_orders_and_maps():
    cfg = LocateConfig(square_px=30)
    pts = [[900, 880], [100, 120], [880, 90], [130, 910]]
    fix = fix_from_corners(pts, cfg)
    assert fix.quality == 1.0
    np.testing.assert_allclose(fix.corners, [[100, 120], [880, 90], [900, 880], [130, 910]])
    mapped = cv2.perspectiveTransform(fix.corners.reshape(-1, 1, 2).astype(np.float64), fix.homography)
    np.testing.assert_allclose(mapped.reshape(4, 2), [[0, 0], [450, 0], [450, 450], [0, 450]], atol=1e-3)
    with pytest.raises(BoardNotFound):
        fix_from_corners([[0, 0], [1, 1], [2, 2]], cfg)


def test_order_corners_starts_nearest_top_left():
    c = order_corners(np.array([[50, 0], [100, 50], [50, 100], [0, 50]], np.float32))
    # a diamond: (0, 50) and (50, 0) are equally near; clockwise order is kept either way
    assert c.shape == (4, 2)
    d = np.diff(np.vstack([c, c[:1]]), axis=0)
    cross = d[:-1, 0] * d[1:, 1] - d[:-1, 1] * d[1:, 0]
    assert np.all(cross > 0)  # clockwise on screen (y down)


def test_config_forbids_unknown_keys():
    with pytest.raises(Exception):
        LocateConfig(bogus=1)
