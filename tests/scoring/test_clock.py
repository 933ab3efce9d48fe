"""The game clock with injected times: countdown, presses, pause, undo, overtime and its penalty."""
from __future__ import annotations

import pytest

from tilecam.scoring.board import Direction, Square
from tilecam.scoring.clock import (ClockAction, ClockConfig, ClockError, GameClock, format_clock, last_turn_player,
                                   on_this_run, over_minutes, replay_clock, stop_at_end)
from tilecam.scoring.errors import ScoringError
from tilecam.scoring.events import (ChallengeBonus, EndRackPoints, Exchange, Pass, PhonyWithdrawn, Play,
                                    TimePenalty, TurnLost)
from tilecam.scoring.game import GameError
from tilecam.scoring.placement import PlacedTile, Placement
from tilecam.scoring.rules import PROFILES, get_profile

MIN = 60.0


def naspa(players: int = 2) -> GameClock:
    return GameClock.for_rules(get_profile("naspa"), players)


def test_profiles_carry_the_time_control_as_data():
    assert [(p.name, p.minutes_per_player, p.overtime_per_minute, p.overtime_forfeit_minutes)
            for p in PROFILES.values()] == [
        ("naspa", 25, 10, 10), ("naspa-csw", 25, 10, 10), ("nsa", 25, 10, None), ("wespa", 25, 10, None),
        ("box", None, 0, None)]
    with pytest.raises(ScoringError, match="no time control"):
        GameClock.for_rules(get_profile("box"), 4)
    assert GameClock.for_rules(get_profile("box"), 4, minutes=5).initial_s == 300


def test_nothing_runs_before_the_first_press_and_it_starts_the_first_player():
    c = naspa()
    st = c.state(100.0)
    assert (st.started, st.running, st.remaining_s) == (False, None, (25 * MIN, 25 * MIN))
    # The second player starts the clock, as at the table: player 0 moves first.
    press = c.press(1, 100.0)
    assert (press.kind, press.running) == ("start", 0)
    assert c.remaining(0, 160.5) == 25 * MIN - 60.5
    assert c.remaining(1, 160.5) == 25 * MIN


def test_a_press_ends_the_turn_and_starts_the_next_clock():
    c = naspa()
    c.press(None, 0.0)
    press = c.press(0, 90.0)
    assert (press.kind, press.player, press.running) == ("turn_end", 0, 1)
    assert c.state(100.0).running == 1
    assert (c.remaining(0, 100.0), c.remaining(1, 100.0)) == (25 * MIN - 90, 25 * MIN - 10)
    # None: whoever is on turn (a keyboard's space bar).
    assert c.press(None, 130.0).player == 1
    assert c.remaining(1, 500.0) == 25 * MIN - 40


def test_a_press_by_a_player_not_on_turn_is_refused_and_changes_nothing():
    c = naspa()
    c.press(None, 0.0)
    with pytest.raises(ClockError, match="player 1's clock is not running; player 0 is on turn"):
        c.press(1, 10.0)
    assert c.state(20.0).running == 0 and c.remaining(0, 20.0) == 25 * MIN - 20
    assert isinstance(ClockError("x"), GameError)    # the API answers it with 409
    with pytest.raises(ScoringError, match="no player 2"):
        c.press(2, 20.0)


def test_pause_stops_time_and_a_press_while_paused_is_refused():
    c = naspa()
    c.press(None, 0.0)
    c.pause(30.0)
    st = c.state(300.0)
    assert (st.paused, st.running, st.on_clock) == (True, None, 0)
    assert c.remaining(0, 300.0) == 25 * MIN - 30
    with pytest.raises(ClockError, match="paused"):
        c.press(0, 301.0)
    with pytest.raises(ClockError, match="already paused"):
        c.pause(302.0)
    c.resume(400.0)
    assert c.remaining(0, 410.0) == 25 * MIN - 40
    with pytest.raises(ClockError, match="not paused"):
        c.resume(411.0)
    assert c.toggle_pause(420.0) is True and c.toggle_pause(430.0) is False
    assert c.remaining(0, 430.0) == 25 * MIN - 50


def test_pause_before_the_start_is_refused():
    with pytest.raises(ClockError, match="has not started"):
        naspa().pause(1.0)


def test_undo_gives_the_time_back_and_charges_the_presser():
    c = naspa()
    c.press(None, 0.0)
    c.press(0, 60.0)                       # a mistaken press: player 1's clock runs for 20 s
    with pytest.raises(ClockError, match="last press was player 0's, not player 1's"):
        c.undo(1, 80.0)
    assert c.undo(0, 80.0) == 0            # held: player 0 is on turn again, from their first start
    assert (c.remaining(0, 80.0), c.remaining(1, 80.0)) == (25 * MIN - 80, 25 * MIN)


def test_undo_across_a_pause_keeps_the_pause():
    c = naspa()
    c.press(None, 0.0)
    c.press(0, 60.0)
    c.pause(70.0)
    c.resume(170.0)                        # 100 s paused
    c.undo(None, 180.0)
    assert (c.remaining(0, 180.0), c.remaining(1, 180.0)) == (25 * MIN - 80, 25 * MIN)
    c.undo(None, 180.0)                    # the start press: the clock is not started again
    assert c.state(200.0).started is False
    with pytest.raises(ClockError, match="no press"):
        c.undo(None, 200.0)


def test_overtime_minutes_started_and_the_penalty():
    c = naspa()
    c.press(None, 0.0)
    limit = 25 * MIN
    assert (c.overtime_minutes(0, limit), c.penalty(0, limit)) == (0, 0)
    assert (c.overtime_minutes(0, limit + 1), c.penalty(0, limit + 1)) == (1, -10)
    assert c.overtime_minutes(0, limit + 60) == 1
    assert (c.overtime_minutes(0, limit + 60.001), c.penalty(0, limit + 61)) == (2, -20)
    assert c.remaining(0, limit + 1) == -1.0
    assert (over_minutes(0.0), over_minutes(0.0004), over_minutes(0.001)) == (0, 0, 1)


def test_naspa_loses_more_than_ten_minutes_over_other_profiles_do_not():
    c = naspa()
    c.press(None, 0.0)
    at_ten = 35 * MIN
    assert c.state(at_ten).lost_on_time == (False, False)
    assert c.state(at_ten + 1).lost_on_time == (True, False)
    assert c.state(at_ten + 1).penalties == (-110, 0)
    wespa = GameClock.for_rules(get_profile("wespa"), 2)
    wespa.press(None, 0.0)
    assert wespa.state(60 * MIN).lost_on_time == (False, False)
    assert wespa.state(60 * MIN).penalties == (-350, 0)


def test_three_and_four_players_go_round_in_turn_order():
    c = naspa(4)
    c.press(3, 0.0)                        # the last seat starts it: player 0 is on turn
    order = [c.press(None, t).running for t in (10.0, 30.0, 60.0, 100.0, 150.0)]
    assert order == [1, 2, 3, 0, 1]
    st = c.state(150.0)
    assert st.remaining_s == (25 * MIN - 60, 25 * MIN - 20, 25 * MIN - 30, 25 * MIN - 40)
    with pytest.raises(ClockError, match="player 0's clock is not running; player 1 is on turn"):
        c.press(0, 151.0)
    three = naspa(3)
    three.press(None, 0.0)
    assert [three.press(p, t).running for p, t in ((0, 1.0), (1, 2.0), (2, 3.0))] == [1, 2, 0]


def test_finish_stops_at_the_out_players_press():
    c = naspa()
    c.press(None, 0.0)
    c.press(0, 100.0)
    c.press(1, 200.0)                       # player 1 went out and pressed
    st = c.finish(260.0, last_player=1)    # recorded a minute later: player 0's clock did not run
    assert st.finished and st.running is None
    assert st.remaining_s == (25 * MIN - 100, 25 * MIN - 100)
    assert c.finish(999.0).remaining_s == st.remaining_s     # once
    for act in (lambda: c.press(0, 300.0), lambda: c.pause(300.0), lambda: c.undo(None, 300.0)):
        with pytest.raises(ClockError, match="game is over"):
            act()


def test_finish_without_the_last_players_press_stops_now():
    c = naspa()
    c.press(None, 0.0)
    c.press(0, 100.0)
    st = c.finish(150.0, last_player=1)    # player 1 went out but never pressed
    assert st.remaining_s == (25 * MIN - 100, 25 * MIN - 50)


def test_the_last_turn_is_a_move_or_a_challenge_that_ends_one_never_the_end_or_a_penalty():
    play = Play(0, Placement((PlacedTile(Square(7, 7), "A"), PlacedTile(Square(7, 8), "X")), Direction.ACROSS),
                ("AX",), None, 18, 18, 18)
    assert last_turn_player([]) is None
    assert last_turn_player([play]) == 0
    assert last_turn_player([play, Pass(1, 0)]) == 1 and last_turn_player([play, Exchange(1, 2, None, 0)]) == 1
    assert last_turn_player([play, PhonyWithdrawn(0, None, -18, -18, 0)]) == 0
    assert last_turn_player([play, TurnLost(1, 0)]) == 1
    assert last_turn_player([play, ChallengeBonus(0, 1, None, 5, 5, 23)]) == 0
    assert last_turn_player([play, Pass(1, 0), EndRackPoints(0, "QI", None, 22, 22, 40),
                             TimePenalty(1, 1, None, -10, -10, -10)]) == 1


def out_by_player_1() -> tuple[GameClock, list]:
    """Player 1 went out and pressed at 200 s; the end is recorded a minute later."""
    c = naspa()
    c.press(None, 0.0)
    c.press(0, 100.0)
    c.press(1, 200.0)
    return c, [Pass(0, 0), Pass(1, 0), EndRackPoints(1, "QI", None, 22, 22, 22)]


def test_the_end_by_the_rules_stops_the_clock_at_the_last_turns_press():
    c, events = out_by_player_1()
    st = stop_at_end(c, 260.0, events)
    assert st.finished and st.remaining_s == (25 * MIN - 100, 25 * MIN - 100)
    assert stop_at_end(c, 999.0, events).remaining_s == st.remaining_s  # once


def test_a_director_closing_the_game_stops_the_clock_at_the_call():
    c, events = out_by_player_1()
    st = stop_at_end(c, 260.0, events, closed=True)
    assert st.finished and st.remaining_s == (25 * MIN - 160, 25 * MIN - 100)


def test_times_out_of_order_count_at_the_latest():
    c = naspa()
    c.press(None, 0.0)
    c.pause(50.0)
    c.resume(60.0)
    c.press(0, 55.0)                       # stamped at the press, arrived after the resume
    assert c.remaining(0, 100.0) == 25 * MIN - 50


@pytest.mark.parametrize("seconds, text", [
    (1500, "25:00"), (1499.2, "25:00"), (1499.0, "24:59"), (61, "1:01"), (0.4, "0:01"), (0, "0:00"),
    (-0.2, "-0:01"), (-1, "-0:01"), (-59.5, "-1:00"), (-61, "-1:01"), (-601, "-10:01"), (6000, "100:00")])
def test_format_clock(seconds, text):
    assert format_clock(seconds) == text


def test_bad_clocks_are_refused():
    # the rules' player count (rules.PLAYER_COUNT), said as the settings and a GCG file say it
    for args, reason in [((1, 60), "a game has 2 to 4 players, not 1"), ((5, 60), "a game has 2 to 4 players, not 5"),
                         ((2, 0), "positive")]:
        with pytest.raises(ScoringError, match=reason):
            GameClock(*args)
    with pytest.raises(ValueError, match="minutes_per_player"):
        ClockConfig(minutes_per_player=0)
    with pytest.raises(ValueError, match="extra"):
        ClockConfig(overtime=1)
    assert all(f.description for f in ClockConfig.model_fields.values())


# ---- the clock rebuilt from its logged actions (issue 46) ---------------------------------------
def test_logged_actions_are_timed_on_this_run_steady_within_a_run_wall_across_runs():
    # run "a": steady 100.., its wall clock set back 30 s by NTP between the two presses (steady
    # decides within a run: 60 s apart); run "b" pressed 70 s (wall) after a's last action
    acts = [ClockAction("press", 100.0, 1000.0, "a"), ClockAction("press", 160.0, 1030.0, "a"),
            ClockAction("press", 10.0, 1100.0, "b", player=0)]
    assert on_this_run(acts, 15.0, 1105.0, "b") == [-120.0, -60.0, 10.0]
    # now on a third run, 40 s (wall) after b's last action: everything counted back from there
    assert on_this_run(acts, 0.0, 1140.0, "c") == [-170.0, -110.0, -40.0] and on_this_run([], 3.0, 9.0, "c") == []


def test_a_clock_rebuilt_from_its_actions_is_the_clock_they_were_done_to():
    done = naspa()
    done.first = 1
    done.press(None, 0.0)
    done.press(1, 60.0)
    done.pause(70.0)
    done.resume(80.0)
    done.press(0, 100.0)
    done.undo(0, 110.0)
    acts = [ClockAction("press", 0.0, 0.0, "a", first=1), ClockAction("press", 60.0, 60.0, "a", player=1),
            ClockAction("pause", 70.0, 70.0, "a"), ClockAction("resume", 80.0, 80.0, "a"),
            ClockAction("press", 100.0, 100.0, "a", player=0), ClockAction("undo", 110.0, 110.0, "a", player=0)]
    again = replay_clock(naspa(), acts, 500.0, 130.0, "b")   # 20 s after the last action, a new run
    assert again.state(500.0).remaining_s == done.state(130.0).remaining_s and again.state(500.0).on_clock == 0
    done.finish(130.0, last_player=None)
    stopped = replay_clock(naspa(), [*acts, ClockAction("finish", 130.0, 130.0, "a")], 9.0, 4000.0, "c")
    assert stopped.state(9.0).remaining_s == done.state(4000.0).remaining_s and stopped.state(9.0).finished
