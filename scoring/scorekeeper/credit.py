"""Crediting plays to players: each play appended to whoever's turn it was, as far as anyone
said (a clock press naming its player, the seating, a person's entry; else turn order, marked
turn_inferred), with how it was read (certainty, runner-ups, the rack it came from, review).
And re-crediting: a press on an unchanged board ends the turn of a play committed before it, or,
naming another player than turn order credited, moves the play to them (a camera Correction,
cause PRESS_CAUSE)."""
from __future__ import annotations

from dataclasses import replace

from ..decode import ProposedPlay
from ..events import PRESS_CAUSE, Correction, Doubt, Play
from ..game import GameError
from ..gcg.notation import play_notation
from ..gcg.records import RACK_NOT_SEEN
from ..placement import PlacementError
from ..racks import Judged
from .outcome import Observation
from .rack_reads import rack_for
from .state import TURNS, KeeperState


class Turns:
    """Whose turn it is, as far as anyone said, and the press bookkeeping: credit.py's part of the
    scorekeeper, changed only through these methods (the other jobs say what happened: a press
    ended a turn, a person entered one, the racks saw an exchange).

    `known`: known at the start (the seating), after a clock press ended the last turn, or after a
    person entered a turn; not after a play committed without a press (a pass or an exchange then
    would go unseen). A play committed while it is not known is credited to the player on turn and
    marked turn_inferred (scoring.turns). `unpressed`: the log index of the play committed without a
    press whose turn is still open (the press that follows ends it: not a pass), or None."""

    def __init__(self, known: bool) -> None:
        self._known = known
        self._unpressed: int | None = None
        self._before: tuple[bool, int | None] = (known, None)  # as a decision found them (undo)
        self._camera: set[int] = set()   # log indexes of the passes and exchanges the camera entered

    @property
    def known(self) -> bool:
        return self._known

    @property
    def unpressed(self) -> int | None:
        return self._unpressed

    def by_camera(self, index: int) -> bool:
        """The pass or exchange at log `index` is one the camera entered."""
        return index in self._camera

    def decision_begins(self) -> None:
        """A decision begins: what it changes is undone if the store does not take it."""
        self._before = (self._known, self._unpressed)

    def undo(self) -> None:
        """The decision did not stand: the turns as before it."""
        self._known, self._unpressed = self._before

    def credited(self, pressed: bool, index: int) -> None:
        """Plays credited, the last at log `index`: a press ends its turn; without one it stays open."""
        self._known = pressed
        self._unpressed = None if pressed else index

    def ended(self) -> None:
        """A press ended the turn (or a person entered one): whose turn is next is known."""
        self._known, self._unpressed = True, None

    def pressed(self) -> None:
        """A clock press ended the record's last turn (a resumed source catching up)."""
        self._known = True

    def entered(self, index: int) -> None:
        """The camera entered a pass or an exchange at log `index`."""
        self._camera.add(index)

    def unseen(self) -> None:
        """Turns may have gone by unseen (an exchange only the racks saw): the next credit is inferred."""
        self._known = False

    def resumed(self, known: bool) -> None:
        """After a restart: turns may have gone by unseen, unless the game has not begun."""
        self._known, self._unpressed = known, None

    def dropped(self, kept: int) -> None:
        """Our last entries from log index `kept` on were never stored: our decision did not stand."""
        self._camera = {i for i in self._camera if i < kept}
        self.undo()

    def followed(self, added: list) -> None:
        """Entries others added to the log: a person's turn makes the order theirs; a void moves the
        events, so the open play's index no longer holds."""
        if any(e.kind in TURNS for e in added):
            self.ended()
        elif any(e.kind == "void" for e in added):
            self._unpressed = None


def credit(sk: KeeperState, plays: list[ProposedPlay], player: int | None, pressed: bool, review: bool = False,
           done: list | None = None) -> list[Play]:
    """The plays appended in turn order (`done` collects them as they go), each credited to a
    player: the last to whoever's press ended the turn (`player`, when the press names one),
    the others in turn before it; without a name, in turn from the player on turn. A credit is
    inferred (Play.turn_inferred) unless the turn's start is known (the first play, after a
    press or a person's entry) or the press named its player (the last). A press ends the last
    play's turn; without one that turn stays open for the press that follows."""
    g = sk.game
    n = len(plays)
    out = done if done is not None else []
    first = g.state.on_turn if player is None else (player - (n - 1)) % g.players
    for i, proposed in enumerate(plays):
        known = (i == 0 and sk.turns.known) or (i == n - 1 and pressed and player is not None)
        out.append(sk.append(play(sk, (first + i) % g.players, proposed, review, inferred=not known)))
    sk.turns.credited(pressed, len(g.events) - 1)
    return out


def refuse(sk: KeeperState, added: list, new, exc: Exception) -> Observation:
    """Plays credited from one snapshot that the rules then refused: taken back, the turn as before,
    the snapshot's new squares remembered as refused, and said."""
    sk.take_back(added)
    sk.turns.undo()
    sk.joins.refuse(new)
    return Observation((), "unclear", f"the board as it stands fits no plays: {exc}")


def play(sk: KeeperState, player: int, proposed: ProposedPlay, review: bool = False, inferred: bool = False) -> Play:
    """The play appended, with how it was read: its certainty, whether that is under the review
    threshold (or `review`: its order or split inferred), and the runner-up readings in GCG
    notation (against the board before it)."""
    before = sk.game
    runner_ups = []
    for r in proposed.runner_ups:
        try:
            _, pos, word = play_notation(Play(player, r.placement, (), None, 0, 0, 0), before)
        except (GameError, PlacementError, ValueError, KeyError):
            continue
        runner_ups.append((pos, word, round(r.probability, 4)))
    certainty = round(proposed.certainty, 4)
    read = rack_for(sk, player, proposed.placement)
    rack = read or Judged(None)
    why = {Doubt.INFERRED: review, Doubt.CERTAINTY: certainty < sk.cfg.review_below, Doubt.NOT_FROM_RACK: rack.review,
           Doubt.FROM_POOL: proposed.from_pool, Doubt.UNLEARNED: sk.untrusted(proposed.placement, proposed.readers),
           Doubt.BUILT_ON: sk.built_on_doubt(proposed.placement)}
    doubts = tuple(d for d, said in why.items() if said)
    review = bool(doubts)
    try:
        return sk.game.play(player, proposed.placement, rack=rack.rack, rack_note=rack.note, certainty=certainty,
                            review=review, runner_ups=tuple(runner_ups), turn_inferred=inferred,
                            not_from_rack=rack.review, readers=proposed.readers, doubts=doubts,
                            rack_judged=read is not None)
    except GameError:
        if rack.rack is None:
            raise
    # the play goes down without the rack read (it breaks the set beside the board): the play is
    # the board camera's, never refused for a rack
    return sk.game.play(player, proposed.placement, rack_note=f"{RACK_NOT_SEEN}: the rack read holds more "
                                                              "of a tile than the set has beside this play", certainty=certainty,
                        review=review, runner_ups=tuple(runner_ups), turn_inferred=inferred,
                        readers=proposed.readers, doubts=doubts, rack_judged=True)


def ends_open_play(sk: KeeperState, player: int | None) -> bool:
    """A press on an unchanged board ends the turn of the play committed before it without a
    press (the board stood still before the player reached the clock), when nothing but its
    challenge came since and the press is not another player's."""
    i, events = sk.turns.unpressed, sk.game.events
    return (i is not None and i < len(events) and isinstance(events[i], Play)
            and all(e.kind in ("phony_withdrawn", "challenge_bonus") for e in events[i + 1:])
            and player in (None, events[i].player))


def recredit(sk: KeeperState, player: int | None) -> Correction | None:
    """A press naming another player than the one an open play was credited to by turn order
    alone (turn_inferred): the press is the evidence, so the play is theirs and a turn before it
    went unseen. The camera's Correction says so (the record then shows a move out of turn,
    which scoring.turns flags); None when the press does not contradict an inferred credit."""
    i, events = sk.turns.unpressed, sk.game.events
    if (player is None or i is None or i >= len(events) or not isinstance(events[i], Play)
            or not events[i].turn_inferred or events[i].player == player
            or any(e.kind not in ("phony_withdrawn", "challenge_bonus") for e in events[i + 1:])):
        return None
    # still a guess: the same press fits the play's player forgetting the clock and the presser's
    # own turn (a pass) after it; the press moves the credit, the hedge stays (issue 43)
    fixed = replace(events[i], player=player)
    entry = Correction(sk.log_index(i), fixed, by=sk.camera_name, cause=PRESS_CAUSE,
                       reason=f"the clock press of player {player + 1} ended this turn, credited to player "
                              f"{events[i].player + 1} by turn order alone: a turn before it went unseen")
    return sk.amend(entry)
