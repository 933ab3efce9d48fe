"""The scene renderer: deterministic, with truth that matches the pixels."""
from __future__ import annotations

import cv2
import numpy as np
import pytest

from tilecam.models.synth import DESIGNS, STYLES, SceneConfig, render_scene, render_topdown

BOARD = ["." * 15] * 7 + ["...QUALMS?ÄÖÜ.."] + [".......A.......", ".......t......."] + ["." * 15] * 5


def test_same_seed_same_image():
    a, b = render_scene(BOARD, 11), render_scene(BOARD, 11)
    assert np.array_equal(a.image, b.image) and np.array_equal(a.corners, b.corners)
    assert not np.array_equal(a.image, render_scene(BOARD, 12).image)


@pytest.mark.parametrize("design", DESIGNS)
@pytest.mark.parametrize("style", STYLES)
def test_every_design_and_style_renders_with_exact_grid(design, style):
    td = render_topdown(BOARD, 3, SceneConfig(design=design, style=style, tile_jitter_frac=0, tile_angle_deg=0))
    sq = td.square_px
    x0, y0 = td.corners[0]
    # An empty square's centre shows the board, a tile square's centre does not.
    empty = td.image[int(y0 + 0.5 * sq), int(x0 + 0.5 * sq)].astype(int)
    plain = td.image[int(y0 + 0.5 * sq), int(x0 + 1.5 * sq)].astype(int)
    assert np.abs(empty - plain).sum() > 20    # the TW corner square differs from the plain one beside it
    assert td.corners[2][0] - td.corners[0][0] == 15 * sq
    expected = np.array([[c != "." for c in row] for row in BOARD])
    assert np.array_equal(td.tile_rotations >= 0, expected)


def test_corners_map_the_grid_into_the_frame():
    for seed in range(5):
        s = render_scene(BOARD, seed, SceneConfig(hands="never", glare_prob=0))
        h, w = s.image.shape[:2]
        assert ((s.corners >= 0) & (s.corners < [w, h])).all()
        # The quad is convex and wound one way (a proper view of a square).
        v = np.roll(s.corners, -1, axis=0) - s.corners
        cross = v[:, 0] * np.roll(v, -1, axis=0)[:, 1] - v[:, 1] * np.roll(v, -1, axis=0)[:, 0]
        assert (cross > 0).all() or (cross < 0).all()


def test_turntable_rotation_moves_corner_zero():
    upright = render_scene(BOARD, 4, SceneConfig(rotation_deg=0, max_tilt_deg=0, hands="never"))
    turned = render_scene(BOARD, 4, SceneConfig(rotation_deg=180, max_tilt_deg=0, hands="never"))
    c0, t0 = upright.corners, turned.corners
    assert c0[0][0] < c0[2][0] and c0[0][1] < c0[2][1]       # row 0 at the top left
    assert t0[0][0] > t0[2][0] and t0[0][1] > t0[2][1]       # ... and at the bottom right when turned


def test_hands_cover_part_of_the_frame():
    s = render_scene(BOARD, 5, SceneConfig(hands="always"))
    assert 0.005 < s.hand_mask.mean() < 0.6
    assert not render_scene(BOARD, 5, SceneConfig(hands="never")).hand_mask.any()


def test_a_fixed_camera_video_keeps_its_tiles_still():
    more = BOARD[:10] + ["...........QI.."] + BOARD[11:]
    a = render_scene(BOARD, 8, SceneConfig(hands="never"), frame=0)
    b = render_scene(more, 8, SceneConfig(hands="never"), frame=1)
    assert np.array_equal(a.corners, b.corners)
    # Away from the new tiles the frames differ only by noise.
    diff = np.abs(a.image.astype(int) - b.image.astype(int)).mean(axis=2)
    assert np.median(diff) < 6


def _rectify(scene, top):
    """The frame warped back onto the top-down render's grid through the truth corners."""
    hom = cv2.getPerspectiveTransform(scene.corners.astype(np.float32), top.corners.astype(np.float32))
    size = top.image.shape[1], top.image.shape[0]
    return cv2.warpPerspective(scene.image, hom, size, flags=cv2.INTER_LINEAR)


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_the_truth_corners_put_the_board_where_the_pixels_are(seed):
    cfg = SceneConfig(design="tournament_green", hands="never", glare_prob=0, light_strength=0)
    board = ["." * 15] * 3 + ["..QUIZ........."] + ["." * 15] * 5 + ["............J.."] * 3 + ["." * 15] * 3
    scene, top = render_scene(board, seed, cfg), render_topdown(board, seed, cfg)
    back = _rectify(scene, top)
    sq = top.square_px
    x0, y0 = (int(v) for v in top.corners[0])

    def mean_bgr(img, r, c):
        inner = img[y0 + r * sq + sq // 4: y0 + (r + 1) * sq - sq // 4, x0 + c * sq + sq // 4: x0 + (c + 1) * sq - sq // 4]
        return inner.reshape(-1, 3).mean(axis=0)

    # The centre star's (pink) square and the red corner squares land where the corners say.
    for r, c in [(7, 7), (0, 0), (0, 14), (14, 14), (14, 0)]:
        assert mean_bgr(back, r, c)[2] > mean_bgr(back, 6, 7)[2] + 60, (r, c)
    # Whole-grid agreement (also fixes the corner order: the tiles are not symmetric).
    grid = (slice(y0, y0 + 15 * sq), slice(x0, x0 + 15 * sq))
    a = cv2.cvtColor(back[grid], cv2.COLOR_BGR2GRAY).astype(np.float32).ravel()
    b = cv2.cvtColor(top.image[grid], cv2.COLOR_BGR2GRAY).astype(np.float32).ravel()
    assert np.corrcoef(a, b)[0, 1] > 0.8


def test_scene_tile_rotations_follow_the_board():
    s = render_scene(BOARD, 6, SceneConfig(quarter_turn_prob=1.0))
    occupied = np.array([[ch != "." for ch in row] for row in BOARD])
    assert np.array_equal(s.tile_rotations >= 0, occupied)
    assert set(np.unique(s.tile_rotations[occupied])) <= {1, 2, 3}


def test_the_renderer_s_letters_are_the_trained_sets_read_off_scoring():
    """Issue 37: the model's letter classes and the synthetic scenes' bag come from scoring.tiles,
    in the order seeded renders always drew them (so every render stays as it was)."""
    from tilecam.models.dataset import CLASSES
    from tilecam.models.synth.__main__ import LETTERS as BAG
    from tilecam.models.synth.layout import LETTERS

    assert LETTERS == tuple("ABCDEFGHIJKLMNOPQRSTUVWXYZÄÖÜ") and CLASSES[2:] == LETTERS
    assert BAG == "EEEEEEEEEEEEAAAAAAAAAIIIIIIIIIOOOOOOOONNNNNNRRRRRRTTTTTTLLLLSSSSUUUUDDDDGGGBBCCMMPPFFHHVVWWYYKJXQZ"
