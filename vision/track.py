"""Board tracking for a fixed camera: reuse the last fix, check it cheaply, re-detect on change.

The per-frame check samples the frame at a few hundred points through the last homography
(cv2.remap on tiny maps, so its cost does not grow with the frame size):

* a 24x24 grey thumbnail of the board, compared with the last good one (after removing the
  mean and scaling to a common brightness, so a change of light or exposure is not a change of
  scene);
* the grid-line contrast at the predicted line positions, compared with its last good value.

Both close to their references -> 'tracked'. Otherwise find_board runs (in video once the
scene has stopped changing from frame to frame, and not again on a still scene where it
failed): a fix where the old one was, with the lines visible -> 'tracked'; a fix elsewhere of
similar quality -> 'redetected'; the board where it was but its lines hidden, a much weaker
fix elsewhere, or no fix at all -> 'occluded' (the last fix is kept in the result); no board
ever found -> 'lost'.

``GridGuard`` adds the policy for a game under way: a weak re-detection does not replace the
last good grid (the camera is fixed; a grid one square off would turn every tile into a new one).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

import cv2
import numpy as np
from pydantic import BaseModel, ConfigDict, Field

from tilecam.vision.errors import BoardNotFound
from tilecam.vision.locate import BoardFix, LocateConfig, find_board, grid_quality
from tilecam.vision.rectify import GRID
from tilecam.vision.stability import SCENE_CHANGE, moved_share, stands_still

Status = Literal["tracked", "redetected", "occluded", "lost"]

THUMB = 24          # thumbnail side, samples
THUMB_SUB = 2       # sub-samples per thumbnail pixel and axis, averaged (less aliasing on letters)
LINE_OFFSET = 0.2   # the "beside the line" samples, squares away from it
SCENE_SIDE = 48     # width of the whole frame's thumbnail (_scene)


class TrackConfig(BaseModel):
    """Thresholds of the per-frame board check (``vision.track``)."""

    model_config = ConfigDict(extra="forbid")

    changed_level: float = Field(float(SCENE_CHANGE), gt=0, le=255,
                                 description="grey-level change that counts a thumbnail pixel as changed")
    max_changed_frac: float = Field(0.15, gt=0, lt=1,
                                    description="largest fraction of changed thumbnail pixels still 'tracked'")
    min_line_ratio: float = Field(0.6, gt=0, lt=1,
                                  description="smallest grid-line contrast, relative to the last good frame, "
                                              "still 'tracked'")
    min_redetect_ratio: float = Field(0.85, gt=0, le=1,
                                      description="a re-detected fix needs this fraction of the last good fix's "
                                                  "quality, else the board counts as occluded")
    moved_frac: float = Field(0.01, gt=0, lt=1,
                              description="corner shift, fraction of the grid side, above which the board has moved")
    same_scene_frac: float = Field(0.02, gt=0, lt=1,
                                   description="largest fraction of changed thumbnail pixels between two frames "
                                               "that still counts as the same scene (noise, not a hand leaving)")
    retry_frames: int = Field(8, ge=1, le=1000,
                              description="a still scene where a detection failed is tried again after "
                                          "this many frames at the latest")
    wait_until_still: bool = Field(True, description="video: re-detect only once the scene stops changing from "
                                                     "one frame to the next (not while an arm moves over the "
                                                     "board); off for a series of photos, each its own scene")
    min_redetect_quality: float = Field(
        0.6, gt=0, le=1, description="during a game, a re-detected grid of lower quality than this is not "
                                     "trusted: the last good grid is kept (GridGuard)")
    moved_fit: float = Field(
        0.6, gt=0, le=1, description="during a game, a re-detected grid is taken whatever its quality when the "
                                     "last good grid fits the frame below this share of its own quality and the "
                                     "new one fits it better (the board was turned: the old grid no longer lies "
                                     "on it; a covered board fits neither)")
    keep_margin: float = Field(
        0.05, ge=0, lt=1, description="during a game, the last good grid is kept unless a re-detected grid fits "
                                      "the frame better by more than this much quality (GridGuard)")


@dataclass(frozen=True)
class TrackResult:
    status: Status
    fix: BoardFix | None


def _scene(image: np.ndarray) -> np.ndarray:
    """A grey thumbnail of the whole frame at a common brightness (as _probe's): what a failed
    detection saw, to tell whether the scene changed since."""
    grey = cv2.cvtColor(image, cv2.COLOR_BGR2GRAY) if image.ndim == 3 else image
    small = cv2.resize(grey, (SCENE_SIDE, SCENE_SIDE * grey.shape[0] // max(grey.shape[1], 1) or 1),
                       interpolation=cv2.INTER_AREA).astype(np.float32)
    mean = float(small.mean())
    return (small - mean) * (128.0 / max(mean, 1.0))


def _maps(fix: BoardFix, square_px: int) -> tuple[np.ndarray, np.ndarray, int]:
    """remap maps (1 x N, float32) for the thumbnail points and the line probes of a fix."""
    inv = np.linalg.inv(fix.homography)
    n = THUMB * THUMB_SUB
    t = (np.arange(n) + 0.5) / n * (GRID + 1.0) - 0.5  # the grid plus half a square of rim
    tx, ty = np.meshgrid(t, t)
    pts = [np.stack([tx.ravel(), ty.ravel()], 1)]
    mid = np.arange(GRID) + 0.5
    k = np.arange(GRID + 1, dtype=np.float64)
    for d in (0.0, -LINE_OFFSET, LINE_OFFSET):
        kk, mm = np.meshgrid(k + d, mid)
        pts.append(np.stack([mm.ravel(), kk.ravel()], 1))   # horizontal lines: y = k
        pts.append(np.stack([kk.ravel(), mm.ravel()], 1))   # vertical lines: x = k
    canon = np.concatenate(pts) * square_px
    img = cv2.perspectiveTransform(canon.reshape(-1, 1, 2), inv).reshape(1, -1, 2).astype(np.float32)
    return img[..., 0].copy(), img[..., 1].copy(), n * n


class BoardTracker:
    """Per-frame board fix for a fixed camera; call ``update(image)`` for every frame."""

    def __init__(self, cfg: LocateConfig, track: TrackConfig | None = None) -> None:
        self.cfg = cfg
        self.track = track or TrackConfig()
        self._fix: BoardFix | None = None
        self._maps: tuple[np.ndarray, np.ndarray, int] | None = None
        self._thumb: np.ndarray | None = None
        self._lines: float = 0.0
        self._last_good: np.ndarray | None = None  # a reference, not a copy: the caller's frame
        self._prev: np.ndarray | None = None       # the last frame's thumbnail
        self._tried: np.ndarray | None = None      # the frame (_scene) a re-detection last failed on
        self._skipped = 0                          # frames since then without a detection
        self.unseen = False    # the last detection found no board at all (not one it did not trust)

    @property
    def fix(self) -> BoardFix | None:
        return self._fix

    def _probe(self, image: np.ndarray) -> tuple[np.ndarray, float]:
        """(mean-free grey thumbnail, mean grid-line contrast) of a frame under the current fix."""
        mx, my, nt = self._maps
        v = cv2.remap(image, mx, my, cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE).astype(np.float32)
        grey = v.reshape(-1, 3) @ np.array([0.114, 0.587, 0.299], np.float32) if v.ndim == 3 else v.ravel()
        thumb = grey[:nt].reshape(THUMB, THUMB_SUB, THUMB, THUMB_SUB).mean(axis=(1, 3))
        on, lo, hi = np.split(grey[nt:], 3)
        # a line is darker (or lighter) than both of its sides, whatever the board's design
        lines = float(np.mean(np.abs(2 * on - lo - hi)))
        # In grey levels at a mean of 128: the light changing between turns (a cloud, a lamp, the
        # camera's exposure) scales the whole board and is not a change of scene.
        mean = float(thumb.mean())
        gain = 128.0 / max(mean, 1.0)
        return (thumb - mean) * gain, lines * gain

    def _adopt(self, fix: BoardFix, image: np.ndarray) -> None:
        self._fix = fix
        self._maps = _maps(fix, self.cfg.square_px)
        self._thumb, self._lines = self._probe(image)
        self._last_good = image
        self._prev, self._tried = self._thumb, None
        self.unseen = False

    def _follow(self, image: np.ndarray, probe: tuple[np.ndarray, float]) -> None:
        """Accept slow scene changes (new tiles, light) into the references (`probe`: the frame's
        _probe, already taken)."""
        self._thumb, self._lines = probe
        self._last_good = image
        self._tried = None
        self.unseen = False

    def _changed(self, thumb: np.ndarray, ref: np.ndarray | None) -> float:
        if ref is None:
            return 1.0
        return moved_share(thumb, ref, self.track.changed_level)

    def _compare(self, probe: tuple[np.ndarray, float]) -> tuple[float, float]:
        thumb, lines = probe
        return self._changed(thumb, self._thumb), lines / max(self._lines, 1e-6)

    def update(self, image: np.ndarray) -> TrackResult:
        if self._fix is None:
            try:
                self._adopt(find_board(image, self.cfg), image)
            except BoardNotFound:
                return TrackResult("lost", None)
            return TrackResult("redetected", self._fix)

        probe = self._probe(image)   # one remap per frame serves the check and the references
        thumb = probe[0]
        changed, line_ratio = self._compare(probe)
        lines_ok = line_ratio >= self.track.min_line_ratio
        prev, self._prev = self._prev, thumb
        if stands_still(changed, self.track.max_changed_frac) and lines_ok:
            self._follow(image, probe)
            return TrackResult("tracked", self._fix)
        moving = self.track.wait_until_still and not stands_still(self._changed(thumb, prev),
                                                                  self.track.max_changed_frac)
        # A full detection costs tens of milliseconds. While something moves over the board (an
        # arm, the bag, the board being turned) nothing can be snapshotted anyway, and a scene
        # that stands still where a detection already failed would fail again: wait for it to
        # settle, or to change.
        # The whole frame, not the board under the last grid: once the board was turned off that
        # grid, a hand over the board beside it (the detection failing) left the grid's thumbnail
        # unchanged, and the turned board, in plain view, waited retry_frames for a detection
        # (issue 44: 8 frames, the last play's whole still time). same_scene_frac is a share of the
        # board, so of the frame it is the board's share of it.
        scene = None if moving else _scene(image)
        board_share = min(1.0, abs(cv2.contourArea(self._fix.corners)) / float(image.shape[0] * image.shape[1]))
        same = (scene is not None and self._tried is not None and self._skipped < self.track.retry_frames
                and stands_still(self._changed(scene, self._tried), self.track.same_scene_frac * board_share))
        if moving or same:
            self._skipped += 1
            return TrackResult("occluded", self._fix)
        self._skipped = 0
        try:
            fix = find_board(image, self.cfg)
        except BoardNotFound:
            self._tried, self.unseen = scene, True
            return TrackResult("occluded", self._fix)
        self.unseen = False
        side = float(np.sqrt(abs(cv2.contourArea(self._fix.corners))))
        shift = float(np.linalg.norm(fix.corners - self._fix.corners, axis=1).max())
        if shift <= self.track.moved_frac * side:
            # The board is where it was. A fix that agrees with the old one confirms it, however weak
            # (tiles and the rest of a hand lower its quality); lines visible: the scene changed
            # (many tiles, light), not the board.
            if lines_ok:
                self._follow(image, probe)
                return TrackResult("tracked", self._fix)
            self._tried = scene
            return TrackResult("occluded", self._fix)
        # Quality falls as tiles cover lines, so compare with the old fix on the last good frame.
        ref_quality = grid_quality(self._last_good, self._fix.corners, self.cfg)
        if fix.quality < self.track.min_redetect_ratio * ref_quality and \
                not turned(grid_quality(image, self._fix.corners, self.cfg), ref_quality, fix.quality, self.track):
            # part of the grid hidden: a fit on the visible part can slip by whole squares
            self._tried = scene
            return TrackResult("occluded", self._fix)
        self._adopt(fix, image)
        return TrackResult("redetected", self._fix)


def turned(old_now: float, old_before: float, new: float, cfg: TrackConfig) -> bool:
    """The board was turned (or moved) under the grid: the last good grid fits this frame
    (`old_now`) below `moved_fit` of how it fitted when it was good (`old_before`), and the new grid
    fits it better by `keep_margin`. A turntable turned by an angle that does not put the grid where
    it was leaves the old grid half off the board; a covered board fits neither. The new pose's own
    fit is no evidence against it: glare or tiles across the lines at the new angle lower it (issue
    44: a dark board turned 150-210 degrees fitted 0.28-0.38 against 0.52 before, and was called
    covered to the end of the game)."""
    return old_now < cfg.moved_fit * old_before and new > old_now + cfg.keep_margin


@dataclass(frozen=True)
class KeptFix:
    status: Status
    fix: BoardFix | None
    quality: float        # how well `fix` fits this frame; 0 when the board is hidden or lost


class GridGuard:
    """BoardTracker for a game under way: when to keep the last good grid, when to accept a new fix.

    The wrong fixes localization makes (a grid one square off, mostly with arms over the board)
    all have low quality, and the camera is fixed: a re-detection below
    ``TrackConfig.min_redetect_quality``, or one that fits the frame no better (by
    ``keep_margin``) than the last good grid, is rejected and the last good grid kept."""

    def __init__(self, tracker: BoardTracker) -> None:
        self.tracker = tracker
        self._good: BoardFix | None = None
        self._rejected: BoardFix | None = None

    def update(self, image: np.ndarray) -> KeptFix:
        cfg = self.tracker.track
        result = self.tracker.update(image)
        if result.fix is None or result.status == "lost":
            return KeptFix(result.status, None, 0.0)
        if result.fix is self._rejected:  # the tracker follows a fix we did not trust
            return KeptFix(result.status, self._good, 0.0 if result.status == "occluded" else self._good.quality)
        if result.status == "redetected" and self._good is not None:
            # a re-detection after arms left the board can land a square off: the old grid stays
            # while it fits this frame as well as the new one
            old_q = grid_quality(image, self._good.corners, self.tracker.cfg)
            # ...unless the old grid has lost its fit: the board was turned on its turntable by an
            # angle that does not put the grid where it was (issue 27: 150-210 degrees between turns
            # kept a grid half off the board, and every play read as garbage)
            moved = turned(old_q, self._good.quality, grid_quality(image, result.fix.corners, self.tracker.cfg), cfg)
            if (result.fix.quality < cfg.min_redetect_quality and not moved) or \
                    old_q >= result.fix.quality - cfg.keep_margin:
                self._rejected = result.fix
                status = "tracked" if old_q >= cfg.min_redetect_quality else "occluded"
                return KeptFix(status, self._good, old_q)
        if result.status in ("tracked", "redetected"):
            self._good = result.fix
        return KeptFix(result.status, result.fix, 0.0 if result.status == "occluded" else float(result.fix.quality))
