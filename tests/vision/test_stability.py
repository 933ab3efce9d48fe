from __future__ import annotations

import numpy as np

from tilecam.vision.stability import StabilityConfig, StabilityGate


def board(seed=0, blob=None):
    rng = np.random.default_rng(seed)
    img = np.full((600, 600, 3), 180, np.uint8)
    img[::40, :] = 60
    img[:, ::40] = 60
    img[200:240, 200:240] = rng.integers(0, 255, 3)
    if blob is not None:  # a hand: a big skin-coloured patch
        x, y = blob
        img[y:y + 250, x:x + 180] = (120, 150, 210)
    return img


def run(gate, frames, fps=10.0):
    return [gate.update(i / fps, f) for i, f in enumerate(frames)]


def test_snapshot_once_clear_for_stable_ms_and_only_once():
    gate = StabilityGate(StabilityConfig(stable_ms=500))
    results = run(gate, [board()] * 20)
    snaps = [i for i, r in enumerate(results) if r.snapshot]
    # The first frame has nothing to compare with; 0.5 s of stillness later, one snapshot, then none.
    assert snaps == [6]


def test_a_moving_hand_blocks_snapshots_and_a_new_tile_gives_one():
    gate = StabilityGate(StabilityConfig(stable_ms=300))
    frames = [board()] * 6 + [board(blob=(50 + 40 * i, 100)) for i in range(8)] + [board(seed=1)] * 8
    results = run(gate, frames)
    moving = [r.state for r in results[6:14]]
    assert all(s == "moving" for s in moving)
    assert not any(r.snapshot for r in results[6:14])
    assert sum(r.snapshot for r in results[14:]) == 1


def test_occluded_when_no_board_or_low_quality():
    gate = StabilityGate()
    assert gate.update(0.0, None).state == "occluded"
    assert gate.update(0.1, board(), quality=0.1).state == "occluded"


def test_a_board_whose_grid_never_fits_well_is_clear_until_its_fit_drops():
    """Thin printed lines at low resolution: the grid is right but its quality stays near 0.22,
    under min_quality. Occlusion is then a drop below a share of the board's own best."""
    gate = StabilityGate(StabilityConfig(stable_ms=300))
    results = [gate.update(i / 10, board(), quality=0.22) for i in range(8)]
    assert results[-1].state == "clear" and sum(r.snapshot for r in results) == 1
    assert gate.update(0.9, board(), quality=0.12).state == "occluded"
    # a board that fits well keeps the absolute floor
    good = StabilityGate()
    good.update(0.0, board(), quality=0.8)
    assert good.update(0.1, board(), quality=0.3).state == "occluded"


def test_trigger_means_snapshot_now():
    gate = StabilityGate(StabilityConfig(stable_ms=5000))
    gate.update(0.0, board())
    gate.trigger()
    assert gate.update(0.1, board()).snapshot
    assert not gate.update(0.2, board()).snapshot


def test_whether_the_board_stands_still_is_the_gates_word_occluded_or_not():
    """One rule (stands_still over moved_share) decides it; a frame the gate calls occluded (its grid
    fits too poorly) still says whether it stood still, so nobody downstream re-applies moving_frac."""
    from tilecam.vision.stability import moved_share, stands_still
    a, b = board(0), board(0, blob=(20, 60))
    assert moved_share(a, a, 28) == 0.0 and moved_share(a, b, 28) > 0.05
    assert stands_still(0.004, 0.004) and not stands_still(0.0041, 0.004)
    gate = StabilityGate(StabilityConfig(min_quality=0.5, relative_quality=1.0))
    gate.update(0.0, a, 0.9)                 # a good fit first: the floor is min_quality
    first = gate.update(0.1, a, 0.2)         # a poor fit: occluded
    still = gate.update(0.2, a, 0.2)
    moved = gate.update(0.3, b, 0.2)
    assert (first.state, still.state, moved.state) == ("occluded",) * 3
    assert still.still and not moved.still
    assert gate.update(0.4, b, 0.9).still and not gate.update(0.5, a, 0.9).still  # clear, then moving


def test_the_best_fit_is_the_poses_own():
    """Issue 44: how well a grid fits depends on the board's pose (glare, tiles across the lines at
    that angle). A board turned on its turntable and found again at a lower fit (0.30, its best before
    the turn 0.52) is the board, not a covered one: the gate compares a fit with the best of its own
    grid fix (`look`'s homography), and a drop within one pose is still occlusion."""
    gate = StabilityGate(StabilityConfig(stable_ms=300))
    before, after = np.eye(3), np.array([[0.0, -1.0, 600.0], [1.0, 0.0, 0.0], [0.0, 0.0, 1.0]])
    img = board()
    for i in range(5):
        gate.look(i / 10, img, before, 40, quality=0.52)
    results = [gate.look(1 + i / 10, img, after, 40, quality=0.30) for i in range(8)]
    assert results[-1].state == "clear" and sum(r.snapshot for r in results) == 1
    assert gate.look(2.0, img, after, 40, quality=0.12).state == "occluded"
