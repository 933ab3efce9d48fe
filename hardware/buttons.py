"""Clock buttons on GPIO through gpiozero: a press ends that player's turn, a hold takes it back.

Wire each button (or the clock's own contacts, through an optocoupler) between a GPIO pin
and ground; the internal pull-up does the rest (docs/pi.md has the table). gpiozero is
imported when ClockButtons is built, so machines without it can import this module.

The buttons are the game clock's: `connect` turns presses into calls on the clock (given as
callbacks, so this package imports nothing of tilecam) and tells the recorder whose turn ended.
"""
from __future__ import annotations

import logging
import threading
import time

from pydantic import BaseModel, ConfigDict, Field

from .triggers import Trigger, TriggerCallback

log = logging.getLogger(__name__)

MISSING_GPIOZERO = ("gpiozero is not installed: pip install 'tilecam[pi]' "
                    "(on Raspberry Pi OS it is also the python3-gpiozero package)")


class ButtonConfig(BaseModel):
    """GPIO wiring of the clock, pause and challenge buttons (BCM numbers; the LED is the leds section)."""

    model_config = ConfigDict(extra="forbid")

    enabled: bool = Field(False, description="Read the buttons; off on machines without GPIO.")
    player1_pin: int | str | None = Field(17, description=(
        "GPIO of the first player's clock button (BCM number, or a gpiozero name like 'BOARD11'); "
        "its press gives Trigger('turn_end', player=0). None: not wired."))
    player2_pin: int | str | None = Field(27, description=(
        "GPIO of the second player's clock button; its press gives Trigger('turn_end', player=1)."))
    player3_pin: int | str | None = Field(None, description=(
        "GPIO of the third player's clock button (box games of three or four; e.g. 6). None: not wired."))
    player4_pin: int | str | None = Field(None, description=(
        "GPIO of the fourth player's clock button (e.g. 13). None: not wired."))
    pause_pin: int | str | None = Field(5, description=(
        "GPIO of the clock's pause button; its press gives Trigger('pause'): it pauses a running clock "
        "and resumes a paused one. None: not wired."))
    challenge_pin: int | str | None = Field(22, description=(
        "GPIO of the challenge button; its press gives Trigger('challenge'). None: not wired."))
    pull_up: bool = Field(True, description=(
        "Buttons connect the pin to ground and use the internal pull-up; False for buttons to 3.3 V."))
    debounce_ms: int = Field(50, ge=0, description=(
        "Ignore contact bounce shorter than this; 0 turns debouncing off."))
    hold_ms: int = Field(2000, gt=0, description=(
        "Holding a clock button this long gives Trigger('undo') for that player instead of a turn end."))


class ClockButtons:
    """Turns GPIO presses into Triggers and hands them to `on_trigger`.

    A clock button fires 'turn_end' when released before `hold_ms`, stamped with the
    time of the press; held longer it fires 'undo' once and nothing on release. The
    challenge button fires on press. Callbacks run on gpiozero's threads, so
    `on_trigger` must be thread-safe (the recorder puts triggers on a queue).
    """

    def __init__(self, cfg: ButtonConfig, on_trigger: TriggerCallback, *, pin_factory=None) -> None:
        try:
            from gpiozero import Button
        except ImportError as exc:
            raise RuntimeError(MISSING_GPIOZERO) from exc
        self.cfg = cfg
        self.on_trigger = on_trigger
        self._lock = threading.Lock()
        self._pressed_at: dict[int, float] = {}
        self._held: set[int] = set()
        self.buttons: list = []
        bounce = cfg.debounce_ms / 1000 if cfg.debounce_ms else None
        try:
            for player, pin in enumerate((cfg.player1_pin, cfg.player2_pin, cfg.player3_pin, cfg.player4_pin)):
                if pin is None:
                    continue
                button = Button(pin, pull_up=cfg.pull_up, bounce_time=bounce,
                                hold_time=cfg.hold_ms / 1000, pin_factory=pin_factory)
                button.when_pressed = lambda _d=None, p=player: self._pressed(p)
                button.when_held = lambda _d=None, p=player: self._held_down(p)
                button.when_released = lambda _d=None, p=player: self._released(p)
                self.buttons.append(button)
            if cfg.challenge_pin is not None:
                button = Button(cfg.challenge_pin, pull_up=cfg.pull_up, bounce_time=bounce,
                                pin_factory=pin_factory)
                button.when_pressed = lambda _d=None: self._emit(Trigger("challenge", None, time.monotonic()))
                self.buttons.append(button)
            if cfg.pause_pin is not None:
                button = Button(cfg.pause_pin, pull_up=cfg.pull_up, bounce_time=bounce, pin_factory=pin_factory)
                button.when_pressed = lambda _d=None: self._emit(Trigger("pause", None, time.monotonic()))
                self.buttons.append(button)
        except Exception:
            self.close()
            raise

    def _pressed(self, player: int) -> None:
        with self._lock:
            self._pressed_at[player] = time.monotonic()
            self._held.discard(player)

    def _held_down(self, player: int) -> None:
        with self._lock:
            self._held.add(player)
        self._emit(Trigger("undo", player, time.monotonic()))

    def _released(self, player: int) -> None:
        with self._lock:
            held = player in self._held
            self._held.discard(player)
            t = self._pressed_at.pop(player, time.monotonic())
        if not held:
            self._emit(Trigger("turn_end", player, t))

    def _emit(self, trigger: Trigger) -> None:
        try:
            self.on_trigger(trigger)
        except ValueError as exc:   # refused (a press by a player not on turn): say why, no traceback
            log.warning("%s %s refused: %s", trigger.kind, trigger.player, exc)
        except Exception:   # a failing handler must not kill gpiozero's event thread
            log.exception("trigger handler failed for %s", trigger)

    def close(self) -> None:
        for button in self.buttons:
            button.close()
        self.buttons = []

    def __enter__(self) -> "ClockButtons":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

