"""A user-supplied word list: membership, and which letters a blank can stand for.

Tournament lexicons (NWL, CSW) are proprietary: users point tilecam at their own file.
Nothing else in scoring needs a lexicon; without one, everything but validity and
blank inference still works.
"""
from __future__ import annotations

import itertools
from dataclasses import dataclass
from pathlib import Path

from .board import Board
from .errors import ScoringError
from .placement import PlacedTile, Placement, score_placement
from .tiles import Distribution

__all__ = ["Lexicon", "LexiconError", "infer_blanks"]

MIN_LEN, MAX_LEN = 2, 15


class LexiconError(ScoringError):
    """A word list that cannot be read or holds no words."""


@dataclass(frozen=True)
class Lexicon:
    name: str
    words: frozenset[str]

    @classmethod
    def from_lines(cls, lines, name: str = "lexicon", max_len: int = MAX_LEN) -> "Lexicon":
        """First token of each line, case-insensitive; words of 2..max_len letters are kept."""
        words = set()
        for line in lines:
            parts = line.split(None, 1)
            if parts and not parts[0].startswith("#") and MIN_LEN <= len(parts[0]) <= max_len:
                words.add(parts[0].upper())
        if not words:
            raise LexiconError(f"{name}: no words of {MIN_LEN}-{max_len} letters found")
        return cls(name, frozenset(words))

    @classmethod
    def from_file(cls, path: str | Path, max_len: int = MAX_LEN) -> "Lexicon":
        p = Path(path)
        try:
            with p.open(encoding="utf-8", errors="strict") as fh:
                return cls.from_lines(fh, p.stem, max_len)
        except UnicodeDecodeError:
            with p.open(encoding="latin-1") as fh:
                return cls.from_lines(fh, p.stem, max_len)
        except OSError as exc:
            raise LexiconError(f"cannot read lexicon {p}: {exc.strerror}") from None

    def __contains__(self, word: str) -> bool:
        return word.replace("[", "").replace("]", "").upper() in self.words

    def __len__(self) -> int:
        return len(self.words)

    def phonies(self, words) -> list[str]:
        """The words that are not in the lexicon (a play's phonies)."""
        return [w for w in words if w not in self]


def infer_blanks(board: Board, placement: Placement, dist: Distribution, lexicon: Lexicon,
                 blank_squares=None) -> list[dict]:
    """Every designation of the placement's blanks that makes all formed words valid.

    Returns a list of {square: letter}; one entry means the lexicon leaves one choice.
    `blank_squares` picks which placed tiles are blanks (default: those marked blank).
    """
    blanks = [i for i, t in enumerate(placement.tiles)
              if (t.square in blank_squares if blank_squares is not None else t.blank)]
    letters = [t for t in dist.letters]
    found = []
    for combo in itertools.product(letters, repeat=len(blanks)):
        tiles = list(placement.tiles)
        for i, letter in zip(blanks, combo):
            tiles[i] = PlacedTile(tiles[i].square, letter, True)
        trial = Placement(tuple(tiles), placement.direction)
        scored = score_placement(board, trial, dist, validate=False)
        if all(w.word in lexicon for w in scored.words):
            found.append({tiles[i].square: tiles[i].letter for i in blanks})
    return found
