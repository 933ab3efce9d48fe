"""One picture from a frame source, with the time it was taken and its place in the sequence."""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True, eq=False)
class Frame:
    image: np.ndarray        # (H, W, 3) uint8, BGR as OpenCV uses it
    t: float                 # seconds: monotonic since a live source opened, or the file's own timestamp
    index: int               # 0, 1, 2, ... in the order the source delivered frames
    source: str = ""         # the source's name (camera, redacted URL, file or folder)
    path: str | None = None  # the image file the frame came from, for folder sources

    def __post_init__(self) -> None:
        if self.image.ndim != 3 or self.image.shape[2] != 3 or self.image.dtype != np.uint8:
            raise ValueError(f"Frame.image must be HxWx3 uint8 BGR, got {self.image.shape} {self.image.dtype}")

    @property
    def width_px(self) -> int:
        return self.image.shape[1]

    @property
    def height_px(self) -> int:
        return self.image.shape[0]
