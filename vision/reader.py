"""Reading the board at a snapshot: one interface, ``BoardReader``, that the recorder calls once
per snapshot and once after it (``learn``).

``read(image, located, board)`` warps the frame (``vision.rectify.warp_board``), reads every
square, turns the reading into game orientation by the one orientation rule
(``scoring.snapshot.board_turns``, with ``ReadConfig.min_orientation_share``), and decides what
lies over the board (a wide patch of unsure squares from the board's edge: occluded, ``covered``; the
squares away from unsure ones: clear).
``learn(board, corrected, ...)`` calibrates the reader to this table as the game goes: the
empty-board reference and the table's own tile set (docs/recording.md, step 6).

``TableReader`` implements it over ``vision.classify.TileReader``; a fused reader (issue 21) plugs
in behind the same two calls.
"""
from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Protocol, Sequence

import cv2
import numpy as np
from pydantic import BaseModel, ConfigDict, Field

from tilecam.scoring import EMPTY, Snapshot, board_turns

from .locator import Located
from .rectify import game_squares, image_corners, turn_corners, warp_board

__all__ = ["BoardReader", "BoardView", "ReaderConfig", "TableReader", "covered"]


class ReaderConfig(BaseModel):
    """The board reader at a snapshot: the warp size, what counts as covered, calibration to the table."""

    model_config = ConfigDict(extra="forbid")

    square_px: int = Field(40, description="pixels per square of the rectified board")
    min_square_conf: float = Field(0.45, description="a square read with less confidence counts as unsure")
    max_unsure_squares: int = Field(
        4, ge=1, description="something lies on the board (a hand at rest, an arm, a sleeve) when more unsure "
                             "squares than this form one patch that reaches the board's edge (an arm comes "
                             "from beyond it) and is two squares wide somewhere; the snapshot is then not "
                             "used. Unsure squares scattered over the board, or in a play's line, are the "
                             "decoder's doubts (a table the reader has not seen), never a reason to drop it")
    self_enroll: bool = Field(
        True, description="calibrate the reader to the table as the game goes: committed tiles read "
                          "with confidence, and squares an operator corrected, become exemplars of this set")
    empty_reference: bool = Field(
        True, description="keep each square's look while empty (from the clear board before the first "
                          "play, then from squares still empty), so occupancy asks 'does it still look "
                          "empty?' and print on the board does not pass for a tile")
    enroll_min_prob: float = Field(
        0.9, gt=0.0, lt=1.0, description="a committed tile (or a square still empty) teaches the reader "
                                          "only when it was read as such with at least this probability")
    one_set: bool = Field(
        True, description="the game's tiles are one set (vision.gameset): when more of a tile is recorded "
                          "or read than the bag has, the committed tiles are assigned to letters under the "
                          "counts and the ones assigned another tile go back to the recorder (a camera "
                          "correction on the review queue); a tile the counts contradict is never taught")
    retile_min_prob: float = Field(
        0.5, gt=0.0, lt=1.0, description="a committed tile is re-assigned only when the assignment puts at "
                                          "least this weight on its new tile (not fitted: more than half)")


@dataclass(frozen=True, eq=False)
class BoardView:
    """One snapshot's reading, in game orientation (row 1 at the top, column A at the left)."""

    snapshot: Snapshot            # upright
    turns: int                    # quarter turns (np.rot90's k) from the grid image to the game board
    clear: np.ndarray             # (rows, cols) squares away from anything lying on the board
    occluded: bool                # something lies on the board (vision.reader.covered)
    corners: list[list[float]]    # the outer grid corners in the frame: TL, TR, BR, BL of the game board

    def __post_init__(self) -> None:
        if self.clear.shape != self.snapshot.probs.shape[:2]:
            raise ValueError(f"clear mask {self.clear.shape} does not match the board {self.snapshot.probs.shape[:2]}")


class BoardReader(Protocol):
    def read(self, image: np.ndarray, located: Located, board, t: float = 0.0,
             frame_index: int = -1) -> BoardView: ...

    def learn(self, board, corrected: Sequence, *, committed: bool, unclear: bool,
              finished: bool = False) -> dict: ...


def covered(unsure: np.ndarray, max_squares: int) -> bool:
    """Something lies over the board: a patch of more than `max_squares` unsure squares (8-connected)
    that reaches the board's edge and holds a 2x2 block somewhere. An arm reaches in from beyond the
    board and a hand is wider than a square; a play's tiles lie in one line, and a reader unsure on a
    table it has not seen (dark tiles on a light board, a dark room) is unsure here and there, not
    in one wide patch from the edge (issue 27: 48 of 50 still, hand-free snapshots were dropped when
    any 8 unsure squares counted as a hand)."""
    mask = unsure.astype(np.uint8)
    if int(mask.sum()) <= max_squares:
        return False
    n, labels = cv2.connectedComponents(mask, connectivity=8)
    block = mask[:-1, :-1] & mask[1:, :-1] & mask[:-1, 1:] & mask[1:, 1:]   # 2x2 blocks, by top-left square
    edge = set(labels[0]) | set(labels[-1]) | set(labels[:, 0]) | set(labels[:, -1])
    for lab in range(1, n):
        patch = labels == lab
        if lab in edge and int(patch.sum()) > max_squares and (block & patch[:-1, :-1]).any():
            return True
    return False


class TableReader:
    """vision.classify.TileReader, read in game orientation and calibrated to the table as the
    game goes: the clear board before the first play becomes the empty-board reference, squares
    still empty keep it up to date under changing light, and committed tiles read with confidence
    (and every square an operator corrected) become exemplars of this tile set."""

    def __init__(self, tile_reader, cfg: ReaderConfig | None = None, enroll=None) -> None:
        from .enroll import TableEnrollment
        self.cfg = cfg or ReaderConfig()
        self.base = tile_reader
        self.tile_reader = tile_reader
        # a reader given a tile set (tilecam enroll) keeps it; the table adds to nothing then
        self.enrollment = TableEnrollment(tile_reader, enroll, min_prob=self.cfg.enroll_min_prob) \
            if self.cfg.self_enroll and tile_reader.tileset is None else None
        self.turns: int | None = None   # the board's orientation, once known
        self._last: tuple[np.ndarray, np.ndarray, Snapshot, int] | None = None
        from tilecam.scoring import DISTRIBUTIONS
        from .gameset import GameTiles
        dist = DISTRIBUTIONS[tile_reader.lang].counts
        self.game_tiles = GameTiles(tile_reader.classes, dist, min_prob=self.cfg.retile_min_prob) \
            if self.cfg.one_set else None
        # committed squares (game orientation) the game's assignment re-read: read as that tile
        # from now on, so the snapshots after the correction do not turn it back
        self.settled: dict = {}
        self._proposed: set = set()

    @property
    def classes(self) -> tuple[str, ...]:
        return self.tile_reader.classes

    def read(self, image: np.ndarray, located: Located, board, t: float = 0.0,
             frame_index: int = -1) -> BoardView:
        warped = warp_board(image, located.homography, located.square_px)
        share = self.tile_reader.cfg.min_orientation_share
        # a fused reader cuts its letters from the frame, turned by the board's orientation rule
        snap = self.tile_reader.read(warped, source=(image, located.homography),
                                     turn_rule=lambda s: board_turns(s, board, self.turns, share)).snapshot
        snap = replace(snap, t=t, frame_index=frame_index)  # keeps the letters' rotations
        # The first play fixes the board's orientation: until a play is committed it follows the tiles
        # in view; afterwards each read is turned to lie on the committed tiles, so a turntable turned
        # half round between turns (the grid looks the same, nothing is re-detected) still reads right.
        self.turns = board_turns(snap, board, self.turns, self.tile_reader.cfg.min_orientation_share)
        k = self.turns or 0
        unsure = snap.confidence() < self.cfg.min_square_conf
        # Whatever lies on the board reads as unsure squares with a rim of wrong but confident ones;
        # away from it the board is in clear view.
        clear = ~cv2.dilate(unsure.astype(np.uint8), np.ones((3, 3), np.uint8)).astype(bool)
        # the board's rows read as the players read them; a committed tile's letter as the whole game reads it
        upright = self._as_settled(self._as_game_reads(snap.turned(k)))
        self._last = (warped, snap.probs.reshape(-1, len(snap.classes)), upright, k)
        corners = np.round(turn_corners(image_corners(located.homography, located.square_px), k), 2).tolist()
        return BoardView(upright, k, np.rot90(clear, k), covered(unsure, self.cfg.max_unsure_squares), corners)

    def learn(self, board, corrected: Sequence = (), *, committed: bool, unclear: bool = False,
              finished: bool = False) -> dict:
        """Teach the reader what the game now holds after the last read: `board` the committed board
        (game orientation), `corrected` the squares of plays an operator corrected since the last
        call (the operator's word is the label), `committed`: the snapshot committed something
        (exemplars are taken only then, so a board standing still does not fill the bags with
        copies of itself); `unclear`: its decision was unclear; `finished`: the game ended with this
        snapshot, and its finished board teaches every tile as the record has it and the game's
        assignment under the counts confirms (as a tile check does: the next game at this table,
        which a station records with this reader, starts with this set's own letters).

        A tile the counts put in doubt (more of it recorded or read than the bag has) is never taught.
        Returns what the game's assignment changed (vision.gameset): {Square: tile} of committed
        tiles it reads as another tile ('?' a blank), for the recorder to re-decide their plays."""
        if self._last is None:
            return {}
        warped, probs, upright, k = self._last
        # Before the first play the board is clear: that play must cover the centre, so while
        # nothing is committed and the centre reads empty, no play is on the board (print read
        # as letters elsewhere is what the reference will put right).
        centre = board.layout.centre
        board_clear = not len(board) and \
            float(upright.probs[centre.row, centre.col, upright.classes.index(EMPTY)]) >= self.cfg.enroll_min_prob
        if unclear and not board_clear and not corrected:
            return {}
        n = board.layout.size
        order = game_squares(n, k)   # image square i holds game square order[i]
        image_square = np.argsort(order)
        game = "".join(board.rows())
        held = {g: ("?" if ch.islower() or ch == "?" else ch) for g, ch in enumerate(game) if ch != EMPTY}
        changes = self._one_set(held, warped, probs, image_square, {sq.row * n + sq.col for sq in corrected})
        # never teach what the counts contradict, nor a tile the assignment has just re-read
        doubtful = (self.game_tiles.doubtful(held) if self.game_tiles is not None else set()) | set(self.settled)
        labels = [("" if g in doubtful else game[g]) for g in order]
        if finished and self.enrollment is not None:
            agreed = self.game_tiles.agrees(held) if self.game_tiles is not None else set(held)
            forced = [i for i, g in enumerate(order) if g in agreed and g not in doubtful]
            self.enrollment.add(warped, labels, probs, forced=forced)
            self._adopt(labels)
            return changes
        self.calibrate(labels, [int(image_square[sq.row * n + sq.col]) for sq in corrected],
                       board_clear=board_clear, learn=committed or bool(corrected), last=(warped, probs))
        return changes

    def _one_set(self, held: dict, warped: np.ndarray, probs: np.ndarray, image_square: np.ndarray,
                 operator: set) -> dict:
        """The game's tiles (vision.gameset.GameTiles) kept up to date with the last read: new tiles'
        looks, every tile's reading; the tiles the counts say were misread, re-assigned. `held`: game
        square -> tile the record holds; `operator`: squares whose tile is the operator's word."""
        tiles = self.game_tiles
        if tiles is None:
            return {}
        from tilecam.scoring import Square
        tiles.keep(list(held))
        # the settled squares the record no longer holds as settled (an operator's word, or the
        # correction refused) are read as they look again
        self.settled = {g: t for g, t in self.settled.items() if held.get(g) == t and g not in operator}
        for g in operator & set(held):
            tiles.pin(g, held[g])
        new = tiles.missing(list(held))
        if new:
            crops = self.base.crops(warped)
            _, _, emb = self.base.embed(crops[[int(image_square[g]) for g in new]])
            tiles.look(new, emb)
        p_empty = probs[:, self.classes.index(EMPTY)]
        seen = [g for g in held if p_empty[int(image_square[g])] < 0.5]   # read as a tile now
        if seen:
            tiles.read(seen, probs[[int(image_square[g]) for g in seen]])
        n = int(round(np.sqrt(len(probs))))
        out = {}
        for r in tiles.contradicted(held):
            if (r.square, r.now) in self._proposed:
                continue  # proposed once already: the record did not take it, and it stays a doubt
            self._proposed.add((r.square, r.now))
            self.settled[r.square] = r.now
            out[Square(r.square // n, r.square % n)] = r.now
        return out

    def _as_game_reads(self, upright: Snapshot) -> Snapshot:
        """Each committed tile read as a tile now has its letter weighed by every reading of it since
        it was committed (vision.gameset: one physical tile all game long), so one photo's misread
        (a grid a little off, a glare) does not turn a committed letter that the game's other photos
        read otherwise; a square read empty is left as read (a tile taken back)."""
        tiles = self.game_tiles
        if tiles is None or not len(tiles):
            return upright
        probs = upright.probs.copy()
        n = probs.shape[1]
        e = upright.classes.index(EMPTY)
        cols = [upright.classes.index(c) for c in tiles.tile_classes]
        for g, game in tiles.evidence().items():
            r, c = divmod(g, n)
            p_empty = float(probs[r, c, e])
            if p_empty >= 0.5:
                continue
            q = probs[r, c, cols] * game
            probs[r, c, cols] = (1.0 - p_empty) * q / max(float(q.sum()), 1e-12)
        return replace(upright, probs=probs)

    def _as_settled(self, upright: Snapshot) -> Snapshot:
        """The read with each settled square (game orientation) read as the game's assignment has it,
        as long as it reads as a tile: its letter weight all on the assigned tile."""
        if not self.settled:
            return upright
        probs = upright.probs.copy()
        n = probs.shape[1]
        e = upright.classes.index(EMPTY)
        for g, tile in self.settled.items():
            r, c = divmod(g, n)
            if tile not in upright.classes:
                continue
            p_empty = float(probs[r, c, e])
            probs[r, c, :] = 0.0
            probs[r, c, e] = p_empty
            probs[r, c, upright.classes.index(tile)] = 1.0 - p_empty
        return replace(upright, probs=probs)

    def learn_tile_check(self) -> list[str] | None:
        """The last read was the tile check (scoring.tilecheck): its tiles, labelled by assignment
        against the tile distribution, become this table's tile set (vision.tilecheck). No
        empty-board reference from it (the check's squares are not empty). Returns the labels
        (grid image orientation), or None when nothing was learnt."""
        if self._last is None or self.enrollment is None:
            return None
        from .tilecheck import learn_tile_check
        labels = learn_tile_check(self.enrollment, self._last[0], self._last[1])
        if labels is None:
            return None
        self._adopt(labels)
        return labels

    def _adopt(self, labels: str) -> None:
        """Known tiles were taught (a tile check, a finished board): read with the table's tile set
        from now on, and let them say how far the second reader can be trusted on this set."""
        self.base = self.base.calibrated_on(labels)
        tileset = self.enrollment.tileset()
        self.tile_reader = self.base.with_tileset(tileset) if tileset is not None \
            else self.tile_reader.calibrated_on(labels)

    def calibrate(self, labels: str, operator_squares=(), board_clear: bool = False, learn: bool = True,
                  last: tuple[np.ndarray, np.ndarray] | None = None) -> None:
        """``labels``: the committed board in the grid image's orientation (one character a square);
        ``operator_squares``: grid-image squares whose label is the operator's."""
        if last is None:
            if self._last is None:
                return
            last = self._last[:2]
        warped, probs = last
        n = int(round(np.sqrt(len(labels))))
        empty_p = probs[:, self.tile_reader.classes.index(EMPTY)]
        still_empty = np.array([ch == EMPTY for ch in labels]) & (empty_p >= self.cfg.enroll_min_prob)
        if self.cfg.empty_reference:
            from .reference import EmptyBoardRef
            ref = self.tile_reader.empty_ref
            if ref is None and board_clear:
                ref = EmptyBoardRef.from_frame(warped, source="recorder")
                self.base.empty_ref = self.tile_reader.empty_ref = ref
            elif ref is not None and still_empty.any():
                ref.update(warped, still_empty.reshape(n, n))
        if self.enrollment is not None and learn and self.enrollment.add(warped, labels, probs, operator_squares):
            tileset = self.enrollment.tileset()
            if tileset is not None:
                self.tile_reader = self.base.with_tileset(tileset)

    def read_warped(self, warped: np.ndarray):
        """A canonical grid image read as it is (tilecam read, benches): the TileReader's BoardRead;
        the reading stays in the grid image's orientation and nothing is learnt."""
        return self.tile_reader.read(warped)
