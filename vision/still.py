"""One still image read as the commands read it (`tilecam read`, `enroll`, the tile-language guess):
the grid's corners (given, fitted to a pre-warped image, or located), the homography to the board
and the warp, then the reader. The recorder's frames go through the locator and the gate instead
(vision.locator, vision.stability); both end in vision.rectify.warp_board.

    corners = still_corners(settings, image, corners=given, prewarped=flag)   # raises VisionError
    still = warp_still(image, corners, square_px)
    result = read_still(reader, still)
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from tilecam.vision.assemble import locate_board
from tilecam.vision.rectify import homography_from_corners, warp_board

__all__ = ["Still", "read_still", "still_corners", "warp_still"]


@dataclass(frozen=True)
class Still:
    """A still image and its board: the grid's corners in the image, the homography that maps
    them to a board of ``square_px`` squares, and that board (the warp)."""

    image: np.ndarray
    corners: np.ndarray
    homography: np.ndarray
    warped: np.ndarray
    square_px: int


def still_corners(settings, image: np.ndarray, *, corners=None, prewarped: bool = False) -> np.ndarray:
    """The grid's outer corners TL, TR, BR, BL: as given, fitted to an image that already shows the
    board edge to edge, or found by vision.locate with ``settings.locate`` (BoardNotFound)."""
    if corners is not None:
        return corners
    if prewarped:
        from tilecam.vision.locate.prewarped import prewarped_corners
        return prewarped_corners(image)
    return locate_board(settings, image).corners


def warp_still(image: np.ndarray, corners, square_px: int) -> Still:
    """The board of `image` inside `corners`, warped to ``square_px`` squares."""
    corners = np.asarray(corners, np.float32)
    homography = homography_from_corners(corners, square_px)
    return Still(image, corners, homography, warp_board(image, homography, square_px), int(square_px))


def read_still(reader, still: Still):
    """Every square of the still's board (a vision.classify.BoardRead); a fused reader cuts its
    letters from the image itself."""
    return reader.read(still.warped, source=(still.image, still.homography))
