from __future__ import annotations

import pytest

from tilecam.scoring.board import Board, Direction, LAYOUTS, Square, Tile
from tilecam.scoring.lexicon import Lexicon, LexiconError, infer_blanks
from tilecam.scoring.placement import PlacedTile, Placement
from tilecam.scoring.tiles import DISTRIBUTIONS

EN = DISTRIBUTIONS["en"]


@pytest.fixture(scope="module")
def enable(enable_path):
    return Lexicon.from_file(enable_path)


def test_loads_a_user_word_list(enable):
    # 168,551 ENABLE words have 2-15 letters; longer ones cannot be played.
    assert len(enable) == 168_551
    assert "QUALM" in enable and "qualm" in enable
    assert "JO" in enable and "XU" in enable
    # ENABLE predates the later additions (its README says QI and ZA are in it; they are not).
    assert "QI" not in enable and "OK" not in enable
    assert "ELECTROENCEPHALOGRAPHICALLY" not in enable
    assert enable.phonies(["QUALM", "ZQX"]) == ["ZQX"]


def test_first_token_per_line_case_insensitive(tmp_path):
    f = tmp_path / "words.txt"
    f.write_text("cat noun, a pet\nDOG\n# comment\nx\nÄRGER\n", encoding="utf-8")
    lex = Lexicon.from_file(f)
    assert set(lex.words) == {"CAT", "DOG", "ÄRGER"}


def test_bad_lexicon_files(tmp_path):
    with pytest.raises(LexiconError, match="cannot read"):
        Lexicon.from_file(tmp_path / "missing.txt")
    (tmp_path / "empty.txt").write_text("a\n\n")
    with pytest.raises(LexiconError, match="no words"):
        Lexicon.from_file(tmp_path / "empty.txt")


def test_blank_inference(enable):
    board = Board(LAYOUTS["standard"])
    # J + blank across the centre: only JO is a word in ENABLE.
    p = Placement((PlacedTile(Square(7, 7), "J"), PlacedTile(Square(7, 8), "?", True)), Direction.ACROSS)
    assert infer_blanks(board, p, EN, enable) == [{Square(7, 8): "O"}]
    # ?AT: many letters make a word; the operator must choose.
    p2 = Placement((PlacedTile(Square(7, 6), "?", True), PlacedTile(Square(7, 7), "A"),
                    PlacedTile(Square(7, 8), "T")), Direction.ACROSS)
    choices = {c[Square(7, 6)] for c in infer_blanks(board, p2, EN, enable)}
    assert {"B", "C", "E", "F", "H", "M", "O", "P", "R", "S", "T", "V"} <= choices
    assert "X" not in choices and "QAT" in enable


def test_blank_inference_checks_cross_words(enable):
    board = Board(LAYOUTS["standard"])
    for i, ch in enumerate("JAB"):
        board.put(Square(7, 6 + i), Tile(ch))
    # Two blanks on row 9, the second under the J: J? down must be JO, and ?? across a word.
    p = Placement((PlacedTile(Square(8, 5), "?", True), PlacedTile(Square(8, 6), "?", True)),
                  Direction.ACROSS)
    found = infer_blanks(board, p, EN, enable)
    assert found and all(c[Square(8, 6)] == "O" for c in found)
    assert {c[Square(8, 5)] for c in found} >= {"D", "G", "N", "T"}  # DO GO NO TO
