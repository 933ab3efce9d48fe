"""capture/frame.py: a frame is an HxWx3 uint8 BGR image, refused when made otherwise."""
from __future__ import annotations

import numpy as np
import pytest

from tilecam.capture.frame import Frame


def test_a_frame_knows_its_size():
    frame = Frame(np.zeros((48, 64, 3), np.uint8), t=1.5, index=2, source="cam")
    assert (frame.width_px, frame.height_px) == (64, 48) and frame.path is None


@pytest.mark.parametrize("image", [np.zeros((48, 64), np.uint8), np.zeros((48, 64, 4), np.uint8),
                                   np.zeros((48, 64, 3), np.float32)], ids=["grey", "bgra", "float"])
def test_an_image_that_is_not_bgr_bytes_is_refused_when_made(image):
    with pytest.raises(ValueError, match="HxWx3 uint8"):
        Frame(image, t=0.0, index=0)
