"""Joining a game under way: the board as it stands, decoded into the plays that explain it.

A station started mid-game, a restart without the store, a first snapshot that came late, or
plays missed while the gate stood still: the snapshot shows more new tiles than one or two plays
lay. `explain` lays them down as a sequence of plays, each a legal play on the board the ones
before it left (one line, no gaps, connected; the first through the centre square), in the order
the board grows from the centre: at each step, of the lines of new tiles that touch the board
(maximal runs of tiles across or down), the one nearest the centre goes first, the longer first
among as near. The order and the split between plays are inferred, not seen (CAT then S+OME and
CATS then OME leave the same board), so the scorekeeper marks every play from here for review.
"""
from __future__ import annotations

from .board import Board, Direction, Square
from .decode import DecodeConfig, ProposedPlay, _propose
from .lexicon import Lexicon
from .snapshot import Snapshot
from .tiles import Distribution

__all__ = ["explain"]

HOOKS = frozenset("S")   # the tile a longer word across a line most often hooked onto it (a plural)


def _run(sq: Square, direction: Direction, held) -> list[Square]:
    """The maximal line of held squares through `sq` in `direction`."""
    dr, dc = direction.step
    r, c = sq.row, sq.col
    while held(Square(r - dr, c - dc)):
        r, c = r - dr, c - dc
    run = []
    while held(Square(r, c)):
        run.append(Square(r, c))
        r, c = r + dr, c + dc
    return run


def explain(board: Board, snap: Snapshot, dist: Distribution, squares, lexicon: Lexicon | None = None,
            cfg: DecodeConfig | None = None, max_plays: int = 60) -> list[ProposedPlay] | None:
    """The plays that lay the new `squares` on `board` (read from `snap`), in the order above; None
    when more than `cfg.max_stray_squares` of them fit no play (a hand, the bag: not a board)."""
    cfg = cfg or DecodeConfig()
    layout = board.layout
    current, remaining, plays = board.copy(), set(squares), []
    centre = layout.centre

    best = snap.best()

    def letter(sq: Square) -> str:
        return snap.classes[best[sq.row, sq.col]]

    def held(sq: Square) -> bool:
        return layout.contains(sq) and (sq in current or sq in remaining)

    def touches(line: list[Square]) -> bool:
        if not len(current):
            return centre in line
        return any(layout.contains(n) and n in current for sq in line
                   for n in (Square(sq.row + dr, sq.col + dc) for dr, dc in ((0, 1), (1, 0), (0, -1), (-1, 0))))

    while remaining and len(plays) < max_plays:
        candidates = {}
        for sq in remaining:
            for direction in (Direction.ACROSS, Direction.DOWN):
                run = _run(sq, direction, held)
                new = tuple(q for q in run if q in remaining)
                if len(run) < 2 or not new or (new, direction) in candidates or not touches(run):
                    continue
                near = min(abs(q.row - centre.row) + abs(q.col - centre.col) for q in run)
                # a new tile at the run's end that lies in a longer word across it is that word's hook
                # (TWEEPS: WEEP, then EGALITE and AERIALS each hooked a tile on): tried first without it
                hooks = {q for q in (run[0], run[-1]) if q in remaining and letter(q) in HOOKS
                         and len(_run(q, direction.cross, held)) > len(run)}
                own = tuple(q for q in new if q not in hooks)
                if own:
                    candidates.setdefault((own, direction), (-len(own), 0, near, own))
                candidates.setdefault((new, direction), (-len(own), 1, near, new))
        chosen = None
        for (new, direction), _ in sorted(candidates.items(), key=lambda kv: kv[1]):
            p = _propose(current, list(new), direction, snap, dist, lexicon, cfg)
            if isinstance(p, ProposedPlay) and not p.gap_filled:
                chosen = p
                break
        if chosen is None:
            break
        plays.append(chosen)
        for t in chosen.placement.tiles:
            current.put(t.square, t.tile)
            remaining.discard(t.square)
    if not plays or len(remaining) > cfg.max_stray_squares:
        return None
    return plays

