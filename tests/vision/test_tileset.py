"""vision/tileset.py: a table's tile set written and read back whole, an older file without the
later fields read with empty ones, and a file that is no tile set refused as an EnrollError."""
from __future__ import annotations

import numpy as np
import pytest

from tilecam.vision.tileset import EnrollError, load_tileset, save_tileset


def tileset() -> dict:
    rng = np.random.default_rng(0)
    return {"labels": ["A", "Ä", "?"], "embeddings": rng.random((3, 8)), "dir_sims": rng.random((3, 4)),
            "colours": rng.random((3, 3)), "readings": rng.random((2, 5)), "reading_labels": ["B", "C"],
            "meta": {"lang": "de", "source": "tile check"}}


def test_a_tile_set_reads_back_as_it_was_written(tmp_path):
    path = save_tileset(tmp_path / "table" / "ts", tileset())  # the folder is made; no .npz added to the name
    assert path == tmp_path / "table" / "ts" and path.is_file()
    back, want = load_tileset(path), tileset()
    assert back["labels"] == want["labels"] and back["reading_labels"] == want["reading_labels"]
    assert back["meta"] == want["meta"]
    for key in ("embeddings", "dir_sims", "colours", "readings"):
        assert back[key].dtype == np.float32 and np.allclose(back[key], want[key])


def test_an_older_tile_set_without_colours_or_readings_reads_with_empty_ones(tmp_path):
    old = tileset()
    with open(tmp_path / "old.npz", "wb") as fh:
        np.savez_compressed(fh, labels=np.asarray(old["labels"]), embeddings=old["embeddings"],
                            dir_sims=old["dir_sims"], meta=np.asarray("{}"))
    back = load_tileset(tmp_path / "old.npz")
    assert back["colours"].shape == (3, 3) and not back["colours"].any()
    assert back["readings"].shape == (0, 0) and back["reading_labels"] == [] and back["meta"] == {}


def test_what_is_no_tile_set_is_an_enroll_error_naming_the_file(tmp_path):
    whole = save_tileset(tmp_path / "whole.npz", tileset())
    cut = tmp_path / "cut.npz"
    cut.write_bytes(whole.read_bytes()[:100])
    text = tmp_path / "text.npz"
    text.write_text("not a tile set")
    no_labels = tmp_path / "no_labels.npz"
    with open(no_labels, "wb") as fh:
        np.savez_compressed(fh, embeddings=np.zeros((1, 2)))
    for bad in (cut, text, no_labels, tmp_path / "missing.npz"):
        with pytest.raises(EnrollError, match=bad.name):
            load_tileset(bad)
