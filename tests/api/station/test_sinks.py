"""api/station/sinks.py: the preview shows the frame with the grid and the committed letters when
the board is found, the frame as it is when not (framing a camera needs it), and is watched only
while someone views it; the evidence kept with a commit is the frame as JPEG."""
from __future__ import annotations

from types import SimpleNamespace

import cv2
import numpy as np

from tilecam.api.station.sinks import JpegEvidence, PreviewSink

SQUARE_PX = 20


class Hub:
    """An api.bus.PreviewHub as the sink sees it: what it was given, and how many watch."""

    def __init__(self, viewers: int) -> None:
        self.viewers, self.published = viewers, []

    def publish(self, image) -> None:
        self.published.append(image)


def frame() -> np.ndarray:
    return np.full((400, 400, 3), 90, np.uint8)


def test_without_a_board_the_preview_is_the_frame_as_it_is():
    hub = Hub(viewers=0)
    sink = PreviewSink(hub)
    image = frame()
    sink.show(image, SimpleNamespace(homography=None, square_px=SQUARE_PX), None, 0)
    assert not sink.watched and hub.published == [image]


def test_with_a_board_the_preview_draws_the_grid_and_letters_on_a_copy():
    hub = Hub(viewers=2)
    sink = PreviewSink(hub)
    image = frame()
    located = SimpleNamespace(homography=np.eye(3), square_px=SQUARE_PX)  # the image is the board, 20 px a square
    rows = ["." * 15] * 7 + [".......Q......."] + ["." * 15] * 7
    sink.show(image, located, rows, 0)
    shown = hub.published[0]
    assert sink.watched and shown is not image and (image == 90).all()  # the caller's frame untouched
    assert (shown[0, 100:140] != 90).any()                         # a grid line along the top
    assert (shown[143:157, 143:157] != 90).any()                   # inside H8: the Q
    assert (shown[43:57, 43:57] == 90).all()                       # inside C3: nothing


def test_the_evidence_is_the_frame_as_jpeg_at_its_quality():
    image = np.random.default_rng(0).integers(0, 255, (120, 160, 3), np.uint8)
    high, low = JpegEvidence(95)(image), JpegEvidence(20)(image)
    assert high[:2] == b"\xff\xd8" and len(low) < len(high)
    assert cv2.imdecode(np.frombuffer(high, np.uint8), cv2.IMREAD_COLOR).shape == image.shape
