"""scoring.belief: what the frames, together, say each square holds. Log-probabilities add up over
every frame a square was seen in, so one bad frame cannot overturn many clear ones; a tile put down
or taken back starts the square's history afresh; squares out of view keep theirs."""
from __future__ import annotations

import numpy as np
import pytest

from tilecam.scoring.belief import BoardBelief
from tilecam.scoring.board import Square
from tilecam.scoring.snapshot import EMPTY, Snapshot, classes_for, occupied
from tilecam.scoring.tiles import DISTRIBUTIONS

CLASSES = classes_for(DISTRIBUTIONS["en"].letters)
H8 = (7, 7)


def frame(cells: dict | None = None, empty: float = 0.98, t: float = 0.0) -> Snapshot:
    """Every square read empty with `empty`, but `cells`: square -> {label: probability} (the rest of
    the square's probability spread over the other classes)."""
    k = len(CLASSES)
    probs = np.full((15, 15, k), (1.0 - empty) / (k - 1), np.float64)
    probs[..., CLASSES.index(EMPTY)] = empty
    for (r, c), dist in (cells or {}).items():
        others = [i for i, label in enumerate(CLASSES) if label not in dist]
        probs[r, c, :] = 0.0
        probs[r, c, others] = (1.0 - sum(dist.values())) / len(others)
        for label, p in dist.items():
            probs[r, c, CLASSES.index(label)] = p
    return Snapshot(CLASSES, probs.astype(np.float32), t)


def read(belief: BoardBelief, square=H8) -> str:
    post = belief.posterior()
    return post.classes[int(post.best()[square])]


def test_one_confident_misread_cannot_overturn_twenty_clear_frames():
    belief = BoardBelief(CLASSES)
    for _ in range(20):
        belief.add(frame({H8: {"A": 0.9}}))
    belief.add(frame({H8: {"R": 0.99}}))      # a blurred frame, read wrong and sure of it
    assert read(belief) == "A"
    assert belief.frames[H8] == 21


def test_a_squares_letter_rests_on_all_its_frames_not_the_latest():
    belief = BoardBelief(CLASSES)
    for dist in ({"A": 0.6, "R": 0.35}, {"A": 0.6, "R": 0.35}, {"R": 0.5, "A": 0.45}):
        belief.add(frame({H8: dist}))
    assert read(belief) == "A"                 # the last frame alone says R
    post = belief.posterior(t=9.0, frame_index=4)
    assert np.allclose(post.probs.sum(axis=2), 1.0, atol=1e-5)
    assert (post.t, post.frame_index) == (9.0, 4)


def test_a_tile_put_down_starts_its_square_afresh_and_so_does_one_taken_back():
    belief = BoardBelief(CLASSES)
    for _ in range(5):
        belief.add(frame())                    # an empty square, seen five times
    belief.add(frame({H8: {"Q": 0.6, EMPTY: 0.1}}))
    assert read(belief) == "Q" and belief.frames[H8] == 1   # five empty frames do not outvote a tile laid
    belief.add(frame({H8: {"Q": 0.5, "O": 0.4, EMPTY: 0.05}}))
    assert read(belief) == "Q" and belief.frames[H8] == 2
    belief.add(frame())                        # taken back (a withdrawn play)
    assert read(belief) == EMPTY and not occupied(belief.posterior())[H8]
    assert belief.frames[H8] == 1


def test_squares_out_of_view_keep_their_history():
    belief = BoardBelief(CLASSES)
    for _ in range(3):
        belief.add(frame({H8: {"A": 0.9}}))
    hidden = np.ones((15, 15), bool)
    hidden[7, 6:9] = False                     # a hand over H8 and its neighbours
    belief.add(frame({H8: {"Z": 0.99}}, empty=0.9), visible=hidden)
    assert read(belief) == "A" and belief.frames[H8] == 3
    assert belief.frames[0, 0] == 4


def test_forgotten_squares_are_decided_by_their_next_frames_alone():
    belief = BoardBelief(CLASSES)
    for _ in range(10):
        belief.add(frame({H8: {"A": 0.9}}))
    belief.forget([Square(*H8)])
    assert belief.frames[H8] == 0 and belief.frames[0, 0] == 10
    belief.add(frame({H8: {"R": 0.7}}))
    assert read(belief) == "R"


def test_a_read_with_other_classes_is_refused():
    belief = BoardBelief(CLASSES)
    other = classes_for(DISTRIBUTIONS["de"].letters)
    with pytest.raises(ValueError, match="classes"):
        belief.add(Snapshot.from_board(["." * 15] * 15, other))


def test_frames_reading_two_letters_agree_on_a_lettered_tile_not_a_blank():
    """Issue 44: a white board's M read M (both readers) on one frame and, turned, R on the next,
    each frame giving the blank a little and the other frame's letter nearly nothing. Summed over all
    classes at once, the blank won at 0.90 (the one class neither frame excluded); each frame says
    the tile bears a letter, so the letter is M or R, and the blank stays as unlikely as each frame has it."""
    belief = BoardBelief(CLASSES)
    belief.add(frame({H8: {"M": 0.994, "?": 0.006, "R": 1e-7}}))
    belief.add(frame({H8: {"R": 0.39, "K": 0.2, "C": 0.17, "J": 0.1, "?": 0.05, "M": 1e-5}}))
    post = belief.posterior()
    assert read(belief) in ("M", "R")
    assert float(post.probs[H8][CLASSES.index("?")]) < 0.01
    assert float(post.probs[H8][CLASSES.index(EMPTY)]) < 0.01


def test_one_frame_is_read_as_it_is():
    """One frame's reading is the posterior (the two sums differ only where frames disagree)."""
    belief = BoardBelief(CLASSES)
    f = frame({H8: {"Q": 0.7, "?": 0.2}})
    belief.add(f)
    assert np.allclose(belief.posterior().probs, f.probs, atol=1e-5)
