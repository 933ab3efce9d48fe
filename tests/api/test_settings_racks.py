"""[racks]: the rack cameras' settings. No sources by default (everything as before); each player's
source checked when the file loads, a mistake named with its key and line."""
from __future__ import annotations

import pytest

from tilecam.api.settings import RackSettings, Settings, SettingsError, load_settings


def test_no_rack_sources_by_default_and_racks_are_on_air_to_the_broadcast_token():
    racks = Settings().racks
    assert racks.sources == {} and racks == RackSettings()
    assert racks.on_air == "broadcast"


def test_the_settle_time_is_visions_one_default_and_reaches_the_watch_as_set(monkeypatch):
    """When a rack counts as still is RackWatch's (vision) to decide; [racks] settle_s starts from its
    default, and what a station sets is what the watch it builds waits."""
    import tilecam.vision
    from tilecam.api.station.racks import rack_watch
    from tilecam.vision.rack import WatchConfig
    assert Settings().racks.settle_s == WatchConfig().settle_s
    monkeypatch.setattr(tilecam.vision, "build_rack_reader", lambda settings, lang, table: object())
    settings = Settings(racks=RackSettings(settle_s=2.5))
    assert rack_watch(settings, "en", None).cfg.settle_s == 2.5


def test_a_file_gives_each_player_a_source(tmp_path):
    path = tmp_path / "tilecam.toml"
    path.write_text('[capture]\nsource = "picam"\n\n[racks]\nsettle_s = 1.5\non_air = "off"\n\n'
                    '[racks.sources]\n1 = "picam:1"\n2 = "/dev/video4"\n')
    racks = load_settings(path).racks
    assert racks.sources == {1: "picam:1", 2: "/dev/video4"}
    assert racks.settle_s == 1.5 and racks.on_air == "off"


def test_an_inline_table_works_too(tmp_path):
    path = tmp_path / "tilecam.toml"
    path.write_text('[racks]\nsources = {1 = "2", 2 = "rtsp://cam.local/rack2"}\n')
    assert load_settings(path).racks.sources == {1: "2", 2: "rtsp://cam.local/rack2"}


@pytest.mark.parametrize("sources, message", [
    # the rules' player count (scoring.PLAYER_COUNT), said as the clock and a GCG file say it
    ('5 = "0"', r"racks.sources \(line 3\): Value error, player 5: a game has 2 to 4 players, numbered 1 to 4"),
    ('0 = "0"', r"racks.sources \(line 3\): Value error, player 0: a game has 2 to 4 players, numbered 1 to 4"),
    ('one = "0"', r"racks.sources.one.\[key\] \(line 3\): Input should be a valid integer"),
    ('1 = ""', r"racks.sources \(line 3\): Value error, player 1: the source is empty"),
    ('1 = "2"\n2 = "/dev/video2"', r"players 1 and 2 name the same camera \('/dev/video2'\)"),
    ('1 = "picam"\n2 = "picam:0"', r"players 1 and 2 name the same camera \('picam:0'\)"),
], ids=["player-5", "player-0", "not-a-number", "empty", "same-usb-camera", "same-pi-camera"])
def test_a_bad_source_is_named_with_its_line(tmp_path, sources, message):
    path = tmp_path / "tilecam.toml"
    path.write_text(f"[racks]\nsettle_s = 1.0\n[racks.sources]\n{sources}\n")
    with pytest.raises(SettingsError, match=message):
        load_settings(path)


@pytest.mark.parametrize("key, value, message", [
    ("on_air", "sometimes", "racks.on_air: Input should be 'broadcast' or 'off'"),
    # gone (issue 43: a rack shown a move late still shows what its player holds): said, with what to use
    ("on_air", "delay", "racks: Value error, on_air = 'delay' is gone: a rack shown a move late still shows the "
                        "tiles its player holds. Use on_air = 'broadcast'"),
    ("on_air", "live", "racks: Value error, on_air = 'live' is gone.*Use on_air = 'broadcast'"),
    ("delay_turns", 1, "racks: Value error, delay_turns is gone with on_air = 'delay'.*remove it"),
    ("settle_s", 0, "racks.settle_s: Input should be greater than 0"),
    ("review_below", 1.5, "racks.review_below: Input should be less than or equal to 1"),
    ("camera", "0", "racks.camera: Extra inputs are not permitted"),
])
def test_other_bad_values_name_the_key(key, value, message):
    with pytest.raises(SettingsError, match=message):
        load_settings(racks={key: value})
