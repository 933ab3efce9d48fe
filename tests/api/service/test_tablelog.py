"""The table log (api/service/tablelog.py, issue 46) on a real store (SQLite; PostgreSQL where two
processes share one), without HTTP: the clock rebuilt from its logged presses by a service started
afresh on the same store (a restart), the time
the program was dead charged to the player on turn; the players' names and the tiles learned at the
table as rows of it; a game from before it (names in its row, learned tiles in its meta) read as before."""
from __future__ import annotations

import pytest

from tilecam.api.bus import Bus
from tilecam.api.service import GameService
from tilecam.api.service.view import LEARNED_META
from tilecam.api.settings import StoreSettings
from tilecam.api.store import open_store

WALL = 1_700_000_000.0


class Times:
    """A run of the program: its steady clock starts at `steady0` (each run its own), its wall
    clock at WALL + `wall0`; `go(s)` moves both on by s seconds."""

    def __init__(self, steady0: float, wall0: float) -> None:
        self.steady, self.wall = steady0, WALL + wall0

    def go(self, s: float) -> None:
        self.steady += s
        self.wall += s


@pytest.fixture(params=["sqlite", "postgresql"])
def db(request, tmp_path):
    """Where the store is, on each engine: a SQLite file, or a fresh PostgreSQL database."""
    if request.param == "sqlite":
        return tmp_path / "g.sqlite3"
    pg, url = request.getfixturevalue("pg"), request.getfixturevalue("pg_url")
    secret = tmp_path / "store.password"
    secret.write_text(pg.password + "\n")
    secret.chmod(0o600)
    return StoreSettings(url=url, password_file=str(secret))


OPEN: list[GameService] = []


@pytest.fixture(autouse=True)
def closed():
    yield
    while OPEN:
        OPEN.pop().store.close()


def started(path, times: Times) -> GameService:
    """A run of the program on the store at `path`, on `times`' clocks."""
    svc = GameService(open_store(path), Bus(), clock=lambda: times.wall)
    svc.steady = lambda: times.steady
    OPEN.append(svc)
    return svc


def ann_on_the_clock(path, times: Times, minutes: int = 25) -> tuple[GameService, int]:
    """A service on `path` with a game whose clock was started and pressed once: Ann's runs."""
    svc = started(path, times)
    gid = svc.create_game([("Ann", None), ("Ben", None)]).id
    svc.start_clock(gid, minutes)
    svc.clock_press(gid, None)
    return svc, gid


def play_the_clock(svc: GameService, gid: int, times: Times) -> None:
    """Started; Ann's clock runs from the first press; Ann ends her turn at 60 s; a pause 90-100 s;
    Ben ends his at 130 s and takes it back at 140 s (his clock runs on, charged from his press)."""
    svc.start_clock(gid, 25)
    svc.clock_press(gid, None)
    for step, act in ((60, lambda: svc.clock_press(gid, 0)), (30, lambda: svc.clock_pause(gid, True)),
                      (10, lambda: svc.clock_pause(gid, False)), (30, lambda: svc.clock_press(gid, 1)),
                      (10, lambda: svc.clock_undo(gid, 1))):
        times.go(step)
        act()


@pytest.mark.parametrize("dead_s", [0.0, 50.0])
def test_a_restarted_service_keeps_the_clock_the_dead_time_charged_to_the_player_on_turn(db, tmp_path, dead_s):
    times = Times(steady0=500.0, wall0=0.0)
    first = started(db, times)
    gid = first.create_game([("Ann", None), ("Ben", None)]).id
    play_the_clock(first, gid, times)
    times.go(10)  # the program dies at 150 s, Ben's clock running; no store object is closed (SIGKILL)
    again = Times(steady0=7.0, wall0=150.0 + dead_s)  # a new run: its steady clock starts elsewhere
    second = started(db, again)
    assert second.has_clock(gid)
    out = second.clock_now(gid)
    # Ann: 60 s used; Ben: 60-90 s and 100-150 s, and the dead time (his clock ran on)
    assert out.on_clock == 1 and out.running == 1 and not out.paused and out.started
    assert out.remaining_ms == [round((1500 - 60) * 1000), round((1500 - 80 - dead_s) * 1000)]
    # the same as the uninterrupted run's at the same moment
    whole = Times(steady0=500.0, wall0=0.0)
    other = started(tmp_path / "whole.sqlite3", whole)
    gid2 = other.create_game([("Ann", None), ("Ben", None)]).id
    play_the_clock(other, gid2, whole)
    whole.go(10 + dead_s)
    assert other.clock_now(gid2).remaining_ms == out.remaining_ms
    # and it goes on from there: Ben ends his turn, Ann's runs; a third run sees that too
    again.go(5)
    assert second.clock_press(gid, 1).running == 0
    third = started(db, Times(steady0=0.0, wall0=again.wall - WALL))
    assert third.clock_now(gid).remaining_ms == second.clock_now(gid).remaining_ms
    assert third.clock_now(gid).on_clock == 0


def test_a_clock_stopped_at_the_end_stays_stopped_after_a_restart_and_its_overtime_goes_in_once(tmp_path):
    times = Times(steady0=0.0, wall0=0.0)
    first, gid = ann_on_the_clock(tmp_path / "g.sqlite3", times, minutes=1)
    times.go(61)  # Ann 0:01 over
    first.clock_press(gid, 0)
    times.go(5)
    first.end(gid, None, "forfeit", by="desk")
    n = first.count(gid)
    stopped = first.clock_now(gid)
    assert stopped.finished and stopped.penalties == [-10, 0]
    later = Times(steady0=3.0, wall0=times.wall - WALL + 3600)  # an hour later, a new run
    second = started(tmp_path / "g.sqlite3", later)
    out = second.clock_now(gid)
    assert out.finished and out.remaining_ms == stopped.remaining_ms  # the dead hour charged to nobody
    assert second.end_clock(gid) == [] and second.count(gid) == n   # its overtime is in the record once


def test_a_second_start_after_a_restart_is_refused(tmp_path):
    times = Times(steady0=0.0, wall0=0.0)
    first = started(tmp_path / "g.sqlite3", times)
    gid = first.create_game([("Ann", None), ("Ben", None)]).id
    first.start_clock(gid, 25)
    second = started(tmp_path / "g.sqlite3", Times(steady0=0.0, wall0=10.0))
    with pytest.raises(ValueError, match="already has a clock"):
        second.start_clock(gid, 25)


def test_names_and_learned_tiles_are_rows_of_the_table_log_the_latest_in_force(tmp_path):
    times = Times(steady0=0.0, wall0=0.0)
    svc = started(tmp_path / "g.sqlite3", times)
    gid = svc.create_game([("Ann", None), ("Ben", None)]).id
    assert svc.table_log(gid).players == svc.game(gid).players and svc.learned(gid) == frozenset()
    svc.set_players(gid, [("Anna", "ann"), ("Ben", None)], by="desk")
    svc.set_players(gid, [("Anna Maria", "ann"), ("Ben", None)], by="desk")
    svc.set_learned(gid, {"A", "B"})
    svc.set_learned(gid, {"A", "B"})        # no change: no row
    svc.set_learned(gid, {"A", "B", "?"})
    rows = svc.store.table_log(gid)
    assert [r.kind for r in rows] == ["players", "players", "players", "learned", "learned"]
    assert rows[0].data == {"players": [{"nick": "Ann", "name": "Ann"}, {"nick": "Ben", "name": "Ben"}],
                            "by": "created"}   # the names a game starts with are its first row
    again = started(tmp_path / "g.sqlite3", times)
    log = again.table_log(gid)
    assert [p["name"] for p in log.players] == ["Anna Maria", "Ben"] and log.learned == {"A", "B", "?"}
    # what the pages read shows the same: the row's players, the meta's learned tiles
    assert again.game(gid).players == log.players and again.game(gid).meta[LEARNED_META] == "? A B"


def test_a_game_from_before_the_table_log_reads_its_names_and_learned_tiles_as_before(tmp_path):
    svc = started(tmp_path / "g.sqlite3", Times(0.0, 0.0))
    # as the code before wrote them: the names in the row, the learned tiles in the meta, no table log
    gid = svc.store.create_game([{"nick": "ann", "name": "Ann B"}, {"nick": "ben", "name": "Ben"}], "naspa", "en",
                                meta={LEARNED_META: "E S"}).id
    assert svc.store.table_log(gid) == []
    log = svc.table_log(gid)
    assert [p["name"] for p in log.players] == ["Ann B", "Ben"] and svc.learned(gid) == {"E", "S"}
    assert log.clock_minutes is None and not svc.has_clock(gid)   # its clock was in memory only


def test_two_processes_on_one_store_press_one_clock_each_on_the_clock_as_the_log_has_it(db):
    times = Times(steady0=0.0, wall0=0.0)
    here, gid = ann_on_the_clock(db, times)
    there = started(db, times)   # another process: the clock as the log has it
    times.go(30)
    assert there.clock_press(gid, 0).running == 1     # Ann ends her turn there
    times.go(5)
    # here, Ann's clock still runs in memory: a press of Ann's is taken on the log's clock, Ben's
    with pytest.raises(ValueError, match="player 0's clock is not running; player 1 is on turn"):
        here.clock_press(gid, 0)
    assert here.clock_press(gid, 1).running == 0
    again = started(db, times)
    assert again.clock_now(gid).remaining_ms == here.clock_now(gid).remaining_ms == [1470_000, 1495_000]


def test_a_press_in_another_process_is_shown_here_once_the_watcher_hears_of_it(db):
    times = Times(steady0=0.0, wall0=0.0)
    here, gid = ann_on_the_clock(db, times)
    here.announce_external()                          # the server's watcher takes its mark
    there = started(db, times)
    times.go(30)
    there.clock_press(gid, 0)
    assert here.clock_now(gid).on_clock == 0          # not heard of yet
    assert here.announce_external() == [gid]          # heard: the clock shown is the log's, and published
    assert here.clock_now(gid).on_clock == 1 and here.live(gid).clock.on_clock == 1
    assert here.announce_external() == []             # nothing new since
