"""Committed tiles read again: a tile the belief reads differently over more frames (decode_move's
misreads), or one the game's tile set re-reads under the bag's counts (retile). Each play they
belong to is amended by a camera Correction (never by rewriting the log); a reading that breaks
the game (more of a tile than the set has) is left to the operator."""
from __future__ import annotations

from dataclasses import dataclass, replace

from ..board import Square
from ..events import Correction, Doubt, LogEntry, Play
from ..game import Game, GameError, check_within_set
from ..gcg.notation import placement_from_gcg, play_notation
from ..placement import PlacedTile, Placement, PlacementError, tile_changes
from ..snapshot import BLANK_TILE
from .state import KeeperState


@dataclass(frozen=True)
class _Retiled:
    """A committed tile the game's tile set reads as another (retile), as a misread."""

    square: Square
    now: str


def correct(sk: KeeperState, misreads, review: bool = False,
            reason: str = "the tiles read differently over more frames") -> list[LogEntry]:
    """Amend the play that put each misread tile down (`review`: the amended play goes on the
    review queue)."""
    fixes: dict[int, dict[Square, str]] = {}
    for m in misreads:
        for i, ev in enumerate(sk.game.events):
            if isinstance(ev, Play) and any(t.square == m.square for t in ev.placement.tiles):
                fixes.setdefault(i, {})[m.square] = m.now
    out = []
    for i, letters in sorted(fixes.items()):
        play = sk.game.events[i]
        # the tile read now is the tile: a letter read on a blank makes it that letter's tile (kept
        # a blank, it still shows '?' and the same correction came again at every snapshot)
        tiles = tuple(PlacedTile(t.square, letters[t.square], letters[t.square] == BLANK_TILE)
                      if t.square in letters else t for t in play.placement.tiles)
        placement = Placement(tiles, play.placement.direction)
        unlearned = sk.untrusted(placement, play.readers)
        fixed = replace(play, placement=placement, review=play.review or review or unlearned,
                        doubts=play.doubted(Doubt.TILE_COUNTS if review else None,
                                            Doubt.UNLEARNED if unlearned else None),
                        **reread(sk, i, play, placement))
        entry = Correction(sk.log_index(i), fixed, by=sk.camera_name, reason=reason)
        out.append(sk.append(entry))
    before = sk.game
    try:
        sk.rebuild()
        # nor a reading of more of a tile than the set has (a third V read under an E)
        check_within_set(before.state.peak, sk.game.state.peak, before.dist, "this correction")
    except (GameError, PlacementError):
        # The amended reading breaks the game: keep what stood and leave it to the operator.
        sk.take_back(out, before)
        return []
    return out


def reread(sk: KeeperState, i: int, play: Play, placement: Placement) -> dict:
    """How the camera read play `i` once a correction of its own reads it as `placement`: when
    that is one of its runner-ups, the runner-up's probability is the play's certainty, and the
    reading it replaces a runner-up with its own (the console never offers the reading on air
    back, nor shows the old reading's certainty for the new one). {} when it is none of them."""
    if play.certainty is None or not play.runner_ups:
        return {}
    before = Game(sk.game.profile, sk.game.dist, sk.game.layout, sk.game.players,
                  sk.game.events[:i], within_set=False)
    for k, (pos, word, p) in enumerate(play.runner_ups):
        try:
            same = not tile_changes(placement_from_gcg(before, pos, word), placement)
        except (PlacementError, ValueError, KeyError):
            continue
        if same:
            _, was_pos, was_word = play_notation(play, before)
            rest = play.runner_ups[:k] + play.runner_ups[k + 1:]
            return {"certainty": p, "runner_ups": ((was_pos, was_word, play.certainty),) + rest}
    return {}


def retile(sk: KeeperState, changes) -> list[LogEntry]:
    """The game's tile set re-read committed tiles (`changes`: {Square: tile}, '?' a blank; the
    reader found more of a tile read or recorded than the bag has, and which tiles the
    assignment under the counts reads as another): each play they belong to amended by a camera
    Correction on the review queue, never silently; those squares' belief starts afresh (its
    frames said what the counts contradict)."""
    if not changes:
        return []
    fixes = [_Retiled(sq, tile) for sq, tile in changes.items() if sk.game.state.board[sq] is not None]
    out = correct(sk, fixes, review=True, reason="the game's tile counts: more of a tile read than the "
                                                 "bag has")
    if out:
        sk.fusing.forget([f.square for f in fixes])
    return out
