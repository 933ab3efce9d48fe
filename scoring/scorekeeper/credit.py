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
from .state import KeeperState


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
        known = (i == 0 and sk.turn_known) or (i == n - 1 and pressed and player is not None)
        out.append(sk._append(play(sk, (first + i) % g.players, proposed, review, inferred=not known)))
    sk.turn_known = pressed
    sk._unpressed = None if pressed else len(g.events) - 1
    return out


def refuse(sk: KeeperState, added: list, new, exc: Exception) -> Observation:
    """Plays credited from one snapshot that the rules then refused: taken back, the turn as before,
    the snapshot's new squares remembered as refused, and said."""
    for e in added:
        sk.entries.remove(e)
    sk._rebuild()
    sk.turn_known, sk._unpressed = sk._turn_before
    sk.refused = frozenset(new)
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
           Doubt.FROM_POOL: proposed.from_pool, Doubt.UNLEARNED: sk._untrusted(proposed.placement, proposed.readers),
           Doubt.BUILT_ON: sk._built_on_doubt(proposed.placement)}
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
    i, events = sk._unpressed, sk.game.events
    return (i is not None and i < len(events) and isinstance(events[i], Play)
            and all(e.kind in ("phony_withdrawn", "challenge_bonus") for e in events[i + 1:])
            and player in (None, events[i].player))


def recredit(sk: KeeperState, player: int | None) -> Correction | None:
    """A press naming another player than the one an open play was credited to by turn order
    alone (turn_inferred): the press is the evidence, so the play is theirs and a turn before it
    went unseen. The camera's Correction says so (the record then shows a move out of turn,
    which scoring.turns flags); None when the press does not contradict an inferred credit."""
    i, events = sk._unpressed, sk.game.events
    if (player is None or i is None or i >= len(events) or not isinstance(events[i], Play)
            or not events[i].turn_inferred or events[i].player == player
            or any(e.kind not in ("phony_withdrawn", "challenge_bonus") for e in events[i + 1:])):
        return None
    # still a guess: the same press fits the play's player forgetting the clock and the presser's
    # own turn (a pass) after it; the press moves the credit, the hedge stays (issue 43)
    fixed = replace(events[i], player=player)
    entry = Correction(sk._log_index(i), fixed, by=sk.camera_name, cause=PRESS_CAUSE,
                       reason=f"the clock press of player {player + 1} ended this turn, credited to player "
                              f"{events[i].player + 1} by turn order alone: a turn before it went unseen")
    return sk._amend(entry)
