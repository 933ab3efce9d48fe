"""Operator actions: what the console's buttons mean under the game's rules, each built on
the record as it stands through the writer's ``build``."""
from __future__ import annotations

from tilecam.scoring import Game, check_exchange
from tilecam.scoring.gcg import placement_from_gcg

from ..errors import InvalidInput
from .writer import Writer

__all__ = ["Operator"]


class Operator:
    """Play, pass, exchange, challenge and time penalties, each a builder run by the writer."""

    def __init__(self, writer: Writer) -> None:
        self.writer = writer

    @staticmethod
    def _tiles(g: Game, text: str | None, what: str) -> str | None:
        return g.dist.check_tiles(text, what)

    @staticmethod
    def _player(g: Game, player: int | None) -> int:
        """The given player (checked) or the player on turn."""
        if player is None:
            return g.state.on_turn
        if not 0 <= player < g.players:
            raise InvalidInput(f"no player {player}; players are 0..{g.players - 1}")
        return player

    def play(self, game_id: int, position: str, word: str, player: int | None = None,
             claimed: int | None = None, rack: str | None = None, note: str = "",
             engine_stands: bool = False) -> list[int]:
        def make(g: Game):
            return g.play(self._player(g, player), placement_from_gcg(g, position, word), claimed,
                          self._tiles(g, rack, "rack"), note, engine_stands=engine_stands)
        return self.writer.build(game_id, make)

    def pass_turn(self, game_id: int, player: int | None = None, rack: str | None = None,
                  note: str = "") -> list[int]:
        return self.writer.build(game_id, lambda g: g.pass_turn(self._player(g, player), self._tiles(g, rack, "rack"),
                                                         note))

    def exchange(self, game_id: int, count: int | None = None, tiles: str | None = None,
                 player: int | None = None, rack: str | None = None, note: str = "") -> list[int]:
        def make(g: Game):
            n = len(g.dist.tokens(self._tiles(g, tiles, "exchanged tiles"))) if tiles else count
            if not n:
                raise InvalidInput("an exchange needs a count or the tiles")
            check_exchange(n, g.dist)  # more than a rack holds: refused as asked, before the bag is counted
            return g.exchange(self._player(g, player), n, tiles, self._tiles(g, rack, "rack"), note)
        return self.writer.build(game_id, make)

    def challenge(self, game_id: int, outcome: str, words: int | None = None,
                  challenger: int | None = None) -> list[int]:
        """A challenge of the last play and its outcome; the game's rules decide what it does
        (scoring.game.Game.challenge)."""
        return self.writer.build(game_id, lambda g: g.challenge(outcome, challenger, words))

    def time_penalty(self, game_id: int, player: int, minutes: int) -> list[int]:
        return self.writer.build(game_id, lambda g: g.time_penalty(self._player(g, player), minutes))
