"""The game's tiles are one set (vision.gameset, issue 28): the counts say when a reading was wrong, the
tiles' looks and readings say which tile and what it is; a count never exceeded changes nothing."""
from __future__ import annotations

import numpy as np

from tilecam.scoring.snapshot import classes_for
from tilecam.scoring.tiles import DISTRIBUTIONS
from tilecam.vision.enroll import assign_counts
from tilecam.vision.gameset import GameTiles, over_counts

DIST = DISTRIBUTIONS["en"].counts
CLASSES = classes_for(DISTRIBUTIONS["en"].letters)


def reading(letter: str, p: float, second: str | None = None) -> np.ndarray:
    """One read: `p` on `letter`, the rest on `second` (or spread)."""
    row = np.full(len(CLASSES), 1e-4)
    row[CLASSES.index(letter)] = p
    if second is not None:
        row[CLASSES.index(second)] = 1.0 - p
    return row / row.sum()


def looks(rng, base: np.ndarray, n: int) -> np.ndarray:
    e = base[None, :] + 0.15 * rng.standard_normal((n, len(base)))
    return e / np.linalg.norm(e, axis=1, keepdims=True)


def game(rng):
    """Five tiles committed as L (the bag has four): four look like L, one like the game's I tiles
    and is read L over I; three I tiles; two E tiles."""
    dim = 32
    proto = {c: v / np.linalg.norm(v) for c, v in zip("LIE", rng.standard_normal((3, dim)))}
    committed = {0: "L", 1: "L", 2: "L", 3: "L", 4: "L", 10: "I", 11: "I", 12: "I", 20: "E", 21: "E"}
    emb = np.concatenate([looks(rng, proto["L"], 4), looks(rng, proto["I"], 1), looks(rng, proto["I"], 3),
                          looks(rng, proto["E"], 2)])
    probs = np.stack([reading("L", 0.95, "I")] * 4 + [reading("L", 0.6, "I")] + [reading("I", 0.9, "L")] * 3
                     + [reading("E", 0.97)] * 2)
    tiles = GameTiles(CLASSES, DIST)
    tiles.look(list(committed), emb)
    tiles.read(list(committed), probs)
    return tiles, committed


def test_over_counts_names_the_tiles_the_record_holds_too_many_of():
    assert over_counts(list("LLLLL") + ["?"] * 3 + list("ZZ"), DIST) == {"L", "?", "Z"}
    assert over_counts(list("LLLL??Z"), DIST) == set()


def test_a_tile_the_counts_contradict_is_reassigned_by_its_look_and_reading():
    tiles, committed = game(np.random.default_rng(0))
    changes = tiles.contradicted(committed)
    assert [(r.square, r.was, r.now) for r in changes] == [(4, "L", "I")]
    assert changes[0].prob >= 0.5
    assert 4 not in tiles.agrees(committed) and {10, 11, 12, 20, 21} <= tiles.agrees(committed)


def test_counts_not_exceeded_change_nothing():
    tiles, committed = game(np.random.default_rng(1))
    committed[4] = "I"   # the record already right: four L, four I
    assert tiles.contradicted(committed) == []


def test_an_operator_named_tile_is_never_reassigned():
    tiles, committed = game(np.random.default_rng(2))
    tiles.pin(4, "L")   # the operator said L: then another L is the misread, or the operator answers for it
    assert all(r.square != 4 for r in tiles.contradicted(committed))


def test_tiles_taken_off_the_board_are_forgotten():
    tiles, committed = game(np.random.default_rng(3))
    tiles.keep([0, 1, 2, 3, 10, 11, 12, 20, 21])   # the fifth L withdrawn
    del committed[4]
    assert len(tiles) == 9 and tiles.contradicted(committed) == []


def test_upper_bounds_leave_letters_unused_and_never_exceed_a_count():
    """A game under way: 3 tiles all read as Z (one in the bag) are assigned at most one Z; the
    others go to their runner-up readings, not spread over letters no tile shows."""
    rng = np.random.default_rng(4)
    tile_classes = [c for c in CLASSES if c != "."]
    counts = np.array([DIST.get(c, 0) for c in tile_classes], float)
    p = np.stack([reading("Z", 0.8, "S"), reading("Z", 0.7, "X"), reading("Z", 0.99)])[:, 1:]
    emb = looks(rng, rng.standard_normal(16), 3)
    assigned, soft = assign_counts(p, emb, counts, upper_bounds=True)
    got = [tile_classes[j] for j in assigned]
    assert got.count("Z") == 1 and got[2] == "Z" and set(got[:2]) == {"S", "X"}
    assert (soft.sum(axis=0) <= counts + 1e-3).all()   # the balance ends on the tiles: a bound holds to 1e-3


def test_readings_over_a_count_reassign_tiles_of_a_record_kept_within_the_set():
    """The record never holds two Z (the game refuses it), so an X misread as Z beside the game's Z
    went in as something else: the readings, not the record, exceed the count. The assignment gives
    the Z to the tile read Z the more surely, and the other its runner-up."""
    rng = np.random.default_rng(5)
    committed = {0: "Z", 1: "S", 2: "A", 3: "E"}
    emb = looks(rng, rng.standard_normal(32), 4)
    probs = np.stack([reading("Z", 0.6, "X"), reading("Z", 0.95, "S"), reading("A", 0.99), reading("E", 0.99)])
    tiles = GameTiles(CLASSES, DIST)
    tiles.look(list(committed), emb)
    tiles.read(list(committed), probs)
    assert tiles.doubtful(committed) == {0, 1}
    assert sorted((r.square, r.was, r.now) for r in tiles.contradicted(committed)) == [(0, "Z", "X"), (1, "S", "Z")]


def test_a_committed_tile_is_read_as_the_whole_game_reads_it():
    """One photo reads the committed I at H7 as S (a grid a little off): weighed by the game's nine
    readings of it as I, the read says I, and a square read empty stays empty (a tile taken back)."""
    from tilecam.scoring.snapshot import Snapshot
    from tilecam.vision.reader import TableReader

    tiles = GameTiles(CLASSES, DIST)
    sq = 6 * 15 + 7
    tiles.look([sq], np.eye(1, 8))
    for _ in range(9):
        tiles.read([sq], reading("I", 0.95, "S")[None, :])
    table = TableReader.__new__(TableReader)   # only its game tiles take part here
    table.game_tiles = tiles
    rows = ["." * 15] * 6 + [".......S......."] + ["." * 15] * 8
    read = table._as_game_reads(Snapshot.from_board(rows, CLASSES, confidence=0.97))
    assert read.board()[6][7] == "I"
    gone = table._as_game_reads(Snapshot.from_board(["." * 15] * 15, CLASSES))
    assert gone.board()[6][7] == "."


def test_a_tile_read_as_two_letters_is_never_the_blank():
    """Issue 44: a committed M read M on one snapshot and R (a wrong turn) on another, each read giving
    the blank a little and the other letter nearly nothing. Summed over all tile classes at once the
    game's evidence made it a blank; each read says the tile bears a letter (scoring.kind_then_letter,
    the belief's rule)."""
    tiles = GameTiles(CLASSES, DIST)
    m = np.full(len(CLASSES), 1e-7)
    m[CLASSES.index("M")], m[CLASSES.index("?")] = 0.994, 0.006
    r = np.full(len(CLASSES), 1e-7)
    r[CLASSES.index("R")], r[CLASSES.index("K")], r[CLASSES.index("?")], r[CLASSES.index("M")] = 0.5, 0.4, 0.05, 1e-5
    tiles.look([7], np.eye(1, 32))
    tiles.read([7], m[None] / m.sum())
    tiles.read([7], r[None] / r.sum())
    assert tiles.readings()[7] in ("M", "R")
    assert tiles.evidence()[7][tiles.tile_classes.index("?")] < 0.01
