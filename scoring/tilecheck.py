"""The tile check: the rules' practice before a game is to lay all tiles face up on the board (four
5x5 blocks in the corners, or any arrangement) and count them. It is calibration, never a play.

One pure rule, `tile_check`, says what a snapshot before the first play is:

* "check": more tiles face up than any first play can lay. The largest legal first play is a
  rack's 7 tiles; `min_tiles` (16) leaves room for a few squares misread on top of that, and a
  check shows about 100 tiles. Once a check has been seen, the board stays "check" while it is
  being put away (tiles left, none on the centre square, where every first play lies);
* "cleared": after a check, the board holds no more than `cleared_max` stray squares: the check
  is over and the game starts (this clear board is the empty-board reference);
* None: none of this (a game under way, an empty board, or a first play): the decoder decides.

A game under way is never a check, however many tiles it shows (`under_way`): a tile on the centre
square and most tiles in one connected group with it (the others misread squares), as every game's
tiles lie and no check's do (its blocks stand in the corners, apart). Else a first snapshot that
came late (30 tiles across the centre, nothing committed) would be taken for the check and the game
never start (issue 27).

Before the first play the board is empty: squares read as tiles apart from a first play's group
through the centre, no two side by side, are print (`printed`: premium labels, the centre star),
empty from then on; they never hold the first play up nor make the game look lost (issue 27: a
labelled board's empty squares gave 17 snapshots "new tiles are not in one line").

A first play seen on the centre (fewer tiles than a check, one on the centre square, where every
first play lies) starts the game even when the decoder cannot read it yet (`first_play_down`):
after it, more tiles are more plays, never a check. Else a first play misread until the next
plays were down would make 16 tiles "the check", and the game would never be recorded (a
rendered vintage game: its first three plays unclear, then 20 tiles taken for a check).

The counts come from the snapshot's occupancy (`scoring.snapshot.occupied`) at `tile_prob`, a
stricter threshold than a new tile's, so print on an empty board read as doubtful tiles does not
make a check.
"""
from __future__ import annotations

import numpy as np
from pydantic import BaseModel, ConfigDict, Field

from .snapshot import Snapshot, occupied

__all__ = ["TileCheckConfig", "first_play_down", "printed", "tile_check", "under_way"]

RACK = 7  # the most tiles one play can lay


class TileCheckConfig(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    min_tiles: int = Field(2 * RACK + 2, ge=RACK + 1,
                           description="at least this many tiles face up before the first play is the tile check "
                                       "(a first play lays at most 7)")
    tile_prob: float = Field(0.8, gt=0.0, lt=1.0, description="P(tile) above which a square counts as a check's tile")
    cleared_max: int = Field(2, ge=0, description="after a check, the board counts as cleared with at most this "
                                                  "many squares read as tiles (misreads)")


def tile_check(seen: Snapshot, committed: int, centre: tuple[int, int], in_check: bool,
               cfg: TileCheckConfig | None = None, play_down: bool = False) -> str | None:
    """What a snapshot is with respect to the tile check: "check", "cleared" or None (see the module).
    `committed`: tiles on the game's board (a check happens only before the first play); `in_check`:
    the last snapshot was a check; `play_down`: a first play was seen (`first_play_down`)."""
    cfg = cfg or TileCheckConfig()
    if committed or play_down:
        return None
    tiles = occupied(seen, cfg.tile_prob)
    n = int(tiles.sum())
    if under_way(tiles, centre, cfg):
        return None
    if n >= cfg.min_tiles:
        return "check"
    if not in_check:
        return None
    if tiles[centre]:
        # a tile on the centre: the first play is down (the cleared board was missed, or a square
        # of it misread); the decoder decides, and the game never waits on the check again
        return None
    return "cleared" if n <= cfg.cleared_max else "check"


def first_play_down(seen: Snapshot, centre: tuple[int, int], cfg: TileCheckConfig | None = None) -> bool:
    """A snapshot outside any check (`tile_check` said None) shows the first play down, read or
    not: a tile on the centre square, fewer tiles than a check."""
    cfg = cfg or TileCheckConfig()
    tiles = occupied(seen, cfg.tile_prob)
    return bool(tiles[centre]) and (int(tiles.sum()) < cfg.min_tiles or under_way(tiles, centre, cfg))


def under_way(tiles: np.ndarray, centre: tuple[int, int], cfg: TileCheckConfig | None = None) -> bool:
    """`tiles` (the squares read as tiles) are a game under way: one on the centre square in a group
    (side by side across or down) of two or more that holds most of them (or all but `cleared_max`);
    the rest are misread squares. A check's blocks stand in the corners: a square misread on the
    centre stands alone there."""
    cfg = cfg or TileCheckConfig()
    group = _group(tiles, centre)
    n = int(tiles.sum())
    return len(group) >= 2 and (n - len(group) <= cfg.cleared_max or 2 * len(group) > n)


def printed(tiles: np.ndarray, centre: tuple[int, int]) -> set[tuple[int, int]]:
    """Before the first play: the squares read as tiles (`tiles`) that are print on the empty board
    (premium labels, legends, the centre star), to be taken as empty from then on. A first play lies
    in one group of two or more tiles through the centre; whatever lies outside that group is print
    when no two of those squares are side by side (labels stand on premium squares, apart). Else
    (side by side: tiles, not print) nothing is."""
    group = _group(tiles, centre)
    if len(group) < 2:
        group = set()
    rest = {(int(r), int(c)) for r, c in np.argwhere(tiles)} - group
    if any((r + 1, c) in rest or (r, c + 1) in rest for r, c in rest):
        return set()
    return rest


def _group(tiles: np.ndarray, centre: tuple[int, int]) -> set[tuple[int, int]]:
    """The squares side by side (across or down) with the centre's tile; empty without one."""
    if not tiles[centre]:
        return set()
    group, todo = {centre}, [centre]
    rows, cols = tiles.shape
    while todo:
        r, c = todo.pop()
        for q in ((r + 1, c), (r - 1, c), (r, c + 1), (r, c - 1)):
            if 0 <= q[0] < rows and 0 <= q[1] < cols and tiles[q] and q not in group:
                group.add(q)
                todo.append(q)
    return group
