"""find_board on real ScrabScrap frames: the rectified grid must line up with the truth board."""
from __future__ import annotations

import json

import cv2
import numpy as np
import pytest

from tilecam.vision.errors import BoardNotFound
from tilecam.vision.locate import BoardFix, LocateConfig, find_board
from tilecam.vision.rectify import warp_board

# Corners measured with this code (full-resolution px), clockwise from the top-left.
MEASURED = {
    ("game05", "image-1.jpg"): [[41.8, 47.9], [935.2, 29.3], [963.8, 931.5], [48.5, 946.2]],
    ("game05", "image-20.jpg"): [[41.8, 47.9], [936.5, 29.1], [965.9, 929.9], [48.0, 947.4]],
    ("game05", "image-35.jpg"): [[37.9, 46.6], [937.7, 26.8], [966.2, 929.5], [48.4, 948.4]],
    ("game12", "board-00.png"): [[103.9, 118.2], [1390.8, 98.6], [1418.3, 1380.6], [128.7, 1411.8]],
    ("game12", "board-10.png"): [[104.3, 118.5], [1391.2, 99.0], [1417.8, 1380.1], [128.6, 1411.9]],
    ("game12", "board-20.png"): [[104.2, 118.9], [1392.3, 98.6], [1421.9, 1382.1], [129.2, 1412.3]],
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
    assert np.abs(fix.corners - np.array(MEASURED[(game, frame)])).max() < 4.0


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


@pytest.mark.parametrize("seed", [1, 2, 11, 14])
def test_seeded_synthetic_scenes(seed):
    """Exact truth from the renderer: any design, turntable angle and tilt; no hands."""
    from tilecam.models.synth import SceneConfig, render_scene

    board = ["." * 15] * 7 + ["...WORDS.......", "....I..........", "....NOTE......."] + ["." * 15] * 5
    scene = render_scene(board, seed, SceneConfig(hands="never"))
    fix = find_board(scene.image, LocateConfig())
    truth = scene.corners.astype(np.float64)
    side = float(np.linalg.norm(truth - np.roll(truth, -1, 0), axis=1).mean())
    err = min(np.linalg.norm(np.roll(fix.corners, k, 0) - truth, axis=1).max() for k in range(4))
    assert err < 0.01 * side, (scene.design, scene.tilt_deg, err)


def _bench_scene(shared_data, seed: int):
    """The scene tests/bench/bench_locate.py renders for this seed (seed0 1000 or 5000)."""
    from tilecam.models.synth import render_scene

    boards = []
    for game in sorted((shared_data / "scrabscrap").glob("game*")):
        boards += [json.loads(x)["board"] for x in (game / "truth.jsonl").read_text("utf-8").splitlines()]
    return render_scene(boards[((seed % 1000) * 7) % len(boards)], seed=seed)


# Bench frames that used to give a wrong fix (a grid slipped by a square): 1270 and 1412 with an
# arm over the outer column, 1306 and 1071 where a rough quad left the spacing off.
@pytest.mark.parametrize("seed", [1071, 1270, 1306, 1412])
def test_no_slipped_fix_on_former_wrong_fixes(shared_data, seed):
    scene = _bench_scene(shared_data, seed)
    truth = scene.corners.astype(np.float64)
    side = float(np.linalg.norm(truth - np.roll(truth, -1, 0), axis=1).mean())
    try:
        fix = find_board(scene.image, LocateConfig())
    except BoardNotFound:
        return  # a miss is allowed (the tracker keeps the last fix); a wrong fix is not
    err = min(np.linalg.norm(np.roll(fix.corners, k, 0) - truth, axis=1).max() for k in range(4))
    assert err < 0.005 * side, err


# Bench frames the detector used to miss: 1003 (board off the frame's centre, score sheets
# touching it: the colour quad sampled the table), 1289 and 1004 (a wrong quad's loose slide
# score outranked a right one), 1068 and 1191 (the standard design's faint lines: right grids
# with quality ~0.3), 1127, 1171, 1389 and 1416 (a score sheet, bag or shadow touching the
# board spoilt every rough quad). Since the renderer's new board schemes 1289 is a white board
# whose grid is framed by a cyan band: its ridge pulled the edge 0.19 square out (4.9 px) until
# the outer lines got offsets of their own (vision.locate.search._finish).
@pytest.mark.parametrize("seed", [1003, 1004, 1068, 1127, 1171, 1191, 1289, 1389, 1416])
def test_former_misses_are_found(shared_data, seed):
    scene = _bench_scene(shared_data, seed)
    truth = scene.corners.astype(np.float64)
    side = float(np.linalg.norm(truth - np.roll(truth, -1, 0), axis=1).mean())
    fix = find_board(scene.image, LocateConfig())
    err = min(np.linalg.norm(np.roll(fix.corners, k, 0) - truth, axis=1).max() for k in range(4))
    assert err < 0.005 * side, err


def test_refinement_stays_on_the_lines_beside_dark_tiles(shared_data):
    """Bench seed 5297: dark tiles on the dark board. Their lit bevel edges beside each line used
    to pull the refinement off the truth by ~0.2 square; a line differs from both its sides."""
    from tilecam.vision.locate.lines import refine

    scene = _bench_scene(shared_data, 5297)
    truth = scene.corners.astype(np.float32)
    side = float(np.linalg.norm(truth - np.roll(truth, -1, 0), axis=1).mean())
    grey = cv2.cvtColor(scene.image, cv2.COLOR_BGR2GRAY)
    cfg = LocateConfig()
    corners = truth
    for _ in range(3):
        corners = refine(grey, corners, cfg, cfg.fit_square_px)
    corners = refine(grey, corners, cfg, cfg.refine_square_px)
    assert np.linalg.norm(corners - truth, axis=1).max() < 0.004 * side


# Selection seeds 2000-2499 rendered without hands (board (seed - 2000) * 7 as in the bench) and
# 3000-3499 as the bench renders them: heavily tiled standard boards (94, 56 and 40 tiles) whose
# faint printed lines leave even the true grid under min_fit (0.47-0.49). Several rough quads
# lead to that grid, so it is accepted. (3248 was dropped when the renderer's looks grew: its
# scene is no longer the board it was; the two kept are pinned to that board's look.)
@pytest.mark.parametrize("seed", [2117, 2489])
def test_heavily_tiled_standard_board_found_by_agreeing_quads(shared_data, seed):
    from tilecam.models.synth import SceneConfig, render_scene

    boards = []
    for game in sorted((shared_data / "scrabscrap").glob("game*")):
        boards += [json.loads(x)["board"] for x in (game / "truth.jsonl").read_text("utf-8").splitlines()]
    seed0 = seed // 1000 * 1000
    scene = render_scene(boards[((seed - seed0) * 7) % len(boards)], seed=seed,
                         cfg=SceneConfig(hands="never" if seed0 == 2000 else "random",
                                         # the standard board as these seeds drew it before the
                                         # renderer's looks grew (its lines 0.045 square wide)
                                         design="standard", line_frac=0.045, labels="short"))
    truth = scene.corners.astype(np.float64)
    side = float(np.linalg.norm(truth - np.roll(truth, -1, 0), axis=1).mean())
    fix = find_board(scene.image, LocateConfig())
    err = min(np.linalg.norm(np.roll(fix.corners, k, 0) - truth, axis=1).max() for k in range(4))
    assert err < 0.005 * side, err


def test_weak_grid_needs_several_agreeing_quads():
    from tilecam.vision.locate.search import agreed_grid

    cfg = LocateConfig()
    grid = np.float32([[100, 100], [400, 100], [400, 400], [100, 400]])
    near = grid + 0.5                      # 0.025 square off: the same grid
    slipped = grid + np.float32([20, 0])   # one square over
    weak = (grid, 0.3, 0.45)
    assert agreed_grid([weak], [grid, near, slipped, slipped], cfg) is None      # two quads agree
    assert agreed_grid([weak], [grid, near, np.roll(near, 1, 0)], cfg) is weak   # three (any corner order)
    too_weak = (grid, 0.2, cfg.agree_min_fit - 0.01)
    assert agreed_grid([too_weak], [grid] * 6, cfg) is None


def test_weak_agreed_grid_needs_its_lines_all_over_the_board():
    """Under agree_min_fit (down to agree_low_fit) an agreed grid is taken only when its line
    pieces are found in every quarter: tiles hide pieces all over a crowded board (170755), a
    grid dragged off at one corner finds them where it fits (synthetic seed 1182)."""
    from tilecam.vision.locate.search import agreed_grid

    cfg = LocateConfig()
    sq, m = 20, 40
    corners = np.float32([[m, m], [m + 15 * sq, m], [m + 15 * sq, m + 15 * sq], [m, m + 15 * sq]])

    def board(blank_quarter: bool) -> np.ndarray:
        rng = np.random.default_rng(3)
        img = np.full((15 * sq + 2 * m,) * 2, 120, np.uint8)
        for k in range(16):
            p = m + k * sq
            img[m:m + 15 * sq, p - 1:p + 1] = img[p - 1:p + 1, m:m + 15 * sq] = 160
        for r, c in rng.integers(0, 15, (90, 2)):  # tiles all over: they hide the pieces beside them
            img[m + r * sq + 2:m + (r + 1) * sq - 1, m + c * sq + 2:m + (c + 1) * sq - 1] = 215
        if blank_quarter:  # no line found in one quarter, as where a dragged grid misses them
            img[m + 8 * sq:m + 15 * sq + 2, m + 8 * sq:m + 15 * sq + 2] = 120
        return cv2.GaussianBlur(img, (0, 0), 1.0)

    weak = (corners, 0.2, (cfg.agree_low_fit + cfg.agree_min_fit) / 2)
    quads = [corners] * cfg.agree_min_quads
    assert agreed_grid([weak], quads, cfg, grey=board(False)) is weak
    assert agreed_grid([weak], quads, cfg, grey=board(True)) is None
    assert agreed_grid([weak], quads, cfg) is None  # without the image: the agree_min_fit floor


def _english_truth(shared_data, frame: str) -> dict:
    for line in (shared_data / "english" / "truth.jsonl").read_text("utf-8").splitlines():
        row = json.loads(line)
        if row["frame"] == frame:
            return row
    raise KeyError(frame)


def _error_squares(found: np.ndarray, truth) -> float:
    """Largest corner distance in squares, corner order matched up to rotation and reflection
    (find_board returns camera order, the truth is in game orientation)."""
    truth = np.asarray(truth, np.float64)
    square = float(np.linalg.norm(truth - np.roll(truth, -1, 0), axis=1).mean()) / 15
    found = np.asarray(found, np.float64)
    return min(float(np.linalg.norm(np.roll(c, k, 0) - truth, axis=1).max())
               for c in (found, found[::-1]) for k in range(4)) / square


# English phone photos (../shared/data/english): the beige vintage board (2014), the red Hasbro
# board with printed premium labels at a steep angle and turned (2015, 170028: the truth's game
# order is a rotation of the camera order), the finished board with all 100 tiles (170757), and a
# soft photo of a crowded board (170317, 69 tiles; found since the outer lines keep the inner pitch).
# 170746 (grazing view) and 170725 (steep) on a carpet: only the segments' vanishing-point quad
# reaches them; 170032: out of focus, found since the fit measures pieces at the lines' own width;
# 170755: soft and finished, fit 0.375, taken since its pieces are found in every quarter.
@pytest.mark.parametrize("frame", ["IMG_20141025_163929.jpg", "IMG_20151016_170028.jpg",
                                   "IMG_20151016_170757.jpg", "IMG_20151016_170317.jpg",
                                   "IMG_20151016_170746.jpg", "IMG_20151016_170725.jpg",
                                   "IMG_20151016_170032.jpg", "IMG_20151016_170755.jpg"])
def test_english_phone_photos_line_up(shared_data, frame):
    truth = _english_truth(shared_data, frame)
    image = cv2.imread(str(shared_data / "english" / "frames" / frame))
    assert image is not None
    fix = find_board(image, LocateConfig())
    assert _error_squares(fix.corners, truth["corners"]) < 0.25


def _faint_white_board(seed: int, tiles: int = 90, line: int = 8) -> tuple[np.ndarray, np.ndarray]:
    """A white board (issue 44's 2021 board) whose grid lines are ``line`` grey levels under the
    white squares and whose premium squares carry a pattern (staggered coloured dots), with
    ``tiles`` wooden tiles, photographed hand-held (tilted, blurred, noisy): (frame, grid corners)."""
    from tilecam.scoring import LAYOUTS

    rng = np.random.default_rng(seed)
    sq, white = 40, (236, 238, 240)
    m = int(0.6 * sq)
    n = 15 * sq + 2 * m
    img = np.full((n, n, 3), white, np.uint8)
    colours = {"=": (60, 62, 214), "-": (170, 176, 240), '"': (200, 130, 50), "'": (236, 206, 160), "*": (170, 176, 240)}
    for r, row in enumerate(LAYOUTS["standard"].rows):
        for c, key in enumerate(row):
            if key in colours:
                cell = img[m + r * sq:m + (r + 1) * sq, m + c * sq:m + (c + 1) * sq]
                for yy in range(3, sq, 6):
                    for xx in range(3 + (yy // 6) % 2 * 3, sq, 6):
                        cv2.circle(cell, (xx, yy), 2, colours[key], -1)
    for i in range(16):
        p = m + i * sq
        img[p - 1:p + 1, m:m + 15 * sq] = img[m:m + 15 * sq, p - 1:p + 1] = np.array(white) - line
    for _ in range(tiles):
        r, c = rng.integers(0, 15, 2)
        x0, y0 = m + c * sq + 3, m + r * sq + 3
        img[y0:y0 + sq - 6, x0:x0 + sq - 6] = (150, 190, 222)
        cv2.putText(img, "ABCDEFGHIJ"[rng.integers(10)], (x0 + 8, y0 + sq - 14), 0, 0.8, (30, 30, 30), 2)
    w, h = 1600, 1200
    dst = np.float32([[300, 100], [1300, 100], [1300, 1100], [300, 1100]]) + rng.normal(0, 30, (4, 2)).astype(np.float32)
    dst[0, 0] += 40
    dst[1, 0] -= 40   # the near side wider: a phone held at a slant
    hm = cv2.getPerspectiveTransform(np.float32([[0, 0], [n, 0], [n, n], [0, n]]), dst)
    frame = cv2.warpPerspective(img, hm, (w, h), dst=np.full((h, w, 3), (80, 90, 100), np.uint8),
                                borderMode=cv2.BORDER_TRANSPARENT)
    frame = np.clip(cv2.GaussianBlur(frame, (0, 0), 1.0) + rng.normal(0, 3, frame.shape), 0, 255).astype(np.uint8)
    grid = np.float32([[m, m], [m + 15 * sq, m], [m + 15 * sq, m + 15 * sq], [m, m + 15 * sq]])
    return frame, cv2.perspectiveTransform(grid[None], hm)[0]


@pytest.mark.xfail(strict=True, reason="issue 44 item 4, open: on a white board whose grid lines are faint "
                                       "and whose premium squares carry a pattern, the fit's gradient pieces "
                                       "peak on the pattern, not the line (docs/vision.md)")
@pytest.mark.parametrize("seed", [0, 1])
def test_faint_lines_beside_patterned_premium_squares(seed):
    """Rendered stand-in for the 2021 board's hand-held photos that were not found ("grid lines too
    weak", fit 0.37-0.48). The same board with solid premium squares, or 40 grey-level lines, is
    found within 0.05 square."""
    frame, truth = _faint_white_board(seed)
    fix = find_board(frame, LocateConfig())
    side = float(np.linalg.norm(truth - np.roll(truth, -1, 0), axis=1).mean()) / 15
    err = min(float(np.linalg.norm(np.roll(fix.corners, k, 0) - truth, axis=1).max()) for k in range(4))
    assert err < 0.25 * side
