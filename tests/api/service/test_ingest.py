"""api/service/ingest.py on a real SQLite store, without HTTP: the central service's mirror of a game a
station forwards. Entries map 1:1 by seq (the same again is a no-op, a different one a Conflict, one
beyond the next an OutOfOrder naming the seq to send, a batch that does not replay refused whole);
only the station that created a mirror writes to it; the heartbeat carries the station's clock,
which runs down here. Asserted on the error classes, `next_seq` and the mirror's state."""
from __future__ import annotations

import json

import pytest

from servicekit import new_game, service  # noqa: F401  (fixture)
from tilecam.api.errors import Conflict, InvalidInput, NotFound, OutOfOrder
from tilecam.api.service.ingest import (CENTRAL_META, STATION_CLOCK, STATION_UID, Mirror, clock_state,
                                        forwarded_clock, forwarded_meta, header_digest, refuse_mirror)
from tilecam.scoring.events import Pass, to_json

PLAYERS = [{"nick": "A", "name": "Ann Ames"}, {"nick": "B", "name": "Bo Brown"}]
UID = "0" * 32
ST, TOKEN = "pi-7", "token-of-pi-7"


def header(service, meta=None, **kw):
    args = {"rules": "naspa", "lang": "en", "layout": "standard", **kw}
    return service.ingest_header(ST, TOKEN, UID, PLAYERS, args["rules"], args["lang"], args["layout"],
                                 meta if meta is not None else {"table": "7"})


def passes(start: int, n: int) -> list:
    return [(seq, to_json(Pass(seq % 2, 0)), {"frame": f"f{seq}.jpg"}) for seq in range(start, start + n)]


def test_a_header_creates_the_mirror_once_and_brings_its_meta_up_to_the_stations(service):
    first = header(service, {"table": "7", "round": "3"})
    assert isinstance(first, Mirror) and (first.uid, first.next, first.frames, first.racks) == (UID, 0, [], 0)
    again = header(service, {"table": "7"})          # the station dropped "round"
    assert again.game_id == first.game_id and len(service.store.games()) == 1
    meta = service.game(first.game_id).meta
    assert "round" not in meta and meta["table"] == "7" and meta[STATION_UID] == UID
    assert meta["station"] == ST and meta["station_heard_at"] == "1700000000"
    assert again.header == header_digest(PLAYERS, "naspa", "en", "standard", meta) != first.header


def test_a_header_that_changes_the_rules_or_names_an_unknown_set_is_refused(service):
    header(service)
    with pytest.raises(Conflict, match="never change"):
        header(service, rules="wespa")
    with pytest.raises(InvalidInput, match="tile set"):
        service.ingest_header(ST, TOKEN, "1" * 32, PLAYERS, "naspa", "xx", "standard", {})
    with pytest.raises(InvalidInput, match="layout"):
        service.ingest_header(ST, TOKEN, "1" * 32, PLAYERS, "naspa", "en", "round", {})


def test_only_the_station_that_forwarded_a_game_writes_to_its_mirror(service):
    gid = header(service).game_id
    with pytest.raises(Conflict):
        service.ingest_header("pi-8", TOKEN, UID, PLAYERS, "naspa", "en", "standard", {})
    with pytest.raises(Conflict):
        service.ingest_entries(ST, "another-token", UID, passes(0, 1))
    assert service.count(gid) == 0


def test_entries_map_one_to_one_by_seq_the_same_again_is_a_no_op(service):
    gid = header(service).game_id
    state = service.ingest_entries(ST, TOKEN, UID, passes(0, 2))
    assert state.next == 2 and [e.entry for e in service.entries(gid)] == [Pass(0, 0), Pass(1, 0)]
    again = service.ingest_entries(ST, TOKEN, UID, passes(1, 2))   # seq 1 held, seq 2 new
    assert again.next == 3 and service.entries(gid)[1].sidecar == {"frame": "f1.jpg"}


def test_an_entry_that_differs_from_the_one_held_is_a_conflict_and_nothing_of_its_batch_is_written(service):
    gid = header(service).game_id
    service.ingest_entries(ST, TOKEN, UID, passes(0, 2))
    changed = [(1, to_json(Pass(1, 0)), {"frame": "other.jpg"}), *passes(2, 1)]
    with pytest.raises(Conflict) as exc:
        service.ingest_entries(ST, TOKEN, UID, changed)
    assert not isinstance(exc.value, OutOfOrder) and service.count(gid) == 2


def test_an_entry_whose_predecessor_is_missing_is_out_of_order_naming_the_seq_to_send(service):
    gid = header(service).game_id
    service.ingest_entries(ST, TOKEN, UID, passes(0, 1))
    with pytest.raises(OutOfOrder) as exc:
        service.ingest_entries(ST, TOKEN, UID, passes(3, 2))
    assert exc.value.next_seq == 1 and service.count(gid) == 1
    with pytest.raises(OutOfOrder) as exc:
        service.ingest_frame(ST, TOKEN, UID, 5, b"\xff\xd8jpeg")
    assert exc.value.next_seq == 1


def test_a_batch_that_is_not_consecutive_or_not_entries_is_invalid(service):
    header(service)
    with pytest.raises(InvalidInput):
        service.ingest_entries(ST, TOKEN, UID, [])
    with pytest.raises(InvalidInput):
        service.ingest_entries(ST, TOKEN, UID, [passes(0, 1)[0], passes(2, 1)[0]])
    with pytest.raises(InvalidInput):
        service.ingest_entries(ST, TOKEN, UID, [(0, {"kind": "teleport"}, None)])
    with pytest.raises(NotFound):
        service.ingest_entries(ST, TOKEN, "9" * 32, passes(0, 1))   # no header sent for it


def test_a_batch_the_game_cannot_replay_is_refused_whole(service):
    local = new_game(service)
    service.play(local, "8H", "CAT")
    play = to_json(service.entries(local)[0].entry)
    gid = header(service).game_id
    with pytest.raises(InvalidInput, match="does not replay"):
        service.ingest_entries(ST, TOKEN, UID, [(0, play, None), (1, play, None)])   # CAT on CAT
    assert service.count(gid) == 0


def test_a_frame_and_rack_rows_follow_their_entries(service):
    gid = header(service).game_id
    service.ingest_entries(ST, TOKEN, UID, passes(0, 1))
    assert service.ingest_frame(ST, TOKEN, UID, 0, b"\xff\xd8jpeg").frames == [0]
    seen = {"player": 0, "turn": 1, "tiles": ["Q", None], "t": 1.0}
    assert service.ingest_rack(ST, TOKEN, UID, 0, "seen", seen).racks == 1
    assert service.ingest_rack(ST, TOKEN, UID, 0, "seen", seen).racks == 1       # the same again
    with pytest.raises(Conflict):
        service.ingest_rack(ST, TOKEN, UID, 0, "seen", {**seen, "tiles": ["Z", None]})
    with pytest.raises(OutOfOrder) as exc:
        service.ingest_rack(ST, TOKEN, UID, 4, "seen", seen)
    assert exc.value.next_seq == 1
    with pytest.raises(InvalidInput):
        service.ingest_rack(ST, TOKEN, UID, 1, "confirm", {"target": 1, "tiles": ["Q"]})   # not a read before it
    with pytest.raises(InvalidInput):
        service.ingest_rack(ST, TOKEN, UID, 1, "seen", {"player": "Ann", "turn": 1, "tiles": ["Q"]})
    assert len(service.store.racks(gid)) == 1


def test_the_heartbeat_carries_the_stations_clock_which_runs_down_here(service):
    gid = header(service).game_id
    clock = {"at": 5.0, "running": 1, "on_clock": 1, "paused": False, "started": True, "finished": False,
             "initial_ms": 1_500_000, "remaining_ms": [1_400_000, 65_000], "overtime_minutes": [0, 0],
             "penalties": [0, 0], "lost_on_time": [False, False]}
    found = service.heartbeat(ST, TOKEN, [UID, "8" * 32], url="http://pi-7.local:8000", game=3, clock=clock)
    assert found == {UID: gid}                       # a uid not forwarded yet is left out
    meta = service.game(gid).meta
    assert meta["station_url"] == "http://pi-7.local:8000" and meta["station_game"] == "3"
    later = forwarded_clock(meta, 1_700_000_070.0)   # received at the service's 1_700_000_000
    assert later.remaining_ms == [1_400_000, -5_000] and later.at == 1_700_000_070.0
    assert clock_state(later) == clock_state(clock)  # the time ran on; nothing a press changes did
    paused = {**clock, "paused": True, "running": None}
    service.heartbeat(ST, TOKEN, [UID], clock=paused)
    assert forwarded_clock(service.game(gid).meta, 1_700_000_070.0).remaining_ms == [1_400_000, 65_000]
    service.heartbeat(ST, TOKEN, [UID], clock=None)
    assert forwarded_clock(service.game(gid).meta, 0.0) is None


def test_a_clock_nobody_can_read_is_no_clock_not_a_failed_page():
    assert forwarded_clock({STATION_CLOCK: "{not json"}, 0.0) is None
    assert forwarded_clock({STATION_CLOCK: json.dumps({"clock": {"at": 1}, "received": 0})}, 0.0) is None
    assert forwarded_clock({}, 0.0) is None


def test_the_central_keys_are_never_forwarded_and_a_mirror_refuses_the_centrals_operator(service):
    meta = {"table": "7", **{k: "x" for k in CENTRAL_META}}
    assert forwarded_meta(meta) == {"table": "7"}
    gid = header(service).game_id
    with pytest.raises(Conflict, match=f"game {gid} is recorded by station {ST}"):
        refuse_mirror(service.game(gid))
    refuse_mirror(service.game(new_game(service)))   # a game recorded here: no refusal
    with pytest.raises(Conflict):
        service.pass_turn(gid)                         # the writer turns the central's operator away
