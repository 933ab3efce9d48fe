"""A folder of images played as a camera: the fake that tests and offline runs use."""
from __future__ import annotations

import logging
import re
from pathlib import Path

import cv2

from .frame import Frame
from .source import BaseSource, CaptureConfig, CaptureError, SourceEnded, StatusCallback

log = logging.getLogger(__name__)


def natural_key(path: Path) -> tuple:
    """Sort key that orders numbers by value: image-2 before image-10, board-00 < board-00a < board-01.

    The stem splits into alternating text and number runs, so equal positions always hold
    the same type; the full name breaks ties such as image-2 vs image-02.
    """
    parts = re.split(r"(\d+)", path.stem.lower())
    return tuple(int(p) if i % 2 else p for i, p in enumerate(parts)), path.suffix.lower(), path.name


def list_images(folder: Path, extensions: tuple[str, ...]) -> list[Path]:
    ends = tuple(e.lower() for e in extensions)
    files = [p for p in folder.iterdir() if p.is_file() and p.name.lower().endswith(ends)
             and not p.name.startswith(".")]
    return sorted(files, key=natural_key)


class FolderSource(BaseSource):
    """Images of a folder in natural order; frame i is stamped t = i / fps.

    Unreadable files are skipped with a warning and counted in `skipped`; the index and
    timestamp still advance past them so that timing matches the file numbering.
    """

    live = False

    def __init__(self, folder: str | Path, cfg: CaptureConfig | None = None,
                 on_status: StatusCallback | None = None) -> None:
        super().__init__(str(folder), on_status)
        self.folder = Path(folder)
        self.cfg = cfg or CaptureConfig()
        self.files: list[Path] = []
        self.skipped = 0
        self._next = 0

    @property
    def total_frames(self) -> int | None:
        return len(self.files)

    def _open(self) -> None:
        if not self.folder.is_dir():
            raise CaptureError(f"not a folder: {self.folder}")
        self.files = list_images(self.folder, self.cfg.folder_extensions)
        self.skipped = 0
        self._next = 0
        if not self.files:
            log.warning("%s: no images ending in %s", self.folder, ", ".join(self.cfg.folder_extensions))

    def _read(self) -> Frame:
        while self._next < len(self.files):
            i = self._next
            self._next += 1
            path = self.files[i]
            # IMREAD_COLOR turns grey, 16-bit and alpha images into 8-bit BGR.
            image = cv2.imread(str(path), cv2.IMREAD_COLOR)
            if image is None:
                self.skipped += 1
                log.warning("%s: skipped unreadable image %s (%d skipped)", self.name, path.name, self.skipped)
                continue
            return Frame(image, i / self.cfg.fps, i, self.name, str(path))
        raise SourceEnded(f"{len(self.files)} images read, {self.skipped} skipped")
