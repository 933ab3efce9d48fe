"""api/station/lostwatch.py on its own: each way the record stops following the board raises its
alert once, at the frame it happens, and clears when what raised it is over. Asserted on the alerts'
kinds and frames (the typed result the recorder, the meta and the LED read), not on their words."""
from __future__ import annotations

import pytest
from pydantic import ValidationError

from tilecam.api.station.lostwatch import Alert, LostConfig, LostWatch


def kinds(watch: LostWatch) -> list[str]:
    return [a.kind for a in watch.open]


def test_tiles_no_play_explains_raise_the_alert_from_the_configured_count_and_clear_when_explained():
    watch = LostWatch(LostConfig(min_unexplained=2))
    assert watch.decided(1, 0.1, ["H8"]) is None and watch.open == []   # one square: a misread more often
    alert = watch.decided(2, 0.2, ["H8", "H9"])
    assert isinstance(alert, Alert) and (alert.kind, alert.frame_index, alert.t) == ("unexplained", 2, 0.2)
    assert watch.decided(3, 0.3, ["H8", "H9", "H10"]) is None          # still open: raised once
    assert kinds(watch) == ["unexplained"] and watch.summary() == watch.open[0].what
    watch.decided(4, 0.4, [])
    assert watch.open == [] and watch.alerts[0].cleared_at == 4 and watch.summary() is None


def test_snapshots_dropped_in_a_row_raise_the_alert_and_a_decided_one_clears_and_restarts_the_count():
    watch = LostWatch(LostConfig(max_dropped=3))
    assert watch.dropped(1, 0.1) is None and watch.dropped(2, 0.2) is None
    assert watch.dropped(3, 0.3).kind == "dropped"
    watch.decided(4, 0.4, [])
    assert watch.open == [] and watch.alerts[0].cleared_at == 4
    assert watch.dropped(5, 0.5) is None and watch.dropped(6, 0.6) is None   # counted afresh


def test_a_board_judged_moving_without_a_break_raises_the_alert_and_a_still_frame_clears_it():
    watch = LostWatch(LostConfig(restless_s=5.0))
    for i in range(6):
        got = watch.frame(i, float(i), "moving")
        assert got is None or i == 5
    assert kinds(watch) == ["restless"] and watch.open[0].frame_index == 5
    watch.frame(6, 6.0, "clear")
    assert watch.open == [] and watch.alerts[0].cleared_at == 6
    assert watch.frame(7, 7.0, "moving") is None and watch.frame(8, 11.0, "moving") is None   # 4 s: not yet


def test_a_still_frame_without_the_grid_raises_the_blind_alert_after_blind_s():
    watch = LostWatch(LostConfig(blind_s=1.0))
    assert watch.frame(0, 0.0, "blind", in_view=False) is None
    alert = watch.frame(1, 1.0, "blind", in_view=False)
    assert alert.kind == "blind" and alert.frame_index == 1
    watch.frame(2, 1.5, "blind", in_view=True)          # still open, what it sees updated
    assert kinds(watch) == ["blind"] and len(watch.alerts) == 1
    watch.frame(3, 2.0, "clear")
    assert watch.open == [] and watch.alerts[0].cleared_at == 3


def test_no_board_in_the_frames_for_no_board_s_raises_the_alert_and_a_board_found_clears_it():
    watch = LostWatch(LostConfig(no_board_s=10.0))
    assert all(watch.frame(i, float(i), "no_board") is None for i in range(10))
    alert = watch.frame(10, 10.0, "no_board")
    assert alert.kind == "no_board" and alert.frame_index == 10
    assert watch.frame(11, 11.0, "no_board") is None and len(watch.alerts) == 1
    watch.frame(12, 12.0, "moving")                      # a grid found, a hand over it
    assert watch.open == [] and watch.alerts[0].cleared_at == 12
    assert watch.frame(13, 13.0, "no_board") is None     # the time counts from the board lost again


def visit(watch: LostWatch, i: int, t: float) -> Alert | None:
    """A hand over the board and gone: a moving frame, then a clear one."""
    watch.frame(i, t, "moving")
    return watch.frame(i + 1, t + 0.5, "clear")


def test_hands_coming_and_going_with_no_snapshot_raise_the_alert_and_a_snapshot_clears_it():
    watch = LostWatch(LostConfig(hand_visits=3, no_snapshot_s=20.0))
    assert visit(watch, 0, 0.0) is None and visit(watch, 2, 10.0) is None
    assert visit(watch, 4, 15.0) is None                  # three visits, but within 20 s: a turn being laid
    assert visit(watch, 6, 25.0).kind == "no_snapshot"    # the fourth, 25 s after the first
    watch.frame(8, 26.0, "moving")
    watch.frame(9, 27.0, "snapshot")
    assert watch.open == [] and watch.alerts[0].cleared_at == 9


def test_a_board_judged_still_long_enough_ends_the_visits_a_snapshot_not_taken_is_the_board_unchanged():
    watch = LostWatch(LostConfig(hand_visits=2, no_snapshot_s=1.0), still_s=2.0)
    visit(watch, 0, 0.0)
    watch.frame(2, 3.0, "clear")                          # still for 2.5 s: judged still, nothing new
    assert visit(watch, 3, 10.0) is None                  # counted from one again
    assert visit(watch, 5, 11.0).kind == "no_snapshot"    # two visits, no still spell between


def test_several_alerts_stand_at_once_each_with_its_own_record():
    watch = LostWatch(LostConfig(min_unexplained=1, max_dropped=1))
    watch.decided(1, 0.1, ["A1"])
    watch.dropped(2, 0.2)
    assert sorted(kinds(watch)) == ["dropped", "unexplained"]
    assert watch.summary().count("; ") == 1
    assert watch.alerts[1].as_dict() == {"kind": "dropped", "what": watch.alerts[1].what, "frame_index": 2,
                                         "t": 0.2, "cleared_at": None}


def test_the_settings_refuse_a_typo_and_values_out_of_range():
    with pytest.raises(ValidationError):
        LostConfig(max_droped=3)
    with pytest.raises(ValidationError):
        LostConfig(min_unexplained=0)
    with pytest.raises(ValidationError):
        LostConfig(blind_s=0)


def test_a_play_the_camera_could_not_read_raises_its_own_alert_until_it_is_read_or_gone():
    """Issue 44: a play held as a guess past [decode] hold_snapshots (Scorekeeper.unread) is said as
    such, with its squares, apart from tiles no play explains; it clears once nothing is unread."""
    watch = LostWatch(LostConfig(min_unexplained=2))
    alert = watch.decided(1, 0.1, [], ["H8", "H9"])
    assert alert is not None and alert.kind == "unread" and "H8, H9" in alert.what
    assert watch.decided(2, 0.2, ["A1", "A2"], ["H8", "H9"]).kind == "unexplained"
    assert kinds(watch) == ["unread", "unexplained"]
    watch.decided(3, 0.3, [], [])
    assert watch.open == [] and [a.cleared_at for a in watch.alerts] == [3, 3]
