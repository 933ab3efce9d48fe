"""The recorder never builds on a guess (issue 44, item 2; scoring/scorekeeper/hold.py): a play whose
letters the unseen pool cannot supply, or read under `[decode] hold_below`, is held and read again,
never committed; still a guess after `hold_snapshots` reads it is flagged as unread with no tiles
committed, and later plays are decoded against the board as last committed. A withdrawal whose
play's tiles all left the board is one, though a square of it reads neither surely empty nor a tile."""
from __future__ import annotations

import sys
from pathlib import Path

from tilecam.scoring.board import Square
from tilecam.scoring.decode import DecodeConfig
from tilecam.scoring.game import Game
from tilecam.scoring.rules import get_profile
from tilecam.scoring.scorekeeper import Scorekeeper
from tilecam.scoring.snapshot import Snapshot

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "scoring"))  # where test_decode lives
from test_decode import CLASSES, rows_with

NASPA = get_profile("naspa")


def _keeper(**cfg) -> Scorekeeper:
    from tilecam.scoring.tiles import DISTRIBUTIONS
    return Scorekeeper(Game(NASPA, DISTRIBUTIONS["en"]), cfg=DecodeConfig(learn_table=False, **cfg))


def test_a_play_the_pool_cannot_supply_is_held_then_flagged_unread_and_never_built_on():
    keeper = _keeper(hold_snapshots=3)
    adze = rows_with(((7, 6), "ADZE", "a"))
    assert keeper.observe(Snapshot.from_board(adze, CLASSES, 0.97), pressed=True).status == "play"
    # a second Z read surely under the A: the set has one, so no reading the pool can supply is the
    # camera's; the suspect is an earlier entry, never a reading forced into the pool
    guess = rows_with(((7, 6), "ADZE", "a"), ((8, 6), "ZO", "d"))
    for n in range(1, 4):
        obs = keeper.observe(Snapshot.from_board(guess, CLASSES, 0.97))
        assert obs.status == "unclear" and obs.entries == (), obs
        assert len(keeper.game.events) == 1
        assert ("held" in obs.detail) == (n < 3)
    assert "could not read this play" in obs.detail
    assert keeper.unread() == [Square(8, 6), Square(9, 6)]
    assert keeper.unexplained() == []   # said once, as unread
    # the next play, beside the unread one: decoded against the board as last committed
    then = rows_with(((7, 6), "ADZE", "a"), ((8, 6), "ZO", "d"), ((8, 9), "TO", "d"))
    obs = keeper.observe(Snapshot.from_board(then, CLASSES, 0.97), pressed=True)
    assert obs.status == "play", obs
    assert [t.square for t in keeper.game.events[-1].placement.tiles] == [Square(8, 9), Square(9, 9)]
    assert keeper.game.events[-1].words == ("ETO",)
    assert keeper.game.state.board[Square(8, 6)] is None
    assert keeper.unread() == [Square(8, 6), Square(9, 6)]   # still waiting for a person
    # the tiles taken off: nothing unread is left
    keeper.observe(Snapshot.from_board(rows_with(((7, 6), "ADZE", "a"), ((8, 9), "TO", "d")), CLASSES, 0.97))
    assert keeper.unread() == []


def test_a_play_read_under_the_floor_is_held_and_committed_once_read_surely():
    keeper = _keeper(hold_below=0.2)
    cat = rows_with(((7, 6), "CAT", "a"))
    keeper.observe(Snapshot.from_board(cat, CLASSES, 0.97), pressed=True)
    cow = rows_with(((7, 6), "CAT", "a"), ((8, 6), "OW", "d"))
    blurred = Snapshot.from_board(cow, CLASSES, 0.97).probs.copy()
    blurred[8, 6, :] = 0.02
    blurred[8, 6, CLASSES.index("O")], blurred[8, 6, CLASSES.index("Q")] = 0.1, 0.09
    blurred[8, 6] /= blurred[8, 6].sum()
    obs = keeper.observe(Snapshot(CLASSES, blurred))
    assert obs.status == "unclear" and "held" in obs.detail and obs.entries == (), obs
    assert len(keeper.game.events) == 1
    for _ in range(3):   # the next frames read it surely: the belief grows, and the play goes in
        obs = keeper.observe(Snapshot.from_board(cow, CLASSES, 0.99), pressed=True)
        if obs.status == "play":
            break
    assert obs.status == "play" and keeper.game.events[-1].words == ("COW",), obs
    assert keeper.unread() == []


def test_a_withdrawal_with_a_square_read_unsure_is_seen_and_the_next_play_is_read_without_the_phony():
    keeper = _keeper()
    cat = rows_with(((7, 6), "CAT", "a"))
    phony = rows_with(((7, 6), "CAT", "a"), ((8, 8), "ZX", "d"))   # TZX, taken back
    keeper.observe(Snapshot.from_board(cat, CLASSES, 0.97), player=0, pressed=True)
    assert keeper.observe(Snapshot.from_board(phony, CLASSES, 0.97), player=1, pressed=True).status == "play"
    # the phony off the board; a shadow where the X lay reads neither a tile nor surely empty
    gone = Snapshot.from_board(cat, CLASSES, 0.97).probs.copy()
    gone[9, 8, :] = 0.01
    gone[9, 8, CLASSES.index(".")], gone[9, 8, CLASSES.index("X")] = 0.6, 0.3
    gone[9, 8] /= gone[9, 8].sum()
    obs = keeper.observe(Snapshot(CLASSES, gone))
    assert obs.status == "withdrawn", obs
    assert [e.kind for e in keeper.game.events] == ["play", "play", "phony_withdrawn"]
    cow = rows_with(((7, 6), "CAT", "a"), ((8, 6), "OW", "d"))
    assert keeper.observe(Snapshot.from_board(cow, CLASSES, 0.97), player=0, pressed=True).status == "play"
    assert keeper.game.events[-1].words == ("COW",) and Square(8, 8) not in keeper.game.state.board


def test_a_held_play_refused_again_in_a_catch_up_is_flagged_unread_and_the_game_goes_on():
    """Issue 44: a held guess with the next play beside it shows as two plays from one snapshot, a
    catch-up refused (no rack makes the guess); that decoding ended the hold, so the guess was held
    afresh, never flagged unread, and every later snapshot was refused with it: a dark board's game
    stopped at BAT read UYT. Each refused catch-up holding the held squares is one more read of it."""
    keeper = _keeper(hold_snapshots=3)
    adze = rows_with(((7, 6), "ADZE", "a"))
    assert keeper.observe(Snapshot.from_board(adze, CLASSES, 0.97), pressed=True).status == "play"
    guess = rows_with(((7, 6), "ADZE", "a"), ((8, 6), "ZO", "d"))
    assert "held" in keeper.observe(Snapshot.from_board(guess, CLASSES, 0.97)).detail
    both = rows_with(((7, 6), "ADZE", "a"), ((8, 6), "ZO", "d"), ((8, 9), "TO", "d"))
    for _ in range(2):
        obs = keeper.observe(Snapshot.from_board(both, CLASSES, 0.97))
        assert obs.status == "unclear" and obs.entries == (), obs
    assert keeper.unread() == [Square(8, 6), Square(9, 6)]
    obs = keeper.observe(Snapshot.from_board(both, CLASSES, 0.97), pressed=True)
    assert obs.status == "play" and keeper.game.events[-1].words == ("ETO",), obs
