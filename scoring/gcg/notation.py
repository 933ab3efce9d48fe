"""GCG's board notation: coordinates (8D across: row 8, column D; D8 down) and words
('.' or '(AB)' for played-through tiles), read against a board and written from one."""
from __future__ import annotations

import re
from collections import Counter

from ..board import Direction, Layout, Square
from ..events import Play
from ..game import Game
from ..placement import PlacedTile, Placement, PlacementError
from ..tiles import BLANK, Distribution
from .records import GcgError

__all__ = ["parse_position", "format_position", "format_square", "is_position", "word_cells", "placement_from_gcg",
           "play_notation", "shown_play", "played_tiles", "rack_holds", "one_word"]

_ACROSS = re.compile(r"^([0-9]{1,2})([A-Za-z])$")
_DOWN = re.compile(r"^([A-Za-z])([0-9]{1,2})$")


def parse_position(pos: str, layout: Layout) -> tuple[Square, Direction]:
    """'8D' -> (row 7, col 3) across; 'D8' -> down. Raises PlacementError (where a play goes)
    when the coordinate is not one or is off the board."""
    if m := _ACROSS.match(pos):
        row, col, direction = int(m.group(1)) - 1, ord(m.group(2).upper()) - 65, Direction.ACROSS
    elif m := _DOWN.match(pos):
        row, col, direction = int(m.group(2)) - 1, ord(m.group(1).upper()) - 65, Direction.DOWN
    else:
        raise PlacementError(f"unknown coordinate {pos!r}")
    sq = Square(row, col)
    if not layout.contains(sq):
        raise PlacementError(f"coordinate {pos!r} is off the {layout.size}x{layout.size} board")
    return sq, direction


def format_position(sq: Square, direction: Direction) -> str:
    col = chr(65 + sq.col)
    return f"{sq.row + 1}{col}" if direction is Direction.ACROSS else f"{col}{sq.row + 1}"


def format_square(sq: Square) -> str:
    """One square in words, as the pages' coordinates read it: column letter, then row ('O1',
    'H8'). A play's position keeps GCG's order, which gives its direction ('8D' across, 'D8' down)."""
    return f"{chr(65 + sq.col)}{sq.row + 1}"


def is_position(token: str) -> bool:
    """Whether a token is written as a coordinate (across or down), on the board or not."""
    return bool(_ACROSS.match(token) or _DOWN.match(token))


def word_cells(word: str, dist: Distribution) -> list[tuple[str, bool]]:
    """(tile text, marked as played-through) per square; '.' and '(AB)' mark played-through tiles."""
    cells: list[tuple[str, bool]] = []
    through = False
    for tok in dist.tokens(word.replace("(", "\x01").replace(")", "\x02")):
        if tok == "\x01":
            through = True
        elif tok == "\x02":
            through = False
        else:
            cells.append((tok, through or tok == "."))
    return cells


def placement_from_gcg(game: Game, position: str, word: str) -> Placement:
    """The newly placed tiles of a play written as position + word on the current board."""
    board, dist = game.state.board, game.dist
    start, direction = parse_position(position, game.layout)
    dr, dc = direction.step
    placed: list[PlacedTile] = []
    for i, (tok, through) in enumerate(word_cells(word, dist)):
        sq = Square(start.row + dr * i, start.col + dc * i)
        if not game.layout.contains(sq):
            raise PlacementError(f"{word!r} runs off the board")
        on_board = board[sq]
        if through or (on_board is not None and tok != BLANK and tok.upper() == on_board.letter):
            if on_board is None:
                raise PlacementError(f"{word!r} plays through {format_position(sq, direction)}, "
                                     "which is empty")
            continue
        if on_board is not None:
            raise PlacementError(f"square {format_position(sq, direction)} already holds "
                                 f"{on_board}, not {tok}")
        if tok == BLANK:  # a blank nobody named (tilecam wrote these before it named them)
            placed.append(PlacedTile(sq, BLANK, blank=True))
            continue
        letter = tok.upper()
        if letter not in dist.values:
            raise PlacementError(f"{tok!r} is not a tile of the {dist.name} set")
        placed.append(PlacedTile(sq, letter, blank=tok != letter))
    if not placed:
        raise PlacementError(f"{word!r} places no new tile")
    return Placement(tuple(placed), direction)


def _main_word(pl: Placement, game: Game) -> tuple[Square, list[tuple[Square, PlacedTile | None]]]:
    """The main word of a placement against the board before it: its first square and, per square,
    the tile placed there (None for a tile already on the board)."""
    board, layout = game.state.board, game.layout
    dr, dc = pl.direction.step
    placed = {t.square: t for t in pl.tiles}
    sq = pl.tiles[0].square
    while layout.contains(prev := Square(sq.row - dr, sq.col - dc)) and prev in board:
        sq = prev  # back to the start of the main word
    start, cells = sq, []
    while layout.contains(sq) and (sq in placed or sq in board):
        cells.append((sq, placed.get(sq)))
        sq = Square(sq.row + dr, sq.col + dc)
    return start, cells


def play_notation(ev: Play, game: Game) -> tuple[str, str, str]:
    """(rack, position, word) of a play against the board before it: '.' for played-through tiles."""
    dist, pl = game.dist, ev.placement
    start, cells = _main_word(pl, game)
    played = played_tiles(pl, dist)
    # macondo sets the rack and takes the play's tiles from it: a rack without them is not written
    rack = ev.rack if ev.rack and rack_holds(one_word(ev.rack, "rack", ev.rack), played, dist) else played
    word = dist.spell([str(t.tile) if t else "." for _, t in cells])
    return rack, format_position(start, pl.direction), word


def shown_play(ev: Play, game: Game) -> tuple[str, str]:
    """(position, word) of a play as people read it, against the board before it: the whole word,
    played-through tiles in parentheses and a blank in lower case, `8D ZE(B)rA` (GCG's `.` is for
    machines: `8D ZE.rA` says nothing about the B)."""
    board, dist = game.state.board, game.dist
    start, cells = _main_word(ev.placement, game)
    out, through = [], []
    for sq, t in cells:
        if t is None:
            through.append(str(board[sq]))
            continue
        if through:
            out.append(f"({dist.spell(through)})")
            through = []
        out.append(dist.spell([str(t.tile)]))
    if through:
        out.append(f"({dist.spell(through)})")
    return format_position(start, ev.placement.direction), "".join(out)


def played_tiles(pl: Placement, dist: Distribution) -> str:
    """The tiles a play took from the rack: '?' for a blank, whatever it stands for."""
    return dist.spell([BLANK if t.blank else t.letter for t in pl.tiles])


def rack_holds(rack: str, tiles: str, dist: Distribution) -> bool:
    """Whether `rack` contains every tile of `tiles` (a rack's letters are upper case, '?' a blank)."""
    have = Counter(t.upper() if t != BLANK else t for t in dist.tokens(rack))
    have.subtract(t.upper() if t != BLANK else t for t in dist.tokens(tiles))
    return all(n >= 0 for n in have.values())


def one_word(value: str, what: str, line: str) -> str:
    """A rack, coordinate or word: one printable word, or the record cannot be written."""
    if not value or not value.isprintable() or any(ch.isspace() for ch in value):
        raise GcgError(0, line, f"{what} {value!r} is not one printable word")
    return value
