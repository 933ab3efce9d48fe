"""scoring/gcg/notation.py: GCG's coordinates (8D across, D8 down) and words ('.' or '(AB)' for
tiles played through, a blank in lower case), read against a board and written from one."""
from __future__ import annotations

import pytest

from tilecam.scoring.board import Direction, Square
from tilecam.scoring.game import Game
from tilecam.scoring.gcg import GcgError
from tilecam.scoring.gcg.notation import (format_position, format_square, is_position, one_word, parse_position,
                                          placement_from_gcg, play_notation, rack_holds, shown_play)
from tilecam.scoring.placement import PlacementError
from tilecam.scoring.rules import get_profile
from tilecam.scoring.tiles import DISTRIBUTIONS

EN = DISTRIBUTIONS["en"]


def fresh() -> Game:
    return Game(get_profile("naspa"), EN)


@pytest.mark.parametrize("text, square, direction", [
    ("8D", Square(7, 3), Direction.ACROSS), ("D8", Square(7, 3), Direction.DOWN),
    ("1A", Square(0, 0), Direction.ACROSS), ("O15", Square(14, 14), Direction.DOWN), ("h8", Square(7, 7), Direction.DOWN)])
def test_a_coordinate_names_its_square_and_its_direction_by_its_order(text, square, direction):
    layout = fresh().layout
    assert parse_position(text, layout) == (square, direction) and is_position(text)
    assert format_position(square, direction) == text.upper()


@pytest.mark.parametrize("text", ["16A", "P1", "0A"])
def test_a_coordinate_off_the_board_is_refused(text):
    with pytest.raises(PlacementError, match="off the"):
        parse_position(text, fresh().layout)


@pytest.mark.parametrize("text", ["8", "DD", "8D8", "-", ""])
def test_what_is_no_coordinate_is_refused(text):
    assert not is_position(text)
    with pytest.raises(PlacementError, match="unknown coordinate"):
        parse_position(text, fresh().layout)


def test_a_square_in_words_is_column_then_row_whatever_the_direction():
    assert format_square(Square(7, 7)) == "H8" and format_square(Square(0, 14)) == "O1"


def test_a_word_places_only_its_new_tiles_and_plays_through_the_rest():
    game = fresh()
    game.play(0, placement_from_gcg(game, "8G", "CAT"))
    for word in ("B.T", "B(A)T", "BAT"):  # down through the A on H8; a letter that is there is played through
        placement = placement_from_gcg(game, "H7", word)
        assert placement.direction is Direction.DOWN
        assert [(t.square, t.letter) for t in placement.tiles] == [(Square(6, 7), "B"), (Square(8, 7), "T")]
    blank = placement_from_gcg(game, "H7", "b.T").tiles[0]
    assert (blank.letter, blank.blank) == ("B", True)
    undecided = placement_from_gcg(game, "H7", "?.T").tiles[0]
    assert (undecided.letter, undecided.blank) == ("?", True)  # a blank nobody named stays so


@pytest.mark.parametrize("position, word, why", [
    ("9G", ".AT", "empty"),            # through a square with no tile
    ("8G", "DOG", "already holds"),    # onto tiles that are there
    ("8G", "?ATS", "already holds"),   # a blank is never a tile already on the board
    ("8G", "CAT", "no new tile"),      # the whole word is on the board
    ("8M", "CATS", "off the board"),
    ("H7", "B.5", "not a tile")])
def test_a_word_the_board_does_not_allow_is_refused_saying_why(position, word, why):
    game = fresh()
    game.play(0, placement_from_gcg(game, "8G", "CAT"))
    with pytest.raises(PlacementError, match=why):
        placement_from_gcg(game, position, word)


def test_a_play_written_for_machines_and_for_people():
    game = fresh()
    game.play(0, placement_from_gcg(game, "8G", "CAT"))
    before = Game(get_profile("naspa"), EN)
    before.play(0, placement_from_gcg(before, "8G", "CAT"))
    game.play(1, placement_from_gcg(game, "H7", "b.T"))
    play = game.events[-1]
    rack, position, word = play_notation(play, before)
    assert (position, word) == ("H7", "b.T") and rack == "?T"  # no rack known: the tiles it took
    assert shown_play(play, before) == ("H7", "b(A)T")


def test_a_rack_holds_tiles_by_count_a_blank_as_a_blank():
    assert rack_holds("AEIRST?", "SAT?", EN) and rack_holds("aab", "AB", EN)
    assert not rack_holds("AEIRST?", "SS", EN) and not rack_holds("AEIRST", "Q", EN)


@pytest.mark.parametrize("bad", ["", "two words", "tab\there", "bell\x07"])
def test_a_field_of_a_line_is_one_printable_word(bad):
    with pytest.raises(GcgError):
        one_word(bad, "word", ">a: line")
    assert one_word("QUA(I)D", "word", ">a: line") == "QUA(I)D"
