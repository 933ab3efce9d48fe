"""Buttons and the LED through gpiozero's mock pins; keyboard triggers from a StringIO."""
from __future__ import annotations

import io
import queue
import time

import pytest
from gpiozero import Device
from gpiozero.pins.mock import MockFactory

from tilecam.hardware import ButtonConfig, ClockButtons, KeyboardTrigger, StatusLed, Trigger
from tilecam.api.station.triggers import connect
from tilecam.hardware.leds import LedConfig, led_state
from tilecam.hardware.triggers import TRIGGER_KINDS
from tilecam.scoring.clock import ClockError, GameClock

CFG = ButtonConfig(enabled=True, player1_pin=17, player2_pin=27, challenge_pin=22,
                   pause_pin=5, debounce_ms=0, hold_ms=150)
LED = LedConfig(enabled=True, pin=23, blink_ms=20)


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
    cfg = CFG.model_copy(update={"player2_pin": None, "challenge_pin": None, "pause_pin": None})

    def broken(trigger: Trigger) -> None:
        raise RuntimeError("handler bug")

    with ClockButtons(cfg, broken) as buttons:
        assert len(buttons.buttons) == 1
        tap(pins.pin(17))                  # logs the error, does not raise into gpiozero
        tap(pins.pin(17))


def blink_period(pin, timeout_s: float = 3.0) -> float:
    """Seconds from one rising edge of the pin to the next."""
    edges = []
    last = pin.state
    deadline = time.monotonic() + timeout_s
    while len(edges) < 3 and time.monotonic() < deadline:
        now = pin.state
        if now and not last:
            edges.append(time.monotonic())
        last = now
        time.sleep(0.001)
    assert len(edges) == 3, "the LED did not blink"
    return (edges[2] - edges[0]) / 2


def test_status_led_states(pins):
    led = StatusLed.from_config(LedConfig(enabled=True, pin=23, blink_ms=60))
    pin = pins.pin(23)
    try:
        assert led.state == "idle" and pin.state is False
        led.set("recording")
        assert pin.state is True
        led.set("unclear")
        unclear = blink_period(pin)                       # 60 ms on, 60 off
        led.set("camera_lost")
        lost = blink_period(pin)                          # three times faster
        assert lost < unclear * 0.6, (lost, unclear)
        led.set("idle")
        assert wait_for(lambda: pin.state is False)
        time.sleep(0.2)                                   # blink periods pass: it stays off
        assert pin.state is False and led.state == "idle"
        led.attention()                                   # the older names still work
        assert led.state == "unclear"
        led.stopped()
        assert led.state == "idle" and wait_for(lambda: pin.state is False)
        with pytest.raises(ValueError):
            led.set("party")
    finally:
        led.close()
    assert StatusLed.from_config(LedConfig(pin=None)) is None


@pytest.mark.parametrize("report, state", [
    ((None, None, None, False), "idle"),
    (("connected", "clear", "committed", False), "idle"),           # no game is recorded
    (("connected", "clear", "committed", True), "recording"),
    (("connected", "moving", None, True), "recording"),
    (("connected", "no_board", None, True), "unclear"),
    (("connected", "clear", "unclear", True), "unclear"),           # a read it could not commit
    (("reconnecting", "no_board", "unclear", True), "camera_lost"),
    (("failed", None, None, True), "camera_lost"),
    (("ended", "clear", None, True), "idle"),
])
def test_led_state_from_what_the_recorder_reports(report, state):
    assert led_state(*report) == state


def test_status_led_show_follows_the_recorder(pins):
    with StatusLed.from_config(LED) as led:
        assert led.show("connected", "clear") == "recording" and pins.pin(23).state is True
        assert led.show("reconnecting") == "camera_lost"


def test_keyboard_keys_become_triggers():
    got: list[Trigger] = []
    keyboard = KeyboardTrigger(got.append, io.StringIO("1\n2\n \nC\nx\nu\ns4p"))
    assert keyboard.run() == 8
    assert [(t.kind, t.player, t.source) for t in got] == [
        ("turn_end", 0, "keyboard"), ("turn_end", 1, "keyboard"), ("turn_end", None, "keyboard"),
        ("challenge", None, "keyboard"), ("undo", None, "keyboard"), ("snapshot", None, "keyboard"),
        ("turn_end", 3, "keyboard"), ("pause", None, "keyboard")]
    assert keyboard.ignored == 1           # 'x'; newlines are not counted


def test_keyboard_on_a_thread_ends_with_its_input():
    got: queue.Queue[Trigger] = queue.Queue()
    keyboard = KeyboardTrigger(got.put, io.StringIO("21"), keys={"1": ("turn_end", 0), "2": ("turn_end", 1)})
    keyboard.start().join(2)
    assert [got.get_nowait().player for _ in range(2)] == [1, 0]


def test_trigger_from_json_dict():
    t = Trigger.from_dict({"kind": "turn_end", "player": 1}, seats=4)
    assert (t.kind, t.player, t.source) == ("turn_end", 1, "http") and t.t > 0
    assert Trigger.from_dict(t.to_dict(), seats=4) == t
    assert Trigger.from_dict({"kind": "challenge"}, seats=4).player is None
    for bad, reason in [({"player": 0}, "needs a 'kind'"), ({"kind": "resign"}, "unknown trigger kind"),
                        ({"kind": "undo", "player": 4}, "player"), ({"kind": "undo", "player": -1}, "player"),
                        ({"kind": "undo", "player": "0"}, "player"),
                        ({"kind": "undo", "who": 0}, "unknown trigger field"),
                        ({"kind": "undo", "t": "now"}, "t must be")]:
        with pytest.raises(ValueError, match=reason):
            Trigger.from_dict(bad, seats=4)
    assert Trigger.from_dict({"kind": "turn_end", "player": 3}, seats=4).player == 3    # four seats
    assert set(TRIGGER_KINDS) == {"turn_end", "challenge", "undo", "snapshot", "pause"}


def test_the_seats_a_trigger_takes_are_the_callers():
    # hardware knows no rules: how many players a table has is given (the station asks scoring)
    with pytest.raises(ValueError, match="player must be 0 to 1 or null, got 2"):
        Trigger.from_dict({"kind": "turn_end", "player": 2}, seats=2)
    assert Trigger.from_dict({"kind": "turn_end", "player": 4}, seats=5).player == 4
    for bad in (-1, True, "0", 1.0):
        with pytest.raises(ValueError, match="player must be a seat"):
            Trigger("turn_end", bad)


def test_button_config_forbids_unknown_keys():
    with pytest.raises(ValueError, match="player5_pin"):
        ButtonConfig(player5_pin=5)
    assert all(f.description for f in ButtonConfig.model_fields.values())


# ---- the buttons as the game clock: connect() with a real GameClock ---------------------------

class Table:
    """A GameClock at t = time.monotonic(), and what the recorder heard."""

    def __init__(self, players: int = 2, minutes: float = 25) -> None:
        self.clock = GameClock(players, minutes * 60)
        self.heard: queue.Queue[Trigger] = queue.Queue()

    def on_press(self, player, t):
        press = self.clock.press(player, t)
        return press.player if press.kind == "turn_end" else None

    def recorder(self, trigger: Trigger) -> str:
        self.heard.put(trigger)
        return "snapshot"

    def callback(self):
        return connect(self.recorder, self.on_press, self.clock.toggle_pause, self.clock.undo)

    def running(self):
        return self.clock.state(time.monotonic()).running


def test_a_press_ends_the_turn_starts_the_other_clock_and_tells_the_recorder(pins):
    table = Table()
    with ClockButtons(CFG, table.callback()):
        tap(pins.pin(27))                  # player 2 starts the clock: player 1 moves first
        assert wait_for(lambda: table.running() == 0)
        tap(pins.pin(17))                  # player 1 ends the turn
        assert wait_for(lambda: table.running() == 1)
        heard = table.heard.get(timeout=2)
        assert (heard.kind, heard.player, heard.source) == ("turn_end", 0, "button")
        assert table.heard.empty()         # the starting press was no turn end
        tap(pins.pin(17))                  # not player 1's turn: refused, logged, nobody hears it
        time.sleep(0.05)
        assert table.heard.empty() and table.running() == 1


def test_the_pause_button_pauses_and_resumes(pins):
    table = Table()
    with ClockButtons(CFG, table.callback()):
        tap(pins.pin(27))
        assert wait_for(lambda: table.running() == 0)
        tap(pins.pin(5))
        assert wait_for(lambda: table.clock.state(time.monotonic()).paused)
        left = table.clock.remaining(0, time.monotonic())
        time.sleep(0.05)
        assert table.clock.remaining(0, time.monotonic()) == left     # time stands still
        tap(pins.pin(17))                  # a press while paused is refused
        time.sleep(0.05)
        assert table.heard.empty()
        tap(pins.pin(5))
        assert wait_for(lambda: table.running() == 0)
        assert wait_for(lambda: table.clock.remaining(0, time.monotonic()) < left)
    assert table.heard.empty()             # the recorder has no use for pauses


def test_holding_a_clock_button_takes_the_press_back(pins):
    table = Table()
    with ClockButtons(CFG, table.callback()):
        tap(pins.pin(27))
        tap(pins.pin(17))                  # player 1 pressed by mistake
        assert table.heard.get(timeout=2).player == 0
        assert wait_for(lambda: table.running() == 1)
        pin = pins.pin(17)
        pin.drive_low()                    # ... and holds their button
        undo = table.heard.get(timeout=3)
        pin.drive_high()
        assert (undo.kind, undo.player) == ("undo", 0)
        assert table.running() == 0
        assert table.clock.remaining(1, time.monotonic()) == 25 * 60   # player 2's time given back


def test_the_challenge_button_goes_to_the_recorder_and_leaves_the_clock(pins):
    table = Table()
    with ClockButtons(CFG, table.callback()):
        tap(pins.pin(27))
        tap(pins.pin(22))
        heard = table.heard.get(timeout=2)
    assert (heard.kind, heard.player) == ("challenge", None)
    assert table.running() == 0


def test_four_players_each_button_in_turn_order(pins):
    cfg = CFG.model_copy(update={"player3_pin": 6, "player4_pin": 13})
    table = Table(players=4)
    with ClockButtons(cfg, table.callback()) as buttons:
        assert len(buttons.buttons) == 6
        tap(pins.pin(13))                  # the last seat starts the clock
        for pin, player in ((17, 0), (27, 1), (6, 2), (13, 3)):
            assert wait_for(lambda: table.running() == player)
            tap(pins.pin(pin))
            assert table.heard.get(timeout=2).player == player
        assert wait_for(lambda: table.running() == 0)


def test_connect_without_hardware_a_shared_key_ends_whoever_is_on_turn():
    table = Table()
    handle = table.callback()
    assert handle(Trigger("turn_end", None, 10.0, "keyboard")) == "clock started"
    assert handle(Trigger("turn_end", None, 20.0, "keyboard")) == "snapshot"
    assert table.heard.get_nowait().player == 0         # the None is filled in
    assert handle(Trigger("pause", None, 30.0)) == "clock paused"
    assert handle(Trigger("pause", None, 40.0)) == "clock resumed"
    with pytest.raises(ClockError, match="player 0's clock is not running"):
        handle(Trigger("turn_end", 0, 50.0, "http"))     # HTTP gets the refusal (a 409)
    assert table.clock.remaining(1, 50.0) == 25 * 60 - 20
