"""scoring.amend.undo_correction: taking a correction back is one more correction putting the move
back as it stood before it (the log stays append-only); only a move's latest correction; never on a
voided move; and the recount's words for it."""
from __future__ import annotations

import pytest
from hypothesis import given, settings, strategies as st

from tilecam.scoring.amend import (CorrectionError, ReenterPlay, Retile, RuleScore, changes, confirmed, correct,
                                   undo_correction, void)
from tilecam.scoring.events import CAMERA, from_json, to_json
from tilecam.scoring.board import Direction, Square
from tilecam.scoring.game import Game, effective_events
from tilecam.scoring.placement import PlacedTile, Placement
from tilecam.scoring.rules import PROFILES
from tilecam.scoring.tiles import BLANK, DISTRIBUTIONS

EN = DISTRIBUTIONS["en"]
NASPA = PROFILES["naspa"]


def across(row, col, tiles) -> Placement:
    return Placement(tuple(PlacedTile(Square(row, col + i), t.upper(), t != t.upper() or t == BLANK)
                           for i, t in enumerate(tiles)), Direction.ACROSS)


def logged() -> list:
    g = Game(NASPA, EN)
    g.play(0, across(7, 6, "C?T"))  # the blank read as '?': nobody named it
    return list(g.events)


def test_undoing_a_blank_named_puts_it_back_undecided_and_says_so():
    log = logged()
    log.append(correct(log, 0, Retile(Square(7, 7), "A", blank=True), NASPA, EN, by="desk"))
    assert effective_events(log, NASPA, EN)[0].placement.tiles[1].letter == "A"
    log.append(undo_correction(log, 1, NASPA, EN, by="desk", reason="wrong letter"))
    assert effective_events(log, NASPA, EN)[0].placement.tiles[1].letter == BLANK
    assert [c.change for c in changes(log, NASPA, EN)] == ["blank at H8 named A", "blank at H8 named ?"]
    # the undo is the latest correction: undoing it names the blank again
    log.append(undo_correction(log, 2, NASPA, EN, by="desk"))
    assert effective_events(log, NASPA, EN)[0].placement.tiles[1].letter == "A"


def test_a_ruling_under_a_later_fix_is_kept_and_only_the_latest_is_undone():
    log = logged()
    log.append(correct(log, 0, RuleScore(9), NASPA, EN, by="td"))
    log.append(correct(log, 0, Retile(Square(7, 7), "O", blank=True), NASPA, EN, by="desk"))
    with pytest.raises(CorrectionError, match="a later correction of the same move stands on it"):
        undo_correction(log, 1, NASPA, EN, by="td")
    log.append(undo_correction(log, 2, NASPA, EN, by="desk"))
    ev = effective_events(log, NASPA, EN)[0]
    assert ev.placement.tiles[1].letter == BLANK and ev.agreed == 9  # the ruling before it stands
    log.append(undo_correction(log, 3, NASPA, EN, by="desk"))  # the undo undone: O again, 9 still
    assert effective_events(log, NASPA, EN)[0].placement.tiles[1].letter == "O"


def test_nothing_to_undo_on_a_voided_move_or_on_what_is_no_correction():
    log = logged()
    log.append(correct(log, 0, Retile(Square(7, 7), "A", blank=True), NASPA, EN, by="desk"))
    with pytest.raises(CorrectionError, match="not a correction"):
        undo_correction(log, 0, NASPA, EN, by="desk")
    log.append(void(log, 0, NASPA, EN, by="desk"))
    with pytest.raises(CorrectionError, match="was voided"):
        undo_correction(log, 1, NASPA, EN, by="desk")


# ---- issue 35: an undo puts the review state back with the reading ----

def under_review() -> list:
    g = Game(NASPA, EN)
    g.play(0, across(7, 6, "CAT"), certainty=0.41, review=True)  # the camera's, unsure
    return list(g.events)


def test_undoing_the_only_correction_of_a_play_under_review_leaves_it_under_review():
    log = under_review()
    log.append(correct(log, 0, Retile(Square(7, 7), "O", blank=False), NASPA, EN, by="desk"))
    assert confirmed(log) == {0}  # a person's letter: out of review
    log.append(undo_correction(log, 1, NASPA, EN, by="desk"))
    assert log[-1].undoes == 1 and from_json(to_json(log[-1])) == log[-1]
    assert confirmed(log) == set()  # the camera's reading back, and with it the review
    log.append(undo_correction(log, 2, NASPA, EN, by="desk"))  # the undo undone: the person's O again
    assert confirmed(log) == {0}


def test_an_undo_keeps_an_earlier_confirmation_and_a_camera_fix_confirms_nothing():
    log = under_review()
    log.append(correct(log, 0, Retile(Square(7, 7), "O", blank=False), NASPA, EN, by=CAMERA))
    assert confirmed(log) == set()
    log.append(correct(log, 0, ReenterPlay("8G", "COT"), NASPA, EN, by="desk"))  # confirmed as read
    log.append(correct(log, 0, Retile(Square(7, 8), "G", blank=False), NASPA, EN, by="desk"))
    log.append(undo_correction(log, 3, NASPA, EN, by="desk"))
    assert confirmed(log) == {0}  # back to the confirmed COT
    log.append(undo_correction(log, 4, NASPA, EN, by="desk"))  # G again
    log.append(undo_correction(log, 5, NASPA, EN, by="desk"))  # COT again, still confirmed
    assert confirmed(log) == {0}
    assert tuple(t.letter for t in effective_events(log, NASPA, EN)[0].placement.tiles) == tuple("COT")


@given(st.lists(st.one_of(st.tuples(st.just("fix"), st.integers(6, 8), st.sampled_from("AEIOST")),
                          st.just(("undo",))), max_size=12))
@settings(max_examples=120, deadline=None)
def test_any_corrections_and_undos_leave_the_reading_and_review_as_the_model_says(steps):
    """A model of the move: each correction a new state (its letters, a person's word on it), each
    undo the state before the correction it takes back. Whatever the sequence, the record's reading
    and its review state are the model's; with every correction undone, the play is under review."""
    log = under_review()
    states = [("CAT", False)]          # the move's states, one per correction of it, in log order
    made = []                          # the log index of each correction, states[k + 1] after made[k]
    for step in steps:
        if step[0] == "fix":
            _, col, letter = step
            word = states[-1][0]
            log.append(correct(log, 0, Retile(Square(7, col), letter, blank=False), NASPA, EN, by="desk"))
            states.append((word[:col - 6] + letter + word[col - 5:], True))
        elif made:
            undone = made[-1]
            log.append(undo_correction(log, undone, NASPA, EN, by="desk"))
            states.append(states[made.index(undone)])  # as the move stood before it
        else:
            continue
        made.append(len(log) - 1)
        word, person = states[-1]
        assert "".join(t.letter for t in effective_events(log, NASPA, EN)[0].placement.tiles) == word
        assert (0 in confirmed(log)) == person
