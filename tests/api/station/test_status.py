"""What the station shows off the web (api/station/status.py): the status LED through gpiozero's mock
pins, and the lines said on the console, from the recorder's real outcomes (FrameOutcome, the
scorekeeper's Observation) frame by frame."""
from __future__ import annotations

from types import SimpleNamespace

import pytest
from gpiozero.pins.mock import MockFactory

from tilecam.api.settings import load_settings
from tilecam.api.station.recorder import FrameOutcome
from tilecam.api.station.status import StatusShow, open_led
from tilecam.hardware.leds import LedConfig
from tilecam.scoring.events import Pass
from tilecam.scoring.scorekeeper import Observation


def frame(i: int):
    return SimpleNamespace(index=i)


def outcome(i: int, state: str = "clear", observation: Observation | None = None) -> FrameOutcome:
    return FrameOutcome(i, i * 0.5, state, observation)


def recorder(camera: str = "connected", lost: str | None = None):
    """What StatusShow reads of the recorder: the camera's state and the lost-game alert."""
    return SimpleNamespace(camera_status=camera, lost=lost)


@pytest.fixture
def pins():
    factory = MockFactory()
    yield factory
    factory.reset()


def test_the_led_follows_the_camera_the_frames_and_the_decisions(pins):
    settings = load_settings(leds={"enabled": True})
    led = open_led(settings.leds, pins)
    shown = StatusShow(led, say=lambda *_: None)
    rec = recorder()
    pin = pins.pin(settings.leds.pin)
    shown.frame(frame(0), outcome(0), rec)
    assert led.state == "recording" and pin.state
    shown.frame(frame(1), outcome(1, "no_board"), rec)
    assert led.state == "unclear"
    shown.frame(frame(2), outcome(2, "snapshot", Observation((), "unclear", "two readings")), rec)
    shown.frame(frame(3), outcome(3), rec)
    assert led.state == "unclear"                       # until a later decision commits
    shown.frame(frame(4), outcome(4, "snapshot", Observation((), "no_change")), rec)
    assert led.state == "unclear"                       # nothing committed yet
    shown.frame(frame(5), outcome(5, "snapshot", Observation((Pass(0, 0),), "pass")), rec)
    assert led.state == "recording"
    shown.frame(frame(6), outcome(6), recorder(lost="the board changed without a move"))
    assert led.state == "game_lost"
    assert shown.show(recorder("reconnecting")) == "camera_lost"
    assert shown.show(rec, recording=False) == "idle" and not pin.state
    shown.close()


def test_no_led_when_none_is_wired():
    assert open_led(load_settings(leds={"enabled": False}).leds) is None
    assert open_led(LedConfig(enabled=True, pin=None)) is None       # enabled, but no pin wired
    shown = StatusShow(None, say=lambda *_: None)
    assert shown.show(recorder()) is None
    shown.frame(frame(0), outcome(0), recorder())   # the console still follows
    shown.close()


def test_the_console_says_each_committed_decision_and_the_lost_game_once_as_it_comes_and_goes():
    said: list[str] = []
    shown = StatusShow(None, say=said.append)
    shown.frame(frame(0), outcome(0, "snapshot", Observation((), "no_change")), recorder())
    assert said == []                                   # nothing committed: nothing said
    shown.frame(frame(1), outcome(1, "snapshot", Observation((Pass(0, 0),), "pass")), recorder())
    assert len(said) == 1 and said[0].startswith("frame 1")
    for i in (2, 3, 4):
        shown.frame(frame(i), outcome(i), recorder(lost="three frames without the board"))
    assert len(said) == 2 and said[1].startswith("frame 2") and "three frames without the board" in said[1]
    shown.frame(frame(5), outcome(5), recorder())
    shown.frame(frame(6), outcome(6), recorder())
    assert len(said) == 3 and said[2].startswith("frame 5")   # it follows again: said once

    quiet: list[str] = []
    hushed = StatusShow(None, quiet=True, say=quiet.append)   # tilecam record's bar says it itself
    hushed.frame(frame(0), outcome(0, "snapshot", Observation((Pass(0, 0),), "pass")), recorder(lost="x"))
    assert quiet == []
