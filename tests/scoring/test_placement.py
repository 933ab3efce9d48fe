from __future__ import annotations

import pytest

from tilecam.scoring.board import Board, Direction, LAYOUTS, Square, Tile
from tilecam.scoring.placement import PlacedTile, Placement, PlacementError, score_placement, validate_placement
from tilecam.scoring.tiles import DISTRIBUTIONS

EN = DISTRIBUTIONS["en"]
STD = LAYOUTS["standard"]


def placement(start, direction, letters, board=None) -> Placement:
    """letters: upper case = tile, lower case = blank, '.' = skip over an existing tile."""
    dr, dc = direction.step
    tiles = []
    for i, ch in enumerate(letters):
        sq = Square(start[0] + dr * i, start[1] + dc * i)
        if ch != ".":
            tiles.append(PlacedTile(sq, ch.upper(), ch.islower()))
    return Placement(tuple(tiles), direction)


def board_with(*plays) -> Board:
    b = Board(STD)
    for start, direction, letters in plays:
        for t in placement(start, direction, letters).tiles:
            b.put(t.square, t.tile)
    return b


def test_rulebook_example_qualm_at_8d_scores_52():
    # Q on the double-letter D8 (20) + U L A M (6), doubled by the centre star.
    scored = score_placement(Board(STD), placement((7, 3), Direction.ACROSS, "QUALM"), EN)
    assert scored.score == 52
    assert [w.word for w in scored.words] == ["QUALM"]


def test_premiums_count_only_under_new_tiles():
    b = board_with(((7, 3), Direction.ACROSS, "QUALM"))
    # QUALMS: S on 8I; Q's double letter and the centre star are already covered.
    scored = score_placement(b, placement((7, 3), Direction.ACROSS, ".....S"), EN)
    assert scored.score == 10 + 1 + 1 + 1 + 3 + 1


def test_blank_scores_zero_even_on_a_premium():
    # qUALM with a blank Q on the double letter: (0 + 6) x 2.
    assert score_placement(Board(STD), placement((7, 3), Direction.ACROSS, "qUALM"), EN).score == 12


def test_cross_words_are_scored_and_letter_premiums_come_before_word_premiums():
    b = board_with(((7, 7), Direction.ACROSS, "AX"))
    # OX on row 7 from 7G: O on a double letter, X on a plain square above the A, forming XA down.
    scored = score_placement(b, placement((6, 6), Direction.ACROSS, "OX"), EN)
    words = {w.word: w.score for w in scored.words}
    # OX = 1*2 + 8 = 10; XA = 8 + 1 = 9.
    assert words["OX"] == 10
    assert words["XA"] == 9
    assert scored.score == 19


def test_bingo_adds_50():
    scored = score_placement(Board(STD), placement((7, 1), Direction.ACROSS, "RETINAS"), EN)
    # R E T(double letter) I N A S(centre star): (1+1+2+1+1+1+1) x 2 + 50.
    assert scored.bingo
    assert scored.score == 66


@pytest.mark.parametrize("desc, start, direction, letters, message", [
    ("first play misses the centre", (0, 0), Direction.ACROSS, "CAT", "centre"),
    ("one tile first play", (7, 7), Direction.ACROSS, "A", "at least two"),
])
def test_first_play_rules(desc, start, direction, letters, message):
    with pytest.raises(PlacementError, match=message):
        validate_placement(Board(STD), placement(start, direction, letters), EN)


def test_illegal_placements_on_a_board():
    b = board_with(((7, 7), Direction.ACROSS, "CAT"))
    cases = {
        "not connected": Placement((PlacedTile(Square(0, 0), "A"), PlacedTile(Square(0, 1), "T")), Direction.ACROSS),
        "gap": Placement((PlacedTile(Square(8, 7), "A"), PlacedTile(Square(8, 9), "T")), Direction.ACROSS),
        "occupied": Placement((PlacedTile(Square(7, 7), "A"),), Direction.ACROSS),
        "not in one line": Placement((PlacedTile(Square(8, 7), "A"), PlacedTile(Square(9, 8), "T")), Direction.ACROSS),
        "not a tile": Placement((PlacedTile(Square(8, 7), "Ä"),), Direction.DOWN),
    }
    for why, p in cases.items():
        with pytest.raises(PlacementError):
            validate_placement(b, p, EN)


def test_super_board_has_quadruple_word_corners():
    sup = LAYOUTS["super"]
    assert sup.size == 21 and sup.centre == Square(10, 10)
    assert sup.premium(Square(0, 0)) == (1, 4)
    # A 21x21 board is symmetric like the 15x15 one.
    for layout in LAYOUTS.values():
        n = layout.size
        for r in range(n):
            for c in range(n):
                assert layout.rows[r][c] == layout.rows[c][r] == layout.rows[n - 1 - r][c]


def test_spanish_multi_letter_tiles_are_single_tiles():
    es = DISTRIBUTIONS["es"]
    assert es.tokens("[CH]E[LL]A") == ["CH", "E", "LL", "A"]
    assert es.total == 100 and es.counts["CH"] == 1 and es.values["RR"] == 8
    p = Placement((PlacedTile(Square(7, 7), "CH"), PlacedTile(Square(7, 8), "E")), Direction.ACROSS)
    scored = score_placement(Board(STD), p, es)
    assert scored.words[0].word == "[CH]E"
    assert scored.score == (5 + 1) * 2


def test_distributions():
    assert DISTRIBUTIONS["en"].total == 100
    de = DISTRIBUTIONS["de"]
    assert de.total == 102 and de.values["Ö"] == 8 and de.counts["E"] == 15
    assert DISTRIBUTIONS["fr"].total == 102
    assert DISTRIBUTIONS["pl"].total == 100 and DISTRIBUTIONS["pl"].values["Ź"] == 9
    assert DISTRIBUTIONS["en"].rack_value("?QZ") == 20


def test_a_play_lays_at_most_a_racks_tiles():
    eight = Placement(tuple(PlacedTile(Square(7, c), "A", False) for c in range(3, 11)), Direction.ACROSS)
    with pytest.raises(PlacementError, match="at most 7"):
        validate_placement(Board(STD), eight, EN)
    validate_placement(Board(STD), Placement(eight.tiles[:7], Direction.ACROSS), EN)
