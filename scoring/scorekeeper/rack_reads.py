"""What the rack cameras add to the record (the rack book's rules are scoring.racks): the rack a
play was made from, an exchange seen before a play no press credited, a press on an unchanged
board that was an exchange, and a move amended once by a rack read that settled after it was
committed (a camera Correction with cause RACK_CAUSE)."""
from __future__ import annotations

from dataclasses import replace

from ..events import RACK_CAUSE, Correction, Doubt, Event, Exchange, LogEntry, Pass, Play, Void, by_operator
from ..decode import ProposedPlay
from ..game import Game, GameError
from ..gcg.notation import played_tiles
from ..gcg.records import RACK_NOT_SEEN
from ..placement import Placement
from ..racks import Fitted, Judged, RackBook, RackSeen, RackTrust, TurnChange
from .state import TURNS, KeeperState

# The words the camera's corrections from a rack read begin with, for people; the code reads their
# Correction.cause (RACK_CAUSE): one such correction per move at most.
_RACK_REASON = "the rack camera"
# A camera's pass when the player's rack camera saw no whole rack during the turn: a person says which.
PASS_OR_EXCHANGE = (f"{_RACK_REASON} did not see the whole rack this turn: a pass or an exchange, it cannot "
                    "say which")


def _left(change: TurnChange) -> str:
    """What left the rack, as people are told: how many tiles. Never the tiles: words reach every
    page, and the tiles only the rack cameras saw are on air as a rack is (the exchange's typed
    `tiles` and `tiles_from_racks`; issue 43)."""
    return f"{change.count} tile{'s' if change.count != 1 else ''}"


def _unnamed(change: TurnChange) -> str:
    """An exchange's note when the reads could not name its tiles (some slots read unsurely)."""
    if change.sure:
        return ""
    return (f"{_RACK_REASON} saw the rack change at this press ({_left(change)} by its reads, some tiles "
            "read unsurely): an exchange, its tiles not named")


def _joined(*notes: str) -> str:
    return "\n".join(n for n in notes if n)


def _board_after(events: list[Event], game: Game):
    """The board after `events` (a prefix of `game`'s)."""
    g = Game(game.profile, game.dist, game.layout, game.players, within_set=False)
    for e in events:
        g.append(e)
    return g.state.board


def watch_racks(sk: KeeperState, trust: RackTrust) -> RackBook:
    """The rack book, made at the first read, which counts a read's tiles as `trust` says ([racks]
    review_below: a tile read under it counts as not seen)."""
    if sk.racks is None:
        sk.racks = RackBook(sk.game.dist, sk.game.players, trust)
    sk.racks.trust = trust
    return sk.racks


def rack_fit(sk: KeeperState, seen: RackSeen, trust: RackTrust) -> Fitted:
    """A rack camera's settled read under the set's counts, against the record as it stands
    (RackBook.fit): the rack it stands for, or what it breaks. Give `Fitted.rack` to rack_seen."""
    return watch_racks(sk, trust).fit(seen, sk.game.state.board, sk.game.events)


def rack_seen(sk: KeeperState, seen: RackSeen, trust: RackTrust) -> list[LogEntry]:
    """A rack camera's settled view of a player's rack (as rack_fit took it). Kept in the rack
    book for the moves to come; when it came after the player's last move was committed (the two
    cameras are not in step), that move is amended once by a camera Correction: a pass their rack
    changed at becomes an exchange, and a move without a rack gets the one read before it. Returns
    the entries appended ([] mostly)."""
    watch_racks(sk, trust).add(seen)
    fixed = late_rack(sk, seen.player)
    return [] if fixed is None else [fixed]


def rack_for(sk: KeeperState, player: int, placement: Placement) -> Judged | None:
    """What the rack read before this play says: the play's rack, a note, a review flag; None when
    no read came before it."""
    if sk.racks is None:
        return None
    played = played_tiles(placement, sk.game.dist)
    seen = sk.racks.rack_before(player, played, sk.game.events)
    return None if seen is None else sk.racks.judge(seen, played, sk.game.state.board)


def rack_exchanges(sk: KeeperState, proposed: ProposedPlay, player: int | None) -> list[Event]:
    """Before a play no press credited to the player on turn: the turns that went by in an
    exchange their rack camera saw (rack changed, board not: RackBook.exchange_before), each
    appended as the camera's Exchange, in turn order, until the player on turn is one whose rack
    change, if any, is this play's. Whether or not the clock is pressed at all; it makes no turn
    known (only a press or a person does), and the turn after it unknown: the play credited after it
    by turn order is inferred."""
    g, out = sk.game, []
    if sk.racks is None:
        return out
    played = played_tiles(proposed.placement, g.dist)
    for _ in range(g.players):
        who = g.state.on_turn
        if g.state.ended or who == player:
            break
        change = sk.racks.exchange_before(who, played, g.events, g.state.board)
        if change is None:
            break
        judged = sk.racks.judge(change.before, "", g.state.board)
        note = (f"the rack camera saw {_left(change)} leave the rack and others come while the board "
                "did not change (no clock press): an exchange")
        try:
            # with no press, when the exchange came and how many tiles went are read off the racks
            # alone (a read a turn stale, a play's tiles seen leaving): a guess, for review (issue 43)
            ev = g.exchange(who, change.count, change.tiles, judged.rack, note, judged.note, tiles_from_racks=True,
                            review=True)
        except GameError:
            break
        out.append(sk.append(ev))
        sk.turns.entered(len(sk.entries) - 1)
        # the exchange is `who`'s (their own rack camera saw it), but with no press the turns after it
        # are not known: the racks alone may tell an exchange that was none (a stale read), and a pass
        # nobody saw may follow it, so the play credited by turn order after it is inferred, even when
        # a press made the turn before it known (issue 43: such a play went on air sure, wrong)
        sk.turns.unseen()
    return out


def no_tiles(sk: KeeperState, who: int) -> Event:
    """The turn of a clock press with nothing new on the board: a pass, or an exchange when the
    player's rack changed since their turn began (with the tiles that left it)."""
    g = sk.game
    change = sk.racks.changed_since_turn(who, g.events, g.state.board) if sk.racks is not None else None
    if change is None:
        if sk.racks is not None and sk.racks.reads(who):
            # their rack camera reads this rack, but no read this turn showed it whole: a pass or an
            # exchange, it cannot say which, and an exchange must not air as a plain pass (issue 45)
            return g.pass_turn(who, note=PASS_OR_EXCHANGE, review=True)
        return g.pass_turn(who)
    judged = sk.racks.judge(change.before, "", g.state.board)
    if change.problem:   # (the problem names the tiles read: the read's words, rack_note)
        note = "the rack camera saw the rack change, but not by an exchange"
        return g.pass_turn(who, judged.rack, note, _joined(judged.note, f"{RACK_NOT_SEEN} as an exchange: {change.problem}"),
                           review=True)   # the reads contradict the record: a person looks
    if change.kind == "exchange":
        try:
            return g.exchange(who, change.count, change.tiles or None, judged.rack, _unnamed(change),
                              rack_note=judged.note, tiles_from_racks=True, review=not change.sure)
        except GameError as exc:   # (its words may name the rack's tiles: the read's words, rack_note)
            note = f"the rack camera saw {_left(change)} leave the rack, but no exchange can be"
            return g.pass_turn(who, judged.rack, note, _joined(judged.note, f"{RACK_NOT_SEEN} as an exchange: {exc}"),
                               review=True)
    return g.pass_turn(who, judged.rack, rack_note=judged.note, review=not change.sure)


def late_rack(sk: KeeperState, player: int) -> Correction | None:
    """The player's last move amended by what their rack camera saw after it was committed:
    the camera's pass into an exchange (while the player's next turn has not begun), or a rack
    filled in where the move has none. Once per move, never a move a person entered or fixed."""
    g = sk.game
    k = next((i for i in range(len(g.events) - 1, -1, -1)
              if g.events[i].player == player and g.events[i].kind in TURNS), None)
    if k is None or g.state.on_turn == player and not g.state.ended:
        return None  # no move yet, or their next turn has begun: its reads are that turn's
    ev, at = g.events[k], sk.log_index(k)
    if any(isinstance(e, (Correction, Void)) and e.target == at and (
            e.kind == "void" or by_operator(e, sk.camera_name) or e.cause == RACK_CAUSE)
           for e in sk.entries):
        return None  # voided, a person's word on it, or amended by a rack once already
    before = g.events[:k]
    board = _board_after(before, g)
    fixed, reason = None, ""
    if isinstance(ev, Pass) and sk.turns.by_camera(at):
        change = sk.racks.changed_since_turn(player, before, board)
        if change is not None and change.kind == "exchange":
            judged = sk.racks.judge(change.before, "", board)
            fixed = Exchange(player, change.count, change.tiles or None, ev.cumulative, judged.rack,
                             _unnamed(change), judged.note, tiles_from_racks=bool(change.tiles),
                             review=not change.sure)
            reason = f"{_RACK_REASON} saw {_left(change)} leave the rack at this press: an exchange, not a pass"
        elif change is not None and (ev.rack is None or (not ev.review and (not change.sure or change.problem))):
            # the rack read at this pass, or read after the press unsure or changed as no exchange
            # can be: a pass or an exchange, the reads cannot say which, so a person looks (issue 43)
            judged = sk.racks.judge(change.before, "", board)
            doubt = not change.sure or bool(change.problem)
            fixed, reason = replace(ev, rack=ev.rack if ev.rack is not None else judged.rack,
                                    rack_note=_joined(ev.rack_note, judged.note) if ev.rack is None else ev.rack_note,
                                    review=ev.review or doubt), \
                f"{_RACK_REASON}'s read of the rack at this pass" + \
                (": it changed as the racks could not tell, for review" if doubt else "")
    elif isinstance(ev, Play) and ev.certainty is not None and ev.rack is None and not ev.rack_judged:
        # (a read judged at the commit that gave no rack: a late read changes nothing)
        played = played_tiles(ev.placement, g.dist)
        if sk.racks.departed(player, played, before):
            seen = sk.racks.rack_before(player, played, before)
            judged = sk.racks.judge(seen, played, board)
            fixed = replace(ev, rack=judged.rack, rack_note=judged.note, rack_judged=True,
                            review=ev.review or judged.review, not_from_rack=judged.review,
                            doubts=ev.doubted(Doubt.NOT_FROM_RACK if judged.review else None))
            reason = f"{_RACK_REASON}'s read of the rack before this play, settled after it was committed"
    if fixed is None:
        return None
    return sk.amend(Correction(at, fixed, by=sk.camera_name, reason=reason, cause=RACK_CAUSE))
