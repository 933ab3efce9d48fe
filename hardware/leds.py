"""The status LED: steady while recording, blinking when it needs attention, dark when stopped."""
from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from .buttons import MISSING_GPIOZERO, ButtonConfig

LedState = Literal["recording", "attention", "stopped"]


class LedConfig(BaseModel):
    """The status LED's wiring and blink rate (BCM numbering, as the buttons)."""

    model_config = ConfigDict(extra="forbid")

    enabled: bool = Field(False, description="Drive the status LED; off on machines without GPIO.")
    pin: int | str | None = Field(23, description=(
        "GPIO of the status LED, wired through a ~330 ohm resistor to ground (BCM number, or a "
        "gpiozero name like 'BOARD16'). None: no LED."))
    active_high: bool = Field(True, description="The LED lights when the pin is high.")
    blink_ms: int = Field(250, ge=20, le=5000, description=(
        "On and off time of the LED when it blinks for attention (no board in view, camera "
        "reconnecting)."))


class StatusLed:
    """One gpiozero LED. `attention` covers "no board in view" and "camera reconnecting";
    the recorder maps its own state onto these three."""

    def __init__(self, pin: int | str, *, active_high: bool = True, blink_ms: int = 250,
                 pin_factory=None) -> None:
        try:
            from gpiozero import LED
        except ImportError as exc:
            raise RuntimeError(MISSING_GPIOZERO) from exc
        self.led = LED(pin, active_high=active_high, initial_value=False, pin_factory=pin_factory)
        self.blink_s = blink_ms / 1000
        self.state: LedState = "stopped"

    @classmethod
    def from_config(cls, cfg: ButtonConfig, *, pin_factory=None) -> "StatusLed | None":
        if cfg.led_pin is None:
            return None
        return cls(cfg.led_pin, active_high=cfg.led_active_high, blink_ms=cfg.blink_ms,
                   pin_factory=pin_factory)

    def set(self, state: LedState) -> None:
        # Re-issuing blink() restarts its thread and makes the LED stutter, so skip no-ops.
        if state == self.state:
            return
        if state == "recording":
            self.led.on()
        elif state == "attention":
            self.led.blink(on_time=self.blink_s, off_time=self.blink_s)
        elif state == "stopped":
            self.led.off()
        else:
            raise ValueError(f"unknown LED state {state!r}")
        self.state = state

    def recording(self) -> None:
        self.set("recording")

    def attention(self) -> None:
        self.set("attention")

    def stopped(self) -> None:
        self.set("stopped")

    def close(self) -> None:
        self.led.close()

    def __enter__(self) -> "StatusLed":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
