"""Holding a guess (issue 44): the camera never builds on a play it could not read. A play whose
letters the unseen pool cannot supply (decode's `from_pool`: the suspect is an earlier entry, a
misread or a withdrawal missed, not the read) or read under `[decode] hold_below` is not committed:
the last play is decided again first (redecide), else the play is held and re-read on the next
snapshots (the belief grows with every frame). Still a guess after `hold_snapshots` reads, it is
flagged as a play the camera could not read (`unread`: the lost-game watch's `unread` alert), no
tiles committed; later snapshots are decoded against the board as last committed, without it,
until a snapshot reads it or a person enters it."""
from __future__ import annotations

from ..board import Square
from ..decode import DecodeConfig, Decoded, ProposedPlay, ProposedSequence
from ..snapshot import Snapshot, occupied
from .outcome import Observation
from .state import KeeperState


class Holding:
    """hold.py's part of the scorekeeper, changed only through these methods (by hold.py's
    functions): the play read as a guess, its squares and how many snapshots have read it so
    (`guess`); and the squares of plays flagged as unread (no tiles committed), left out of later
    decodes (`unreadable`)."""

    def __init__(self) -> None:
        self._guess: tuple[frozenset[Square], int] = (frozenset(), 0)
        self._unreadable: frozenset[Square] = frozenset()

    @property
    def guess(self) -> tuple[frozenset[Square], int]:
        return self._guess

    @property
    def unreadable(self) -> frozenset[Square]:
        return self._unreadable

    def read(self, squares: frozenset[Square], n: int) -> None:
        """The guess at `squares` read so for the `n`-th snapshot."""
        self._guess = (squares, n)

    def flag(self, squares: frozenset[Square]) -> None:
        """The guess at `squares` is a play the camera could not read."""
        self._unreadable = self._unreadable | squares

    def settle(self, ended: bool, unread: frozenset[Square]) -> None:
        """The hold ended (`ended`); `unread` the flagged squares still unread."""
        if ended:
            self._guess = (frozenset(), 0)
        self._unreadable = unread


def _plays(change) -> list[ProposedPlay]:
    return [change] if isinstance(change, ProposedPlay) else \
        list(change.plays) if isinstance(change, ProposedSequence) else []


def guessed(change, cfg: DecodeConfig) -> str | None:
    """Why the play `change` is a guess no tile of which may be committed, or None. Two plays from
    one snapshot are a catch-up, refused as one (scoring.join.unlikely, at `join_min_certainty`)."""
    if isinstance(change, ProposedPlay):
        p = change
        word = "".join(t.letter for t in p.placement.tiles)
        if p.from_pool:
            return f"{word}: no letter read is one the unseen tiles can supply (an earlier entry may be wrong)"
        if p.certainty < cfg.hold_below:
            return f"{word}: read with certainty {p.certainty:.2f}, under {cfg.hold_below:.2f}"
    return None


def squares_of(change) -> frozenset[Square]:
    return frozenset(t.square for p in _plays(change) for t in p.placement.tiles)


def hold(sk: KeeperState, d: Decoded, why: str) -> Observation:
    """The guess `d.change` held, not committed: re-read while its squares come back, flagged as
    unread at the `hold_snapshots`-th read."""
    squares = squares_of(d.change)
    held, n = sk.holding.guess
    n = n + 1 if held & squares else 1
    sk.holding.read(squares, n)
    if n < sk.cfg.hold_snapshots:
        return Observation((), "unclear", f"held, not committed ({why}): read again on the next snapshots "
                                          f"({n} of {sk.cfg.hold_snapshots})")
    sk.holding.flag(squares)
    return Observation((), "unclear", f"the camera could not read this play ({why}): no tiles committed; "
                                      "it waits for a person or a snapshot that reads it")


def refused_again(sk: KeeperState, held: tuple[frozenset[Square], int], obs: Observation) -> Observation:
    """A catch-up refused (`sk.joins.refused`: the new tiles of plays no rack could make) holding the held
    play's squares, still new: that is one more read of the held play, not a decision. Before, the
    catch-up's decoding ended the hold, so a held play with a later play beside it was held afresh,
    never flagged unread, and every later snapshot was refused with it: the game stopped at the
    guess (issue 44: a dark board's BAT read UYT, and the 6 plays after it)."""
    squares, n = held
    if not squares or not squares <= sk.joins.refused:
        return obs
    n += 1
    sk.holding.read(squares, n)
    if n < sk.cfg.hold_snapshots:
        return obs
    sk.holding.flag(squares)
    return Observation(obs.entries, obs.status, f"{obs.detail}; the camera could not read the play held at "
                                                 f"{len(squares)} squares: no tiles committed; it waits for a person "
                                                 "or a snapshot that reads it")


def settle(sk: KeeperState, seen: Snapshot, ended: bool) -> None:
    """A decision that held nothing: the hold ends when it decided something (`ended`: not a
    snapshot it could not decode at all, a hand's edge); an unread square committed since, or read
    empty now, is unread no more."""
    sk.holding.settle(ended, frozenset(unread(sk, seen)))


def unread(sk: KeeperState, seen: Snapshot | None = None) -> list[Square]:
    """The squares of plays flagged as unread that still hold a tile no committed play explains."""
    unreadable = sk.holding.unreadable
    if not unreadable:
        return []
    seen = seen if seen is not None else sk.fusing.belief.posterior() if sk.fusing.belief is not None else None
    if seen is None:
        return []
    tiles = occupied(seen, sk.cfg.tile_min_prob)
    board = sk.game.state.board
    return sorted(sq for sq in unreadable if sq not in board and bool(tiles[sq.row, sq.col]))


__all__ = ["Holding", "guessed", "hold", "refused_again", "settle", "squares_of", "unread"]
