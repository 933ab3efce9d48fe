"""The last play decided again: later boards contradict the camera's last committed play (its new
tiles make no play on the board the record has, or a tile beside it in its line came with the
next play: it was read empty). The board as it stands is decoded without that play; when that
explains it, the play is corrected (a camera Correction, for review) and the plays after it are
credited as new ones."""
from __future__ import annotations

from dataclasses import replace

from ..board import Square
from ..decode import ProposedPlay, ProposedSequence, decode_move
from ..events import Correction, Doubt, LogEntry
from ..game import GameError, check_within_set
from ..join import explain
from ..placement import PlacementError
from ..snapshot import EMPTY, Snapshot
from .credit import credit, refuse
from .join_game import new_squares
from .outcome import Observation
from .state import KeeperState


class Redeciding:
    """redecide.py's part of the scorekeeper, changed only through these methods: a correction of
    the last play that one snapshot proposed; the next must propose the same before it is committed."""

    def __init__(self) -> None:
        self._proposed: tuple | None = None

    def forget(self) -> None:
        """Nothing proposed (a snapshot decided, or proposed no correction)."""
        self._proposed = None

    def agreed(self, key: tuple, agreed: bool) -> bool:
        """The correction `key` may be committed: `agreed`, or the snapshot before proposed it too.
        Else it is kept, for the next snapshot to say again."""
        if not agreed and self._proposed != key:
            self._proposed = key
            return False
        self._proposed = None
        return True


def extends_last_play(sk: KeeperState, d) -> bool:
    """New squares beside the last play, in its line, that came with another play (left out of
    it as doubts, or taken as a one-tile play of their own): a tile of the last play first read
    as empty (the commonest misread), which later boards show."""
    last = sk.last_play()
    if last is None:
        return False
    change = d.change
    lone = [p.placement.tiles[0].square for p in change.plays if len(p.placement.tiles) == 1] \
        if isinstance(change, ProposedSequence) else []
    extra = set(d.doubtful) | set(lone)
    squares = [t.square for t in last[1].placement.tiles]
    dr, dc = last[1].placement.direction.step
    first, end = min(squares), max(squares)
    return bool(extra & {Square(first.row - dr, first.col - dc), Square(end.row + dr, end.col + dc)})


def redecide(sk: KeeperState, seen: Snapshot, player: int | None, pressed: bool,
             agreed: bool = True) -> Observation | None:
    """The last play corrected from the board as it stands, or None. Only the camera's own play
    (one with a certainty), while nothing but its challenge came after it. Without `agreed` (an
    unclear video snapshot, retaken while the board stays still), two snapshots in a row must
    propose the same correction (a hand's edge is not evidence)."""
    g = sk.game
    last = sk.last_play()
    if last is None or g.state.ended:
        return None
    i, play = last
    if play.certainty is None or any(e.kind != "challenge_bonus" for e in g.events[i + 1:]):
        return None
    before = g.state.board.copy()
    for t in play.placement.tiles:
        before.remove(t.square)
    new = new_squares(sk, seen, before)
    d = decode_move(before, seen, g.dist, None, sk.lexicon, sk.cfg, frozenset(), sk.deciding.doubts)
    plays = [d.change] if isinstance(d.change, ProposedPlay) else \
        list(d.change.plays) if isinstance(d.change, ProposedSequence) else \
        explain(before, seen, g.dist, new, sk.lexicon, sk.cfg) or []
    if not plays:
        sk.redeciding.forget()
        return None
    plays = [p.named(seen) for p in plays]
    was = {t.square for t in play.placement.tiles}
    now = {t.square for p in plays for t in p.placement.tiles}
    p_empty = seen.probs[..., seen.classes.index(EMPTY)]
    kept = {sq for sq in was if p_empty[sq.row, sq.col] <= sk.cfg.empty_min_prob}
    # the corrected play is a reading of the same turn: it keeps the squares that still hold
    # tiles, and it is not the play as committed
    first = plays[0].placement
    if not kept <= now or not (was & {t.square for t in first.tiles}) or first == play.placement:
        sk.redeciding.forget()
        return None
    key = (i, tuple(sorted((t.square.row, t.square.col, t.tile) for t in first.tiles)))
    if not sk.redeciding.agreed(key, agreed):
        return None   # said once: the next snapshot must say it again
    fixed = replace(play, placement=first, certainty=round(plays[0].certainty, 4), review=True, runner_ups=(),
                    readers=plays[0].readers, doubts=play.doubted(Doubt.REREAD))
    entry = Correction(sk.log_index(i), fixed, by=sk.camera_name,
                       reason="later boards contradict this play: re-read from the board as it stands")
    sk.append(entry)
    before_game = g
    try:
        sk.rebuild()
        check_within_set(before_game.state.peak, sk.game.state.peak, before_game.dist, "this correction")
    except (GameError, PlacementError):
        sk.take_back([entry], before_game)
        return None
    added: list[LogEntry] = [entry]
    if len(plays) > 1:
        try:
            added = credit(sk, plays[1:], player, pressed, review=len(plays) > 2, done=added)
        except (GameError, PlacementError) as exc:
            return refuse(sk, added, new, exc)
    words = [" ".join(e.words) for e in added[1:]]
    sk.deciding.doubt(set(new) - now)
    return Observation(tuple(added), "play" if words else "corrected",
                       "camera correction: the last play re-read from the board as it stands"
                       + (": then " + " / ".join(words) if words else ""))
