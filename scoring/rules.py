"""Rule profiles as data. Code reads a profile's fields; it never branches on its name.

Sources: NASPA Official Tournament Rules (double challenge for NWL, 5 points per
challenged word for CSW; out-player gets twice the opponent's rack; six consecutive
scoreless turns end the game and each player loses their own rack; -10 per started
overtime minute, a loss after 10 minutes over), NSA Tournament Rules 2009, WESPA
Rules (5 points per challenged word), and the box rules (2 to 4 players; plus/minus end:
the player who goes out gains every opponent's unplayed tiles and each opponent loses their own;
the game ends when every player has passed twice in a row).

Counts of turns that end a game are per player, in rounds: the tournament rules' "six
consecutive scoreless turns" is written for two players, i.e. three each. For n players tilecam
ends the game after 3n (every player scoreless three times in a row), as the box rule's
"every player passed twice" is 2n. Quackle instead stops at six whatever the number of players,
and macondo plays two-player games only; the tournament profiles here allow two players, so
only a custom profile with more players tells the two readings apart.
"""
from __future__ import annotations

from dataclasses import dataclass, replace
from enum import Enum

from .errors import RulesError

__all__ = ["AUTO", "MAX_PLAYERS", "MIN_PLAYERS", "PLAYER_COUNT", "PROFILES", "ChallengeRule", "EndRack",
           "RuleProfile", "check_player_count", "check_player_number", "get_profile"]


class ChallengeRule(Enum):
    DOUBLE = "double"          # a failed challenge costs the challenger their turn
    SINGLE = "single"          # a failed challenge costs nothing
    FIVE_POINT = "five_point"  # the challenged player gets 5 points per challenged word
    TEN_POINT = "ten_point"    # ... 10 points per challenged word
    VOID = "void"              # no challenges: an invalid play is simply not accepted


class EndRack(Enum):
    DOUBLE = "2x"              # out-player adds twice the opponents' racks; the opponents lose nothing
    PLUS_MINUS = "plus_minus"  # out-player adds the opponents' racks; each opponent subtracts their own


@dataclass(frozen=True)
class RuleProfile:
    name: str
    challenge: ChallengeRule = ChallengeRule.DOUBLE
    end_rack: EndRack = EndRack.DOUBLE
    bingo_bonus: int = 50
    min_players: int = 2
    max_players: int = 2               # tournament games are two-player; the box allows four
    # Rounds of consecutive scoreless turns (each player's turn counts once) that end the game:
    # 3 rounds is the tournament rules' six scoreless turns of a two-player game. None = no such rule.
    scoreless_rounds_to_end: int | None = 3
    # Rounds of consecutive passes that end the game (box: every player passed twice); None = no such rule.
    pass_rounds_to_end: int | None = None
    # When the game ends on scoreless turns, each player loses the value of their own rack.
    zeros_end_penalty: bool = True
    minutes_per_player: int | None = 25  # time on each player's clock; None = untimed (the box rules)
    overtime_per_minute: int = 10      # points lost per started minute over
    overtime_forfeit_minutes: int | None = 10  # more than this many minutes over loses the game
    min_bag_to_exchange: int = 7

    @property
    def challenge_bonus_per_word(self) -> int:
        return {ChallengeRule.FIVE_POINT: 5, ChallengeRule.TEN_POINT: 10}.get(self.challenge, 0)

    @property
    def failed_challenge_loses_turn(self) -> bool:
        return self.challenge is ChallengeRule.DOUBLE

    @property
    def out_multiplier(self) -> int:
        return 2 if self.end_rack is EndRack.DOUBLE else 1

    def scoreless_turns_to_end(self, players: int) -> int | None:
        r = self.scoreless_rounds_to_end
        return None if r is None else r * players

    def passes_to_end(self, players: int) -> int | None:
        r = self.pass_rounds_to_end
        return None if r is None else r * players

    def check_players(self, players: int) -> None:
        """RulesError naming the allowed range when these rules are not for `players` players."""
        if not self.min_players <= players <= self.max_players:
            allowed = str(self.max_players) if self.min_players == self.max_players \
                else f"{self.min_players} to {self.max_players}"
            raise RulesError(f"rules {self.name!r} are for {allowed} players, not {players}")

    def with_(self, **changes) -> "RuleProfile":
        return replace(self, **changes)


PROFILES: dict[str, RuleProfile] = {
    # NASPA, NWL divisions.
    "naspa": RuleProfile("naspa"),
    # NASPA rules for CSW divisions: 5 points per challenged word (the shared 2019 NSC games).
    "naspa-csw": RuleProfile("naspa-csw", challenge=ChallengeRule.FIVE_POINT),
    "nsa": RuleProfile("nsa", overtime_forfeit_minutes=None),
    "wespa": RuleProfile("wespa", challenge=ChallengeRule.FIVE_POINT, end_rack=EndRack.PLUS_MINUS,
                         overtime_forfeit_minutes=None),
    "box": RuleProfile("box", challenge=ChallengeRule.DOUBLE, end_rack=EndRack.PLUS_MINUS, max_players=4,
                       scoreless_rounds_to_end=None, pass_rounds_to_end=2, zeros_end_penalty=True,
                       minutes_per_player=None, overtime_per_minute=0, overtime_forfeit_minutes=None,
                       min_bag_to_exchange=1),
}


# The player count, decided here once: the fewest and the most players any rules here allow (the
# tournament rules two, the box rules two to four); a game's own profile narrows it (`check_players`).
# Whatever bounds a count or a player number asks these: the settings (a rack camera's player), the
# clock, the GCG reader and writer, the service's request models, the station's presses (hardware
# imports nothing of ours: the station hands it the number).
MIN_PLAYERS = min(p.min_players for p in PROFILES.values())
MAX_PLAYERS = max(p.max_players for p in PROFILES.values())
PLAYER_COUNT = f"a game has {MIN_PLAYERS} to {MAX_PLAYERS} players"


def check_player_count(players: int) -> None:
    """RulesError unless some rules are for `players` players."""
    if not MIN_PLAYERS <= players <= MAX_PLAYERS:
        raise RulesError(f"{PLAYER_COUNT}, not {players}")


def check_player_number(number: int, first: int = 1) -> None:
    """RulesError unless `number` can be a player's, counted from `first` (1 in the settings and a
    GCG file, where player 1 moves first)."""
    if isinstance(number, bool) or not first <= number < first + MAX_PLAYERS:
        raise RulesError(f"player {number}: {PLAYER_COUNT}, numbered {first} to {first + MAX_PLAYERS - 1}")


def get_profile(name: str) -> RuleProfile:
    try:
        return PROFILES[name]
    except KeyError:
        raise RulesError(f"unknown rules {name!r}; choose one of {', '.join(PROFILES)}") from None


AUTO = "auto"
