"""Each rule variant, played out on small games."""
from __future__ import annotations

import pytest

from tilecam.scoring.board import Direction, Square
from tilecam.scoring.events import EndRackPenalty, EndRackPoints
from tilecam.scoring.game import Game, GameError, overtime_minutes
from tilecam.scoring.placement import PlacedTile, Placement
from tilecam.scoring.rules import PROFILES, ChallengeRule, EndRack, get_profile
from tilecam.scoring.tally import check_set, format_pool, tally, unseen
from tilecam.scoring.tiles import DISTRIBUTIONS

EN = DISTRIBUTIONS["en"]


def across(row, col, letters) -> Placement:
    return Placement(tuple(PlacedTile(Square(row, col + i), ch.upper(), ch.islower())
                           for i, ch in enumerate(letters)), Direction.ACROSS)


def test_profiles_are_data():
    assert get_profile("naspa").challenge is ChallengeRule.DOUBLE
    assert get_profile("naspa").end_rack is EndRack.DOUBLE
    assert get_profile("naspa").overtime_forfeit_minutes == 10
    assert get_profile("wespa").challenge_bonus_per_word == 5
    box = get_profile("box")
    assert box.passes_to_end(2) == 4 and box.passes_to_end(4) == 8 and box.scoreless_turns_to_end(3) is None
    assert get_profile("naspa").scoreless_turns_to_end(2) == 6
    assert (box.min_players, box.max_players) == (2, 4)
    assert all(p.max_players == 2 for name, p in PROFILES.items() if name != "box")
    with pytest.raises(ValueError, match="unknown rules"):
        get_profile("scrabulous")


@pytest.mark.parametrize("rule, per_word", [(ChallengeRule.FIVE_POINT, 5), (ChallengeRule.TEN_POINT, 10),
                                            (ChallengeRule.DOUBLE, 0), (ChallengeRule.SINGLE, 0),
                                            (ChallengeRule.VOID, 0)])
def test_challenge_bonus_per_challenged_word(rule, per_word):
    g = Game(PROFILES["naspa"].with_(challenge=rule), EN)
    g.play(0, across(7, 6, "CAT"))
    ev = g.challenge_bonus(0, words_challenged=2)
    assert ev.engine == 2 * per_word and ev.agreed == ev.engine
    assert g.state.scores[0] == 10 + 2 * per_word


def test_recorded_challenge_bonus_is_checked_against_the_rule():
    g = Game(PROFILES["naspa-csw"], EN)
    g.play(0, across(7, 6, "CAT"))
    ev = g.challenge_bonus(0, claimed=10)  # a record gives only the total: two words
    assert (ev.words_challenged, ev.engine) == (2, 10)
    g2 = Game(PROFILES["naspa"], EN)  # double challenge has no bonus: the claim is a discrepancy
    g2.play(0, across(7, 6, "CAT"))
    ev2 = g2.challenge_bonus(0, claimed=5)
    assert ev2.engine == 0 and ev2.agreed == 5


def test_double_challenge_failed_costs_the_challenger_a_turn():
    profile = PROFILES["naspa"]
    assert profile.failed_challenge_loses_turn
    assert not PROFILES["naspa"].with_(challenge=ChallengeRule.SINGLE).failed_challenge_loses_turn
    g = Game(profile, EN)
    g.play(0, across(7, 6, "CAT"))
    g.lose_turn(1)
    assert g.state.on_turn == 0 and g.state.scoreless_turns == 1


def test_withdrawn_phony_takes_tiles_and_points_back():
    g = Game(PROFILES["naspa"], EN)
    g.play(0, across(7, 6, "ZZZ"))
    ev = g.withdraw(0)
    assert ev.engine == -g.events[0].agreed
    assert len(g.state.board) == 0 and g.state.scores == [0, 0]
    assert g.state.bag == 86 and g.state.rack_sizes == [7, 7]
    assert g.state.on_turn == 1 and g.state.scoreless_turns == 1
    with pytest.raises(GameError):
        g.withdraw(1)  # nothing left to withdraw


def test_six_consecutive_scoreless_turns_end_the_game():
    g = Game(PROFILES["naspa"], EN)
    for i in range(5):
        (g.pass_turn if i % 2 else lambda p: g.exchange(p, 7))(i % 2)
        assert not g.state.ended
    g.pass_turn(1)
    assert g.state.ended and g.state.end_reason == "zeros"
    with pytest.raises(GameError, match="ended"):
        g.pass_turn(0)
    # Each player then loses their own rack.
    g.end_rack_penalty(0, "QZ")
    assert g.state.scores[0] == -20


def test_box_rules_end_when_every_player_passed_twice():
    g = Game(PROFILES["box"], EN)
    for i in range(6):  # exchanges are not passes, and box rules have no six-zero
        g.exchange(i % 2, 1)
    assert not g.state.ended
    for i in range(4):
        assert not g.state.ended
        g.pass_turn(i % 2)
    assert g.state.ended and g.state.end_reason == "passes"


def test_exchange_needs_enough_tiles_in_the_bag():
    g = Game(PROFILES["naspa"], EN)
    g.state.bag = 6
    with pytest.raises(GameError, match="7 tiles in the bag"):
        g.exchange(0, 3)
    box = Game(PROFILES["box"], EN)
    box.state.bag = 6
    box.exchange(0, 3)


def _play_out(profile):
    """A game where player 0 goes out with the bag empty and player 1 holds Q and Z."""
    g = Game(profile, EN)
    g.state.bag = 0
    g.state.rack_sizes = [3, 2]
    g.play(0, across(7, 6, "CAT"))
    assert g.state.ended and g.state.end_reason == "out" and g.state.out_player == 0
    return g


def test_out_player_gets_twice_the_opponent_rack_under_naspa():
    g = _play_out(PROFILES["naspa"])
    ev = g.end_rack_points(0, "QZ")
    assert isinstance(ev, EndRackPoints) and ev.engine == 40


def test_plus_minus_end_under_wespa_and_box():
    for name in ("wespa", "box"):
        g = _play_out(PROFILES[name])
        assert g.end_rack_points(0, "QZ").engine == 20
        assert g.end_rack_penalty(1, "QZ").engine == -20


def test_finish_out_uses_the_unseen_tiles():
    g = Game(PROFILES["wespa"], EN)
    g.play(0, across(7, 6, "CAT"))
    g.state.bag, g.state.rack_sizes = 0, [0, 7]
    g.state.ended, g.state.end_reason, g.state.out_player = True, "out", 0
    added = g.finish_out()
    left = sum(EN.values.get(t, 0) * n for t, n in EN.counts.items()) - 5  # all tiles but C, A, T
    assert [type(e) for e in added] == [EndRackPoints, EndRackPenalty]
    assert added[0].engine == left and added[1].engine == -left


def test_a_challenge_can_still_withdraw_the_play_that_went_out():
    g = _play_out(PROFILES["naspa"])
    g.withdraw(0)
    assert not g.state.ended and g.state.rack_sizes == [3, 2]


def test_overtime_costs_10_per_started_minute():
    assert overtime_minutes(1) == 1 and overtime_minutes(60000) == 1 and overtime_minutes(60001) == 2
    assert overtime_minutes(0) == 0
    g = Game(PROFILES["naspa"], EN)
    assert g.time_penalty(0, minutes=3).engine == -30
    assert g.time_penalty(1, claimed=-20).minutes == 2


def test_tally_and_the_100_tile_check():
    g = Game(PROFILES["naspa"], EN)
    g.play(0, across(7, 6, "CAt"))
    board = g.state.board
    counted = tally(board, ["EEIOU?S"], EN)
    assert counted["?"] == 2 and counted["C"] == 1
    pool = unseen(board, EN, "EEIOU?S")
    assert sum(pool.values()) == 100 - 3 - 7
    assert pool["?"] == 0 and pool["T"] == 6
    assert "?" not in format_pool(pool, EN)
    assert check_set(EN.bag(), EN) == []
    short = EN.bag()
    short["E"] -= 1
    short["X"] += 1
    assert check_set(short, EN) == ["missing 1 x E", "1 extra x X"]


def test_cumulative_is_previous_plus_agreed():
    g = Game(PROFILES["naspa"], EN)
    g.play(0, across(7, 6, "CAT"), claimed=12)  # misscored claim: it stands, the engine says 10
    assert g.events[0].engine == 10 and g.events[0].agreed == 12 and g.events[0].cumulative == 12
    with pytest.raises(GameError, match="cumulative"):
        from tilecam.scoring.events import Pass
        g.append(Pass(1, 5))


def test_corrections_amend_without_rewriting_the_log():
    from tilecam.scoring.events import Correction, Exchange, Play, from_json, to_json
    from tilecam.scoring.game import effective_events

    g = Game(PROFILES["naspa"], EN)
    g.play(0, across(7, 6, "CAT"))            # misread: it was COT
    g.pass_turn(1)                            # was really an exchange of 3
    g.play(0, across(8, 6, "AX"))
    log = list(g.events)
    log.append(Correction(0, Play(0, across(7, 6, "COT"), (), None, 0, 0, 0), by="op"))
    log.append(Correction(1, Exchange(1, 3, None, 0), by="op", reason="exchange, not pass"))
    fixed = effective_events(log, PROFILES["naspa"], EN)
    assert fixed[0].words == ("COT",) and fixed[0].engine == 10
    assert fixed[1].kind == "exchange" and fixed[1].count == 3
    # AX under COT now forms OA, TX... the engine rescored the later play on the amended board.
    assert fixed[2].words != g.events[2].words
    assert fixed[2].cumulative == fixed[0].cumulative + fixed[2].engine
    # Every entry round-trips through JSON, the store's row format.
    assert [from_json(to_json(e)) for e in log] == log
    with pytest.raises(ValueError, match="unknown event kind"):
        from_json({"kind": "teleport"})


def test_exchange_count_must_fit_the_rack():
    g = Game(PROFILES["naspa"], EN)
    with pytest.raises(GameError, match="from a rack of 7"):
        g.exchange(0, 8)
    with pytest.raises(GameError):
        g.exchange(0, 0)
