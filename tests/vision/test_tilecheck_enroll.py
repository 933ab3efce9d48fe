"""The tile check teaches the table's enrolment (vision.tilecheck): the rules' corner blocks,
labelled by assignment against the distribution, become exemplars of this tile set."""
from __future__ import annotations

from collections import Counter
from pathlib import Path

import numpy as np

from tilecam.models.synth import SceneConfig, render_topdown, tile_check_board
from tilecam.scoring.tiles import DISTRIBUTIONS
from tilecam.vision.classify import TileReader
from tilecam.vision.enroll import TableEnrollment
from tilecam.vision.rectify import homography_from_corners, warp_board
from tilecam.vision.tilecheck import learn_tile_check

REPO = Path(__file__).resolve().parents[2]
MODEL = REPO / "models" / "tiles.onnx"
CARD = REPO / "models" / "tiles.card.json"


def warped_of(board, seed, reader):
    td = render_topdown(board, seed, SceneConfig(design="standard", labels="short", style="ivory", font="dejavu-sans"))
    px = reader.card["square_px"]
    return warp_board(td.image, homography_from_corners(td.corners, px), px)


def test_the_corner_blocks_teach_the_table_its_tile_set():
    reader = TileReader(MODEL, CARD, lang="en")
    board = tile_check_board(5)
    warped = warped_of(board, 5, reader)
    enrollment = TableEnrollment(reader)
    probs = reader.read(warped).snapshot.probs.reshape(225, -1)
    labels = learn_tile_check(enrollment, warped, probs)
    truth = "".join(board)
    assert labels is not None and np.mean([a == b for a, b in zip(labels, truth)]) >= 0.97
    used = Counter(ch for ch in labels if ch != ".")
    assert all(n <= DISTRIBUTIONS["en"].counts[t] for t, n in used.items())
    assert enrollment.tiles >= 95 and enrollment.tileset() is not None
    # the check half put away teaches nothing more: the fullest arrangement labels best
    half = tile_check_board(5, blocks=(2, 3))
    assert learn_tile_check(enrollment, warped_of(half, 5, reader), probs) is None
    # a few tiles are no check: nothing learnt
    few = ["AB" + "." * 13] + ["." * 15] * 14
    assert learn_tile_check(TableEnrollment(reader), warped_of(few, 6, reader)) is None
