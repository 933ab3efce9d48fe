"""scoring.tally: the vowels and consonants of a pool (the unseen tiles the overlay and /unseen count)."""
from __future__ import annotations

from collections import Counter

from tilecam.scoring.tally import VOWELS, vowel_split
from tilecam.scoring.tiles import BLANK, DISTRIBUTIONS


def test_a_blank_is_neither_a_vowel_nor_a_consonant():
    assert vowel_split(Counter({"A": 2, "E": 1, "Z": 1, BLANK: 2})) == (3, 1, 2)
    assert vowel_split(Counter()) == (0, 0, 0)


def test_accented_vowels_count_and_a_multi_letter_tile_is_a_consonant():
    assert {"Ä", "Ą", "Ó", "Å"} <= VOWELS       # each set's vowels (scoring.tiles: Distribution.vowels)
    assert vowel_split(Counter({"Ä": 1, "Ó": 1, "CH": 2, "LL": 1, "Ñ": 1})) == (2, 4, 0)


def test_the_full_english_bag_splits_as_the_set_counts():
    assert vowel_split(DISTRIBUTIONS["en"].bag()) == (42, 56, 2)  # A9 E12 I9 O8 U4; Y is a consonant


def test_a_set_names_its_own_vowels():
    # Norwegian Æ and Ø are vowels with no A E I O U under them (Å has one): the set says so
    no = DISTRIBUTIONS["no"]
    assert vowel_split(Counter({"Æ": 1, "Ø": 2, "Å": 1, "Y": 1}), no) == (4, 1, 0)
    assert {"Æ", "Ø"} <= VOWELS and not {"Æ", "Ø"} & DISTRIBUTIONS["en"].vowels
