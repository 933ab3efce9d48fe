"""Replaying the event log into a game state, and building events with engine scores.

`Game` is the only writer: its builders (play, withdraw, pass_turn, ...) compute the
engine's score, decide what stands, and append. `append` is the single state
transition, so replaying a stored log and building it live cannot drift apart.
"""
from __future__ import annotations

import math
from collections import Counter
from dataclasses import dataclass, field
from typing import Iterable, Sequence

from .board import Board, Layout, LAYOUTS
from .errors import ScoringError
from .events import (NOT_EVENTS, ChallengeBonus, Close, Correction, EndRackPenalty, EndRackPoints, Event, Exchange,
                     LogEntry, Pass, PhonyWithdrawn, Play, TimePenalty, TurnLost, Void, points)
from .placement import Placement, score_placement
from .rules import ChallengeRule, EndRack, RuleProfile
from .tiles import BLANK, Distribution
from .tally import excess, format_pool, holding, kept_back, over_set, rack_tiles, tally, unseen


class GameError(ScoringError):
    """An event that cannot follow the events before it: the record as it stands refuses it."""


class SetExceeded(GameError):
    """A play, exchange, correction or rack that would put more of a tile in the record than the
    set has: the message names the tile and the counts ('the set has 1 Z; this play would make 2',
    'the set has 2 V; both are on the board, so no rack can hold VVV')."""


class TurnDetailsError(ScoringError):
    """What was said about a turn does not fit the game, though such a turn could follow: a
    challenger who made the play themselves, final racks that are not the unseen tiles."""


# A player's own move on their turn: what a game a director closed no longer takes (check_open).
TURN_EVENTS = (Play, Pass, Exchange)


def check_open(entry: LogEntry, closed_by: str | None, game: str = "the game", ended: bool = True) -> None:
    """A closed game takes only corrections and penalties. Once a director ended it (`closed_by`
    names who; None while it is open), a turn (a play, a pass, an exchange) or a second close is
    refused with a GameError; corrections, voids, a challenge's outcome, the final racks and
    overtime still go in. Overtime goes in only once the game is over (`ended`: the rules ended
    it): it is counted at the end (NASPA), and GCG's '(time)' line ends the game, so a turn after
    it, its running total gone negative, is a line macondo cannot read ('>ann: E - +0 -30').
    `game`: how the message names the game ("game 7")."""
    if closed_by is not None and isinstance(entry, (*TURN_EVENTS, Close)):
        raise GameError(f"{game} was ended by {closed_by}; only corrections and penalties are accepted")
    if isinstance(entry, TimePenalty) and closed_by is None and not ended:
        raise GameError(f"{game} is not over: overtime is counted once the game is over")


def is_over(state: GameState, closed_by: str | None) -> bool:
    """Whether the game is over: the rules ended it (`state`: a player went out, the scoreless turns)
    or a director closed it (`closed_by` names who, the log's Close; None while open). The one
    answer every caller asks (the service's GameView.over, the Scorekeeper's over): no turn follows,
    no rack is held any more, the clock stops."""
    return state.ended or closed_by is not None


@dataclass
class GameState:
    board: Board
    scores: list[int]
    rack_sizes: list[int]
    bag: int
    on_turn: int = 0
    scoreless_turns: int = 0
    consecutive_passes: int = 0
    ended: bool = False
    end_reason: str | None = None   # "out", "zeros", "passes"
    out_player: int | None = None
    # Turns still owed: a player who lost a challenge before their turn came round (3-4 players)
    # loses that next turn; on_turn skips them.
    turns_lost: list[int] = field(default_factory=list)
    # What a PhonyWithdrawn undoes: the last play, its tiles' draw, and the counters before it.
    last_play: int | None = None  # index of the play a challenge would withdraw
    # The plays a PhonyWithdrawn took back (their indexes): off the board, nothing of them to re-read.
    withdrawn: set[int] = field(default_factory=set)
    _last_draw: int = 0
    _scoreless_before: int = 0
    _passes_before: int = 0
    events: int = 0
    # The most of each tile the record has held at once (the board, plus what a player was known
    # to hold beside it: a play's rack, an exchange's tiles, any entry's rack): what "more than
    # the set has" is measured on (tally.over_set).
    peak: Counter = field(default_factory=Counter)
    # The board's tiles as the tally counts them (a blank is a blank), kept play by play, so a
    # play's check counts only the tiles it touches.
    on_board: Counter = field(default_factory=Counter)

    def unseen_for(self, dist: Distribution, rack: str = ""):
        """What a player holding `rack` cannot see; a rack the set cannot hold beside the board is
        refused (SetExceeded) rather than shown as a pool with the impossible tiles left out."""
        if rack:
            found = over_set(tally(self.board), rack_tiles(rack, dist), dist, than=tally(self.board))
            if found is not None:
                raise SetExceeded(found.says("this rack"))
        return unseen(self.board, dist, rack)


@dataclass
class Game:
    profile: RuleProfile
    dist: Distribution
    layout: Layout = field(default_factory=lambda: LAYOUTS["standard"])
    players: int = 2
    events: list[Event] = field(default_factory=list)
    # Builders refuse a play that would put more of a tile in the record than the set has. Off
    # where a record is read as it stands (a GCG file, a stored log replayed with its
    # corrections): such a record is kept, and the recount flags it.
    within_set: bool = True

    def __post_init__(self) -> None:
        self.profile.check_players(self.players)
        given, self.events = list(self.events), []
        rs = self.dist.rack_size
        n = self.players
        self.state = GameState(Board(self.layout), [0] * n, [rs] * n, self.dist.total - rs * n,
                               turns_lost=[0] * n)
        for e in given:
            self.append(e)

    # ---- the state transition -------------------------------------------------
    def append(self, event: Event) -> Event:
        s = self.state
        p = event.player
        if not 0 <= p < self.players:
            raise GameError(f"no player {p}")
        adjustment = isinstance(event, (EndRackPoints, EndRackPenalty, TimePenalty))
        # The out-play can still be challenged: taken off, a bonus for it, or (double challenge)
        # the challenger's lost turn, which a GCG record writes as a pass: '>doug: EGOP - +0 451'.
        out = s.end_reason == "out"
        undo = out and isinstance(event, (PhonyWithdrawn, ChallengeBonus))
        lost = (out and isinstance(event, (Pass, TurnLost)) and p != s.out_player
                and s.last_play == s.events - 1)  # right after the out-play, before its rack points
        if s.ended and not (adjustment or undo or lost):
            raise GameError(f"the game has already ended ({s.end_reason}); no more turns")
        if event.cumulative != s.scores[p] + points(event):
            raise GameError(f"cumulative {event.cumulative} is not {s.scores[p]} + {points(event)}")

        for on_board, held, _ in self.holds(event):
            for tile, n in holding(on_board, held).items():
                if n > s.peak[tile]:
                    s.peak[tile] = n
        match event:
            case Play(placement=pl):
                for t in pl.tiles:
                    s.board.put(t.square, t.tile)
                placed = _tallied(pl)
                for tile in placed:
                    s.on_board[tile] += 1
                n = len(pl.tiles)
                draw = min(n, s.bag)
                s.rack_sizes[p] += draw - n
                s.bag -= draw
                s.last_play, s._last_draw = s.events, draw
                s._scoreless_before, s._passes_before = s.scoreless_turns, s.consecutive_passes
                s.scoreless_turns = s.scoreless_turns + 1 if event.agreed == 0 else 0
                s.consecutive_passes = 0
                if s.bag == 0 and s.rack_sizes[p] == 0:
                    s.ended, s.end_reason, s.out_player = True, "out", p
            case PhonyWithdrawn():
                play = self._last_play_of(p)
                for t in play.placement.tiles:
                    s.board.remove(t.square)
                for tile in _tallied(play.placement):
                    s.on_board[tile] -= 1
                n = len(play.placement.tiles)
                s.rack_sizes[p] += n - s._last_draw
                s.bag += s._last_draw
                s.scoreless_turns = s._scoreless_before + 1
                s.consecutive_passes = s._passes_before
                s.withdrawn.add(s.last_play)
                s.last_play = None
                if s.end_reason == "out":
                    s.ended, s.end_reason, s.out_player = False, None, None
            case Pass() | TurnLost() if s.ended:
                s.last_play = None  # the out-play was challenged and stands; the game stays over
            case Pass() | Exchange() | TurnLost():
                if isinstance(event, Exchange):
                    check_exchange(event.count, self.dist, s.rack_sizes[p])
                    if event.count > s.bag:
                        raise GameError(f"cannot exchange {event.count} with {s.bag} tiles in the bag")
                s.scoreless_turns += 1
                s.consecutive_passes = s.consecutive_passes + 1 if isinstance(event, Pass) else 0
                s.last_play = None
            case ChallengeBonus():
                self._last_play_of(p)
            case EndRackPoints() | EndRackPenalty() | TimePenalty():
                pass
            case _:
                raise GameError(f"unknown event {event!r}")

        if isinstance(event, TurnLost) and p != s.on_turn and not s.ended and self.players > 2:
            # A challenger who is not next (3-4 players) loses their next turn when it comes.
            s.turns_lost[p] += 1
        elif isinstance(event, (Play, Pass, Exchange, TurnLost, PhonyWithdrawn)):
            if not isinstance(event, PhonyWithdrawn):
                s.turns_lost[p] = 0  # the record has them taking a turn: nothing is owed any more
            s.on_turn = self._next_after(p)
            z = self.profile.scoreless_turns_to_end(self.players)
            ps = self.profile.passes_to_end(self.players)
            if not s.ended and z is not None and s.scoreless_turns >= z:
                s.ended, s.end_reason = True, "zeros"
            elif not s.ended and ps is not None and s.consecutive_passes >= ps:
                s.ended, s.end_reason = True, "passes"
        s.scores[p] = event.cumulative
        s.events += 1
        self.events.append(event)
        return event

    def holds(self, event: Event) -> list[tuple[Counter, Counter, str | None]]:
        """What `event`, appended next, says the record holds at once, for the set's counts
        (tally.over_set): (the board's tiles, what a player holds beside them, how a refusal names
        it; None: 'no rack can hold ...'). A play: its tiles, then with the rest of its rack. An
        exchange: the tiles thrown in and the rack they came from. A withdrawal: its rack beside
        the board without the play. The end's rack points: the racks left. Any other: its rack.
        The board's counts are the game's own: read them before the event goes in."""
        s = self.state
        match event:
            case Play(placement=pl):
                placed = _tallied(pl)
                tiles = Counter(placed)
                kept = kept_back(event.rack, placed, self.dist)
                return [(s.on_board, tiles, "this play")] + ([(s.on_board, tiles + kept, "this play with its rack")]
                                                              if kept else [])
            case Exchange():
                held = rack_tiles(event.tiles, self.dist) | rack_tiles(event.rack, self.dist)
            case EndRackPoints():
                held = rack_tiles(event.opponent_rack, self.dist)
            case PhonyWithdrawn() if event.rack and s.last_play is not None:
                board = Counter(s.on_board)
                board.subtract(_tallied(self.events[s.last_play].placement))
                return [(board, rack_tiles(event.rack, self.dist), None)]
            case _:
                held = rack_tiles(getattr(event, "rack", None), self.dist)
        return [(s.on_board, held, None)] if held else []

    def _enter(self, event: Event) -> Event:
        """A builder's event appended, refused first (SetExceeded) when it puts more of a tile in
        the record than the set has, unless the game reads a record as it stands (`within_set`
        off). Every builder comes through here: one rule for plays, exchanges, passes, racks."""
        if self.within_set:
            for on_board, held, what in self.holds(event):
                found = over_set(on_board, held, self.dist, than=self.state.peak)
                if found is not None:
                    raise SetExceeded(found.says(what))
        return self.append(event)

    def _next_after(self, player: int) -> int:
        """The player whose turn follows `player`'s, passing over (and clearing) turns lost."""
        s = self.state
        nxt = (player + 1) % self.players
        while s.turns_lost[nxt] and nxt != player:
            s.turns_lost[nxt] -= 1
            nxt = (nxt + 1) % self.players
        return nxt

    def _last_play_of(self, player: int) -> Play:
        s = self.state
        if s.last_play is None:
            raise GameError("no play to challenge: the last turn was not a play")
        play = self.events[s.last_play]
        if play.player != player:
            raise GameError(f"the last play was player {play.player}'s, not player {player}'s")
        return play

    @property
    def settled(self) -> bool:
        """The game is over and its end is final: nothing more is owed under the profile. After a
        player went out, the rack points (and, under plus/minus, the racks off) are entered; after
        scoreless turns, each player's rack off when the rules take it. Until then the scores still
        move, so nobody has won yet."""
        s = self.state
        if not s.ended:
            return False
        if s.end_reason == "out":
            return any(isinstance(e, EndRackPoints) for e in self.events)
        return not self.profile.zeros_end_penalty or any(isinstance(e, EndRackPenalty) for e in self.events)

    # ---- builders: compute the engine score, decide what stands, append ----------
    def _stand(self, claimed: int | None, engine: int, ruled: int | None = None) -> int:
        # A ruling stands; else a recorded or announced score stands until corrected; else the engine's.
        if ruled is not None:
            return ruled
        return engine if claimed is None else claimed

    def play(self, player: int, placement: Placement, claimed: int | None = None,
             rack: str | None = None, note: str = "", agreed: int | None = None,
             engine_stands: bool = False, certainty: float | None = None, review: bool = False,
             runner_ups: tuple = (), turn_inferred: bool = False, not_from_rack: bool = False,
             rack_note: str = "", blank_guessed: bool = False, readers: tuple = (), doubts: tuple = (),
             rack_judged: bool = False) -> Play:
        """``engine_stands``: the announced score is kept as claimed, but the engine's stands until
        someone rules otherwise (an operator entering a play while the broadcast is live).
        ``certainty``, ``review``, ``runner_ups``, ``turn_inferred``, ``not_from_rack``, ``rack_note``,
        ``doubts``, ``rack_judged``: how the camera read it; ``blank_guessed``: a record's writer chose a blank's letter (kept, never
        scored)."""
        scored = score_placement(self.state.board, placement, self.dist, self.profile.bingo_bonus)
        if engine_stands and agreed is None:
            agreed = scored.score
        agreed = self._stand(claimed, scored.score, agreed)
        return self._enter(Play(player, placement, tuple(w.word for w in scored.words), claimed,
                                scored.score, agreed, self.state.scores[player] + agreed, rack, note,
                                engine_stands, certainty, review, tuple(runner_ups), turn_inferred, not_from_rack,
                                rack_note, blank_guessed, tuple(readers), tuple(doubts), rack_judged))

    def withdraw(self, player: int, claimed: int | None = None, rack: str | None = None,
                 note: str = "", agreed: int | None = None) -> PhonyWithdrawn:
        play = self._last_play_of(player)
        engine = -play.agreed
        agreed = self._stand(claimed, engine, agreed)
        return self._enter(PhonyWithdrawn(player, claimed, engine, agreed,
                                          self.state.scores[player] + agreed, rack, note))

    def pass_turn(self, player: int, rack: str | None = None, note: str = "", rack_note: str = "",
                  review: bool = False) -> Pass:
        return self._enter(Pass(player, self.state.scores[player], rack, note, rack_note, review))

    def exchange(self, player: int, count: int, tiles: str | None = None, rack: str | None = None,
                 note: str = "", rack_note: str = "", tiles_from_racks: bool = False,
                 review: bool = False) -> Exchange:
        if self.state.bag < self.profile.min_bag_to_exchange:
            raise GameError(f"exchanges need {self.profile.min_bag_to_exchange} tiles in the bag; "
                            f"it holds {self.state.bag}")
        return self._enter(Exchange(player, count, tiles, self.state.scores[player], rack, note, rack_note,
                                    tiles_from_racks and tiles is not None, review))

    def lose_turn(self, player: int, rack: str | None = None, note: str = "") -> TurnLost:
        return self._enter(TurnLost(player, self.state.scores[player], rack, note))

    def challenge_bonus(self, player: int, words_challenged: int | None = None,
                        claimed: int | None = None, rack: str | None = None,
                        note: str = "", agreed: int | None = None) -> ChallengeBonus:
        per_word = self.profile.challenge_bonus_per_word
        if words_challenged is None:
            # A record gives only the total; infer the word count from it.
            words_challenged = claimed // per_word if per_word and claimed and claimed % per_word == 0 else 1
        engine = per_word * words_challenged
        agreed = self._stand(claimed, engine, agreed)
        return self._enter(ChallengeBonus(player, words_challenged, claimed, engine, agreed,
                                          self.state.scores[player] + agreed, rack, note))

    def end_rack_points(self, player: int, opponent_rack: str, claimed: int | None = None,
                        note: str = "", agreed: int | None = None) -> EndRackPoints:
        engine = self.profile.out_multiplier * self.dist.rack_value(opponent_rack)
        agreed = self._stand(claimed, engine, agreed)
        return self._enter(EndRackPoints(player, opponent_rack, claimed, engine, agreed,
                                         self.state.scores[player] + agreed, note))

    def end_rack_penalty(self, player: int, rack: str, claimed: int | None = None,
                         note: str = "", agreed: int | None = None) -> EndRackPenalty:
        engine = -self.dist.rack_value(rack)
        agreed = self._stand(claimed, engine, agreed)
        return self._enter(EndRackPenalty(player, rack, claimed, engine, agreed,
                                          self.state.scores[player] + agreed, note))

    def time_penalty(self, player: int, minutes: int | None = None, claimed: int | None = None,
                     rack: str | None = None, note: str = "", agreed: int | None = None) -> TimePenalty:
        per_min = self.profile.overtime_per_minute
        if minutes is None:
            minutes = math.ceil(-claimed / per_min) if claimed and per_min else 0
        engine = -per_min * minutes
        agreed = self._stand(claimed, engine, agreed)
        return self._enter(TimePenalty(player, minutes, claimed, engine, agreed,
                                       self.state.scores[player] + agreed, rack, note))

    def challenge(self, outcome: str, challenger: int | None = None, words: int | None = None) -> list[Event]:
        """The last play is challenged; `outcome` is the adjudication, "phony" or "valid".
        Returns the events the profile's challenge rule gives (appended), as macondo's
        game/challenge.go decides them:

        * phony, under any rule that has challenges: the play comes off (PhonyWithdrawn);
        * valid, double challenge: the challenger loses their turn (TurnLost). With three or
          four players a challenger who is not next loses their next turn when it comes;
        * valid, 5- or 10-point rule: the player gets the bonus per challenged word (`words`,
          default 1; ChallengeBonus);
        * valid, single challenge: nothing happens and nothing is recorded.

        `challenger` defaults to the player after the one who made the play."""
        last = self.events[-1] if self.events else None
        if not isinstance(last, Play):
            raise GameError("no play to challenge: the last turn was not a play")
        if self.profile.challenge is ChallengeRule.VOID:
            raise GameError(f"rules {self.profile.name!r} have no challenges")
        if outcome not in ("phony", "valid"):
            raise TurnDetailsError(f"a challenge's outcome is 'phony' or 'valid', not {outcome!r}")
        if outcome == "phony":
            return [self.withdraw(last.player)]
        who = (last.player + 1) % self.players if challenger is None else challenger
        if not 0 <= who < self.players:
            raise TurnDetailsError(f"no player {who}; players are 0..{self.players - 1}")
        if who == last.player:
            raise TurnDetailsError(f"player {who} made the play; another player challenges it")
        if self.profile.failed_challenge_loses_turn:
            return [self.lose_turn(who, note="challenged " + " ".join(last.words))]
        if self.profile.challenge_bonus_per_word:
            return [self.challenge_bonus(last.player, words or 1)]
        return []  # single challenge: a failed challenge costs nothing and leaves no event

    def rebuild(self, event: Event, agreed: int | None = None) -> Event:
        """Append an event again from what was said and done (not its stored scores):
        the engine score and cumulative are recomputed on this game's state."""
        p = event.player
        match event:
            case Play():
                return self.play(p, event.placement, event.claimed, event.rack, event.note, agreed,
                                 event.engine_stands, event.certainty, event.review, event.runner_ups,
                                 event.turn_inferred, event.not_from_rack, event.rack_note, event.blank_guessed,
                                 readers=event.readers, doubts=event.doubts, rack_judged=event.rack_judged)
            case PhonyWithdrawn():
                return self.withdraw(p, event.claimed, event.rack, event.note, agreed)
            case Pass():
                return self.pass_turn(p, event.rack, event.note, event.rack_note, event.review)
            case Exchange():
                return self._enter(Exchange(p, event.count, event.tiles, self.state.scores[p],
                                            event.rack, event.note, event.rack_note, event.tiles_from_racks,
                                            event.review))
            case TurnLost():
                return self.lose_turn(p, event.rack, event.note)
            case ChallengeBonus():
                return self.challenge_bonus(p, event.words_challenged, event.claimed, event.rack,
                                            event.note, agreed)
            case EndRackPoints():
                return self.end_rack_points(p, event.opponent_rack, event.claimed, event.note, agreed)
            case EndRackPenalty():
                return self.end_rack_penalty(p, event.rack, event.claimed, event.note, agreed)
            case TimePenalty():
                return self.time_penalty(p, event.minutes, event.claimed, event.rack, event.note, agreed)
        raise GameError(f"cannot rebuild {event!r}")

    def final_racks(self, racks: Sequence[str] | None) -> list[Event]:
        """The end of the game, with each player's unplayed tiles (`racks`, in player order) when
        they are given or needed; returns the events appended.

        * After a player went out: the rack points (`finish_out`).
        * After the scoreless turns that end a game: each player's rack off, when the rules take
          it (then the racks are needed); none when they do not.
        * Before either (a director ends the game): each given rack comes off; none given, nothing.

        Raises GameError when the final racks are already in, TurnDetailsError when the racks do
        not fit (one per player, tiles of the set)."""
        if any(isinstance(e, (EndRackPoints, EndRackPenalty)) for e in self.events):
            raise GameError("the game has already been ended and its final racks entered")
        if racks is not None:
            if len(racks) != self.players:
                raise TurnDetailsError(f"give one rack per player ({self.players})")
            for rack in racks:
                self.dist.check_tiles(rack, "rack")
        s = self.state
        if s.end_reason == "out":
            return self.finish_out(racks)
        if racks is None:
            if s.ended and self.profile.zeros_end_penalty:
                raise TurnDetailsError("the game ended without a player going out: give each player's rack")
            return []
        if s.ended and not self.profile.zeros_end_penalty:
            return []
        return [self.end_rack_penalty(p, rack) for p, rack in enumerate(racks) if rack]

    def admit(self, event: Event) -> Event:
        """Append an event made elsewhere (the recorder, an import, a client) only if it comes out
        as given when rebuilt from what was said and done: a legal placement, the engine's score,
        the right running total. Otherwise a GameError says what differs."""
        rebuilt = self.rebuild(event, getattr(event, "agreed", None))
        if getattr(rebuilt, "engine", None) != getattr(event, "engine", None):
            raise GameError(f"engine score {event.engine} is not what the rules give ({rebuilt.engine})")
        if rebuilt.cumulative != event.cumulative:
            raise GameError(f"cumulative {event.cumulative} is not what the record gives ({rebuilt.cumulative})")
        return rebuilt

    def finish_out(self, racks: Sequence[str] | None = None) -> list[Event]:
        """After a player went out and no challenge is pending: the end-rack events the rules give.
        The out-player gains every opponent's unplayed tiles in one EndRackPoints (x2 under
        NASPA, as Quackle adds 2x all opponents' racks); under plus/minus each opponent who holds
        tiles also loses their own rack.

        `racks`: each player's unplayed tiles, in player order (the out-player's is empty). With
        the bag empty the unseen pool is what the opponents hold, so they are needed only when two
        or more opponents still hold tiles; given, together they must be that pool. Missing or
        wrong racks are a TurnDetailsError naming what is wrong."""
        s = self.state
        if s.end_reason != "out":
            raise GameError("no player has gone out")
        out = s.out_player
        pool = s.unseen_for(self.dist)
        holding = [p for p in range(self.players) if p != out and s.rack_sizes[p] > 0]
        if racks is None:
            if len(holding) > 1:
                raise TurnDetailsError(f"players {', '.join(str(p) for p in holding)} still hold tiles: "
                                "give each player's rack")
            # Two players: the opponent holds the whole pool, whatever the counts say.
            opp = holding[0] if holding else next(p for p in range(self.players) if p != out)
            racks = ["" if p != opp else self.dist.spell(sorted(pool.elements()))
                     for p in range(self.players)]
        else:
            if len(racks) != self.players:
                raise TurnDetailsError(f"give one rack per player ({self.players})")
            racks = [r.upper() for r in racks]  # in a rack '?' is the blank; lower case means nothing
            if racks[out]:
                raise TurnDetailsError(f"player {out} went out and holds no tiles, not {racks[out]!r}")
            given = Counter(t for r in racks for t in self.dist.tokens(r))
            if +given != pool:
                raise TurnDetailsError(f"the racks hold {format_pool(given, self.dist) or 'nothing'}; the "
                                f"unseen tiles are {format_pool(pool, self.dist) or 'none'}")
        opponents = "".join(r for p, r in enumerate(racks) if p != out)
        added = [self.end_rack_points(out, opponents)]
        if self.profile.end_rack is EndRack.PLUS_MINUS:
            added += [self.end_rack_penalty(p, r) for p, r in enumerate(racks) if p != out and r]
        return added


def _tallied(placement: Placement) -> list[str]:
    """A play's new tiles as the tally counts them: a blank is a blank whatever it stands for."""
    return [BLANK if t.blank else t.letter for t in placement.tiles]


def check_within_set(before: Counter, after: Counter, dist: Distribution, what: str) -> None:
    """Refuse (SetExceeded) a change that takes the record from `before` to `after` (tile counts,
    e.g. GameState.peak) when it puts more of a tile in it than the set has; `what` names the
    change in the message. A record already past the set may still change, never for the worse."""
    found = excess(after, dist, than=before)
    if found is not None:
        raise SetExceeded(found.says(what))


def check_exchange(count: int, dist: Distribution, rack: int | None = None) -> None:
    """The one rack-size rule of an exchange. As asked for (no `rack`): more tiles than a rack of
    the set holds is a TurnDetailsError, no turn could be that. Against the player's `rack` as the
    record stands: fewer than one or more than it holds is a GameError, this turn cannot follow."""
    if rack is None:
        if count > dist.rack_size:
            raise TurnDetailsError(f"cannot exchange {count} tiles from a rack of {dist.rack_size}")
    elif not 1 <= count <= rack:
        raise GameError(f"cannot exchange {count} tiles from a rack of {rack}")


def effective_events(entries: Iterable[LogEntry], profile: RuleProfile, dist: Distribution,
                     layout: Layout | None = None, players: int = 2) -> list[Event]:
    """The log as it stands after its corrections and voids: each corrected event replaced by its
    latest replacement, each voided event (and its corrections) skipped, a director's close left
    out (no event), then every engine score and cumulative recomputed in order."""
    entries = list(entries)
    fixes: dict[int, Correction] = {}
    gone: set[int] = set()
    for i, e in enumerate(entries):
        if isinstance(e, (Correction, Void)):
            if not 0 <= e.target < i or isinstance(entries[e.target], NOT_EVENTS):
                raise GameError(f"{e.kind} {i} names no earlier event ({e.target})")
            if e.target in gone:
                raise GameError(f"{e.kind} {i} names event {e.target}, which was voided")
            if isinstance(e, Void):
                gone.add(e.target)
            else:
                fixes[e.target] = e
    if not fixes and not gone:
        return [e for e in entries if not isinstance(e, Close)]
    game = Game(profile, dist, layout or LAYOUTS["standard"], players, within_set=False)  # read as it stands
    for i, e in enumerate(entries):
        if isinstance(e, NOT_EVENTS) or i in gone:
            continue
        fix = fixes.get(i)
        game.rebuild(fix.replacement if fix else e, fix.agreed if fix else None)
    return game.events


def replay(events: Iterable[Event], profile: RuleProfile, dist: Distribution,
           layout: Layout | None = None, players: int = 2) -> GameState:
    """The state after the events: board, bag, scores, player on turn, scoreless turns, end."""
    return Game(profile, dist, layout or LAYOUTS["standard"], players, list(events)).state


__all__ = ["TURN_EVENTS", "Game", "GameError", "GameState", "SetExceeded", "TurnDetailsError", "check_exchange",
           "check_open", "check_within_set", "effective_events", "is_over", "replay"]
