"""Deciding: the move a fused snapshot shows against the game as it stands (scoring.decode's
decode_move), and what follows from it: a play credited, a withdrawal, a pass or an exchange at a
clock press, misreads corrected, or the other jobs asked first (the tile check before the first
play, joining a game, the last play decided again). It adds nothing to the belief, so it can be
made again on the same fused snapshot after the game changed under it (`sync`)."""
from __future__ import annotations

from dataclasses import replace

import numpy as np

from ..board import Square
from ..decode import NoChange, ProposedPlay, ProposedSequence, ProposedWithdrawal, Unclear, decode_move
from ..events import LogEntry
from ..game import GameError
from ..join import unlikely
from ..placement import PlacementError
from ..snapshot import BLANK_TILE, Snapshot, occupied
from ..tilecheck import first_play_down, printed, tile_check
from .credit import credit, ends_open_play, recredit
from .fuse import keep_glimpse
from .join_game import join, new_squares
from .hold import guessed, hold, refused_again, settle, squares_of
from .misreads import correct
from .outcome import Fused, Observation
from .rack_reads import no_tiles, rack_exchanges
from .redecide import extends_last_play, redecide
from .state import KeeperState


class Deciding:
    """decide.py's part of the scorekeeper, changed only through these methods (the jobs that
    commit plays, join_game.py and redecide.py, say which squares stay in doubt).

    `doubts`: new squares left out of a committed play (a printed label read as a tile): doubts that
    never hold a later play up (decode_move's `doubtful`); gone once read empty or committed.
    `in_tile_check`: the last snapshot was the tile check (scoring.tilecheck). `first_play_down`: a
    first play was seen, read or not: no check after it. And the new squares of the last press that
    showed more of them than a rack holds (beyond_a_turn)."""

    def __init__(self) -> None:
        self._doubts: frozenset[Square] = frozenset()
        self._in_tile_check = False
        self._first_play_down = False
        self._beyond: frozenset[Square] = frozenset()

    @property
    def doubts(self) -> frozenset[Square]:
        return self._doubts

    @property
    def in_tile_check(self) -> bool:
        return self._in_tile_check

    @property
    def first_play_down(self) -> bool:
        return self._first_play_down

    def doubt(self, squares) -> None:
        """The squares in doubt from now on (those alone)."""
        self._doubts = frozenset(squares)

    def tile_check(self, on: bool) -> None:
        self._in_tile_check = on

    def first_play(self, down: bool = True) -> None:
        self._first_play_down = down

    def beyond(self, new: frozenset[Square]) -> frozenset[Square]:
        """The new squares of this press beyond a turn (empty: within one); returns the last press's."""
        before, self._beyond = self._beyond, new
        return before


def decide(sk: KeeperState, fused: Fused, player: int | None = None, pressed: bool = False,
           clear: np.ndarray | None = None) -> Observation:
    """The move decision on a fused snapshot against the game as it stands now; it adds nothing
    to the belief, so it can be made again after `sync` (a commit refused as stale). `pressed`
    when a clock press asked for the snapshot (by `player`, if known). `clear`: the squares away
    from anything lying on the board; when a press cannot be decoded (a hand's edge read as
    tiles), the new tiles among them are kept as a glimpse (fuse.glimpse)."""
    if fused.replay == "behind":
        return Observation((), "behind", "the source shows an earlier state of the board")
    if fused.replay == "here":
        # The snapshot that catches up shows the board as it stands: no clock press (not a
        # pass), and a square or two read differently is a misread, not a play. A press there
        # (a folder of photos: every frame is one) is the press that ended the record's last
        # turn, so whose turn it is is known again, as it was before the restart.
        if pressed:
            sk.turns.pressed()
        return Observation((), "no_change", "the source has caught up with the record")
    seen = fused.seen
    obs = decide_snapshot(sk, seen, player, pressed)
    if any(e.kind == "play" for e in obs.entries):
        sk.fusing.unglimpse()
    elif pressed and obs.status == "unclear" and clear is not None:
        keep_glimpse(sk, seen, clear)
    return obs


def _tile_check(sk: KeeperState, seen: Snapshot) -> Observation | None:
    """Before the first play: the tiles face up for the check are never a play (scoring.tilecheck
    holds its rules); what reads as tiles apart from a first play is print, in doubt from now on."""
    g = sk.game
    centre = (g.layout.centre.row, g.layout.centre.col)
    mine = sk.deciding
    check = tile_check(seen, len(g.state.board), centre, mine.in_tile_check, sk.tile_check_cfg,
                       mine.first_play_down)
    if check is not None:
        mine.tile_check(check == "check")
        return Observation((), "tile_check", "the tiles face up before the first play") if check == "check" \
            else Observation((), "no_change", "the tile check is cleared: the game starts")
    if not len(g.state.board) and not mine.first_play_down:
        mine.first_play(first_play_down(seen, centre, sk.tile_check_cfg))
        # no play yet: what reads as tiles apart from a first play is print, empty from now on
        mine.doubt(mine.doubts | {Square(r, c) for r, c in printed(occupied(seen, sk.cfg.tile_min_prob), centre)})
    return None


def decide_snapshot(sk: KeeperState, seen: Snapshot, player: int | None, pressed: bool) -> Observation:
    g = sk.game
    sk.turns.decision_begins()
    if sk.closed_by is not None:  # the writer would refuse any turn (scoring.game.check_open)
        return Observation((), "ended", f"the game was ended by {sk.closed_by}")
    if g.state.ended and g.state.end_reason != "out":
        return Observation((), "ended", f"the game has ended ({g.state.end_reason})")
    checked = _tile_check(sk, seen)
    if checked is not None:
        return checked
    last = sk.last_play()
    glimpsed, doubts, unreadable = sk.fusing.glimpsed, sk.deciding.doubts, sk.holding.unreadable
    d = decode_move(g.state.board, seen, g.dist, last[1].placement if last else None, sk.lexicon, sk.cfg,
                    glimpsed, doubts)
    if unreadable and (isinstance(d.change, Unclear) or unreadable & squares_of(d.change)):
        # a play the camera could not read waits for a person: the play beside it is read without it
        beside = decode_move(g.state.board, seen, g.dist, last[1].placement if last else None, sk.lexicon,
                             sk.cfg, glimpsed, doubts, left_out=unreadable)
        if squares_of(beside.change) and guessed(beside.change, sk.cfg) is None and \
                not (isinstance(beside.change, ProposedSequence) and unlikely(list(beside.change.plays), g.dist, sk.cfg)):
            d = beside
    why = guessed(d.change, sk.cfg)
    if why is not None:
        # never a guess committed: the suspect is an earlier entry (the last play decided again),
        # else the play is held and read again (hold.py)
        redone = redecide(sk, seen, player, pressed, agreed=pressed)
        if redone is not None:
            settle(sk, seen, ended=True)
            return redone
        added = correct(sk, d.misreads) if d.misreads else []
        if d.withdraw_first:   # the tiles that left the board are no guess
            try:
                added.append(sk.append(sk.game.withdraw(last[1].player)))
            except GameError:
                pass
        obs = hold(sk, d, why)
        return Observation(tuple(added), obs.status, obs.detail)
    held = sk.holding.guess
    settle(sk, seen, ended=not isinstance(d.change, Unclear))
    # more plays than one turn's from a snapshot: a join (at a clock press, once a game is recorded,
    # only when more tiles are new than a rack holds: a press ends one turn, and ScrabScrap's
    # game08 gave JUS misread as two plays, OD and US; a photo taken every few moves shows more)
    if isinstance(d.change, Unclear) and (not (pressed and len(g.state.board)) or beyond_a_turn(sk, seen)):
        joined = join(sk, seen, player, pressed)
        if joined is not None:
            return refused_again(sk, held, joined) if joined.status == "unclear" else joined
    if isinstance(d.change, Unclear) or extends_last_play(sk, d):
        redone = redecide(sk, seen, player, pressed, agreed=not isinstance(d.change, Unclear) or pressed)
        if redone is not None:
            return redone
    if not isinstance(d.change, Unclear):
        sk.redeciding.forget()
        sk.deciding.beyond(frozenset())
        # what is still new and fits no play stays in doubt; what was committed or went is not
        sk.deciding.doubt((sk.deciding.doubts & frozenset(d.doubtful)) | (
            frozenset(d.doubtful) if isinstance(d.change, (ProposedPlay, ProposedSequence)) else frozenset()))
    added: list[LogEntry] = []
    if d.misreads:
        added += correct(sk, d.misreads)
    change = d.change
    # what each reader alone named on a play's tiles goes with it: the table learns from it (scoring.trust)
    if isinstance(change, ProposedPlay):
        change = change.named(seen)
    elif isinstance(change, ProposedSequence):
        change = replace(change, plays=tuple(p.named(seen) for p in change.plays))
    try:
        if d.withdraw_first and not isinstance(change, (Unclear, NoChange)):
            added.append(sk.append(sk.game.withdraw(last[1].player)))
        who = g.state.on_turn if player is None else player
        if isinstance(change, ProposedPlay):
            if g.state.ended:
                return Observation(tuple(added), "unclear", "tiles added after the game ended")
            added += rack_exchanges(sk, change, player)
            ev, = credit(sk, [change], player, pressed)
            added.append(ev)
            return Observation(tuple(added), "play", " ".join(ev.words))
        if isinstance(change, ProposedSequence):
            # A missed snapshot: both plays, in turn order, a catch-up like the join's: recorded
            # only when a rack could make each (else flagged, scoring.join.unlikely), and each
            # under review (the split between them is inferred)
            why = unlikely(list(change.plays), g.dist, sk.cfg)
            if why is not None:
                sk.joins.refuse(t.square for p in change.plays for t in p.placement.tiles)
                return refused_again(sk, held, Observation(tuple(added), "unclear", f"the board's change fits no "
                                                                                   f"plays a rack could make ({why})"))
            added += rack_exchanges(sk, change.plays[0], player)
            plays = credit(sk, list(change.plays), player, pressed, review=True)
            added += plays
            return Observation(tuple(added), "play", " / ".join(" ".join(ev.words) for ev in plays))
        if isinstance(change, ProposedWithdrawal):
            ev = sk.game.withdraw(last[1].player)
            added.append(sk.append(ev))
            return Observation(tuple(added), "withdrawn", f"{' '.join(last[1].words)} taken off the board")
        if isinstance(change, Unclear):
            return Observation(tuple(added), "unclear", change.reason)
        if pressed and not g.state.ended:
            if ends_open_play(sk, player):
                # The press of the player whose play went down before it: their turn ends, no pass.
                sk.turns.ended()
                return Observation(tuple(added), "corrected" if added else "no_change",
                                   "the clock press ends the turn of the play before it")
            again = recredit(sk, player)
            if again is not None:
                added.append(again)
                sk.turns.ended()
                return Observation(tuple(added), "corrected", again.reason)
            # Nothing changed at a clock press: a pass (the operator can mark an exchange), or,
            # when the player's rack camera saw their rack change, an exchange.
            added.append(sk.append(no_tiles(sk, who)))
            sk.turns.entered(len(sk.entries) - 1)
            sk.turns.ended()
            return Observation(tuple(added), "pass")
    except (GameError, PlacementError) as exc:
        return Observation(tuple(added), "unclear", str(exc))
    return Observation(tuple(added), "corrected" if added else "no_change")


def beyond_a_turn(sk: KeeperState, seen: Snapshot) -> bool:
    """More new tiles on the board than a rack holds (more than one turn went by), seen at two
    presses in a row (a hand over the board at one photo, print read as tiles, come and go; plays
    stay), on a board that shows the record: a tenth or more of the committed tiles read empty or
    as other tiles is a grid placed wrong (a hand-held phone's photo: the last rows slipped by a
    square), not plays."""
    board = sk.game.state.board
    tiles = occupied(seen, sk.cfg.tile_min_prob)
    new = frozenset(new_squares(sk, seen, board))
    best = seen.best()
    off = sum(1 for sq, tile in board.items()
              if not tiles[sq.row, sq.col] or seen.classes[best[sq.row, sq.col]] != (BLANK_TILE if tile.blank else tile.letter))
    rack = sk.game.dist.rack_size
    now = new if len(new) > rack and off * 10 < len(board) else frozenset()
    before = sk.deciding.beyond(now)
    return len(now & before) > rack
