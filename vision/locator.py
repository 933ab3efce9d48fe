"""Where the board is in each frame: one interface, ``BoardLocator.update(image) -> Located``.

Three implementations: ``FixedBoard`` (corners given once: a calibrated, fixed camera),
``PrewarpedBoard`` (frames that already show the board edge to edge: ScrabScrap's warps) and
``TrackedBoard`` (``vision.track``'s tracker with ``GridGuard``'s keep-or-accept policy). Each
gives the homography from the frame to the canonical grid image of ``square_px`` pixels per
square (``vision.rectify``), which the gate and the reader warp through.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol

import numpy as np

from .rectify import homography_from_corners

__all__ = ["BoardLocator", "FixedBoard", "Located", "PrewarpedBoard", "TrackedBoard"]


@dataclass(frozen=True)
class Located:
    """One frame's board: ``state`` ("tracked", "redetected", "occluded", "lost", ...), the
    homography to the canonical grid image (None: no board), how well the grid fits (0..1) and
    whether a board was seen in the frame at all (False: the last look for one found none, as when
    the camera was knocked off the board; the homography is then the last good one, kept)."""

    state: str
    homography: np.ndarray | None
    quality: float
    square_px: int
    in_view: bool = True

    def __post_init__(self) -> None:
        if self.homography is not None and np.shape(self.homography) != (3, 3):
            raise ValueError(f"a homography is 3x3, not {np.shape(self.homography)}")


class BoardLocator(Protocol):
    square_px: int

    def update(self, image: np.ndarray) -> Located: ...


class FixedBoard:
    """A camera that does not move and corners given once (a calibration, or a pre-warped frame)."""

    def __init__(self, corners: np.ndarray, square_px: int) -> None:
        self.square_px = int(square_px)
        self.homography = homography_from_corners(np.asarray(corners, np.float32), square_px)

    def update(self, image: np.ndarray) -> Located:
        return Located("tracked", self.homography, 1.0, self.square_px)


class PrewarpedBoard:
    """Frames that already show the board from above, edge to edge (ScrabScrap's warps): the
    corners come from the first frame, then stay (a FixedBoard)."""

    def __init__(self, square_px: int) -> None:
        self.square_px = int(square_px)
        self._fixed: FixedBoard | None = None

    def update(self, image: np.ndarray) -> Located:
        if self._fixed is None:
            from .locate import prewarped_corners
            self._fixed = FixedBoard(prewarped_corners(image), self.square_px)
        return self._fixed.update(image)


class TrackedBoard:
    """``vision.track``'s GridGuard over a BoardTracker: the keep-or-accept policy and its thresholds
    are the tracker's (TrackConfig); this only turns fixes into homographies, once per fix."""

    def __init__(self, tracker, square_px: int) -> None:
        from .track import GridGuard
        self.guard = GridGuard(tracker)
        self.square_px = int(square_px)
        self._cached: tuple[object, np.ndarray] | None = None

    def _homography(self, fix) -> np.ndarray:
        if self._cached is None or self._cached[0] is not fix:
            self._cached = (fix, homography_from_corners(fix.corners, self.square_px))
        return self._cached[1]

    def update(self, image: np.ndarray) -> Located:
        kept = self.guard.update(image)
        if kept.fix is None:
            return Located(kept.status, None, 0.0, self.square_px, False)
        return Located(kept.status, self._homography(kept.fix), kept.quality, self.square_px,
                       not self.guard.tracker.unseen)
