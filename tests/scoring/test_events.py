"""scoring.events: who is an operator (by_operator), the one rule the service's confirmed moves and
the scorekeeper's learnt squares follow."""
from __future__ import annotations

import dataclasses

from tilecam.scoring.board import Direction, Square
from tilecam.scoring.events import CAMERA, Correction, Pass, Play, Void, by_operator
from tilecam.scoring.placement import PlacedTile, Placement

PLAY = Play(0, Placement((PlacedTile(Square(7, 7), "A"), PlacedTile(Square(7, 8), "X")), Direction.ACROSS),
            ("AX",), None, 18, 18, 18)


def test_a_correction_by_anyone_but_the_camera_is_an_operators():
    assert by_operator(Correction(0, PLAY, by="desk"))
    assert not by_operator(Correction(0, PLAY, by=CAMERA))
    assert CAMERA == "camera"  # the name stored records carry: changing it would make old corrections people's


def test_a_station_naming_its_camera_otherwise_is_told_apart():
    assert not by_operator(Correction(0, PLAY, by="cam-3"), camera="cam-3")
    assert by_operator(Correction(0, PLAY, by=CAMERA), camera="cam-3")


def test_only_corrections_are_an_operators_word():
    assert not any(by_operator(e) for e in (PLAY, Pass(1, 0), Void(0, by="desk")))


# ---- typed fields, not sentences, between layers (issue 37) ----------------------------------------

def test_the_camera_s_reasons_are_typed_and_unset_ones_stay_out_of_the_json():
    from tilecam.scoring.events import PRESS_CAUSE, from_json, to_json

    fix = Correction(0, PLAY, by=CAMERA, reason="reworded: any words at all", cause=PRESS_CAUSE)
    assert from_json(to_json(fix)).cause == PRESS_CAUSE     # the field says it, whatever the words
    flagged = dataclasses.replace(PLAY, not_from_rack=True, note="any words")
    assert from_json(to_json(flagged)).not_from_rack
    # unset, they are not written: a log entry reads the same in a version from before them
    plain = to_json(Correction(0, PLAY, by="desk", reason="a typo"))
    assert "cause" not in plain and "not_from_rack" not in plain["replacement"]


def test_why_a_play_is_for_review_is_typed_and_stored():
    """Issue 43 item 7: the console says why a play is in review from these, never from a note."""
    import json

    from tilecam.scoring.events import Doubt, from_json, to_json

    doubted = dataclasses.replace(PLAY, certainty=0.9995, review=True, doubts=(Doubt.NOT_FROM_RACK, Doubt.INFERRED))
    stored = json.loads(json.dumps(to_json(doubted)))      # as the store keeps it
    assert stored["doubts"] == ["not_from_rack", "inferred"]
    assert from_json(stored).doubts == (Doubt.NOT_FROM_RACK, Doubt.INFERRED)
    assert "doubts" not in to_json(PLAY)                   # unset: a log from before reads the same
    assert doubted.doubted(Doubt.INFERRED, None, Doubt.CERTAINTY) == (Doubt.NOT_FROM_RACK, Doubt.INFERRED,
                                                                      Doubt.CERTAINTY)


def test_entries_stored_before_the_typed_fields_are_read_by_their_words():
    """A log kept before `cause` and `not_from_rack` said them only in words: it loads and acts the same."""
    from tilecam.scoring.events import PRESS_CAUSE, RACK_CAUSE, from_json, to_json

    old_play = to_json(PLAY)
    old_play.update(review=True, note="rack not seen with this play's tiles: AX not on the rack read DEGIORS")
    assert from_json(old_play).not_from_rack
    assert not from_json(to_json(PLAY)).not_from_rack
    press = {"kind": "correction", "target": 0, "replacement": to_json(PLAY), "by": "camera", "agreed": None,
             "reason": "the clock press of player 2 ended this turn, credited to player 1 by turn order alone: "
                       "a turn before it went unseen"}
    assert from_json(press).cause == PRESS_CAUSE
    rack = dict(press, reason="the rack camera's read of the rack at this pass")
    assert from_json(rack).cause == RACK_CAUSE
    assert from_json(dict(press, reason="the tiles read differently over more frames")).cause is None


def test_entries_stored_before_rack_note_and_blank_guessed_are_read_by_their_words():
    """A log kept before `rack_note` and `blank_guessed`: the note's rack lines (they began "rack not
    seen") are its rack_note, and a note saying the blank's letter was not read flags the blank."""
    from tilecam.scoring.events import from_json, note_of, to_json

    said = "rack not seen whole: read AE.NR.T ('.' not seen); the rack field holds the tiles seen"
    old_play = to_json(PLAY)
    old_play.update(note=f"blank's letter not read: T chosen\nwell played\n{said}")
    play = from_json(old_play)
    assert play.blank_guessed and play.blank_undecided and not play.not_from_rack
    assert play.rack_judged and not from_json(to_json(PLAY)).rack_judged   # a rack note stood for a judged read
    assert (play.note, play.rack_note) == ("well played", said) and note_of(play) == f"well played\n{said}"
    assert from_json(to_json(play)) == play
    for kind in ("pass", "exchange"):
        old = {"kind": "pass", "player": 1, "cumulative": 0, "rack": None, "note": said} if kind == "pass" else {
            "kind": "exchange", "player": 1, "count": 2, "tiles": None, "cumulative": 0, "rack": None, "note": said}
        ev = from_json(old)
        assert (ev.note, ev.rack_note) == ("", said) and from_json(to_json(ev)) == ev


def test_a_note_in_the_old_words_is_a_note_once_the_fields_are_kept():
    """Today's entries say the fields, whatever their note says: a person's note in the old words
    reads back as written, the fields unset (to_json writes them where their absence would mislead)."""
    from tilecam.scoring.events import from_json, to_json

    for note in ("blank's letter not read: T chosen", "rack not seen: I could not tell", "not on the rack read"):
        play = dataclasses.replace(PLAY, note=note)
        assert from_json(to_json(play)) == play and not play.blank_undecided
        plain = to_json(dataclasses.replace(PLAY, note="well played"))
        assert not {"rack_note", "blank_guessed", "not_from_rack"} & set(plain)
