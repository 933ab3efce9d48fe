"""Placement validation and scoring, exactly as the rulebooks count a play.

Letter premiums apply before word premiums, premiums count only under newly placed
tiles, a blank scores 0, and using every tile of a full rack adds the bingo bonus.
"""
from __future__ import annotations

from dataclasses import dataclass

from .board import Board, Direction, Square, Tile
from .errors import ScoringError
from .tiles import Distribution

__all__ = ["PlacedTile", "Placement", "PlacementError", "ScoredPlacement", "WordScore", "score_placement",
           "tile_changes", "validate_placement"]


class PlacementError(ScoringError):
    """A placement the rules do not allow (gap, not connected, occupied square, ...)."""


@dataclass(frozen=True, slots=True)
class PlacedTile:
    square: Square
    letter: str          # the letter shown or, for a blank, the letter it stands for
    blank: bool = False

    @property
    def tile(self) -> Tile:
        return Tile(self.letter, self.blank)


@dataclass(frozen=True, slots=True)
class Placement:
    """The tiles newly placed in one play, in reading order, and the play's direction."""

    tiles: tuple[PlacedTile, ...]
    direction: Direction

    @property
    def start(self) -> Square:
        return self.tiles[0].square


def _shown(t: PlacedTile | None) -> str | None:
    """A placed tile as GCG writes it: the letter, lower case for a blank ('?': nobody named it)."""
    return None if t is None else t.letter.lower() if t.blank else t.letter


def tile_changes(was: Placement, now: Placement) -> list[tuple[Square, str | None, str | None]]:
    """What putting down `now` instead of `was` changes on the board: (square, tile then, tile now)
    for every square where they differ, in board order; None where one of them puts nothing."""
    a = {t.square: t for t in was.tiles}
    b = {t.square: t for t in now.tiles}
    return [(sq, _shown(a.get(sq)), _shown(b.get(sq))) for sq in sorted(a.keys() | b.keys())
            if _shown(a.get(sq)) != _shown(b.get(sq))]


@dataclass(frozen=True, slots=True)
class WordScore:
    word: str             # letters as played, blanks in lower case
    squares: tuple[Square, ...]
    score: int


@dataclass(frozen=True, slots=True)
class ScoredPlacement:
    words: tuple[WordScore, ...]  # main word first, then cross-words in reading order
    bingo: bool
    score: int
    start: Square                 # first square of the main word (played-through tiles included)


def _walk_back(board: Board, sq: Square, dr: int, dc: int, placed: dict[Square, PlacedTile]) -> Square:
    layout = board.layout
    r, c = sq
    while True:
        nxt = Square(r - dr, c - dc)
        if not layout.contains(nxt) or (nxt not in board and nxt not in placed):
            return Square(r, c)
        r, c = nxt


def _word_at(board: Board, start: Square, direction: Direction,
             placed: dict[Square, PlacedTile]) -> list[tuple[Square, Tile, bool]]:
    """Every tile of the word through `start` along `direction`: (square, tile, is_new)."""
    dr, dc = direction.step
    sq = _walk_back(board, start, dr, dc, placed)
    out = []
    layout = board.layout
    while layout.contains(sq):
        if sq in placed:
            out.append((sq, placed[sq].tile, True))
        elif sq in board:
            out.append((sq, board[sq], False))
        else:
            break
        sq = Square(sq.row + dr, sq.col + dc)
    return out


def _score_word(cells: list[tuple[Square, Tile, bool]], board: Board, dist: Distribution) -> WordScore:
    total, word_mult = 0, 1
    for sq, tile, new in cells:
        value = 0 if tile.blank else dist.values[tile.letter]
        if new:
            lm, wm = board.layout.premium(sq)
            value *= lm
            word_mult *= wm
        total += value
    word = dist.spell([str(t) for _, t, _ in cells])
    return WordScore(word, tuple(sq for sq, _, _ in cells), total * word_mult)


def validate_placement(board: Board, placement: Placement, dist: Distribution) -> None:
    """Raise PlacementError unless the placement is legal on this board."""
    layout = board.layout
    tiles = placement.tiles
    if not tiles:
        raise PlacementError("a play places at least one tile")
    squares = [t.square for t in tiles]
    if len(set(squares)) != len(squares):
        raise PlacementError("two tiles on one square")
    if len(tiles) > dist.rack_size:
        raise PlacementError(f"a play lays at most {dist.rack_size} tiles, the rack's, not {len(tiles)}")
    for t in tiles:
        if not layout.contains(t.square):
            raise PlacementError(f"square {t.square} is off the board")
        if t.square in board:
            raise PlacementError(f"square {t.square} is already occupied")
        # A blank whose letter nobody has designated yet is written '?'; it scores 0 either way.
        if t.letter not in dist.values and not (t.blank and t.letter == "?"):
            raise PlacementError(f"{t.letter!r} is not a tile of the {dist.name} set")
    rows = {s.row for s in squares}
    cols = {s.col for s in squares}
    if len(rows) > 1 and len(cols) > 1:
        raise PlacementError("tiles are not in one line")
    # Contiguous: every square between the first and last is new or already occupied.
    dr, dc = placement.direction.step
    if len(tiles) > 1 and ((dr == 0 and len(rows) > 1) or (dc == 0 and len(cols) > 1)):
        raise PlacementError(f"tiles are not in one line {placement.direction.value}")
    first, last = min(squares), max(squares)
    placed = {t.square for t in tiles}
    sq = first
    while sq != last:
        sq = Square(sq.row + dr, sq.col + dc)
        if sq not in placed and sq not in board:
            raise PlacementError(f"gap at {sq}: the tiles are not contiguous")
    if len(board) == 0:
        if layout.centre not in placed:
            raise PlacementError("the first play must cover the centre square")
        if len(tiles) < 2:
            raise PlacementError("the first play must place at least two tiles")
    else:
        touching = any(
            Square(s.row + a, s.col + b) in board
            for s in squares
            for a, b in ((0, 1), (0, -1), (1, 0), (-1, 0))
        )
        if not touching:
            raise PlacementError("the play does not touch any tile on the board")


def score_placement(board: Board, placement: Placement, dist: Distribution,
                    bingo_bonus: int = 50, validate: bool = True) -> ScoredPlacement:
    """Score a placement on the board as it stands before the play."""
    if validate:
        validate_placement(board, placement, dist)
    placed = {t.square: t for t in placement.tiles}
    main_dir = placement.direction
    main = _word_at(board, placement.tiles[0].square, main_dir, placed)
    words: list[WordScore] = []
    if len(main) > 1:
        words.append(_score_word(main, board, dist))
    for t in placement.tiles:
        cross = _word_at(board, t.square, main_dir.cross, placed)
        if len(cross) > 1:
            words.append(_score_word(cross, board, dist))
    if not words:
        raise PlacementError("the play forms no word of two or more letters")
    bingo = len(placement.tiles) == dist.rack_size
    score = sum(w.score for w in words) + (bingo_bonus if bingo else 0)
    return ScoredPlacement(tuple(words), bingo, score, main[0][0])
