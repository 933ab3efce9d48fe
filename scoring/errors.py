"""The scoring package's one error root.

Every error the rules engine raises derives from ScoringError, so a caller can catch the
engine's refusals without also catching a bug. The root is still a ValueError: each is the
engine refusing a value it was given (a record, a play, a rack, a rule name), and ValueError
is what pydantic validators and argparse ``type=`` functions turn into a clean message. What
maps a refusal to an HTTP status is the error's type (api/app.py), never ValueError itself.
"""
from __future__ import annotations


class ScoringError(ValueError):
    """The rules engine refuses what it was given; the message says why."""


class TileError(ScoringError):
    """Text that is not tiles of the game's set (an odd letter in a rack, an unclosed '[')."""


class RulesError(ScoringError):
    """Rules that do not exist, or that are not for this game (e.g. its number of players)."""


__all__ = ["RulesError", "ScoringError", "TileError"]
