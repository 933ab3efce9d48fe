"""scoring/blanks.py: a letter for every blank nobody named, chosen by the lexicon where it can,
else the set's commonest letter, and `decided` only when exactly one letter was possible."""
from __future__ import annotations

from tilecam.scoring.blanks import designate, undecided_squares
from tilecam.scoring.board import Direction, Square
from tilecam.scoring.game import Game
from tilecam.scoring.lexicon import Lexicon
from tilecam.scoring.placement import PlacedTile, Placement
from tilecam.scoring.rules import get_profile
from tilecam.scoring.tiles import DISTRIBUTIONS

EN, DE = DISTRIBUTIONS["en"], DISTRIBUTIONS["de"]
EMPTY = Game(get_profile("naspa"), EN).state.board


def c_t(middle: PlacedTile) -> Placement:
    """C?T across the centre, the middle tile given."""
    return Placement((PlacedTile(Square(7, 6), "C"), middle, PlacedTile(Square(7, 8), "T")), Direction.ACROSS)


UNDECIDED = c_t(PlacedTile(Square(7, 7), "?", blank=True))


def letters(placement: Placement) -> str:
    return "".join(t.letter for t in placement.tiles)


def test_only_a_blank_nobody_named_is_undecided():
    assert undecided_squares(UNDECIDED) == (Square(7, 7),)
    named = c_t(PlacedTile(Square(7, 7), "A", blank=True))
    assert undecided_squares(named) == () and undecided_squares(c_t(PlacedTile(Square(7, 7), "A"))) == ()
    same = designate(EMPTY, named, EN, Lexicon.from_lines(["CUT"]))
    assert same.placement == named and same.decided and same.candidates == 0


def test_the_one_word_the_lexicon_allows_is_decided():
    chosen = designate(EMPTY, UNDECIDED, EN, Lexicon.from_lines(["CUT", "DOG"]))
    assert letters(chosen.placement) == "CUT" and chosen.decided and chosen.candidates == 1
    assert chosen.placement.tiles[1].blank  # still a blank: it scores nothing


def test_among_several_words_the_commonest_letter_wins_undecided():
    chosen = designate(EMPTY, UNDECIDED, EN, Lexicon.from_lines(["CUT", "CAT", "COT"]))
    assert letters(chosen.placement) == "CAT" and not chosen.decided and chosen.candidates == 3  # A: 9, O: 8, U: 4


def test_without_a_lexicon_or_for_a_phony_the_set_s_commonest_letter():
    for lexicon in (None, Lexicon.from_lines(["DOG"])):
        chosen = designate(EMPTY, UNDECIDED, EN, lexicon)
        assert letters(chosen.placement) == "CET" and not chosen.decided and chosen.candidates == 0
    assert letters(designate(EMPTY, UNDECIDED, DE).placement) == "CET"  # German's commonest is E too
