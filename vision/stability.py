"""Stability gating: emit a board snapshot only once the board has been clear and unchanged.

A frame is 'occluded' when the board cannot be seen well (localization quality low, or
no board), 'moving' when the rectified board differs from the previous frame (a hand, an
arm, the bag), and 'clear' otherwise. A snapshot is due once the board has been clear for
`stable_ms` and differs from the last snapshot, or at the first clear frame after a
trigger (the player's clock press: "snapshot now"). A snapshot the recorder could not use (dropped
as covered, or its decision unclear) is taken again once the board has stood still for `stable_ms`
more (`retry`), unchanged or not.

"Changed" tolerates the camera's own noise: a pixel counts as changed beyond `pixel_delta` or beyond
`noise_factor` times the frame-to-frame noise measured on the board while it stands still, whichever
is larger (a dark room's sensor noise, the tracker's sub-pixel jitter on high-contrast tiles); the
median difference between two frames measures that noise, since a hand covers less than half the board.
"""
from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np
from pydantic import BaseModel, ConfigDict, Field

# The one rule of "the scene changed here": a pixel that moved by more than this many grey levels
# (any colour channel) is the scene, not the sensor. The gate ([stability] pixel_delta, on the warped
# board) and the tracker ([track] changed_level, on its grid thumbnail) both start from it.
SCENE_CHANGE = 28


def moved_share(a: np.ndarray, b: np.ndarray, level: float) -> float:
    """The one measure of how much of a scene moved between two images of it (same size and type):
    the share of pixels that changed by more than `level` in any colour channel."""
    diff = cv2.absdiff(a, b)
    return float(np.mean((diff.max(axis=2) if diff.ndim == 3 else diff) > level))


def stands_still(share: float, limit: float) -> bool:
    """The one rule of "it stands still": at most `limit` of it moved (`share`, moved_share's). The
    gate ([stability] moving_frac, on the warped board) and the tracker ([track] max_changed_frac,
    on its grid thumbnail, before it spends a re-detection) both decide with it; whoever needs
    to know whether the board stood still at a frame reads the gate's GateResult.still."""
    return share <= limit


class StabilityConfig(BaseModel):
    model_config = ConfigDict(extra="forbid")

    stable_ms: float = Field(700.0, ge=0, le=60000,
                             description="how long the board must stay clear and unchanged before a snapshot "
                                         "is taken")
    compare_px: int = Field(96, ge=16, le=512,
                            description="side of the downsampled board image that frames are compared on")
    pixel_delta: int = Field(SCENE_CHANGE, ge=1, le=255,
                             description="change in any colour channel that counts a pixel as changed")
    moving_frac: float = Field(0.004, gt=0, lt=1, description="fraction of changed pixels that means something moves")
    changed_frac: float = Field(0.0015, gt=0, lt=1,
                                description="fraction of changed pixels since the last snapshot "
                                            "that makes a new snapshot worth taking")
    min_quality: float = Field(0.35, ge=0, le=1,
                               description="localization quality below which the board counts as occluded")
    relative_quality: float = Field(
        0.6, gt=0.0, le=1.0,
        description="a board whose grid never fits better than this board's best fit so far allows: "
                    "it counts as occluded below this share of its best quality when that is under "
                    "min_quality (thin printed lines at low resolution never reach min_quality, "
                    "however clear the board)")
    noise_factor: float = Field(5.0, ge=0, le=50,
                                description="a pixel counts as changed only beyond this many times the median "
                                            "frame-to-frame difference of the board (the camera's noise)")
    floor_quality: float = Field(0.15, gt=0.0, le=1.0,
                                 description="below this the board counts as occluded whatever its best "
                                             "quality: too few grid lines are seen to trust the fix at all")


@dataclass(frozen=True)
class GateResult:
    state: str            # "clear" | "moving" | "occluded"
    snapshot: bool        # take a snapshot of this frame now
    clear_ms: float       # how long the board has been clear and still
    moved_frac: float     # fraction of pixels that changed since the previous frame
    still: bool = False   # the frame stands still against the previous one (stands_still), occluded or not


class StabilityGate:
    def __init__(self, cfg: StabilityConfig | None = None) -> None:
        self.cfg = cfg or StabilityConfig()
        self._prev: np.ndarray | None = None
        self._last_snap: np.ndarray | None = None
        self._clear_since: float | None = None
        self._pending_trigger = False
        self._best_quality = 0.0   # the best grid fit of the current pose (`look`'s homography)
        self._pose: np.ndarray | None = None
        self._before_snap: np.ndarray | None = None   # the last snapshot before the newest (for retry)
        self._noise = 0.0   # median frame-to-frame difference of the board while still (grey levels)
        self._used: np.ndarray | None = None   # the board at the last snapshot the recorder used
        self._retake = False   # a retry asked for: the next still board is a snapshot, changed or not

    def used(self) -> None:
        """The snapshot just taken was used (it reached the decoder): the board as it stood then is
        what `changed_squares` compares with."""
        self._used = self._last_snap

    def changed_squares(self, n: int = 15, share: float = 0.25) -> np.ndarray | None:
        """(n, n) bool, in the grid image's orientation: the squares where at least `share` of the
        pixels changed between the last frame and the last snapshot used; None before one was used.
        What lies over the board now and was not there then: a hand or an arm that came to rest,
        never a table the reader reads unsure everywhere."""
        if self._used is None or self._prev is None:
            return None
        moved = (self._diff(self._prev, self._used) > self._delta()).astype(np.float32)
        return cv2.resize(moved, (n, n), interpolation=cv2.INTER_AREA) >= share

    def retry(self) -> None:
        """The snapshot just taken was not used: take another once the board has stood still for
        `stable_ms` again, even unchanged (also from the snapshot before it: a clock press at a board
        the turn left as it was, a pass or an exchange, read unclear)."""
        self._last_snap, self._clear_since = self._before_snap, None
        self._retake = True

    def trigger(self) -> None:
        """Snapshot at the next clear frame, however briefly it has been still."""
        self._pending_trigger = True

    def _small(self, board_img: np.ndarray) -> np.ndarray:
        n = self.cfg.compare_px
        small = cv2.resize(board_img, (n, n), interpolation=cv2.INTER_AREA)
        return cv2.GaussianBlur(small, (3, 3), 0)

    def _diff(self, a: np.ndarray, b: np.ndarray) -> np.ndarray:
        # Colour, not grey: a hand can be as bright as a beige board but never the same hue.
        diff = cv2.absdiff(a, b)
        return diff.max(axis=2) if diff.ndim == 3 else diff

    def _changed(self, a: np.ndarray, b: np.ndarray, diff: np.ndarray | None = None) -> float:
        if diff is None:
            return moved_share(a, b, self._delta())
        return float(np.mean(diff > self._delta()))

    def _delta(self) -> float:
        # noise raises the threshold up to twice pixel_delta: a lamp switched on changes every pixel
        # (its median too), and that is movement, not noise
        return min(max(self.cfg.pixel_delta, self.cfg.noise_factor * self._noise), 2 * self.cfg.pixel_delta)

    def look(self, t: float, image: np.ndarray, homography: np.ndarray | None, square_px: int,
             quality: float = 1.0) -> GateResult:
        """A camera frame through the board's homography (None: no board): the small warp of the
        board the gate compares (``vision.rectify.warp_board``), then ``update``."""
        if homography is None:
            return self.update(t, None, 0.0)
        if self._pose is None or not np.array_equal(self._pose, homography):
            # Another grid fix: the board was turned or moved. How well a grid fits depends on the
            # pose (glare, tiles across the lines at that angle), so the best fit so far is this
            # pose's (issue 44: a dark board's best fit, 0.52 before a turntable turn, called the
            # turned board, fitting 0.30, covered to the end of the game).
            self._pose, self._best_quality = np.array(homography, copy=True), 0.0
        from .rectify import warp_board
        return self.update(t, warp_board(image, homography, square_px, out_px=2 * self.cfg.compare_px), quality)

    def update(self, t: float, board_img: np.ndarray | None, quality: float = 1.0) -> GateResult:
        """t in seconds; board_img is the rectified board (None when no board was found)."""
        cfg = self.cfg
        self._best_quality = max(self._best_quality, quality if board_img is not None else 0.0)
        floor = max(cfg.floor_quality, min(cfg.min_quality, cfg.relative_quality * self._best_quality))
        if board_img is None:
            self._prev, self._clear_since = None, None
            return GateResult("occluded", False, 0.0, 1.0)
        if quality < floor:
            # the grid does not fit, but whether the frame stands still still tells a hand (moving)
            # from a board the locator has lost (still: api.station.lostwatch's "blind")
            small = self._small(board_img)
            moved = 1.0 if self._prev is None or self._prev.shape != small.shape else self._changed(small, self._prev)
            self._prev, self._clear_since = small, None
            return GateResult("occluded", False, 0.0, moved, stands_still(moved, cfg.moving_frac))
        small = self._small(board_img)
        if self._prev is None:
            moved = 1.0
        else:
            diff = self._diff(small, self._prev)
            # the median difference is the camera's noise: a hand or a play covers less than half the board
            level = float(np.median(diff))
            self._noise = 0.8 * self._noise + 0.2 * level if self._noise else level
            moved = self._changed(small, self._prev, diff)
        self._prev = small
        if not stands_still(moved, cfg.moving_frac):
            self._clear_since = None
            return GateResult("moving", False, 0.0, moved)
        if self._clear_since is None:
            self._clear_since = t
        clear_ms = (t - self._clear_since) * 1000.0
        due = False
        if self._pending_trigger:
            due = True
        elif clear_ms >= cfg.stable_ms:
            due = self._retake or self._last_snap is None or \
                self._changed(small, self._last_snap) > cfg.changed_frac
        if due:
            self._before_snap = self._last_snap
            self._last_snap, self._pending_trigger, self._retake = small, False, False
        return GateResult("clear", due, clear_ms, moved, True)


class RepeatedPhoto:
    """One photo per move (a folder), each taken at a press: a camera never takes the same photo twice
    (sensor noise), so a frame equal to the last one is a copied file, not a press (it must not become
    a pass that flips the turn order)."""

    def __init__(self) -> None:
        self._last: np.ndarray | None = None

    def repeated(self, image: np.ndarray) -> bool:
        last, self._last = self._last, image
        return last is not None and last.shape == image.shape and np.array_equal(last, image)
