"""Board layouts as data, squares, and the board of placed tiles.

Layout legend (one character per square, as in macondo's layouts):
    =  triple word     -  double word     ~  quadruple word
    "  triple letter   '  double letter   ^  quadruple letter
    *  centre (the start square; a double word on both boards here)
    space or .  plain
"""
from __future__ import annotations

from dataclasses import dataclass
from enum import Enum
from typing import NamedTuple

__all__ = ["LAYOUTS", "Board", "Direction", "Layout", "Square", "Tile"]


class Square(NamedTuple):
    """Zero-based (row, col); row 0 is the top row of the board."""

    row: int
    col: int


class Direction(Enum):
    ACROSS = "across"
    DOWN = "down"

    @property
    def step(self) -> tuple[int, int]:
        return (0, 1) if self is Direction.ACROSS else (1, 0)

    @property
    def cross(self) -> "Direction":
        return Direction.DOWN if self is Direction.ACROSS else Direction.ACROSS


# (letter multiplier, word multiplier) per legend character
_PREMIUMS: dict[str, tuple[int, int]] = {
    " ": (1, 1), ".": (1, 1),
    "'": (2, 1), '"': (3, 1), "^": (4, 1),
    "-": (1, 2), "=": (1, 3), "~": (1, 4),
    "*": (1, 2),
}

STANDARD_15 = (
    "=  '   =   '  =",
    " -   \"   \"   - ",
    "  -   ' '   -  ",
    "'  -   '   -  '",
    "    -     -    ",
    " \"   \"   \"   \" ",
    "  '   ' '   '  ",
    "=  '   *   '  =",
    "  '   ' '   '  ",
    " \"   \"   \"   \" ",
    "    -     -    ",
    "'  -   '   -  '",
    "  -   ' '   -  ",
    " -   \"   \"   - ",
    "=  '   =   '  =",
)

# Super Scrabble, 21x21 (quadruple word in the corners, quadruple letters).
SUPER_21 = (
    "~  '   =  '  =   '  ~",
    " -  \"   -   -   \"  - ",
    "  -  ^   - -   ^  -  ",
    "'  =  '   =   '  =  '",
    " \"  -   \"   \"   -  \" ",
    "  ^  -   ' '   -  ^  ",
    "   '  -   '   -  '   ",
    "=      -     -      =",
    " -  \"   \"   \"   \"  - ",
    "  -  '   ' '   '  -  ",
    "'  =  '   *   '  =  '",
    "  -  '   ' '   '  -  ",
    " -  \"   \"   \"   \"  - ",
    "=      -     -      =",
    "   '  -   '   -  '   ",
    "  ^  -   ' '   -  ^  ",
    " \"  -   \"   \"   -  \" ",
    "'  =  '   =   '  =  '",
    "  -  ^   - -   ^  -  ",
    " -  \"   -   -   \"  - ",
    "~  '   =  '  =   '  ~",
)


@dataclass(frozen=True)
class Layout:
    name: str
    rows: tuple[str, ...]

    def __post_init__(self) -> None:
        n = len(self.rows)
        if any(len(r) != n for r in self.rows):
            raise ValueError(f"layout {self.name}: rows must all be {n} squares long")
        bad = {ch for r in self.rows for ch in r} - set(_PREMIUMS)
        if bad:
            raise ValueError(f"layout {self.name}: unknown premium characters {sorted(bad)}")
        if sum(r.count("*") for r in self.rows) != 1:
            raise ValueError(f"layout {self.name}: needs exactly one centre square '*'")

    @property
    def size(self) -> int:
        return len(self.rows)

    @property
    def centre(self) -> Square:
        for r, row in enumerate(self.rows):
            if "*" in row:
                return Square(r, row.index("*"))
        raise AssertionError("validated in __post_init__")

    def premium(self, sq: Square) -> tuple[int, int]:
        """(letter multiplier, word multiplier) of a square."""
        return _PREMIUMS[self.rows[sq.row][sq.col]]

    def contains(self, sq: Square) -> bool:
        return 0 <= sq.row < self.size and 0 <= sq.col < self.size


LAYOUTS: dict[str, Layout] = {
    "standard": Layout("standard", STANDARD_15),
    "super": Layout("super", SUPER_21),
}


@dataclass(frozen=True, slots=True)
class Tile:
    """A tile on the board: the letter it shows or stands for, and whether it is a blank."""

    letter: str
    blank: bool = False

    def __str__(self) -> str:
        return self.letter.lower() if self.blank else self.letter


class Board:
    """Tiles on the squares of one layout. Mutable; replay owns the only writer."""

    __slots__ = ("layout", "_tiles")

    def __init__(self, layout: Layout) -> None:
        self.layout = layout
        self._tiles: dict[Square, Tile] = {}

    def __getitem__(self, sq: Square) -> Tile | None:
        return self._tiles.get(sq)

    def __contains__(self, sq: Square) -> bool:
        return sq in self._tiles

    def __len__(self) -> int:
        return len(self._tiles)

    def items(self):
        return self._tiles.items()

    def put(self, sq: Square, tile: Tile) -> None:
        self._tiles[sq] = tile

    def remove(self, sq: Square) -> None:
        del self._tiles[sq]

    def copy(self) -> "Board":
        b = Board(self.layout)
        b._tiles = dict(self._tiles)
        return b

    def rows(self, empty: str = ".") -> list[str]:
        """The board as strings, one per row ('?' is never used: blanks show their letter in lower case).

        Multi-letter tiles (Spanish CH) print their first character; use items() for exact contents.
        """
        n = self.layout.size
        grid = [[empty] * n for _ in range(n)]
        for sq, t in self._tiles.items():
            grid[sq.row][sq.col] = str(t)[0]
        return ["".join(r) for r in grid]
