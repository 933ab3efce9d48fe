"""Buttons and the LED through gpiozero's mock pins; keyboard triggers from a StringIO."""
from __future__ import annotations

import io
import queue
import time

import pytest
from gpiozero import Device
from gpiozero.pins.mock import MockFactory

from tilecam.hardware import ButtonConfig, ClockButtons, KeyboardTrigger, StatusLed, Trigger
from tilecam.hardware.triggers import TRIGGER_KINDS

CFG = ButtonConfig(enabled=True, player1_pin=17, player2_pin=27, challenge_pin=22, led_pin=23,
                   debounce_ms=0, hold_ms=150, blink_ms=20)


@pytest.fixture
def pins():
    Device.pin_factory = MockFactory()
    yield Device.pin_factory
    Device.pin_factory.reset()


def wait_for(predicate, timeout_s: float = 3.0) -> bool:
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        if predicate():
            return True
        time.sleep(0.002)
    return predicate()


def tap(pin) -> None:
    pin.drive_low()
    pin.drive_high()


def test_clock_presses_become_turn_end_triggers(pins):
    got: queue.Queue[Trigger] = queue.Queue()
    with ClockButtons(CFG, got.put):
        before = time.monotonic()
        tap(pins.pin(17))
        tap(pins.pin(27))
        tap(pins.pin(22))
        triggers = [got.get(timeout=2) for _ in range(3)]
    assert [(t.kind, t.player, t.source) for t in triggers] == [
        ("turn_end", 0, "button"), ("turn_end", 1, "button"), ("challenge", None, "button")]
    assert all(t.t >= before for t in triggers)
    assert got.empty()


def test_holding_a_clock_button_is_undo_not_turn_end(pins):
    got: queue.Queue[Trigger] = queue.Queue()
    with ClockButtons(CFG, got.put):
        pin = pins.pin(27)
        pin.drive_low()
        held = got.get(timeout=3)          # fires after hold_ms while still pressed
        pin.drive_high()
        assert (held.kind, held.player) == ("undo", 1)
        tap(pins.pin(17))                  # the next quick press is a turn end again
        assert (got.get(timeout=2).kind, got.empty()) == ("turn_end", True)


def test_turn_end_is_stamped_at_the_press_not_the_release(pins):
    got: list[Trigger] = []
    with ClockButtons(CFG.model_copy(update={"hold_ms": 5000}), got.append):
        pin = pins.pin(17)
        pin.drive_low()
        pressed = time.monotonic()
        time.sleep(0.05)
        pin.drive_high()
        assert wait_for(lambda: got)
    assert got[0].t <= pressed


def test_unwired_buttons_are_left_out_and_a_failing_handler_is_contained(pins):
    cfg = CFG.model_copy(update={"player2_pin": None, "challenge_pin": None})

    def broken(trigger: Trigger) -> None:
        raise RuntimeError("handler bug")

    with ClockButtons(cfg, broken) as buttons:
        assert len(buttons.buttons) == 1
        tap(pins.pin(17))                  # logs the error, does not raise into gpiozero
        tap(pins.pin(17))


def test_status_led_states(pins):
    led = StatusLed.from_config(CFG)
    pin = pins.pin(23)
    try:
        assert led.state == "stopped" and pin.state is False
        led.recording()
        assert pin.state is True
        led.attention()
        # Blinking: the pin must be seen both on and off.
        assert wait_for(lambda: pin.state is False) and wait_for(lambda: pin.state is True)
        led.stopped()
        assert wait_for(lambda: pin.state is False)
        time.sleep(0.06)                   # three blink periods: it stays off
        assert pin.state is False and led.state == "stopped"
        with pytest.raises(ValueError):
            led.set("party")
    finally:
        led.close()
    assert StatusLed.from_config(CFG.model_copy(update={"led_pin": None})) is None


def test_keyboard_keys_become_triggers():
    got: list[Trigger] = []
    keyboard = KeyboardTrigger(got.append, io.StringIO("1\n2\n \nC\nx\nu\ns"))
    assert keyboard.run() == 6
    assert [(t.kind, t.player, t.source) for t in got] == [
        ("turn_end", 0, "keyboard"), ("turn_end", 1, "keyboard"), ("turn_end", None, "keyboard"),
        ("challenge", None, "keyboard"), ("undo", None, "keyboard"), ("snapshot", None, "keyboard")]
    assert keyboard.ignored == 1           # 'x'; newlines are not counted


def test_keyboard_on_a_thread_ends_with_its_input():
    got: queue.Queue[Trigger] = queue.Queue()
    keyboard = KeyboardTrigger(got.put, io.StringIO("21"), keys={"1": ("turn_end", 0), "2": ("turn_end", 1)})
    keyboard.start().join(2)
    assert [got.get_nowait().player for _ in range(2)] == [1, 0]


def test_trigger_from_json_dict():
    t = Trigger.from_dict({"kind": "turn_end", "player": 1})
    assert (t.kind, t.player, t.source) == ("turn_end", 1, "http") and t.t > 0
    assert Trigger.from_dict(t.to_dict()) == t
    assert Trigger.from_dict({"kind": "challenge"}).player is None
    for bad, reason in [({"player": 0}, "needs a 'kind'"), ({"kind": "resign"}, "unknown trigger kind"),
                        ({"kind": "undo", "player": 2}, "player"), ({"kind": "undo", "player": "0"}, "player"),
                        ({"kind": "undo", "who": 0}, "unknown trigger field"),
                        ({"kind": "undo", "t": "now"}, "t must be")]:
        with pytest.raises(ValueError, match=reason):
            Trigger.from_dict(bad)
    assert set(TRIGGER_KINDS) == {"turn_end", "challenge", "undo", "snapshot"}


def test_button_config_forbids_unknown_keys():
    with pytest.raises(ValueError, match="player3_pin"):
        ButtonConfig(player3_pin=5)
    assert all(f.description for f in ButtonConfig.model_fields.values())
