"""What every store engine promises (api/store: the Store protocol), held to each engine alike.

An engine is given the test's request and folder and returns a function that opens a store object
on one fresh database; called twice, that opens a second object on the same database (another
process, or another server, as far as the store can tell). "postgresql" runs on the session's own
server (tests/pgserver.py), a new database per test, logging in with a password from a file.
"""
from __future__ import annotations

import ast
import dataclasses
import inspect
import threading
import time
from pathlib import Path
from typing import Callable

import pytest

from tilecam.api.settings import StoreSettings
from tilecam.api.store import Changes, Conflict, NotFound, Store, open_store
from tilecam.scoring.board import Direction, Square
from tilecam.scoring.events import (EVENT_TYPES, ChallengeBonus, Close, Correction, EndRackPenalty, EndRackPoints,
                                    Exchange, Pass, PhonyWithdrawn, Play, TimePenalty, TurnLost, Void)
from tilecam.scoring.placement import PlacedTile, Placement

PLAY = Play(0, Placement((PlacedTile(Square(7, 7), "A"), PlacedTile(Square(7, 8), "X")), Direction.ACROSS),
            ("AX",), None, 18, 18, 18)
PLAYERS = [{"nick": "a", "name": "Ann"}, {"nick": "b", "name": "Ben"}]
# One log entry of every kind, with the fields a reading, a note or a ruling adds.
EVERY_KIND = [
    dataclasses.replace(PLAY, rack="AXEIRST", note="note: é ü", certainty=0.4137, review=True,
                        runner_ups=(("8H", "AY", 0.21),), turn_inferred=True),
    PhonyWithdrawn(0, None, -18, -18, 0), Pass(1, 0, rack="QZ"), Exchange(1, 3, "QZV", 0), TurnLost(0, 0),
    ChallengeBonus(1, 2, None, 10, 10, 10), EndRackPoints(0, "QZ", None, 40, 40, 40),
    EndRackPenalty(1, "QZ", None, -20, -20, -10), TimePenalty(1, 2, None, -20, -20, -30),
    Correction(0, dataclasses.replace(PLAY, claimed=20), by="desk", agreed=20, reason="ruled"),
    Void(2, by="desk", reason="entered twice"), Close("desk", reason="forfeit: é")]
# The calls the Store protocol names: each one a promise the tests below keep on every engine.
PROTOCOL = sorted(name for name, member in vars(Store).items() if callable(member) and not name.startswith("_"))

Opener = Callable[[], Store]


def sqlite_engine(request, tmp_path: Path) -> Opener:
    return lambda: open_store(f"sqlite:///{tmp_path / 'contract.sqlite3'}")


def postgres_engine(request, tmp_path: Path) -> Opener:
    pg, url = request.getfixturevalue("pg"), request.getfixturevalue("pg_url")
    secret = tmp_path / "store.password"
    secret.write_text(pg.password + "\n")
    secret.chmod(0o600)
    return lambda: open_store(StoreSettings(url=url, password_file=str(secret)))


ENGINES = {"sqlite": sqlite_engine, "postgresql": postgres_engine}


@pytest.fixture(params=sorted(ENGINES))
def opener(request, tmp_path):
    opened: list[Store] = []
    engine = ENGINES[request.param](request, tmp_path)

    def open_one() -> Store:
        opened.append(engine())
        return opened[-1]

    yield open_one
    for s in opened:
        s.close()


@pytest.fixture
def store(opener) -> Store:
    return opener()


def new_game(store: Store, **meta: str) -> int:
    return store.create_game(PLAYERS, "naspa", "en", meta=meta or None).id


def test_an_engine_takes_each_call_as_the_protocol_names_it(store):
    # The parameters and their defaults, not only the names: a caller's keywords work on every engine.
    for name in PROTOCOL:
        want = inspect.signature(getattr(Store, name)).parameters.values()
        got = inspect.signature(getattr(type(store), name)).parameters.values()
        assert [(p.name, p.default) for p in got] == [(p.name, p.default) for p in want], name


def test_every_call_the_protocol_names_is_held_to_a_promise_here():
    # No method is a name only: each is called by a test of this module (on every engine).
    called = {node.func.attr for node in ast.walk(ast.parse(Path(__file__).read_text(encoding="utf-8")))
              if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)}
    assert [name for name in PROTOCOL if name not in called] == []


def test_every_kind_of_entry_comes_back_as_it_went_in_and_the_store_knows_no_rules(store):
    assert {e.kind for e in EVERY_KIND} == set(EVENT_TYPES)
    gid = new_game(store)
    side = {"frame_index": 7, "t": 0.25, "evidence": ["ÄÖÜ", None, [1, 2.5]], "ok": True}
    # none of these cumulatives follow from the one before: checking is the service's job, not the store's
    assert [store.append(gid, e, sidecar=side) for e in EVERY_KIND] == list(range(len(EVERY_KIND)))
    rows = store.entries(gid)
    assert [r.entry for r in rows] == EVERY_KIND and all(r.sidecar == side for r in rows)
    assert [r.created for r in rows] == sorted(r.created for r in rows) and rows[0].created[:2] == "20"


def test_what_a_closed_store_wrote_the_next_one_reads(opener):
    first = opener()
    gid = new_game(first, table="5")
    first.append(gid, PLAY, jpeg=b"\xff\xd8one", sidecar={"frame_index": 1})
    first.update_game(gid, meta={"round": "2"})
    created = first.game(gid).created
    first.close()
    again = opener()
    row = again.game(gid)
    assert (row.meta, row.created, row.players) == ({"table": "5", "round": "2"}, created, tuple(PLAYERS))
    assert [r.entry for r in again.entries(gid)] == [PLAY] and again.entries(gid)[0].sidecar == {"frame_index": 1}
    assert again.frame(gid, 0).jpeg == b"\xff\xd8one" and again.table_games(5) == [gid]
    assert again.append(gid, Pass(1, 0), expect=1) == 1


def test_games_keep_players_rules_and_meta_and_meta_merges(store):
    row = store.create_game(PLAYERS, "naspa", "en", meta={"title": "R1"})
    assert (row.rules, row.lang, row.layout, row.players[1], row.meta) == \
        ("naspa", "en", "standard", {"nick": "b", "name": "Ben"}, {"title": "R1"})
    assert store.update_game(row.id, meta={"title": None, "round": "2"}).meta == {"round": "2"}
    assert store.update_game(row.id, players=[{"nick": "c", "name": "Cy"}, PLAYERS[1]]).players[0]["name"] == "Cy"
    assert [g.id for g in store.games()] == [row.id] and store.game(row.id).meta == {"round": "2"}


@pytest.mark.parametrize("game_id", [7, 0, -1, 2**63, 2**70])
def test_an_unknown_game_is_not_found_whatever_its_id(store, game_id):
    with pytest.raises(NotFound):
        store.game(game_id)
    with pytest.raises(NotFound):
        store.update_game(game_id, meta={"round": "2"})
    with pytest.raises(NotFound):
        store.append(game_id, Pass(0, 0))


def test_the_log_keeps_each_entry_in_order_with_its_seq(store):
    gid = new_game(store)
    entries = [PLAY, Pass(1, 0), Correction(1, Exchange(1, 3, None, 0), by="desk", reason="misread")]
    assert [store.append(gid, e) for e in entries] == [0, 1, 2]
    assert [(r.seq, r.entry) for r in store.entries(gid)] == list(enumerate(entries))
    assert store.count(gid) == 3


def test_a_stale_expect_is_a_conflict_and_nothing_is_written(store):
    gid = new_game(store)
    assert store.append(gid, PLAY, expect=0, jpeg=b"\xff\xd8one", sidecar={"frame_index": 4}) == 0
    with pytest.raises(Conflict):
        store.append(gid, Pass(1, 0), expect=0, jpeg=b"\xff\xd8two", sidecar={"frame_index": 5})
    assert store.count(gid) == 1 and store.frame_seqs(gid) == {0} and store.frame(gid, 0).jpeg == b"\xff\xd8one"
    assert store.append(gid, Pass(1, 0), expect=1) == 1 and store.entries(gid)[1].sidecar is None
    assert store.entries(gid)[0].sidecar == {"frame_index": 4}


def test_writers_on_two_store_objects_race_for_one_seq_and_one_wins(opener):
    first, second = opener(), opener()
    gid = new_game(first)
    n = second.count(gid)
    first.append(gid, PLAY, expect=n)
    with pytest.raises(Conflict):
        second.append(gid, Pass(1, 0), expect=n)
    assert [r.entry for r in second.entries(gid)] == [PLAY]


def test_the_count_is_the_log_s_length_as_every_writer_left_it(opener):
    # each engine may keep it or ask for it (SQLite answers from memory, PostgreSQL reads the index's
    # last row): never behind another store object's commit, nor its own open transaction
    first, second = opener(), opener()
    gid = new_game(first)
    assert second.count(gid) == 0
    for n in range(1, 6):
        first.append(gid, Pass(n % 2, 0))
        assert second.count(gid) == n == len(second.entries(gid))   # at once, from the other object
    with pytest.raises(RuntimeError):
        with second.writing():
            second.append(gid, PLAY)
            assert second.count(gid) == 6                              # inside: its own rows
            raise RuntimeError("rolled back")
    assert first.count(gid) == second.count(gid) == 5
    assert first.append(gid, Pass(1, 0), expect=second.count(gid)) == 5   # what a writer expects with it
    assert second.count(new_game(second)) == 0


def test_appends_from_many_threads_get_distinct_seqs(store):
    gid = new_game(store)
    threads = [threading.Thread(target=lambda: [store.append(gid, Pass(0, 0)) for _ in range(10)]) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert [r.seq for r in store.entries(gid)] == list(range(40))


def test_a_write_transaction_lands_whole_or_not_at_all(store):
    gid = new_game(store)
    with pytest.raises(RuntimeError):
        with store.writing():
            store.append(gid, PLAY)
            store.update_game(gid, meta={"closed_by": "desk"})
            raise RuntimeError("the rules refused it")
    assert store.count(gid) == 0 and "closed_by" not in store.game(gid).meta
    with store.writing():
        with store.writing():  # nested: joins the outer transaction
            store.append(gid, PLAY)
        store.append(gid, Pass(1, 0))
    assert store.count(gid) == 2


def test_evidence_frames_as_bytes_or_paths(store):
    gid = new_game(store)
    store.append(gid, PLAY)
    store.append(gid, Pass(1, 0), path="/photos/2.jpg")
    store.put_frame(gid, 0, jpeg=b"\xff\xd8jpeg")
    assert store.frame(gid, 0).jpeg == b"\xff\xd8jpeg" and store.frame(gid, 1).path == "/photos/2.jpg"
    assert store.frame_seqs(gid) == {0, 1}
    store.put_frame(gid, 0, path="/photos/1.jpg")  # a frame put again replaces the one before
    assert (store.frame(gid, 0).jpeg, store.frame(gid, 0).path) == (None, "/photos/1.jpg")
    with pytest.raises(NotFound):
        store.frame(gid, 2)
    with pytest.raises(ValueError):
        store.put_frame(gid, 0)


def test_only_an_empty_game_is_discarded(store):
    empty, played = new_game(store), new_game(store)
    store.append(played, Pass(0, 0))
    assert store.discard_empty_game(empty) and not store.discard_empty_game(played)
    assert [g.id for g in store.games()] == [played]


def test_a_tables_games_follow_meta_table_oldest_first(store):
    one = new_game(store, table="3")
    new_game(store, table="4")
    new_game(store)
    two = new_game(store)
    store.update_game(two, meta={"table": "3"})  # a resumed station names its table later
    assert store.table_games(3) == [one, two] and store.table_games(5) == []
    store.update_game(one, meta={"table": None})
    assert store.table_games(3) == [two]
    new_game(store, table="x")  # not a table number: on no table
    assert store.table_games(4) != [] and all(store.table_games(t) == [] for t in (0, 99))


def test_changes_name_the_games_another_store_object_wrote(opener):
    watcher, writer = opener(), opener()
    quiet, busy = new_game(writer), new_game(writer)
    start = watcher.changes(None)
    assert isinstance(start, Changes)
    assert watcher.changes(start.mark) == Changes(start.mark, frozenset())  # nothing since
    writer.append(busy, Pass(0, 0))
    seen = watcher.changes(start.mark)
    assert seen.games == {busy} and seen.mark > start.mark
    assert watcher.changes(seen.mark).games == frozenset()
    created = new_game(writer)
    writer.update_game(quiet, meta={"round": "2"})
    writer.put_frame(busy, 0, jpeg=b"\xff\xd8")
    assert watcher.changes(seen.mark).games == {created, quiet, busy}


def test_a_rolled_back_write_is_no_change(opener):
    watcher, writer = opener(), opener()
    gid = new_game(writer)
    mark = watcher.changes(None).mark
    with pytest.raises(Conflict):
        writer.append(gid, Pass(0, 0), expect=5)
    assert watcher.changes(mark).games == frozenset()


def test_a_waiter_wakes_when_another_store_object_writes_else_at_its_timeout(opener):
    watcher, writer = opener(), opener()
    gid = new_game(writer)
    mark = watcher.changes(None).mark
    assert watcher.wait_changes(mark, 0.2) == Changes(mark, frozenset())  # nothing came
    later = threading.Timer(0.3, lambda: writer.append(gid, Pass(0, 0)))
    later.start()
    t0 = time.monotonic()
    seen = watcher.wait_changes(mark, 30)
    later.join()
    assert seen.games == {gid} and seen.mark > mark and time.monotonic() - t0 < 15  # woken, not timed out


# ---- the rack log (issue 30)
SEEN = {"player": 1, "t": 12.5, "tiles": ["A", "E", None, "?", "R", "S", "T"],
        "certainty": [0.99, 0.97, None, 0.5, 0.9, 0.9, 0.91], "frame": None, "turn": 3, "review": True}


def test_rack_reads_are_append_only_in_order_with_their_frames_and_the_store_knows_no_rules(opener):
    store = opener()
    gid = new_game(store)
    assert store.racks(gid) == []
    assert store.append_rack(gid, "seen", SEEN, jpeg=b"\xff\xd8rack") == 0
    confirm = {"target": 0, "tiles": ["A", "E", "I", "?", "R", "S", "T"], "by": "desk"}
    assert store.append_rack(gid, "confirm", confirm, expect=1) == 1
    with pytest.raises(Conflict):  # a stale expect: nothing written
        store.append_rack(gid, "seen", SEEN, expect=1)
    with pytest.raises(ValueError):
        store.append_rack(gid, "guess", SEEN)
    with pytest.raises(NotFound):
        store.append_rack(gid + 99, "seen", SEEN)
    rows = store.racks(gid)
    assert [(r.seq, r.kind, r.data, r.frame) for r in rows] == [(0, "seen", SEEN, True), (1, "confirm", confirm, False)]
    assert store.rack_frame(gid, 0).jpeg == b"\xff\xd8rack"
    with pytest.raises(NotFound):
        store.rack_frame(gid, 1)
    with pytest.raises(NotFound):
        store.rack_frame(gid, -1)
    # the entries' seqs are their own; a game with only rack reads is not empty
    assert store.count(gid) == 0 and not store.discard_empty_game(gid)
    # another store object (another server) reads them, and is told the game changed
    other = opener()
    mark = other.changes().mark
    store.append_rack(gid, "seen", SEEN, path="/tmp/rack.jpg")
    assert gid in (other.changes(mark).games or {gid})
    assert [r.seq for r in other.racks(gid)] == [0, 1, 2] and other.rack_frame(gid, 2).path == "/tmp/rack.jpg"
    empty = {**SEEN, "tiles": [], "certainty": []}   # an empty rack is a read (issue 43): kept as it came
    assert store.append_rack(gid, "seen", empty) == 3 and other.racks(gid)[3].data == empty


# ---- the table log (issue 46): the clock, the players' names, the tiles learned
PRESS = {"do": "press", "t": 12.5, "at": 1_700_000_012.5, "run": "r1", "player": 0, "first": 0}


def test_the_table_log_is_append_only_in_order_and_the_store_knows_no_rules(opener):
    store = opener()
    gid = new_game(store)
    assert store.table_log(gid) == []
    start = {"do": "start", "minutes": 25, "t": 10.0, "at": 1_700_000_010.0, "run": "r1"}
    assert store.append_table(gid, "clock", start) == 0
    assert store.append_table(gid, "clock", PRESS, expect=1) == 1
    # a stale expect, a kind it does not keep, no such game: refused, nothing written
    for refused, args in ((Conflict, (gid, "clock", PRESS, 1)), (ValueError, (gid, "score", PRESS)),
                          (NotFound, (gid + 99, "clock", PRESS))):
        pytest.raises(refused, store.append_table, *args)
    names = {"players": [{"nick": "a", "name": "Anna"}, PLAYERS[1]], "by": "desk"}
    assert store.append_table(gid, "players", names) == 2 and store.append_table(gid, "learned", {"tiles": ["A"]}) == 3
    # the entries' and the rack log's seqs are their own
    assert store.count(gid) == 0 and store.racks(gid) == []
    other = opener()  # another store object (another server) reads them, and is told the game changed
    mark = other.changes().mark
    store.append_table(gid, "clock", {**PRESS, "do": "pause"})
    assert gid in (other.changes(mark).games or {gid})
    rows = other.table_log(gid)
    assert [(r.seq, r.kind, r.data) for r in rows[:4]] == [(0, "clock", start), (1, "clock", PRESS), (2, "players", names),
                                                           (3, "learned", {"tiles": ["A"]})]
    assert rows[4].data["do"] == "pause" and all(r.created for r in rows)
    with pytest.raises(RuntimeError):  # it lands with the transaction or not at all
        with store.writing():
            store.append_table(gid, "clock", PRESS)
            raise RuntimeError("the caller failed")
    assert len(store.table_log(gid)) == 5


def test_a_game_with_only_a_table_log_is_discarded_with_it(store):
    # a recording that found no board had its clock started and its names set: nothing of the game
    gid = new_game(store)
    store.append_table(gid, "clock", PRESS)
    assert store.discard_empty_game(gid)
    with pytest.raises(NotFound):
        store.game(gid)
    kept = new_game(store)  # one with an entry keeps its table log
    store.append_table(kept, "clock", PRESS)
    store.append(kept, PLAY)
    assert not store.discard_empty_game(kept) and len(store.table_log(kept)) == 1


def test_a_rack_read_lands_with_the_transaction_or_not_at_all(store):
    gid = new_game(store)
    with pytest.raises(RuntimeError):
        with store.writing():
            store.append_rack(gid, "seen", SEEN, jpeg=b"\xff\xd8")
            raise RuntimeError("the caller failed")
    assert store.racks(gid) == []
    with pytest.raises(NotFound):
        store.rack_frame(gid, 0)
