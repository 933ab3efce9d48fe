"""Whose turn each move was (scoring.turns) and how the scorekeeper knows it: a play credited
without a clock press is inferred; a press naming its player settles the credit."""
from __future__ import annotations

from tilecam.scoring.board import LAYOUTS
from tilecam.scoring.game import Game
from tilecam.scoring.rules import get_profile
from tilecam.scoring.scorekeeper import Scorekeeper
from tilecam.scoring.snapshot import Snapshot, classes_for
from tilecam.scoring.tiles import DISTRIBUTIONS
from tilecam.scoring.turns import describe_turns, turn_order

EN = DISTRIBUTIONS["en"]
NASPA = get_profile("naspa")
CLASSES = classes_for(EN.letters)
EMPTY = ["." * 15] * 15
CAT = EMPTY[:7] + ["......CAT......"] + EMPTY[8:]
COW = CAT[:8] + ["......O........", "......W........"] + CAT[10:]
TON = COW[:8] + ["......O.O......", "......W.N......"] + COW[10:]
TO = COW[:8] + ["......O.O......"] + COW[9:]   # COW and TO, two plays apart
NAMES = ["Cesar", "Josh"]


def seen(rows):
    return Snapshot.from_board(rows, CLASSES, 0.97)


def order(keeper):
    return turn_order(keeper.game.events, NASPA, EN, LAYOUTS["standard"], 2)


def test_two_plays_at_one_press_end_with_the_pressers():
    """A snapshot missed between two plays, then Josh's press: the last play is Josh's (his press
    ended it), the one before it Cesar's, and that one's credit is inferred."""
    keeper = Scorekeeper(Game(NASPA, EN))
    keeper.observe(seen(CAT), player=0, pressed=True)
    keeper.observe(seen(TO), player=0, pressed=True)   # Cesar's press again: COW and TO in one snapshot
    got = [(e.player, e.turn_inferred) for e in keeper.game.events]
    assert got == [(0, False), (1, False), (0, False)]  # Josh's start known (Cesar pressed), Cesar's press
    assert keeper.game.events[-1].player == 0   # the last play is the presser's
    keeper = Scorekeeper(Game(NASPA, EN))
    keeper.observe(seen(CAT))
    keeper.observe(seen(TO), player=1, pressed=True)   # nobody pressed after CAT: the first one's start unseen
    got = [(e.player, e.turn_inferred) for e in keeper.game.events]
    assert got == [(0, False), (0, True), (1, False)]
    assert describe_turns(order(keeper), NAMES).startswith("move 2: Cesar took a turn with Josh on turn")


def test_a_resumed_game_infers_its_turns_until_a_press():
    keeper = Scorekeeper(Game(NASPA, EN))
    keeper.observe(seen(CAT), player=0, pressed=True)
    again = Scorekeeper(Game(NASPA, EN))
    again.resume(list(keeper.entries))
    again.caught_up()
    again.observe(seen(COW))
    assert again.game.events[-1].turn_inferred  # turns may have gone by while the station was down
    again.observe(seen(COW), pressed=True)       # the press ends it: no pass
    assert [e.kind for e in again.game.events] == ["play", "play"]
    again.observe(seen(TON))
    assert not again.game.events[-1].turn_inferred


def test_inferred_turns_between_pressed_ones_are_named_by_their_moves():
    keeper = Scorekeeper(Game(NASPA, EN))
    keeper.observe(seen(CAT))
    keeper.observe(seen(COW))                    # inferred (no press after CAT)
    keeper.observe(seen(COW), pressed=True)      # ends COW's turn
    keeper.observe(seen(TON))                    # known
    text = describe_turns(order(keeper), NAMES)
    assert text == "turns inferred at move 2: no clock press seen"
    assert describe_turns(turn_order([], NASPA, EN, LAYOUTS["standard"], 2), NAMES) is None
