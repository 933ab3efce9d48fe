"""The tile check (scoring.tilecheck): many tiles face up before the first play are calibration,
never a play; the game starts when the board is cleared."""
from __future__ import annotations

import numpy as np

from tilecam.scoring.game import Game
from tilecam.scoring.rules import get_profile
from tilecam.scoring.scorekeeper import Scorekeeper
from tilecam.scoring.snapshot import Snapshot, classes_for
from tilecam.scoring.tilecheck import tile_check
from tilecam.scoring.tiles import DISTRIBUTIONS

EN = DISTRIBUTIONS["en"]
CLASSES = classes_for(EN.letters)
EMPTY_ROWS = ["." * 15] * 15
CENTRE = (7, 7)


def corner_blocks(blocks=(0, 1, 2, 3), seed: int = 0) -> list[str]:
    """The rules' tile check: the 100 tiles face up in four 5x5 blocks in the corners."""
    tiles = [t for t, n in EN.counts.items() for _ in range(n)]
    np.random.default_rng(seed).shuffle(tiles)
    cells = [["."] * 15 for _ in range(15)]
    for b, (r0, c0) in enumerate(((0, 0), (0, 10), (10, 0), (10, 10))):
        for i in range(25):
            if b in blocks:
                cells[r0 + i // 5][c0 + i % 5] = tiles[b * 25 + i]
    return ["".join(row) for row in cells]


def with_play(rows: list[str], word: str = "CAT", row: int = 7, col: int = 6) -> list[str]:
    out = list(rows)
    out[row] = out[row][:col] + word + out[row][col + len(word):]
    return out


def snap(rows, confidence=0.97):
    return Snapshot.from_board(rows, CLASSES, confidence)


def test_the_rule():
    assert tile_check(snap(corner_blocks()), 0, CENTRE, False) == "check"
    assert tile_check(snap(corner_blocks()), 5, CENTRE, False) is None       # a game under way
    assert tile_check(snap(EMPTY_ROWS), 0, CENTRE, False) is None
    assert tile_check(snap(EMPTY_ROWS), 0, CENTRE, True) == "cleared"
    assert tile_check(snap(with_play(EMPTY_ROWS, "QUIXOTE", col=4)), 0, CENTRE, False) is None  # 7: a first play
    # being put away: a block left is still the check, never a play
    assert tile_check(snap(corner_blocks((3,))), 0, CENTRE, True) == "check"
    little = ["..ABC.........."] + EMPTY_ROWS[1:]
    assert tile_check(snap(little), 0, CENTRE, True) == "check"
    assert tile_check(snap(little), 0, CENTRE, False) is None
    # the cleared board missed: a tile on the centre is the first play, the check is over
    assert tile_check(snap(with_play(little)), 0, CENTRE, True) is None
    # a few squares read as doubtful tiles (print) are no check
    doubtful = snap(corner_blocks())
    tiles = doubtful.probs[..., 0] < 0.5
    doubtful.probs[tiles] *= 0.7 / doubtful.probs[tiles][:, 1:].sum(axis=1, keepdims=True)
    doubtful.probs[tiles, 0] = 0.3  # P(tile) 0.7 on every square of the check
    assert tile_check(doubtful, 0, CENTRE, False) is None


def test_the_scorekeeper_commits_nothing_from_the_check_and_starts_the_game_when_cleared():
    keeper = Scorekeeper(Game(get_profile("naspa"), EN))
    for rows in (corner_blocks(), corner_blocks(seed=1), corner_blocks((0, 3)), corner_blocks((0,))):
        obs = keeper.observe(snap(rows), pressed=True)  # even at a clock press: no play, no pass
        assert obs.status == "tile_check" and obs.entries == ()
    obs = keeper.observe(snap(EMPTY_ROWS))
    assert obs.status == "no_change" and "cleared" in obs.detail and not keeper.deciding.in_tile_check
    obs = keeper.observe(snap(with_play(EMPTY_ROWS)), player=0, pressed=True)
    assert obs.status == "play" and keeper.game.events[0].words == ("CAT",)
    # after the first play nothing is a check
    obs = keeper.observe(snap(with_play(with_play(EMPTY_ROWS), "DOG", row=8, col=7)), pressed=True)
    assert obs.status != "tile_check"


def test_a_first_play_right_after_the_check_is_recorded():
    """The clear board between the check and the first play was never seen still."""
    keeper = Scorekeeper(Game(get_profile("naspa"), EN))
    assert keeper.observe(snap(corner_blocks())).status == "tile_check"
    obs = keeper.observe(snap(with_play(EMPTY_ROWS)), player=0, pressed=True)
    assert obs.status == "play" and keeper.game.events[0].words == ("CAT",)


def test_a_first_play_not_yet_read_is_the_game_and_what_follows_never_a_check():
    # The first play seen on the centre but unreadable (a printed label beside it read as a tile
    # in another line), then the next plays down: 16+ tiles, yet the game, never the tile check.
    keeper = Scorekeeper(Game(get_profile("naspa"), EN))
    first = with_play(EMPTY_ROWS, "QUIXOTE", col=4)
    odd = [list(r) for r in first]
    odd[3][3], odd[11][11], odd[2][12] = "E", "E", "E"   # three print squares read as tiles, far apart
    odd[3][4] = "E"                                       # two side by side: not print, not a play
    assert keeper.observe(snap(["".join(r) for r in odd]), pressed=True).status == "unclear"
    assert keeper.deciding.first_play_down
    crowded = [list(r) for r in with_play(first, "QUIXOTES", col=4)]
    for r, word in ((8, "JUMBLED"), (9, "ZEBRAS")):
        crowded[r][4:4 + len(word)] = word
    assert sum(ch != "." for row in crowded for ch in row) >= 16
    assert keeper.observe(snap(["".join(r) for r in crowded]), pressed=True).status != "tile_check"
    # and without the first play seen: tiles on the centre in one group are a game under way (issue 27)
    assert tile_check(snap(["".join(r) for r in crowded]), 0, CENTRE, False) is None


def test_a_late_first_snapshot_of_a_game_under_way_is_never_the_check():
    """Issue 27: a game whose first snapshot came late (30+ tiles across the centre in one group,
    nothing committed) was taken for the tile check and never started; a check beside a play is
    still a check."""
    rows = [list(r) for r in EMPTY_ROWS]
    for r, c, word, down in ((7, 4, "QUIXOTE", False), (3, 6, "JUMBLED", True), (2, 9, "ZEBRAS", True),
                             (10, 2, "FLAGON", False), (11, 3, "WHISKY", False), (8, 10, "PIANO", True)):
        for i, ch in enumerate(word):
            rows[r + i * down][c + i * (not down)] = ch
    board = ["".join(r) for r in rows]
    n = sum(ch != "." for row in board for ch in row)
    assert n >= 30
    assert tile_check(snap(board), 0, CENTRE, False) is None
    assert tile_check(snap(board), 0, CENTRE, True) is None
    # the check's corner blocks and a tile on the centre: not one group, still the check
    assert tile_check(snap(with_play(corner_blocks(), "A", col=7)), 0, CENTRE, False) == "check"
