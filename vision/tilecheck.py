"""The tile check as calibration: the tiles face up before the first play (scoring.tilecheck says
when a snapshot is one) are labelled by assignment against the tile distribution (the known counts
as capacities, the reader's probabilities as costs: ``vision.enroll.assign_tile_check``) and become
exemplars of the table's tile set (``vision.enroll.TableEnrollment``), so the game's first play is
already read with this set's own letters. The finished board of a game (every tile on the board
or on the racks) is the same problem with fewer tiles: the counts are upper bounds.
"""
from __future__ import annotations

from typing import Mapping

import numpy as np

from .enroll import EMPTY, TableEnrollment, assign_tile_check

__all__ = ["MIN_TILES", "learn_tile_check"]

MIN_TILES = 16  # fewer tiles than a check shows: the assignment has too little to balance (scoring.tilecheck)


def learn_tile_check(enrollment: TableEnrollment, warped: np.ndarray, read_probs: np.ndarray | None = None,
                     distribution: Mapping[str, int] | None = None, cost_probs: np.ndarray | None = None,
                     min_tiles: int = MIN_TILES) -> list[str] | None:
    """Teach `enrollment` the tile check in `warped` (the canonical grid image): every tile the
    assignment labels becomes an exemplar of its letter whatever the reading (the counts settle
    it), and the squares `read_probs` (225, K: the read's probabilities) read empty with the
    enrolment's confidence become exemplars of the empty square. `distribution`: tile -> count
    (default the reader's language); `cost_probs`: the probabilities the assignment costs come
    from (default the network's). Returns the 225 labels (image orientation), or None when fewer
    than `min_tiles` tiles were found, or no more than a check learnt before (nothing learnt)."""
    reader = enrollment.reader
    if distribution is None:
        distribution = {c: int(n) for c, n in zip(reader.classes, reader.caps) if c != EMPTY and n > 0}
    labels, *_ = assign_tile_check(reader, warped, distribution, enrollment.cfg, cost_probs)
    tiles = [i for i, lab in enumerate(labels) if lab != EMPTY]
    # the fullest arrangement teaches: the counts constrain the assignment most when every tile is
    # there, and a check half put away (its capacities scaled down) labels worse (rendered checks:
    # 45 of 50 right against 100 of 100)
    if len(tiles) < min_tiles or len(tiles) <= enrollment.check_tiles:
        return None
    enrollment.check_tiles = len(tiles)
    enrollment.add(warped, labels, read_probs, forced=tiles)
    return labels
