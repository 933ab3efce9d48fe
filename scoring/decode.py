"""Move decoding: diff a stable snapshot against the committed board and propose what happened.

New tiles in one line -> a play (scored by the engine). The last play's tiles gone -> a
phony withdrawn. Nothing changed -> nothing (at a clock press, a pass or an exchange:
the recorder decides). A different letter read under a committed tile -> a misread to
correct, never a move. The lexicon is a soft prior for misreads and never a filter:
phonies stand until challenged.
"""
from __future__ import annotations

import heapq
import math
from collections import Counter
from dataclasses import dataclass, field, replace

import numpy as np
from pydantic import BaseModel, ConfigDict, Field

from .board import Board, Direction, Square
from .lexicon import Lexicon, infer_blanks
from .placement import PlacedTile, Placement, PlacementError, score_placement, validate_placement
from .snapshot import BLANK_TILE, EMPTY, Snapshot, occupied
from .tally import unseen
from .tiles import Distribution

__all__ = ["DecodeConfig", "decode_move", "Decoded", "NoChange", "ProposedPlay", "ProposedSequence", "ProposedWithdrawal",
           "RunnerUp", "Unclear", "Misread"]


class DecodeConfig(BaseModel):
    model_config = ConfigDict(extra="forbid")

    tile_min_prob: float = Field(0.5, description="P(tile) above which an empty square counts as newly covered")
    empty_min_prob: float = Field(0.8, description="P(empty) above which a committed square counts as cleared")
    misread_min_prob: float = Field(0.9, description="P(other letter) needed to revise a committed tile's letter")
    runner_up_ratio: float = Field(0.2, description="a letter this fraction as likely as the best is considered "
                                                    "when the lexicon can tell them apart")
    max_letter_choices: int = Field(3, description="letters considered per new square (the bag and the lexicon "
                                                   "choose among them)")
    max_combinations: int = Field(256, description="cap on letter combinations tried against the bag and the lexicon")
    runner_ups: int = Field(2, ge=0, le=10, description="readings kept beside the chosen one (for the operator's review)")
    review_below: float = Field(0.95, ge=0.0, le=1.0,
                                description="a play whose certainty (the probability that every new tile is "
                                            "right) is below this is marked for review; chosen on the dev sweep "
                                            "of tests/bench/bench_record.py (ScrabScrap dev games and rendered "
                                            "videos, e626607: 8% of plays flagged; docs/recording.md)")
    learn_table: bool = Field(True, description="trust is earned per table (scoring.trust): a camera play holding a "
                                                "tile no person has confirmed or corrected at this table yet (nor "
                                                "its tile check labelled) is marked for review, whatever its "
                                                "certainty, and so is one whose words run through a tile of an "
                                                "earlier play under review read in doubt (scoring.trust.built_on); "
                                                "off: certainty alone decides")
    learn_from_game: bool = Field(True, description="with learn_table: the game teaches the table too (scoring.trust): "
                                                    "a tile both readers named alike is trusted, and a letter so named "
                                                    "on earlier plays' tiles is learned; never the blank; off: only a "
                                                    "person's confirmation or the tile check teach")
    split_two_plays: bool = Field(True, description="new tiles in two lines may be two plays whose snapshot "
                                                    "between was missed (off when every frame is one move)")
    max_stray_squares: int = Field(2, description="new squares off the play's line that may be ignored as "
                                                  "misreads (a shadow, a tile's edge)")
    max_plays_at_once: int = Field(2, description="most plays taken from one snapshot when snapshots were "
                                                   "missed; more at once is a hand or a bag on the board")
    join_min_certainty: float = Field(0.5, ge=0.0, le=1.0, description=(
        "a catch-up (scoring.join: several plays from one snapshot) records its plays only when each is "
        "at least this certain, a rack could make it (no more tiles than a rack, letters the unseen pool "
        "holds) and it is legal; else the board is flagged as unexplained and no play recorded (issue 36)"))
    max_gap_fill: int = Field(2, description="empty-looking squares inside a play's line taken as tiles: a play "
                                             "has no gaps, and a plain blank tile is easily read as an empty square")
    hold_below: float = Field(0.2, ge=0.0, le=1.0, description=(
        "the floor under which the camera never commits a play (issue 44): a play read less surely than "
        "this, or whose letters the unseen pool cannot supply (ProposedPlay.from_pool: the suspect is an "
        "earlier entry), is held and re-read on the next snapshots, never a play the next ones are diffed "
        "against (scoring/scorekeeper/hold.py); chosen on the dev sets of tests/bench/bench_record.py "
        "(docs/results/record.json at aebd80d, record_e626607.json: the 4 and 2 plays under 0.2 all wrong, "
        "2 right plays under 0.3; docs/recording.md)"))
    hold_snapshots: int = Field(3, ge=1, le=100, description=(
        "snapshots a held play is read in (the first and the re-reads) before it is flagged as a play the "
        "camera could not read, no tiles committed (the lost-game watch's `unread` alert)"))


@dataclass(frozen=True)
class NoChange:
    kind = "no_change"


@dataclass(frozen=True)
class RunnerUp:
    """Another reading of the same new squares, with its probability (same terms as `certainty`)."""
    placement: Placement
    probability: float


@dataclass(frozen=True)
class ProposedPlay:
    placement: Placement
    confidence: float                 # probability of the least certain new tile's reading
    lexicon_changed: bool             # the lexicon picked a runner-up letter somewhere
    undesignated_blanks: tuple[Square, ...]  # blanks the lexicon left open: for the operator
    gap_filled: int = 0               # squares read empty but taken as tiles to close a gap
    # The probability that every new tile is right: over the new squares, P(a tile) x P(this letter),
    # renormalised over the readings the unseen pool (and the lexicon, when given) allows.
    certainty: float = 1.0
    runner_ups: tuple[RunnerUp, ...] = ()
    # None of the letters read is one the unseen tiles can supply (a misread here, or one committed
    # earlier): the readings are the pool's likeliest, renormalised over the letters it holds, and
    # the play goes for review whatever its certainty.
    from_pool: bool = False
    # per new tile, in placement order, the letters the classifier and the recogniser each named
    # alone ('' none; Snapshot.named_by): what the table learns from (scoring.trust)
    readers: tuple[tuple[str, str], ...] = ()
    kind = "play"

    def named(self, snap: Snapshot) -> "ProposedPlay":
        """This play with what each reader alone named on its tiles in `snap`."""
        return replace(self, readers=tuple(snap.named_by(t.square.row, t.square.col) for t in self.placement.tiles))


@dataclass(frozen=True)
class ProposedSequence:
    """Two plays seen at once (a snapshot was missed while hands stayed over the board):
    the only order in which both are legal."""

    plays: tuple[ProposedPlay, ...]
    kind = "sequence"


@dataclass(frozen=True)
class ProposedWithdrawal:
    squares: tuple[Square, ...]
    kind = "withdrawal"


@dataclass(frozen=True)
class Unclear:
    reason: str
    squares: tuple[Square, ...]
    kind = "unclear"


@dataclass(frozen=True)
class Misread:
    square: Square
    was: str
    now: str
    prob: float


@dataclass(frozen=True)
class Decoded:
    change: NoChange | ProposedPlay | ProposedSequence | ProposedWithdrawal | Unclear
    misreads: tuple[Misread, ...] = ()
    # The last play was taken back before `change` (a challenge with no snapshot of its own).
    withdraw_first: bool = False
    # New squares that fit no legal play beside `change` (a printed label read as a tile, a shadow):
    # doubts for later snapshots to resolve, never a reason to hold a play up.
    doubtful: tuple[Square, ...] = ()


def _letter_probs(snap: Snapshot, sq: Square) -> list[tuple[str, float]]:
    """Tile classes at a square, most likely first, renormalised without 'empty'."""
    p = snap.probs[sq.row, sq.col]
    pairs = [(c, float(p[i])) for i, c in enumerate(snap.classes) if c != EMPTY]
    total = sum(v for _, v in pairs) or 1.0
    return sorted(((c, v / total) for c, v in pairs), key=lambda cv: -cv[1])


def _direction(squares: list[Square], board: Board) -> Direction | None:
    rows = {s.row for s in squares}
    cols = {s.col for s in squares}
    if len(squares) > 1:
        if len(rows) == 1:
            return Direction.ACROSS
        if len(cols) == 1:
            return Direction.DOWN
        return None
    # One tile: the direction of the longer word it makes.
    sq = squares[0]

    def run(dr: int, dc: int) -> int:
        n, r, c = 0, sq.row + dr, sq.col + dc
        while board.layout.contains(Square(r, c)) and Square(r, c) in board:
            n, r, c = n + 1, r + dr, c + dc
        return n

    across = run(0, 1) + run(0, -1)
    down = run(1, 0) + run(-1, 0)
    return Direction.DOWN if down > across else Direction.ACROSS


def decode_move(board: Board, snap: Snapshot, dist: Distribution, last_play: Placement | None = None,
           lexicon: Lexicon | None = None, cfg: DecodeConfig | None = None,
           seen_first: frozenset[Square] = frozenset(), doubtful: frozenset[Square] = frozenset(),
           left_out: frozenset[Square] = frozenset()) -> Decoded:
    """`seen_first`: new squares already seen at an earlier, partly covered snapshot (a clock press
    with a hand on the board). When two plays show up at once, the line holding them went first.
    `doubtful`: new squares an earlier decision could not fit into any legal play (a printed label
    read as a tile). A square that fits no legal play never holds the game up: when the new squares
    do not make a play together, the play is decoded without the doubtful ones, then from the best
    subset of the new squares that makes one; the squares left out come back in `Decoded.doubtful`.
    `left_out`: new squares not decoded at all (a play the camera could not read, waiting for a
    person: the plays beside it are read without it)."""
    cfg = cfg or DecodeConfig()
    tile = occupied(snap, cfg.tile_min_prob)
    new = frozenset(Square(int(r), int(c)) for r, c in np.argwhere(tile)
                    if Square(int(r), int(c)) not in board) - left_out
    d = _decode(board, snap, dist, last_play, lexicon, cfg, seen_first, left_out)
    if not isinstance(d.change, Unclear):
        return _with_doubts(d, new)
    if doubtful & new:
        d2 = _decode(board, snap, dist, last_play, lexicon, cfg, seen_first, left_out | (doubtful & new))
        if not isinstance(d2.change, Unclear):
            return _with_doubts(d2, new)
    if new:
        best = _best_subset(board, sorted(new), snap, dist, lexicon, cfg)
        # a few squares left out are misreads; many are a hand or the bag on the board, unless no
        # two of them touch: print read as tiles (a vintage board's labels on the premium squares,
        # some beside the play), where a hand or the bag lies in one patch
        left = new - doubtful - {t.square for t in best.placement.tiles} if best is not None else new
        if best is not None and (len(left) <= cfg.max_stray_squares or _scattered(left)):
            return _with_doubts(Decoded(best, d.misreads, d.withdraw_first), new)
    if d.withdraw_first:
        # Every tile of the last play left the board and the new squares make no play (a glare read
        # as a tile elsewhere): the tiles that left are no guess. Held back for the new squares, the
        # withdrawal went unseen once the next play covered a square of the phony (held-out-b).
        return Decoded(ProposedWithdrawal(tuple(sorted(t.square for t in last_play.tiles))), d.misreads,
                       doubtful=tuple(sorted(new)))
    return Decoded(d.change, d.misreads, d.withdraw_first, tuple(sorted(new)))


def _scattered(left) -> bool:
    """No two squares of `left` lie side by side."""
    return not any(Square(sq.row + dr, sq.col + dc) in left for sq in left for dr, dc in ((0, 1), (1, 0)))


def _with_doubts(d: Decoded, new: frozenset[Square]) -> Decoded:
    """`d` with the new squares its change leaves out as doubts."""
    c = d.change
    plays = (c,) if isinstance(c, ProposedPlay) else c.plays if isinstance(c, ProposedSequence) else ()
    used = {t.square for p in plays for t in p.placement.tiles}
    return Decoded(c, d.misreads, d.withdraw_first, tuple(sorted(new - used)))


def _best_subset(board, new, snap, dist, lexicon, cfg) -> ProposedPlay | None:
    """The legal play from a subset of the new squares (a line, or a gap-free run of one) holding
    the most of them; among as many, the most certain."""
    found = []
    for line in _lines(new):
        direction = _direction(line, board)
        if direction is None:
            continue
        for part in [line] + (_runs(board, line, direction, cfg) if len(line) > 1 else []):
            p = _propose(board, part, _direction(part, board), snap, dist, lexicon, cfg)
            if isinstance(p, ProposedPlay):
                found.append(p)
    if not found:
        return None
    return max(found, key=lambda p: (len(p.placement.tiles) - p.gap_filled, p.certainty))


def _decode(board: Board, snap: Snapshot, dist: Distribution, last_play: Placement | None,
            lexicon: Lexicon | None, cfg: DecodeConfig, seen_first: frozenset[Square],
            ignore: frozenset[Square]) -> Decoded:
    """decode_move, with the new squares `ignore` left out."""
    empty_idx = snap.classes.index(EMPTY)
    p_empty = snap.probs[..., empty_idx]
    tile = occupied(snap, cfg.tile_min_prob)
    n = board.layout.size
    added, removed, misreads = [], [], []
    for r in range(n):
        for c in range(n):
            sq = Square(r, c)
            held = board[sq]
            if held is None:
                if tile[r, c] and sq not in ignore:
                    added.append(sq)
            elif p_empty[r, c] > cfg.empty_min_prob:
                removed.append(sq)
            else:
                best, prob = _letter_probs(snap, sq)[0]
                shown = BLANK_TILE if held.blank else held.letter
                if best != shown and prob >= cfg.misread_min_prob:
                    misreads.append(Misread(sq, shown, best, prob))
    misreads_t = tuple(misreads)
    if removed:
        last_squares = {t.square for t in last_play.tiles} if last_play is not None else set()
        # The last play taken back: every tile of it gone (some read surely empty, none still read
        # as a tile; a tile it was read with that never lay there reads neither)
        if last_squares and set(removed) <= last_squares and not any(tile[sq.row, sq.col] for sq in last_squares):
            if not added:
                return Decoded(ProposedWithdrawal(tuple(sorted(last_squares))), misreads_t)
            # The phony came off and the next play went down before a snapshot: decode the play
            # on the board without the phony.
            without = board.copy()
            for sq in last_squares:
                without.remove(sq)
            then = _decode(without, snap, dist, None, lexicon, cfg, seen_first, ignore)
            return Decoded(then.change, misreads_t, withdraw_first=True)
        if not added:
            return Decoded(Unclear("tiles disappeared that were not the last play", tuple(removed)), misreads_t)
        # Committed tiles do not leave the board but by a withdrawal: a square read empty now is
        # covered or misread, and must not hold up the new play.
    if not added:
        return Decoded(NoChange(), misreads_t)
    added.sort()
    direction = _direction(added, board)
    if direction is None:
        if seen_first and cfg.split_two_plays:
            plays = _seen_first(board, added, seen_first, snap, dist, lexicon, cfg)
            if plays is not None:
                return Decoded(ProposedSequence(plays), misreads_t)
        plays = _split_in_two(board, added, snap, dist, lexicon, cfg) if cfg.split_two_plays else None
        best = _main_line(board, added, snap, dist, lexicon, cfg)
        # Two real plays of two or more tiles each beat dropping squares as strays, unless the two
        # need more squares read empty taken as tiles than the one line leaves out; a lone square is
        # more often a misread (a shadow, a hand's edge) than a one-tile play.
        if plays is not None and all(len(p.placement.tiles) > 1 for p in plays):
            invented = sum(p.gap_filled for p in plays)
            dropped = math.inf if best is None else \
                len(added) - (len(best.placement.tiles) - best.gap_filled) + best.gap_filled
            if invented <= dropped:
                return Decoded(ProposedSequence(plays), misreads_t)
        if best is not None:
            return Decoded(best, misreads_t)
        if plays is not None:
            return Decoded(ProposedSequence(plays), misreads_t)
        if cfg.split_two_plays:
            peeled = _peel(board, added, snap, dist, lexicon, cfg)
            if peeled and len(peeled) == 1:
                return Decoded(peeled[0], misreads_t)
            if peeled:
                return Decoded(ProposedSequence(tuple(peeled)), misreads_t)
        return Decoded(Unclear("new tiles are not in one line", tuple(added)), misreads_t)
    proposed = _propose(board, added, direction, snap, dist, lexicon, cfg)
    if isinstance(proposed, Unclear) and len(added) > 1:
        proposed = _longest_run(board, added, direction, snap, dist, lexicon, cfg) or proposed
    return Decoded(proposed, misreads_t)


def _longest_run(board, added, direction, snap, dist, lexicon, cfg) -> ProposedPlay | None:
    """New squares in one line but with a wide gap (a shadow or a tile's edge read as a tile a few
    squares beyond the play): the longest gap-free run of them, if the squares left out are few."""
    runs = sorted(_runs(board, added, direction, cfg), key=len, reverse=True)
    if len(runs) < 2 or len(runs[0]) == len(runs[1]) or len(added) - len(runs[0]) > cfg.max_stray_squares:
        return None
    p = _propose(board, runs[0], _direction(runs[0], board), snap, dist, lexicon, cfg)
    return p if isinstance(p, ProposedPlay) else None


def _runs(board, added, direction, cfg) -> list[list[Square]]:
    """The new squares of one line split where more than `max_gap_fill` empty squares lie between."""
    dr, dc = direction.step
    runs, run = [], [added[0]]
    for prev, sq in zip(added, added[1:]):
        between = max(sq.row - prev.row, sq.col - prev.col) - 1
        empty = sum(1 for i in range(1, between + 1)
                    if Square(prev.row + dr * i, prev.col + dc * i) not in board)
        if empty > cfg.max_gap_fill:
            runs.append(run)
            run = []
        run.append(sq)
    runs.append(run)
    return runs


def _lines(squares) -> list[list[Square]]:
    """The squares grouped by row and by column (each group sorted; a lone square is in two)."""
    groups = {frozenset(sq for sq in squares if sq.row == r) for r in {q.row for q in squares}}
    groups |= {frozenset(sq for sq in squares if sq.col == c) for c in {q.col for q in squares}}
    return [sorted(g) for g in groups]


def _largest_lines(current: Board, remaining: frozenset[Square]):
    """decode's peel order: the lines of new squares (by row and by column), the longest first."""
    for line in sorted(_lines(remaining), key=lambda ln: (-len(ln), ln)):
        yield line, None, 0.0


def _peel(board, added, snap, dist, lexicon, cfg, lines=_largest_lines, max_plays: int | None = None,
          width: int = 1, strays: int = 0, stray_cost: float = 0.0, rest_cost=None,
          final_cost=None) -> list[ProposedPlay] | None:
    """Several plays at once (a hand stayed over the board for a few turns; a game joined under way):
    lay a legal line of new tiles down and go on with the rest. `lines(current, remaining)` yields the
    lines to try at a step, as (squares, direction or None for the longer word's, cost), in the order
    to try them; a line is legal when `_propose` makes a play of it. The `width` cheapest sequences
    (their steps' costs added, plus `rest_cost(n)` for the n squares still to lay; ties to the
    earlier line) are kept at each step, and the first legal line of each; width 1 is the greedy
    first fit. A sequence ends when no line is legal; it stands when at most `strays` squares are left
    (misreads, `stray_cost` each) and at most `max_plays` (default `cfg.max_plays_at_once`) plays
    were laid. The cheapest that stands, with `final_cost(plays)` added, wins; None when none does."""
    max_plays = cfg.max_plays_at_once if max_plays is None else max_plays
    rest_cost = rest_cost or (lambda n: 0.0)
    beam = [(0.0, board, frozenset(added), ())]
    done, seen = [], set()
    while beam:
        children = []
        for k, (cost, current, remaining, plays) in enumerate(beam):
            if remaining and len(plays) < max_plays:
                for j, (line, direction, step) in enumerate(lines(current, remaining)):
                    total = cost + step
                    children.append((total + rest_cost(len(remaining) - len(line)), k, j, total, line, direction))
            elif len(remaining) <= strays:
                done.append((cost, plays))
        children.sort(key=lambda ch: ch[:3])
        kept, laid = [], set()
        for _, k, _, total, line, direction in children:
            if len(kept) == width:
                break
            cost, current, remaining, plays = beam[k]
            split = frozenset([frozenset(line), *(frozenset(t.square for t in p.placement.tiles) for p in plays)])
            if split in seen:
                continue
            p = _propose(current, list(line), direction or _direction(list(line), current), snap, dist, lexicon,
                         cfg)
            if not isinstance(p, ProposedPlay):
                continue
            seen.add(split)
            laid.add(k)
            after = current.copy()
            for t in p.placement.tiles:
                after.put(t.square, t.tile)
            kept.append((total, after, remaining - {t.square for t in p.placement.tiles}, plays + (p,)))
        # a sequence no legal line continues ends here
        for k, (cost, current, remaining, plays) in enumerate(beam):
            if k not in laid and remaining and len(remaining) <= strays and plays:
                done.append((cost + stray_cost * len(remaining), plays))
        beam = kept
    done = [(cost + (final_cost(plays) if final_cost else 0.0), plays) for cost, plays in done if plays]
    if not done:
        return None
    return list(min(done, key=lambda d: d[0])[1])


def _main_line(board, added, snap, dist, lexicon, cfg) -> ProposedPlay | None:
    """The legal play on the line holding all but a few stray new squares (misread shadows)."""
    lines = [ln for ln in _lines(added) if len(added) - len(ln) <= cfg.max_stray_squares and len(ln) >= 2]
    found = []
    for ln in lines:
        p = _propose(board, sorted(ln), _direction(sorted(ln), board), snap, dist, lexicon, cfg)
        if isinstance(p, ProposedPlay):
            found.append((len(ln), p))
    found.sort(key=lambda item: -item[0])
    if found and (len(found) == 1 or found[0][0] > found[1][0]):
        return found[0][1]
    return None


def _propose(board: Board, added: list[Square], direction: Direction, snap: Snapshot, dist: Distribution,
             lexicon: Lexicon | None, cfg: DecodeConfig) -> ProposedPlay | Unclear:
    """One play from the new squares (already known to lie in one line)."""
    dr, dc = direction.step
    first, last = min(added), max(added)
    span = [Square(first.row + dr * i, first.col + dc * i)
            for i in range(max(last.row - first.row, last.col - first.col) + 1)]
    gaps = [sq for sq in span if sq not in board and sq not in added]
    read_new = list(added)
    if 0 < len(gaps) <= cfg.max_gap_fill:
        added = sorted(added + gaps)
    else:
        gaps = []
    choices = [_letter_probs(snap, sq) for sq in added]
    best = [ch[0] for ch in choices]
    placement = _placement(added, [c for c, _ in best], direction)
    try:
        validate_placement(board, placement, dist)
    except PlacementError as exc:
        return Unclear(str(exc), tuple(added))
    readings, lexicon_changed, from_pool = _readings(board, added, choices, direction, dist, lexicon, cfg)
    if not readings:
        return Unclear("the unseen tiles cannot supply any reading of these squares", tuple(added))
    p_empty = snap.probs[..., snap.classes.index(EMPTY)]
    # A filled gap holds a tile (a play has no gaps): its doubt is which tile (its letters read
    # without 'empty': an empty look is the blank's, a print square's its letter) and the line's (the
    # tiles beyond it being print or a shadow: their P(tile)), never its own P(tile). A reader cannot
    # tell a plain blank from an empty square on a look it was not shown (issue 44: SHElLING's blank
    # on white tiles, P(tile) 1e-16 between six tiles read at 0.99, made the play's certainty 0.00,
    # held as a guess, and the game's last plays were lost behind it).
    p_tiles = math.prod(1.0 - float(p_empty[sq.row, sq.col]) for sq in read_new)
    (placement, p_best), rest = readings[0], readings[1:]
    undesignated = tuple(t.square for t in placement.tiles if t.blank and t.letter == BLANK_TILE)
    if lexicon is not None and undesignated:
        found = infer_blanks(board, placement, dist, lexicon)
        if len(found) == 1:
            only = found[0]
            placement = Placement(tuple(PlacedTile(t.square, only.get(t.square, t.letter), t.blank)
                                        for t in placement.tiles), direction)
            undesignated = ()
    confidence = min(p for _, p in best)
    return ProposedPlay(placement, confidence, lexicon_changed, undesignated, len(gaps),
                        certainty=min(1.0, p_tiles * p_best),
                        runner_ups=tuple(RunnerUp(pl, min(1.0, p_tiles * p)) for pl, p in rest),
                        from_pool=from_pool)


def _in_order(board, first, added, snap, dist, lexicon, cfg) -> tuple[ProposedPlay, ProposedPlay] | None:
    """The new squares `first` as one play, then the rest of `added` as a second play on the board
    after it, if both are legal."""
    rest = sorted(set(added) - set(first))
    d1 = _direction(first, board)
    if not rest or d1 is None:
        return None
    p1 = _propose(board, first, d1, snap, dist, lexicon, cfg)
    if not isinstance(p1, ProposedPlay):
        return None
    after = board.copy()
    for t in p1.placement.tiles:
        after.put(t.square, t.tile)
    d2 = _direction(rest, after)
    p2 = _propose(after, rest, d2, snap, dist, lexicon, cfg) if d2 is not None else None
    return (p1, p2) if isinstance(p2, ProposedPlay) else None


def _seen_first(board, added, seen_first, snap, dist, lexicon, cfg) -> tuple[ProposedPlay, ProposedPlay] | None:
    """Two plays at once, ordered by what an earlier, partly covered snapshot saw: the line holding
    most of the squares seen then (and fewest not seen) went down first."""
    lines = [ln for ln in _lines(added) if seen_first & set(ln)]
    for first in sorted(lines, key=lambda ln: (-len(seen_first & set(ln)), len(set(ln) - seen_first), ln)):
        plays = _in_order(board, first, added, snap, dist, lexicon, cfg)
        if plays is not None:
            return plays
    return None


def _split_in_two(board, added, snap, dist, lexicon, cfg) -> tuple[ProposedPlay, ProposedPlay] | None:
    """New tiles in two lines: the two plays in the order that makes both legal, the likeliest when
    more than one does (a line through a square read empty, O?O across COW's O and TO's O, is
    legal but unlikely; two orders equally likely lay the same tiles, and either is under review)."""
    found = [plays for first in _lines(added)
             if (plays := _in_order(board, first, added, snap, dist, lexicon, cfg)) is not None]
    return max(found, key=lambda plays: plays[0].certainty * plays[1].certainty) if found else None


def _placement(squares: list[Square], labels: list[str], direction: Direction) -> Placement:
    return Placement(tuple(PlacedTile(sq, lab, lab == BLANK_TILE) for sq, lab in zip(squares, labels)),
                     direction)


def _fits_pool(labels, pool: Counter) -> bool:
    """The unseen pool can still supply these tiles (no third Z, no tenth A)."""
    return all(pool.get(tile, 0) >= n for tile, n in Counter(labels).items())


def _combinations(choices, cfg):
    """Letter combinations of the new squares, most probable first: (probability, labels, probs)."""
    options = [ch[: cfg.max_letter_choices] for ch in choices]
    logs = [[math.log(max(p, 1e-12)) for _, p in o] for o in options]
    start = (0,) * len(options)
    heap, seen = [(-sum(lg[0] for lg in logs), start)], {start}
    while heap and len(seen) <= cfg.max_combinations * 4:
        neg, idx = heapq.heappop(heap)
        yield math.exp(-neg), tuple(options[i][j][0] for i, j in enumerate(idx)), \
            tuple(options[i][j][1] for i, j in enumerate(idx))
        for i, j in enumerate(idx):
            if j + 1 < len(options[i]):
                nxt = idx[:i] + (j + 1,) + idx[i + 1:]
                if nxt not in seen:
                    seen.add(nxt)
                    heapq.heappush(heap, (neg + logs[i][j] - logs[i][j + 1], nxt))


def _readings(board, squares, choices, direction, dist, lexicon,
              cfg) -> tuple[list[tuple[Placement, float]], bool, bool]:
    """The chosen reading and its runner-ups, each with its probability renormalised over the
    readings allowed: letters the unseen pool can still supply and, with a lexicon, words it holds
    (a blank's letter free; a lexicon's letter only among those `runner_up_ratio` as likely as the
    best). When no reading makes only words of the lexicon, phonies stand: the pool alone decides.
    Returns ([(placement, probability)], whether the lexicon changed a letter, whether the pool
    alone chose: none of the letters read is one it can supply)."""
    pool = unseen(board, dist)
    tops = [ch[0][1] for ch in choices]
    want = 1 + cfg.runner_ups
    seen = []   # (probability, labels, pool_ok, lexicon_ok)
    n_pool = n_lex = 0
    for k, (p, labels, probs) in enumerate(_combinations(choices, cfg)):
        if k >= cfg.max_combinations:
            break
        pool_ok = _fits_pool(labels, pool)
        lex_ok = False
        if pool_ok and lexicon is not None and all(q >= cfg.runner_up_ratio * t for q, t in zip(probs, tops)):
            pl = _placement(squares, list(labels), direction)
            if labels.count(BLANK_TILE) == 0:
                words = score_placement(board, pl, dist, validate=False).words
                lex_ok = all(w.word in lexicon for w in words)
            elif labels.count(BLANK_TILE) == 1:
                lex_ok = bool(infer_blanks(board, pl, dist, lexicon))
        seen.append((p, labels, pool_ok, lex_ok))
        n_pool += pool_ok
        n_lex += lex_ok
        if (n_lex if lexicon is not None else n_pool) >= want:
            break
    key = 3 if n_lex else 2 if n_pool else None
    kept, rejected = [], 0.0
    for p, labels, *oks in seen:
        if key is None or oks[key - 2]:
            kept.append((p, labels))
            if len(kept) == want:
                break
        else:
            rejected += p
    z = max(1.0 - rejected, 1e-9)
    out = [(_placement(squares, list(labels), direction), p / z) for p, labels in kept]
    if key is None:
        # Nothing the pool can supply among the letters read (a misread here, or an earlier one
        # committed): never a play of more of a tile than the set has, but the likeliest readings
        # the pool can supply, in doubt (for review); none at all, and there is no play.
        return _pool_readings(squares, choices, direction, pool, want, cfg), False, True
    lexicon_changed = key == 3 and kept[0][1] != seen[0][1]
    return out, lexicon_changed, False


def _pool_readings(squares, choices, direction, pool: Counter, want: int, cfg) -> list[tuple[Placement, float]]:
    """Up to `want` readings of the squares from only the tiles the unseen pool holds, likeliest
    first, each with its probability renormalised per square over the letters the pool holds (its
    real certainty given the counts: a reading shown as 0.0 % tells the operator nothing; that it
    is a doubt is ProposedPlay.from_pool's to say)."""
    allowed = [[(c, p) for c, p in ch if pool.get(c, 0) > 0] for ch in choices]
    if not all(allowed):
        return []
    z = math.prod(max(sum(p for _, p in ch), 1e-12) for ch in allowed)
    out = []
    for k, (p, labels, _) in enumerate(_combinations(allowed, cfg)):
        if k >= cfg.max_combinations or len(out) == want:
            break
        if _fits_pool(labels, pool):
            out.append((_placement(squares, list(labels), direction), min(1.0, p / z)))
    return out
