"""What the station does with a frame's pixels beside reading it, plugged into the recorder and its
link: the preview (the grid and the committed letters drawn over the live frame) and the evidence
(each commit's frame, encoded as JPEG). The recorder only hands them the frame."""
from __future__ import annotations

from tilecam.vision import draw_grid, encode_jpeg

__all__ = ["JpegEvidence", "PreviewSink"]


class PreviewSink:
    """The live preview (an api.bus.PreviewHub): the frame with the grid and the committed letters
    when the board is found, as it is when not (framing and focusing the camera needs that)."""

    def __init__(self, hub) -> None:
        self.hub = hub

    @property
    def watched(self) -> bool:
        return bool(self.hub.viewers)

    def show(self, image, located, rows, turns: int) -> None:
        if located.homography is None:
            self.hub.publish(image)
        else:
            self.hub.publish(draw_grid(image, located.homography, located.square_px, rows, turns))


class JpegEvidence:
    """The evidence frame kept with each commit: the frame as JPEG at ``quality``."""

    def __init__(self, quality: int = 85) -> None:
        self.quality = quality

    def __call__(self, image) -> bytes:
        return encode_jpeg(image, self.quality)
