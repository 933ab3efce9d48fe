"""A demo game: plays chosen from a small built-in word list, scored by the real engine.

The demo must run on a fresh machine with nothing from outside, so it makes its own
game instead of reading a user's record or a proprietary lexicon.
"""
from __future__ import annotations

import random
from collections import Counter
from pathlib import Path

from tilecam.scoring.board import Direction, Square
from tilecam.scoring.game import Game
from tilecam.scoring.placement import PlacedTile, Placement, PlacementError, score_placement, validate_placement
from tilecam.scoring.rules import get_profile
from tilecam.scoring.tiles import DISTRIBUTIONS

WORDS_FILE = Path(__file__).with_name("words.txt")


def demo_words() -> list[str]:
    text = WORDS_FILE.read_text(encoding="utf-8")
    return sorted({w.upper() for line in text.splitlines() if not line.startswith("#") for w in line.split()})


def _candidates(game: Game, word: str):
    """Placements of `word` crossing a tile already on the board at a matching letter."""
    board = game.state.board
    if len(board) == 0:
        centre = game.layout.centre
        for i in range(len(word)):
            yield Square(centre.row, centre.col - i), Direction.ACROSS
        return
    for sq, tile in board.items():
        for i, ch in enumerate(word):
            if ch == tile.letter:
                yield Square(sq.row, sq.col - i), Direction.ACROSS
                yield Square(sq.row - i, sq.col), Direction.DOWN


def _placement(game: Game, word: str, start: Square, direction: Direction) -> Placement | None:
    board, layout = game.state.board, game.layout
    dr, dc = direction.step
    before = Square(start.row - dr, start.col - dc)
    after = Square(start.row + dr * len(word), start.col + dc * len(word))
    if (layout.contains(before) and before in board) or (layout.contains(after) and after in board):
        return None  # the word would run into other tiles
    tiles = []
    for i, ch in enumerate(word):
        sq = Square(start.row + dr * i, start.col + dc * i)
        if not layout.contains(sq):
            return None
        on = board[sq]
        if on is None:
            tiles.append(PlacedTile(sq, ch))
        elif on.letter != ch:
            return None
    if not tiles or len(tiles) > game.dist.rack_size:
        return None
    return Placement(tuple(tiles), direction)


def make_demo_game(moves: int = 12, seed: int = 7, rules: str = "naspa") -> Game:
    """A game of `moves` plays; every word formed is in the demo word list."""
    rng = random.Random(seed)
    words = demo_words()
    vocab = set(words)
    game = Game(get_profile(rules), DISTRIBUTIONS["en"])
    for turn in range(moves):
        rng.shuffle(words)
        pool = game.state.unseen_for(game.dist)  # the tiles not yet on the board
        best, best_score = None, -1
        for word in words[:120]:  # a player sees some plays, not all: take the best of those
            for start, direction in _candidates(game, word):
                pl = _placement(game, word, start, direction)
                if pl is None or Counter(t.letter for t in pl.tiles) - pool:
                    continue
                try:
                    validate_placement(game.state.board, pl, game.dist)
                    scored = score_placement(game.state.board, pl, game.dist)
                except PlacementError:
                    continue
                if scored.score > best_score and all(w.word in vocab for w in scored.words):
                    best, best_score = pl, scored.score
        if best is None:
            break
        game.play(turn % 2, best)
    return game
