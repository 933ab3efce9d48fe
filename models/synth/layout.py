"""What is printed on the board and on the tiles: the premium layout and the letter values.

Both come from scoring, so the renderer and the rules engine cannot disagree about where a
triple word sits or what an X is worth.
"""
from __future__ import annotations

from tilecam.scoring import DISTRIBUTIONS, LAYOUTS, letters_of

SIZE = 15

# Legend of scoring/board.py: '=' TW, '-' DW, '"' TL, "'" DL, '*' centre star, ' ' plain.
PREMIUM_ROWS: tuple[str, ...] = tuple(LAYOUTS["standard"].rows)
KIND_OF_CHAR = {"=": "TW", "-": "DW", '"': "TL", "'": "DL", "*": "STAR", " ": "", ".": ""}
CENTRE = (7, 7)

# The tile sets a synthetic board is drawn from (and the model is trained on): the English set and
# the German of the ScrabScrap games. Their letters, A-Z then Ä Ö Ü, are the model's letter classes.
TRAINED_SETS = ("en", "de")
LETTERS = letters_of(*TRAINED_SETS)
TILE_CHARS = frozenset(LETTERS) | {"?"}


def _values() -> dict[str, int]:
    """Each letter's value in the first of the trained sets that has it: English A-Z, German Ä=6 Ö=8 Ü=6."""
    values: dict[str, int] = {}
    for name in reversed(TRAINED_SETS):
        values.update({ch: DISTRIBUTIONS[name].value(ch) for ch in DISTRIBUTIONS[name].letters})
    return values


LETTER_VALUES: dict[str, int] = _values()


def premium_kind(row: int, col: int) -> str:
    """'TW', 'DW', 'TL', 'DL', 'STAR' or '' for a plain square."""
    return KIND_OF_CHAR[PREMIUM_ROWS[row][col]]


def check_board(board: list[str] | tuple[str, ...]) -> tuple[str, ...]:
    """15 strings of 15: '.' empty, A-Z/Ä/Ö/Ü a tile, '?' an undesignated blank, lower case a
    blank designated as that letter. Raises ValueError naming the first bad square."""
    rows = tuple(board)
    if len(rows) != SIZE or any(len(r) != SIZE for r in rows):
        raise ValueError(f"board must be {SIZE} strings of {SIZE} characters")
    for r, row in enumerate(rows):
        for c, ch in enumerate(row):
            if ch != "." and ch not in TILE_CHARS and not (ch.islower() and ch.upper() in LETTERS):
                raise ValueError(f"board square ({r}, {c}) holds {ch!r}")
    return rows


def face_of(ch: str) -> tuple[str, int | None]:
    """What a tile shows: (letter, value). Blanks show nothing, whatever they were designated."""
    if ch == "?" or ch.islower():
        return "", None
    return ch, LETTER_VALUES[ch]
