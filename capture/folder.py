"""A folder of images played as a camera: the fake that tests and offline runs use.

A single image file plays as a folder of one. Images are read through capture.still, so a
file whose header promises more than its pixel cap is skipped before it is decoded.
"""
from __future__ import annotations

import logging
import re
from pathlib import Path

from .frame import Frame
from .source import BaseSource, CaptureConfig, CaptureError, SourceEnded, StatusCallback
from .still import ImageError, read_image

log = logging.getLogger(__name__)


def natural_key(path: Path) -> tuple:
    """Sort key that orders numbers by value: image-2 before image-10, board-00 < board-00a < board-01.

    The stem splits into alternating text and number runs, so equal positions always hold
    the same type; the full name breaks ties such as image-2 vs image-02.
    """
    parts = re.split(r"(\d+)", path.stem.lower())
    return tuple(int(p) if i % 2 else p for i, p in enumerate(parts)), path.suffix.lower(), path.name


def is_image_name(path: Path, extensions: tuple[str, ...]) -> bool:
    return path.name.lower().endswith(tuple(e.lower() for e in extensions)) and not path.name.startswith(".")


def list_images(folder: Path, extensions: tuple[str, ...]) -> list[Path]:
    files = [p for p in folder.iterdir() if p.is_file() and is_image_name(p, extensions)]
    return sorted(files, key=natural_key)


class FolderSource(BaseSource):
    """Images of a folder in natural order (or one image file); frame i is stamped t = i / fps.

    Unreadable files (not an image, truncated, over the pixel cap) are skipped with a
    warning naming why and counted in `skipped`; the index and timestamp still advance past
    them so that timing matches the file numbering.
    """

    live = False

    def __init__(self, folder: str | Path, cfg: CaptureConfig | None = None,
                 on_status: StatusCallback | None = None) -> None:
        super().__init__(str(folder), on_status)
        self.folder = Path(folder)
        self.cfg = cfg or CaptureConfig()
        self.files: list[Path] = []
        self.skipped = 0
        self.single = False
        self._next = 0

    @property
    def total_frames(self) -> int | None:
        return len(self.files)

    def _open(self) -> None:
        self.single = self.folder.is_file() and is_image_name(self.folder, self.cfg.folder_extensions)
        if self.single:
            self.files = [self.folder]
        elif self.folder.is_dir():
            self.files = list_images(self.folder, self.cfg.folder_extensions)
        else:
            raise CaptureError(f"not a folder or an image file: {self.folder}")
        self.skipped = 0
        self._next = 0
        if not self.files:
            log.warning("%s: no images ending in %s", self.folder, ", ".join(self.cfg.folder_extensions))

    def _read(self) -> Frame:
        while self._next < len(self.files):
            i = self._next
            self._next += 1
            path = self.files[i]
            try:
                image = read_image(path)
            except ImageError as exc:
                if self.single:
                    raise    # nothing else to play: the caller must hear why, not see an empty source
                self.skipped += 1
                log.warning("%s: skipped %s (%d skipped)", self.name, exc, self.skipped)
                continue
            return Frame(image, i / self.cfg.fps, i, self.name, str(path))
        raise SourceEnded(f"{len(self.files)} images read, {self.skipped} skipped")
