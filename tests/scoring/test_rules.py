"""Each rule variant, played out on small games."""
from __future__ import annotations

import pytest

from tilecam.scoring.board import Direction, Square
from tilecam.scoring.events import EndRackPenalty, EndRackPoints
from tilecam.scoring.errors import RulesError
from tilecam.scoring.clock import over_minutes
from tilecam.scoring.game import Game, GameError, TurnDetailsError
from tilecam.scoring.gcg import read_gcg, record_from_gcg
from tilecam.scoring.placement import PlacedTile, Placement
from tilecam.scoring.gcg import choose_rules
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
    g.play(0, across(7, 6, "ZAX"))
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
    # started minutes are the clock's one rule (scoring.clock.over_minutes): 1 ms over is a minute
    assert over_minutes(0.001) == 1 and over_minutes(60.0) == 1 and over_minutes(60.001) == 2
    assert over_minutes(0) == 0 and over_minutes(-5.0) == 0
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


def test_the_engines_score_standing_survives_the_log_replayed_and_stored():
    from tilecam.scoring.events import Correction, from_json, to_json
    from tilecam.scoring.game import effective_events

    g = Game(PROFILES["naspa"], EN)
    g.play(0, across(7, 6, "CAT"), claimed=9, engine_stands=True)  # CAT scores 10: announced 9
    g.pass_turn(1)
    log = [from_json(to_json(e)) for e in g.events]  # as the store keeps it
    assert log[0].engine_stands and log[0].agreed == 10
    log.append(Correction(1, g.events[1], by="op", reason="unrelated"))
    fixed = effective_events(log, PROFILES["naspa"], EN)
    assert (fixed[0].claimed, fixed[0].engine, fixed[0].agreed) == (9, 10, 10)
    log.append(Correction(0, g.events[0], by="op", agreed=9))  # a ruling still overrides it
    assert effective_events(log, PROFILES["naspa"], EN)[0].agreed == 9


def test_exchange_count_must_fit_the_rack():
    g = Game(PROFILES["naspa"], EN)
    with pytest.raises(GameError, match="from a rack of 7"):
        g.exchange(0, 8)
    with pytest.raises(GameError):
        g.exchange(0, 0)


# ---- challenges: what each rule makes of an adjudication (Game.challenge) ----------------

def _challenged(rule: ChallengeRule, players: int = 2, profile: str = "naspa") -> Game:
    g = Game(PROFILES[profile].with_(challenge=rule), EN, players=players)
    g.play(0, across(7, 6, "CAT"))
    return g


@pytest.mark.parametrize("rule", [ChallengeRule.DOUBLE, ChallengeRule.SINGLE, ChallengeRule.FIVE_POINT,
                                  ChallengeRule.TEN_POINT])
def test_a_phony_comes_off_under_every_rule_with_challenges(rule):
    g = _challenged(rule)
    added = g.challenge("phony")
    assert [e.kind for e in added] == ["phony_withdrawn"] and added[0].agreed == -g.events[0].agreed
    assert len(g.state.board) == 0 and g.state.scores == [0, 0] and g.state.on_turn == 1


def test_a_valid_play_under_double_challenge_costs_the_challenger_the_turn():
    g = _challenged(ChallengeRule.DOUBLE)
    added = g.challenge("valid")
    assert [(e.kind, e.player, e.note) for e in added] == [("turn_lost", 1, "challenged CAT")]
    assert g.state.on_turn == 0 and g.state.scores == [g.events[0].agreed, 0]


@pytest.mark.parametrize("rule, per_word", [(ChallengeRule.FIVE_POINT, 5), (ChallengeRule.TEN_POINT, 10)])
def test_a_valid_play_under_a_points_rule_gives_the_player_a_bonus_per_word(rule, per_word):
    g = _challenged(rule)
    cat = g.events[0].agreed
    added = g.challenge("valid", words=2)
    assert [(e.kind, e.player, e.words_challenged, e.agreed) for e in added] == \
        [("challenge_bonus", 0, 2, 2 * per_word)]
    assert g.state.scores == [cat + 2 * per_word, 0] and g.state.on_turn == 1  # the challenger plays on
    with pytest.raises(GameError, match="no play to challenge"):
        g.challenge("valid")  # a play is challenged once
    assert _challenged(rule).challenge("valid")[0].agreed == per_word  # one word when not said


def test_a_valid_play_under_single_challenge_records_nothing():
    g = _challenged(ChallengeRule.SINGLE)
    assert g.challenge("valid") == [] and len(g.events) == 1 and g.state.on_turn == 1


def test_void_rules_have_no_challenges_and_a_challenge_needs_a_play():
    with pytest.raises(GameError, match="have no challenges"):
        _challenged(ChallengeRule.VOID).challenge("phony")
    g = Game(PROFILES["naspa"], EN)
    with pytest.raises(GameError, match="no play to challenge"):
        g.challenge("valid")
    g.play(0, across(7, 6, "CAT"))
    g.pass_turn(1)
    with pytest.raises(GameError, match="no play to challenge"):
        g.challenge("phony")


def test_a_challenger_is_another_player_of_the_game():
    g = _challenged(ChallengeRule.DOUBLE)
    with pytest.raises(TurnDetailsError, match="player 0 made the play"):
        g.challenge("valid", challenger=0)
    with pytest.raises(TurnDetailsError, match="no player 2"):
        g.challenge("valid", challenger=2)
    with pytest.raises(TurnDetailsError, match="'phony' or 'valid'"):
        g.challenge("maybe")
    assert len(g.events) == 1


def test_a_challenger_who_is_not_next_loses_their_next_turn():
    g = _challenged(ChallengeRule.DOUBLE, players=3, profile="box")
    assert [(e.kind, e.player) for e in g.challenge("valid", challenger=2)] == [("turn_lost", 2)]
    assert g.state.on_turn == 1  # player 1 plays; player 2's turn is the one lost
    g.pass_turn(1)
    assert g.state.on_turn == 0


# ---- rule detection: the profile a GCG record was played under (choose_rules) ------------

def _gcg(*lines: str):
    return read_gcg("\n".join(lines) + "\n")


def test_choose_rules_from_the_record():
    plain = _gcg("#player1 a Ann", "#player2 b Bob", ">a: QUALM 8D QUALM +52 52")
    assert choose_rules("auto", plain) == "naspa"
    assert choose_rules("auto", _gcg("#lexicon CSW21", "#player1 a Ann", "#player2 b Bob",
                                     ">a: QUALM 8D QUALM +52 52")) == "naspa-csw"
    bonus = _gcg("#player1 a Ann", "#player2 b Bob", ">a: QUALM 8D QUALM +52 52", ">a: QUALM (challenge) +5 57")
    assert choose_rules("auto", bonus) == "naspa-csw"
    four = _gcg(*(f"#player{i} p{i} P{i}" for i in range(1, 5)), ">p1: QUALM 8D QUALM +52 52")
    assert choose_rules("auto", four) == "box"
    assert choose_rules("wespa", plain) == "wespa"  # asked for: taken as given
    with pytest.raises(RulesError, match="unknown rules 'scrabulous'"):
        choose_rules("scrabulous", plain)


def test_choose_rules_tells_a_plus_minus_ending_from_a_doubled_one():
    out = ["#player1 a Ann", "#player2 b Bob", ">a: QUALM 8D QUALM +52 52"]
    doubled = _gcg(*out, ">a: (EE) +4 56")
    plus_minus = _gcg(*out, ">a: (EE) +2 54", ">b: (EE) -2 -2")
    assert choose_rules("auto", doubled) == "naspa"
    assert choose_rules("auto", plus_minus) == "wespa"


@pytest.mark.parametrize("name, rules", [("many_challenges.gcg", "naspa-csw"), ("doug_vs_emely.gcg", "naspa")])
def test_choose_rules_on_shared_games(shared_data, name, rules):
    gcg = read_gcg((shared_data / "gcg" / "liwords" / name).read_bytes())
    assert choose_rules("auto", gcg) == rules
    record, findings, _ = record_from_gcg(gcg, get_profile(rules), EN, rules=rules)
    assert not [f for f in findings if f.what == "score"]  # the rules chosen score the game as recorded
