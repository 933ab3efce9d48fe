"""A table's tile set on disk: exemplars in the network's embedding space, as .npz
(written by enrollment, read by the reader)."""
from __future__ import annotations

import json
import zipfile
from pathlib import Path
from typing import Mapping

import numpy as np

from tilecam.vision.errors import VisionError

__all__ = ["EnrollError", "load_tileset", "save_tileset"]


class EnrollError(VisionError, ValueError):
    """Enrollment cannot proceed (no frames, mismatched truth, no tiles in the tile check)."""


def save_tileset(path: str | Path, tileset: Mapping) -> Path:
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "wb") as fh:  # a file handle keeps numpy from appending .npz to the name
        np.savez_compressed(fh, labels=np.asarray(tileset["labels"], dtype=str),
                            embeddings=np.asarray(tileset["embeddings"], np.float32),
                            dir_sims=np.asarray(tileset["dir_sims"], np.float32),
                            colours=np.asarray(tileset["colours"], np.float32),
                            readings=np.asarray(tileset.get("readings", np.zeros((0, 0))), np.float32),
                            reading_labels=np.asarray(tileset.get("reading_labels", []), dtype=str),
                            meta=np.asarray(json.dumps(tileset.get("meta", {}), ensure_ascii=False)))
    return path


def load_tileset(path: str | Path) -> dict:
    try:
        with np.load(Path(path), allow_pickle=False) as z:
            return {"labels": [str(x) for x in z["labels"]], "embeddings": z["embeddings"].astype(np.float32),
                    "dir_sims": z["dir_sims"].astype(np.float32),
                    "colours": z["colours"].astype(np.float32) if "colours" in z
                    else np.zeros((len(z["labels"]), 3), np.float32),
                    "readings": z["readings"].astype(np.float32) if "readings" in z else np.zeros((0, 0), np.float32),
                    "reading_labels": [str(x) for x in z["reading_labels"]] if "reading_labels" in z else [],
                    "meta": json.loads(str(z["meta"]))}
    except (OSError, KeyError, ValueError, zipfile.BadZipFile) as exc:  # a cut-short .npz is a BadZipFile
        raise EnrollError(f"cannot read tile set {path}: {exc}") from exc
