"""api/schemas.py: the OBS field list written once, the request models' guards (no unknown key, no
true for 1, the table in one place) and the stations' forwarding bodies tied to what they carry."""
from __future__ import annotations

from typing import get_args

import pytest
from pydantic import ValidationError

from tilecam.api import schemas as s
from tilecam.api.bus import Bus
from tilecam.api.service import GameService
from tilecam.api.store import open_store


def test_the_obs_fields_are_one_list_and_the_service_fills_each(tmp_path):
    assert s.OBS_FIELDS == get_args(s.ObsField) and len(set(s.OBS_FIELDS)) == len(s.OBS_FIELDS)
    service = GameService(open_store(tmp_path / "s.sqlite3"), Bus())
    gid = service.create_game([("Ann", None), ("Ben", None)]).id
    assert set(service.live(gid).fields) == set(s.OBS_FIELDS)
    service.store.close()


def test_a_request_body_takes_no_unknown_key_and_no_true_for_a_number():
    assert s.TimePenaltyIn(player=1, minutes=2).minutes == 2
    with pytest.raises(ValidationError, match="extra"):
        s.PassFix(kind="pass", reason="", by="me")
    with pytest.raises(ValidationError, match="integer"):
        s.TimePenaltyIn(player=True, minutes=2)
    with pytest.raises(ValidationError, match="integer"):
        s.TimePenaltyIn(player=0, minutes="3")


def test_a_games_table_is_kept_in_its_meta_and_must_agree():
    players = [{"name": "Ann"}, {"name": "Ben"}]
    assert s.GameCreate(players=players, table=7).meta == {"table": "7"}
    with pytest.raises(ValidationError, match="table 7 and meta.table '8' differ"):
        s.GameCreate(players=players, table=7, meta={"table": "8"})


def test_a_forwarded_clock_carries_exactly_what_the_live_clock_shows_within_bounds():
    out = s.ClockOut(at=1_700_000_000.0, running=1, on_clock=1, paused=False, started=True, finished=False,
                     initial_ms=1_500_000, remaining_ms=[1_400_000, -61_000], overtime_minutes=[0, 2],
                     penalties=[0, -20], lost_on_time=[False, False])
    assert set(s.ForwardedClock.model_fields) == set(s.ClockOut.model_fields)
    assert s.ForwardedClock(**out.model_dump()).model_dump() == out.model_dump()
    with pytest.raises(ValidationError):
        s.ForwardedClock(**{**out.model_dump(), "remaining_ms": [2 * 24 * 3600 * 1000, 0]})


def test_a_forwarded_batch_and_header_are_bounded():
    entry = {"seq": 0, "entry": {"kind": "pass", "player": 0, "cumulative": 0}}
    assert len(s.EntriesIn(entries=[entry] * s.BATCH_ENTRIES).entries) == s.BATCH_ENTRIES
    with pytest.raises(ValidationError):
        s.EntriesIn(entries=[entry] * (s.BATCH_ENTRIES + 1))
    players = [{"name": "Ann", "nick": "ann"}, {"name": "Ben", "nick": "ben"}]
    s.HeaderIn(players=players, rules="naspa", lang="en", meta={f"k{i}": "v" for i in range(s.FORWARDED_META_KEYS)})
    with pytest.raises(ValidationError):
        s.HeaderIn(players=players, rules="naspa", lang="en",
                   meta={f"k{i}": "v" for i in range(s.FORWARDED_META_KEYS + 1)})
    with pytest.raises(ValidationError):
        s.HeaderIn(players=[{"name": "Ann", "nick": "a:nn"}, players[1]], rules="naspa", lang="en")
