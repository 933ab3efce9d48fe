"""Joining a game under way: the board as it stands, decoded into the plays that explain it.

A station started mid-game, a restart without the store, a first snapshot that came late, or
plays missed while the gate stood still: the snapshot shows more new tiles than one or two plays
lay. `explain` lays them down as a sequence of plays, each a legal play on the board the ones
before it left (one line, no gaps, connected; the first through the centre square; no more new
tiles than a rack holds), with decode's peel (`decode._peel`): a search `JoinCosts.width` wide over
the lines of new tiles that touch the board, each the whole line of tiles through a square or that
line less new tiles at its ends that lie in lines across it (hooks a later play laid) or beyond a
committed tile. The cheapest sequence wins: the fewest plays, a one-tile play dearer, a play ending
in an S that lies in a line across it dearer (a plural hook is most often the later word's), every
square in a play; with a lexicon, the words a play formed that a later play extended must have been
words then. Ties go to the line with the fewest new tiles left at its ends, then the most new tiles,
then the nearest the centre. The order and the split are inferred, not seen (CAT then S+OME and
CATS then OME leave the same board), so the scorekeeper marks every play from here for review.
"""
from __future__ import annotations

from dataclasses import dataclass

from .board import Board, Direction, Square
from .decode import DecodeConfig, ProposedPlay, _peel, _propose
from .lexicon import Lexicon
from .snapshot import BLANK_TILE, Snapshot
from .tiles import Distribution

__all__ = ["JoinCosts", "explain", "unlikely"]

STEPS = ((0, 1), (1, 0), (0, -1), (-1, 0))
HOOKS = frozenset("S")   # the tile a longer word across a line most often hooked onto it (a plural)


@dataclass(frozen=True)
class JoinCosts:
    """What a sequence of plays costs (the cheapest explanation of the board wins). Chosen on the
    boards after 4-14 plays of the GCG games the bench does not render (tests/bench/bench_join.py)."""

    play: float = 1.0        # each play: the fewest plays that lay the board
    single: float = 2.0      # a play of one tile (rarer than a line across a board's hook)
    hook: float = 0.3        # a play ending in an S that lies in a line across it (most often a later
                             # word's plural hook: TWEEPS, WEEP then EGALITE and AERIALS hooked on)
    phony: float = 0.2       # each word a play forms that the lexicon lacks, unless the finished board
                             # holds it (phonies stand till challenged; a tournament's own list may hold
                             # words a given one lacks)
    stray: float = 4.0       # each new square left to no play (a misread): a play explains it first
    width: int = 8           # sequences kept at each step
    lines_per_step: int = 24  # lines a sequence tries at a step, the cheapest
    search_combinations: int = 16   # letter readings tried per play while searching (all, once found)
    budget: int = 20_000     # lines made in all: the search ends there (a real board of 99 tiles
                             # makes at most 6,507: tests/bench/bench_join.py; a solid 10x10 patch, more)
    tiles_per_play: float = 4.0   # the plays still to lay, guessed from the tiles left


def _runs(everything: set[Square]) -> dict[tuple[Square, Direction], list[Square]]:
    """The maximal line of squares of `everything` through each of them, across and down."""
    out = {}
    for sq in everything:
        for d in (Direction.ACROSS, Direction.DOWN):
            if (sq, d) in out:
                continue
            dr, dc = d.step
            r, c = sq
            while Square(r - dr, c - dc) in everything:
                r, c = r - dr, c - dc
            run = []
            while Square(r, c) in everything:
                run.append(Square(r, c))
                r, c = r + dr, c + dc
            for q in run:
                out[q, d] = run
    return out


def _lines(layout, everything: set[Square], letter, rack: int, lexicon: Lexicon | None, costs: JoinCosts):
    """The join's peel order: the lines a play can lay next, cheapest first."""
    runs = _runs(everything)
    centre = layout.centre
    # the words of the finished board, as (first square, direction, length)
    final = {(run[0], d, len(run)) for (_, d), run in runs.items() if len(run) > 1}

    spent = [0]   # the lines made so far, against costs.budget
    crossed = {(q, d): len(runs[q, d.cross]) > 1 for q in everything for d in (Direction.ACROSS, Direction.DOWN)}
    beside = {q: tuple(n for dr, dc in STEPS if (n := Square(q.row + dr, q.col + dc)) in everything)
              for q in everything}
    near = {q: abs(q.row - centre.row) + abs(q.col - centre.col) for q in everything}

    def lines(board: Board, remaining: frozenset[Square]):
        current = everything - remaining
        if spent[0] >= costs.budget:
            return   # a patch this dense is no board a game laid (a hand, the bag, a box lid)
        if current:
            frontier = sorted(sq for sq in remaining if any(n in current for n in beside[sq]))
        else:
            frontier = [centre] if centre in remaining else []
        found, tried = {}, set()
        for sq in frontier:
            for d in (Direction.ACROSS, Direction.DOWN):
                run = runs[sq, d]
                if len(run) < 2 or (run[0], d) in tried:
                    continue
                tried.add((run[0], d))
                # the play may leave new tiles at either end of the line to plays across it (hooks),
                # or to a play beyond a committed tile; any, when more lie in the line than a rack holds
                forced = sum(q in remaining for q in run) > rack
                starts, ends = [0], [len(run)]
                for k in range(1, len(run)):
                    if run[k - 1] not in remaining:
                        break
                    if forced or run[k] in current or all(crossed[q, d] for q in run[:k]):
                        starts.append(k)
                for k in range(len(run) - 1, 0, -1):
                    if run[k] not in remaining:
                        break
                    if forced or run[k - 1] in current or all(crossed[q, d] for q in run[k:]):
                        ends.append(k)
                counts = [0]
                for q in run:
                    counts.append(counts[-1] + (q in remaining))
                for a in starts:
                    for b in ends:
                        if not 0 < counts[b] - counts[a] <= rack:
                            continue
                        sub = run[a:b]
                        new = tuple(q for q in sub if q in remaining)
                        if not current:
                            if centre not in sub or len(new) < 2:
                                continue
                        elif len(new) == len(sub) and not any(n in current for q in new for n in beside[q]):
                            continue
                        key = (new, d if len(new) > 1 else None)
                        if key in found:
                            continue
                        last = sub[-1]
                        cost = costs.play + (costs.single if len(new) == 1 else 0.0)
                        if last in remaining and letter(last) in HOOKS and crossed[last, d]:
                            cost += costs.hook
                        found[key] = (cost, len(run) - len(sub), -len(new), min(near[q] for q in new), new)
        spent[0] += len(found)
        # a sequence keeps at most `width` of them: the cheapest few are enough to try
        for (new, d), (cost, *_) in sorted(found.items(), key=lambda kv: kv[1])[:costs.lines_per_step]:
            yield list(new), d, cost

    def phonies(board: Board, plays) -> float:
        """The words a sequence of plays forms that the lexicon lacks, but those the finished board
        holds: a word a later play extends must have been a word when it was laid."""
        if lexicon is None:
            return 0.0
        current, bad = board.copy(), 0
        for p in plays:
            for t in p.placement.tiles:
                current.put(t.square, t.tile)
            new = [t.square for t in p.placement.tiles]
            d = p.placement.direction
            for q, dd in [(new[0], d), *((q, d.cross) for q in new)] if len(new) > 1 else \
                    [(new[0], d), (new[0], d.cross)]:
                dr, dc = dd.step
                r, c = q
                while Square(r - dr, c - dc) in current:
                    r, c = r - dr, c - dc
                first, word = Square(r, c), []
                while Square(r, c) in current:
                    t = current[Square(r, c)]
                    word.append(BLANK_TILE if t.blank else t.letter)
                    r, c = r + dr, c + dc
                text = "".join(word)
                if len(word) > 1 and (first, dd, len(word)) not in final and BLANK_TILE not in text \
                        and text not in lexicon:
                    bad += 1
        return costs.phony * bad

    return lines, phonies


def explain(board: Board, snap: Snapshot, dist: Distribution, squares, lexicon: Lexicon | None = None,
            cfg: DecodeConfig | None = None, max_plays: int = 60,
            costs: JoinCosts = JoinCosts()) -> list[ProposedPlay] | None:
    """The plays that lay the new `squares` on `board` (read from `snap`): the cheapest sequence
    (`JoinCosts`) of the `costs.width`-wide search; None when more than `cfg.max_stray_squares` of
    them fit no play (a hand, the bag: not a board)."""
    cfg = cfg or DecodeConfig()
    best = snap.best()

    def letter(sq: Square) -> str:
        return snap.classes[best[sq.row, sq.col]]

    everything = {sq for sq, _ in board.items()} | {sq for sq in squares if board.layout.contains(sq)}
    if len(everything) > dist.total + cfg.max_stray_squares:
        return None   # more tiles than the set holds: not a board
    lines, phonies = _lines(board.layout, everything, letter, dist.rack_size, lexicon, costs)
    # the search reads the letters without the lexicon and with few combinations of them (readings are
    # the costly part, most of all where the unseen pool runs short); the plays found are read again
    # with both, once each
    quick = cfg.model_copy(update={"max_combinations": min(cfg.max_combinations, costs.search_combinations)})
    plays = _peel(board, [sq for sq in squares if board.layout.contains(sq)], snap, dist, None, quick, lines,
                  max_plays=max_plays, width=costs.width, strays=cfg.max_stray_squares, stray_cost=costs.stray,
                  rest_cost=lambda n: costs.play * n / costs.tiles_per_play,
                  final_cost=lambda plays: phonies(board, plays))
    if not plays:
        return plays
    current, out = board.copy(), []
    for p in plays:
        again = _propose(current, [t.square for t in p.placement.tiles], p.placement.direction, snap, dist,
                         lexicon, cfg)
        out.append(again if isinstance(again, ProposedPlay) else p)
        for t in out[-1].placement.tiles:
            current.put(t.square, t.tile)
    return out


def unlikely(plays: list[ProposedPlay], dist: Distribution, cfg: DecodeConfig | None = None) -> str | None:
    """Why the plays `explain` found are no catch-up a game could have made, or None when each is one a
    rack could make: no more new tiles than a rack holds, letters the unseen pool still held (the
    reading was not forced onto the pool: ProposedPlay.from_pool) and a certainty of at least
    `cfg.join_min_certainty`. Legality is the game's to check as they go down. A board no such
    sequence explains is flagged, never recorded as plays that never happened (issue 36)."""
    cfg = cfg or DecodeConfig()
    for p in plays:
        word = "".join(t.letter for t in p.placement.tiles)
        if len(p.placement.tiles) > dist.rack_size:
            return f"{word}: {len(p.placement.tiles)} new tiles, more than a rack holds"
        if p.from_pool:
            return f"{word}: letters the unseen tiles cannot supply"
        if p.certainty < cfg.join_min_certainty:
            return f"{word}: read with certainty {p.certainty:.2f}, under {cfg.join_min_certainty:.2f}"
    return None
