"""api/store/rows.py: the rows every engine hands back and the values every engine derives from them
the same way (a game's table number, merged meta, what changed since a mark), and a row written
around the store read back as Damaged naming the game and the row, never as a crash. The pure
functions directly; the damaged rows through a real SQLite file."""
from __future__ import annotations

import json
import sqlite3

import pytest

from tilecam.api.errors import Conflict, Damaged, NotFound
from tilecam.api.store import open_store
from tilecam.api.store.rows import (RACK_KINDS, Changes, EntryRow, append_values, changes_since, check_expect,
                                    check_rack, checked_id, entry_rows, game_row, merged_meta, rack_rows, table_no)
from tilecam.scoring.events import Pass, from_json


@pytest.mark.parametrize("bad", [0, -1, 2**63])
def test_an_id_no_engine_can_hold_names_no_game(bad):
    with pytest.raises(NotFound):
        checked_id(bad)
    assert checked_id(1) == 1 and checked_id(2**63 - 1) == 2**63 - 1


@pytest.mark.parametrize("meta,number", [({"table": "7"}, 7), ({"table": "12"}, 12), ({"table": "07"}, None),
                                         ({"table": "x"}, None), ({"table": "-1"}, None), ({"table": 7}, None),
                                         ({}, None)])
def test_the_table_number_is_a_plain_decimal_string_or_none(meta, number):
    assert table_no(meta) == number


def test_merged_meta_sets_keys_and_a_none_deletes_one_without_touching_the_original():
    meta = {"table": "3", "camera_lost": "no board"}
    assert merged_meta(meta, {"camera_lost": None, "round": "2"}) == {"table": "3", "round": "2"}
    assert merged_meta(meta, None) == meta and meta == {"table": "3", "camera_lost": "no board"}
    assert merged_meta(meta, {"gone": None}) == meta


def test_an_append_is_its_entry_as_json_and_takes_jpeg_bytes_or_a_path_not_both():
    data, side = append_values(1, Pass(0, 0), None, None, {"frame": "a.jpg"})
    assert from_json(json.loads(data)) == Pass(0, 0) and json.loads(side) == {"frame": "a.jpg"}
    assert append_values(1, Pass(1, 0), b"jpeg", None, None)[1] is None
    with pytest.raises(ValueError, match="not both"):
        append_values(1, Pass(0, 0), b"jpeg", "a.jpg", None)
    with pytest.raises(NotFound):
        append_values(0, Pass(0, 0), None, None, None)


def test_a_rack_row_is_one_of_the_kinds_and_its_data_as_json():
    assert RACK_KINDS == ("seen", "confirm")
    assert json.loads(check_rack(1, "seen", {"tiles": ["A", None]}, None, None)) == {"tiles": ["A", None]}
    with pytest.raises(ValueError, match="seen, confirm"):
        check_rack(1, "guess", {}, None, None)
    with pytest.raises(ValueError, match="not both"):
        check_rack(1, "seen", {}, b"jpeg", "a.jpg")
    with pytest.raises(NotFound):
        check_rack(-3, "seen", {}, None, None)


def test_a_stale_expect_is_a_conflict_and_no_expect_is_no_check():
    check_expect(4, 2, 2)
    check_expect(4, 2, None)
    with pytest.raises(Conflict, match="game 4 has 2 log entries, not 1"):
        check_expect(4, 2, 1)


def test_rows_read_back_as_typed_rows():
    game = game_row((5, '[{"nick": "A", "name": "Ann"}]', "naspa", "en", "standard", "t0", '{"table": "2"}'))
    assert (game.id, game.players, game.meta) == (5, ({"nick": "A", "name": "Ann"},), {"table": "2"})
    entries = entry_rows(5, [(0, json.dumps({"kind": "pass", "player": 0, "cumulative": 0}), "t1", None),
                             (1, json.dumps({"kind": "pass", "player": 1, "cumulative": 0}), "t2", '{"frame": "b"}')])
    assert entries == [EntryRow(0, Pass(0, 0), "t1", None), EntryRow(1, Pass(1, 0), "t2", {"frame": "b"})]
    racks = rack_rows(5, [(0, "seen", '{"tiles": ["A"]}', "t3", 1), (1, "confirm", '{"target": 0}', "t4", None)])
    assert [(r.seq, r.kind, r.data, r.frame) for r in racks] == [(0, "seen", {"tiles": ["A"]}, True),
                                                                  (1, "confirm", {"target": 0}, False)]


def test_a_row_nobody_can_read_is_damaged_naming_the_game_and_the_row():
    with pytest.raises(Damaged, match="game 5 log entry 3 cannot be read"):
        entry_rows(5, [(3, '{"kind": "teleport"}', "t", None)])
    with pytest.raises(Damaged, match="game 5 rack read 1 cannot be read"):
        rack_rows(5, [(1, "seen", "{not json", "t", 0)])


@pytest.mark.parametrize("after,first,last,reload", [
    (None, 1, 9, True),      # no mark yet: reload everything
    (3, 5, 9, True),         # the rows after the mark were pruned: reload everything
    (3, 4, 9, False),        # the next row is kept: the games written since
    (9, 1, 9, False),        # nothing since
    (0, None, None, False),  # an empty feed
])
def test_changes_since_a_mark_name_the_games_or_say_reload_all(after, first, last, reload):
    asked = []
    got = changes_since(after, first, last, lambda mark: asked.append(mark) or [7, 7])
    assert isinstance(got, Changes) and got.mark == max(last or 0, after or 0)
    if reload:
        assert got.games is None and asked == []
    else:
        assert got.games == frozenset({7}) and asked == [after]


def test_a_store_row_written_around_the_store_reads_as_damaged_not_a_crash(tmp_path):
    path = tmp_path / "games.sqlite3"
    store = open_store(path)
    try:
        gid = store.create_game([{"nick": "A", "name": "Ann"}, {"nick": "B", "name": "Bo"}], "naspa", "en",
                                "standard", {}).id
        store.append(gid, Pass(0, 0), 0)
        store.append_rack(gid, "seen", {"player": 0, "tiles": ["A"]}, expect=0)
        assert [e.entry for e in store.entries(gid)] == [Pass(0, 0)]
        raw = sqlite3.connect(path)
        raw.execute("UPDATE entries SET data = '{\"kind\": \"teleport\"}' WHERE game_id = ?", (gid,))
        raw.execute("UPDATE racks SET data = 'not json' WHERE game_id = ?", (gid,))
        raw.commit()
        raw.close()
        with pytest.raises(Damaged, match=f"game {gid} log entry 0"):
            store.entries(gid)
        with pytest.raises(Damaged, match=f"game {gid} rack read 0"):
            store.racks(gid)
    finally:
        store.close()
