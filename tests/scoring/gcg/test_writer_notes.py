"""The '#note' under a line whose rack field is not the rack says what the field holds: an
exchange's known tiles are said to be seen (not standing in), unknown ones are said to be unknown;
every file still loads in macondo/Woogles and Quackle, and reads back to the same record."""
from __future__ import annotations

import pytest

from gcgcheck import check_gcg
from tilecam.scoring.board import Direction, Square
from tilecam.scoring.game import Game, SetExceeded
from tilecam.scoring.gcg import GameRecord, Player, read_gcg, record_from_gcg, write_gcg
from tilecam.scoring.placement import PlacedTile, Placement
from tilecam.scoring.rules import PROFILES
from tilecam.scoring.tiles import DISTRIBUTIONS

EN = DISTRIBUTIONS["en"]
NASPA = PROFILES["naspa"]


def written(build, within_set: bool = True) -> tuple[str, GameRecord]:
    game = Game(NASPA, EN, within_set=within_set)
    game.play(0, Placement(tuple(PlacedTile(Square(7, 6 + i), ch) for i, ch in enumerate("CAT")), Direction.ACROSS))
    build(game)
    record = GameRecord((Player("cesar", "Cesar"), Player("josh", "Josh")), tuple(game.events), {}, "naspa", "en",
                        "standard")
    return write_gcg(record, NASPA, EN), record


def test_a_known_exchange_says_its_tiles_were_seen():
    text, record = written(lambda g: g.exchange(1, 5, "AIIOO"))
    lines = text.splitlines()
    i = lines.index(">josh: AIIOO -AIIOO +0 0")
    assert lines[i + 1] == "#note rack not seen: the exchanged tiles AIIOO were seen; the rack field holds them alone"
    assert "stands in" not in text
    assert check_gcg(text) == []
    back, _, _ = record_from_gcg(read_gcg(text), NASPA, EN)
    assert back.events[1:] == record.events[1:]  # the note is the writer's: read back, it goes


def test_an_exchange_of_unseen_tiles_says_they_were_not_seen():
    text, record = written(lambda g: g.exchange(1, 4))
    lines = text.splitlines()
    [i] = [n for n, ln in enumerate(lines) if ln.startswith(">josh:") and " -4 +0 0" in ln]
    stand_in = lines[i].split()[1]
    assert lines[i + 1] == (f"#note rack not seen, nor the 4 tiles exchanged: {stand_in} stands in "
                            "(GCG readers need a rack here)")
    assert check_gcg(text) == []
    back, _, _ = record_from_gcg(read_gcg(text), NASPA, EN)
    assert back.events[1:] == record.events[1:]


def test_a_withdrawn_plays_line_says_its_rack_field_is_the_plays_tiles():
    text, record = written(lambda g: g.withdraw(0))
    lines = text.splitlines()
    i = lines.index(">cesar: CAT -- -10 0")
    assert lines[i + 1] == "#note rack not seen: the rack field holds the withdrawn play's tiles CAT"
    assert check_gcg(text) == []
    back, _, _ = record_from_gcg(read_gcg(text), NASPA, EN)
    [(kind, rack, note)] = [(e.kind, e.rack, e.note) for e in back.events[1:]]
    assert (kind, rack, note) == ("phony_withdrawn", None, "")  # the stand-in and its note go


def test_a_pass_keeps_its_stand_in_note():
    text, _ = written(lambda g: g.pass_turn(1))
    assert "#note rack not seen: E stands in (GCG readers need a rack here)" in text.splitlines()
    assert check_gcg(text) == []


def test_a_rack_read_the_tiles_off_the_board_cannot_make_is_noted_not_written():
    # a rack camera's misread at a pass: two Zs where the set has one. The game refuses it now, as
    # it does a play's (issue 35); a record stored before that rule is still written so that
    # macondo reads it, the rack left out and said so
    with pytest.raises(SetExceeded, match="the set has 1 Z, so no rack can hold ZZ"):
        written(lambda g: g.pass_turn(1, rack="ZZIEUNS"))
    text, record = written(lambda g: g.pass_turn(1, rack="ZZIEUNS"), within_set=False)
    assert "ZZIEUNS" not in [ln.split()[1] for ln in text.splitlines() if ln.startswith(">")]
    assert "#note rack not seen: the rack read ZZIEUNS holds tiles no longer off the board; not written" in text
    assert check_gcg(text) == []
    back, _, _ = record_from_gcg(read_gcg(text), NASPA, EN)
    assert back.events[1].kind == "pass" and back.events[1].rack is None


def test_plays_credited_without_a_clock_press_say_so_and_the_description_hedges_the_result():
    """Issue 35: turns the camera inferred are said on each play and on the game (its result is a
    guess); macondo and Quackle load the file, and it reads back to the same record, the flags with
    it, and writes again the same (the description's hedge is not said twice)."""
    def build(g):
        g.play(1, Placement(tuple(PlacedTile(Square(8 + i, 6), ch) for i, ch in enumerate("OW")), Direction.DOWN),
               turn_inferred=True)
        g.play(0, Placement(tuple(PlacedTile(Square(8 + i, 8), ch) for i, ch in enumerate("ON")), Direction.DOWN),
               turn_inferred=True)
    game = Game(NASPA, EN)
    game.play(0, Placement(tuple(PlacedTile(Square(7, 6 + i), ch) for i, ch in enumerate("CAT")), Direction.ACROSS))
    build(game)
    record = GameRecord((Player("cesar", "Cesar"), Player("josh", "Josh")), tuple(game.events),
                        {"description": "round 3; board 2"}, "naspa", "en", "standard")
    text = write_gcg(record, NASPA, EN)
    lines = text.splitlines()
    assert ("#description round 3; board 2; turns inferred at moves 2-3 (no clock press seen): who played which "
            "move is a guess") in lines
    notes = [lines[i + 1] for i, ln in enumerate(lines) if ln.startswith(">")]
    assert notes[1:] == ["#note turn inferred: no clock press seen; who played this move is a guess"] * 2
    assert "turn inferred" not in notes[0]  # the first move is the seating's
    assert check_gcg(text) == []
    back, _, _ = record_from_gcg(read_gcg(text), NASPA, EN)
    assert [(e.player, e.turn_inferred, e.note) for e in back.events] == [(0, False, ""), (1, True, ""), (0, True, "")]
    assert write_gcg(back, NASPA, EN) == text


def test_a_play_without_a_seen_rack_says_its_rack_field_is_the_plays_tiles():
    """Issue 35's frictions: a play's line needs a rack; its own tiles stand in, said in a note as for
    a pass or an exchange, and read back the play has no rack (not the played tiles as if seen)."""
    text, record = written(lambda g: g.play(1, Placement((PlacedTile(Square(8, 7), "X"),), Direction.DOWN),
                                            rack="AEXZ"))
    lines = text.splitlines()
    i = next(n for n, line in enumerate(lines) if line.startswith(">cesar: "))
    assert lines[i].startswith(">cesar: CAT ") and lines[i + 1] == \
        "#note rack not seen: the rack field holds the play's own tiles CAT"
    j = next(n for n, line in enumerate(lines) if line.startswith(">josh: "))
    assert lines[j].startswith(">josh: AEXZ ") and (j + 1 == len(lines) or not lines[j + 1].startswith("#note"))
    assert check_gcg(text) == []
    back, _, _ = record_from_gcg(read_gcg(text), NASPA, EN)
    assert back.events[0].rack is None and back.events[1].rack == "AEXZ"
    assert [e.note for e in back.events] == ["", ""]   # the note is the writer's: read back, it goes


def test_the_replay_sets_each_field_from_the_turns_marks_never_from_its_note():
    """Issue 46: read_gcg reads our note lines once, into GcgTurn.marks (records.marked, the one
    reading of their words); the replay sets the record's fields from the marks alone. A mark with
    its note reworded or gone sets the field; our words in a note without the mark are a note."""
    from dataclasses import replace

    from tilecam.scoring.gcg import Mark

    text, _ = written(lambda g: (g.play(1, Placement(tuple(PlacedTile(Square(8 + i, 6), ch) for i, ch in enumerate("OW")),
                                                      Direction.DOWN), turn_inferred=True, rack="OWERTYU"),
                                 g.lose_turn(0, "AEIOUST", "why")))
    gcg = read_gcg(text)
    play, lost = gcg.turns[1], gcg.turns[2]
    assert play.marks == {Mark.TURN_INFERRED} and play.note == "" and play.rack == "OWERTYU"
    assert lost.kind == "pass" and lost.marks == {Mark.TURN_LOST} and lost.note == "why"
    assert gcg.turns[0].marks == {Mark.RACK_NOT_SEEN} and gcg.turns[0].rack is None   # CAT's own tiles stood in

    def replayed(*turns):
        record, _, _ = record_from_gcg(replace(gcg, turns=[gcg.turns[0], *turns]), NASPA, EN)
        return record.events[1:]

    # the marks with the notes reworded: the same fields
    said = replayed(replace(play, note="reworded"), replace(lost, note="reworded"))
    assert [e.kind for e in said] == ["play", "turn_lost"] and said[0].turn_inferred and not said[0].blank_guessed
    assert [e.note for e in said] == ["reworded", "reworded"]
    guessed = replayed(replace(play, marks=frozenset({Mark.BLANK_GUESSED}), note=""), lost)
    assert guessed[0].blank_guessed and not guessed[0].turn_inferred
    # our words without the marks: notes, no field
    words = replayed(replace(play, marks=frozenset(), note="turn inferred: no clock press seen\nblank's letter not read"),
                     replace(lost, marks=frozenset(), note="#unsuccessful-challenge"))
    assert [e.kind for e in words] == ["play", "pass"] and not words[0].turn_inferred and not words[0].blank_guessed
    assert words[1].note == "#unsuccessful-challenge"
