"""Three and four players under the box rules: turn order, challenges, the scoreless and pass ends,
going out with every opponent's rack, and the lost turn right after an out-play (two players too)."""
from __future__ import annotations

import re

import pytest

from tilecam.scoring.board import Direction, Square
from tilecam.scoring.events import EndRackPenalty, EndRackPoints, Pass, Play, TurnLost
from tilecam.scoring.game import Game, GameError, effective_events
from tilecam.scoring.gcg import GameRecord, Player, read_gcg, record_from_gcg
from tilecam.scoring.placement import PlacedTile, Placement
from tilecam.scoring.recount import recount_lines
from tilecam.scoring.rules import PROFILES
from tilecam.scoring.tiles import DISTRIBUTIONS, Distribution

EN = DISTRIBUTIONS["en"]
BOX = PROFILES["box"]
# Twelve tiles with English values and racks of two: four players empty the bag in a few turns.
MINI = Distribution("mini", {"A": 3, "E": 3, "T": 2, "S": 1, "Q": 1, "Z": 1, "?": 1},
                    {t: EN.values[t] for t in "AETSQZ"}, rack_size=2)


def across(row, col, letters) -> Placement:
    return Placement(tuple(PlacedTile(Square(row, col + i), ch.upper(), ch.islower())
                           for i, ch in enumerate(letters)), Direction.ACROSS)


def down(row, col, letters) -> Placement:
    return Placement(tuple(PlacedTile(Square(row + i, col), ch.upper(), ch.islower())
                           for i, ch in enumerate(letters)), Direction.DOWN)


# A and E down through the T of CAT (8G): ATE.
ATE = Placement((PlacedTile(Square(6, 8), "A"), PlacedTile(Square(8, 8), "E")), Direction.DOWN)


@pytest.mark.parametrize("n", [3, 4])
def test_box_game_deals_n_racks_and_turns_go_round(n):
    g = Game(BOX, EN, players=n)
    assert g.state.bag == 100 - 7 * n and g.state.scores == [0] * n
    g.play(0, across(7, 6, "CAT"))
    for p in range(1, n):
        assert g.state.on_turn == p
        g.pass_turn(p)
    assert g.state.on_turn == 0
    assert g.state.rack_sizes[0] == 7 and g.state.bag == 100 - 7 * n - 3


@pytest.mark.parametrize("rules, n, message", [
    ("naspa", 3, "rules 'naspa' are for 2 players, not 3"),
    ("wespa", 4, "rules 'wespa' are for 2 players, not 4"),
    ("box", 5, "rules 'box' are for 2 to 4 players, not 5"),
    ("box", 1, "rules 'box' are for 2 to 4 players, not 1"),
])
def test_rules_name_the_players_they_allow(rules, n, message):
    with pytest.raises(ValueError, match=message):
        Game(PROFILES[rules], EN, players=n)


def test_a_challenger_who_is_not_next_loses_their_next_turn():
    g = Game(BOX, EN, players=4)
    g.play(0, across(7, 6, "CAT"))
    g.lose_turn(2, note="challenged CAT")       # player 2 challenged a valid play
    assert g.state.on_turn == 1                 # player 1 is still next
    g.pass_turn(1)
    assert g.state.on_turn == 3                 # player 2's turn is the one lost
    g.pass_turn(3)
    assert g.state.on_turn == 0 and g.state.turns_lost == [0, 0, 0, 0]
    # The next player challenging loses the turn they are on, as in a two-player game.
    g.play(0, across(8, 6, "AX"))
    g.lose_turn(1)
    assert g.state.on_turn == 2


def test_a_phony_comes_off_and_the_next_player_plays_in_a_three_player_game():
    g = Game(BOX, EN, players=3)
    g.play(0, across(7, 6, "CAT"))
    g.play(1, ATE)
    g.withdraw(1)
    assert g.state.on_turn == 2 and g.state.scores == [10, 0, 0]
    assert g.state.rack_sizes == [7, 7, 7] and g.state.bag == 100 - 21 - 3
    with pytest.raises(GameError, match="the last turn was not a play"):
        g.withdraw(0)


def test_scoreless_turns_end_after_three_rounds_and_passes_after_two():
    # Six scoreless turns of a two-player game are three rounds: with three players, nine.
    three = Game(PROFILES["naspa"].with_(max_players=3), EN, players=3)
    for i in range(8):
        three.pass_turn(i % 3) if i % 2 else three.exchange(i % 3, 2)
        assert not three.state.ended, i
    three.pass_turn(8 % 3)
    assert three.state.ended and three.state.end_reason == "zeros"
    # Box rules: every player passed twice in a row, 2n passes; an exchange starts the count again.
    box = Game(BOX, EN, players=4)
    for i in range(7):
        box.pass_turn(i % 4)
    box.exchange(3, 1)
    for i in range(7):
        box.pass_turn(i % 4)
        assert not box.state.ended
    box.pass_turn(3)
    assert box.state.ended and box.state.end_reason == "passes"


def _four_player_game_to_the_out_play() -> Game:
    g = Game(BOX, MINI, players=4)
    assert g.state.bag == 4
    g.play(0, across(7, 7, "AT"))    # draws 2: the bag holds 2
    g.play(1, down(8, 7, "E"))       # draws 1
    g.pass_turn(2)
    g.play(3, across(8, 8, "S"))     # draws the last tile
    assert g.state.bag == 0 and not g.state.ended
    g.play(0, down(9, 7, "EA"))      # player 0 plays both tiles: out
    assert g.state.ended and g.state.end_reason == "out" and g.state.out_player == 0
    return g


def test_going_out_in_a_four_player_box_game():
    g = _four_player_game_to_the_out_play()
    # Player 2 challenged the out-play and lost: a turn lost after the game ended changes nothing.
    g.lose_turn(2, note="challenged AEEA")
    assert g.state.ended and g.state.turns_lost == [0, 0, 0, 0]
    before = list(g.state.scores)
    # The unseen pool is A E T Q Z ?: which opponent holds what only the racks can say.
    with pytest.raises(ValueError, match="players 1, 2, 3 still hold tiles"):
        g.finish_out()
    with pytest.raises(ValueError, match=re.escape("the racks hold AETQZ; the unseen tiles are AETQZ?")):
        g.finish_out(["", "QA", "Z", "ET"])
    with pytest.raises(ValueError, match="player 0 went out"):
        g.finish_out(["E", "QA", "Z?", "T"])
    added = g.finish_out(["", "qa", "Z?", "ET"])
    assert [type(e) for e in added] == [EndRackPoints] + [EndRackPenalty] * 3
    gain = added[0]
    assert (gain.player, gain.opponent_rack, gain.engine) == (0, "QAZ?ET", 10 + 1 + 10 + 0 + 1 + 1)
    assert [(e.player, e.rack, e.engine) for e in added[1:]] == [(1, "QA", -11), (2, "Z?", -10), (3, "ET", -2)]
    assert g.state.scores == [before[0] + 23, before[1] - 11, before[2] - 10, before[3] - 2]
    # The log replays to the same state, and the recount carries four totals per line.
    again = Game(BOX, MINI, players=4, events=list(g.events))
    assert again.state.scores == g.state.scores
    assert effective_events(g.events, BOX, MINI, players=4) == g.events


def test_a_pass_right_after_going_out_is_a_lost_challenge_in_a_real_game(shared_data):
    # doug_vs_emely: emely goes out with 14L .aFS and gains 2 x OPEG. Had doug challenged and lost,
    # the record would say '>doug: EGOP - +0 451' between the two lines.
    gcg = read_gcg((shared_data / "gcg" / "liwords" / "doug_vs_emely.gcg").read_text(encoding="latin-1"))
    record, _, _ = record_from_gcg(gcg, PROFILES["naspa"], EN)
    *turns, gain = record.events
    assert isinstance(gain, EndRackPoints) and isinstance(turns[-1], Play)
    g = Game(PROFILES["naspa"], EN, events=turns)
    emely, doug = turns[-1].player, 1 - turns[-1].player
    assert g.state.ended and g.state.out_player == emely
    lost = g.append(Pass(doug, g.state.scores[doug], "EGOP"))
    assert lost.cumulative == 451 and g.state.ended
    with pytest.raises(GameError, match="ended"):
        g.pass_turn(doug)            # one challenge only
    assert g.end_rack_points(emely, "EGOP").cumulative == gain.cumulative == 345
    with pytest.raises(GameError, match="ended"):
        g.append(TurnLost(doug, 451))  # not after the rack points


def test_the_out_player_cannot_pass_after_going_out():
    g = _four_player_game_to_the_out_play()
    with pytest.raises(GameError, match="ended"):
        g.pass_turn(0)
    g.withdraw(0)                    # but the out-play can still come off
    assert not g.state.ended and g.state.on_turn == 1


def test_recount_and_replay_of_a_four_player_game():
    g = Game(BOX, EN, players=4)
    g.play(0, across(7, 6, "CAT"))
    ate = g.play(1, ATE).agreed
    g.exchange(2, 3)
    g.time_penalty(3, claimed=-10)  # box rules have no overtime: the claim stands against engine 0
    g.play(3, across(9, 8, "EX"))
    record = GameRecord(tuple(Player(f"p{i}", f"P {i}") for i in range(4)), tuple(g.events), {}, "box",
                        "en", "standard")
    lines = recount_lines(record)
    ex = g.events[-1].agreed
    assert ate > 0 and ex > 0
    assert [ln.totals for ln in lines] == [(10, 0, 0, 0), (10, ate, 0, 0), (10, ate, 0, 0), (10, ate, 0, -10),
                                           (10, ate, 0, -10 + ex)]
    assert [ln.text for ln in lines][:3] == ["8G CAT", "I7 A(T)E", "exchange 3"]
    assert [(ln.number, ln.position, ln.word, ln.shown) for ln in lines][1] == (2, "I7", "A.E", "A(T)E")
    assert lines[3].engine == 0 and lines[3].agreed == -10
