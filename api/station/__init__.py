"""The station: what records a table's game. Built from one settings tree and one Job, it is the
one place a command opens a store (boot.open_store), runs the HTTP server (boot.app_server) and
runs frames through the recorder (frames.run_frames). `api/` around it is the web.

    station.py     Station(settings, Job(...), Hooks(...)): the composition root; open, start or
                   record_here, serve, close
    boot.py        SetupError, open_store, base_url, own_url, app_server / serve_until_signal
    frames.py      build_recorder (locator, gate, recorder from settings), run_frames (the frame loop)
    frame_thread.py  FrameThread: each game's frames on the recorder's thread, a source's end, the next game
    status.py      StatusShow: the status LED and the console's lines, frame by frame
    exposure.py    ExposureLock: the Pi cameras back to automatic exposure when the game is over
    game.py        the game recorded: attach_game, game_to_resume, clock_trigger and stop_clock (the clock's glue)
    recorder.py    Recorder: the stages called in order, once per frame (no pixels, no rules)
    link.py        GameLink / MemoryLink: the recorder's commits, through the game service
    sinks.py       PreviewSink (the grid drawn on the live preview), JpegEvidence (the commit's frame)
    triggers.py    what a press means (one table), the clock before the recorder
    racks.py       RackCameras: a thread per player's rack camera; open_rack_cameras
    forwarder.py   Forwarder: the station's games to a tournament's central service; open_forwarder

The lost-game watch the recorder runs is lostwatch.py; the key it writes (LOST_META) is the game
service's (api/service/view.py), which /tournament reads: the web never imports the station.

Names are loaded on first use (``from tilecam.api.station import Station``): importing one part does
not pull in the others. The recorder's sections (RecorderConfig, LostConfig) are the settings tree's
(api/settings.py), which the web reads.
"""
from __future__ import annotations

from importlib import import_module

_FACE = {
    "Station": "station", "Job": "station", "Hooks": "station",
    "SetupError": "boot", "open_store": "boot", "base_url": "boot", "app_server": "boot",
    "serve_until_signal": "boot",
    "build_recorder": "frames", "recorder_config": "frames", "run_frames": "frames",
    "STATION_META": "game", "Recording": "game", "attach_game": "game", "clock_trigger": "game",
    "game_to_resume": "game",
    "FrameOutcome": "recorder", "Recorder": "recorder", "RecorderConfig": "recorder", "Timings": "recorder",
    "GameLink": "link", "MemoryLink": "link",
    "JpegEvidence": "sinks", "PreviewSink": "sinks",
}

__all__ = sorted(_FACE)


def __getattr__(name: str):
    if name not in _FACE:
        raise AttributeError(f"module 'tilecam.api.station' has no attribute {name!r}")
    value = getattr(import_module(f"tilecam.api.station.{_FACE[name]}"), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_FACE))
