"""The status LED shows the recorder's state: dark when idle, steady while recording, blinking
when the operator is needed (no board in view, a read it could not commit), flashing fast when
the camera is lost, and on long with short gaps when the record no longer follows the game (the
recorder's lost-game alert, api.station.lostwatch). `led_state` maps what the recorder reports onto these five."""
from __future__ import annotations

from typing import Literal, Mapping

from pydantic import BaseModel, ConfigDict, Field

from .buttons import MISSING_GPIOZERO

LedState = Literal["idle", "recording", "unclear", "camera_lost", "game_lost"]
# The older names: "attention" is unclear, "stopped" is idle.
ALIASES: Mapping[str, LedState] = {"attention": "unclear", "stopped": "idle"}
# The camera lost blinks this many times faster than unclear, so the two read apart across a room.
LOST_FASTER = 3
# The game lost: on this many times longer than off, so it reads apart from both blinks.
GAME_LOST_ON = 4


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


def led_state(camera: str | None, frame_state: str | None = None, decision: str | None = None,
              recording: bool = True, lost: bool = False) -> LedState:
    """The LED for what the recorder reports: `camera` is the source's state (Recorder.camera_status:
    connected, reconnecting, ended, failed, closed), `frame_state` the last frame's (FrameOutcome.state:
    no_board, moving, clear, ...), `decision` the last decision's status (Observation.status: unclear
    until a later decision commits), `recording` whether a game is being recorded at all, `lost` the
    recorder's lost-game alert stands (Recorder.lost)."""
    if not recording or camera in ("ended", "closed"):
        return "idle"
    if camera in ("reconnecting", "failed"):
        return "camera_lost"
    if lost:
        return "game_lost"
    if frame_state == "no_board" or decision == "unclear":
        return "unclear"
    return "recording"


class StatusLed:
    """One gpiozero LED showing one of the LedStates (or the older names "attention" and
    "stopped")."""

    def __init__(self, pin: int | str, *, active_high: bool = True, blink_ms: int = 250,
                 pin_factory=None) -> None:
        try:
            from gpiozero import LED
        except ImportError as exc:
            raise RuntimeError(MISSING_GPIOZERO) from exc
        self.led = LED(pin, active_high=active_high, initial_value=False, pin_factory=pin_factory)
        self.blink_s = blink_ms / 1000
        self.state: LedState = "idle"

    @classmethod
    def from_config(cls, cfg: "LedConfig", *, pin_factory=None) -> "StatusLed | None":
        """From the leds section; None when no pin is wired."""
        if cfg.pin is None:
            return None
        return cls(cfg.pin, active_high=cfg.active_high, blink_ms=cfg.blink_ms, pin_factory=pin_factory)

    def set(self, state: str) -> None:
        state = ALIASES.get(state, state)
        # Re-issuing blink() restarts its thread and makes the LED stutter, so skip no-ops.
        if state == self.state:
            return
        if state == "recording":
            self.led.on()
        elif state == "unclear":
            self.led.blink(on_time=self.blink_s, off_time=self.blink_s)
        elif state == "camera_lost":
            fast = self.blink_s / LOST_FASTER
            self.led.blink(on_time=fast, off_time=fast)
        elif state == "game_lost":
            self.led.blink(on_time=self.blink_s * GAME_LOST_ON, off_time=self.blink_s)
        elif state == "idle":
            self.led.off()
        else:
            raise ValueError(f"unknown LED state {state!r}")
        self.state = state

    def show(self, camera: str | None, frame_state: str | None = None, decision: str | None = None,
             recording: bool = True, lost: bool = False) -> LedState:
        """Set the LED for what the recorder reports (see led_state)."""
        self.set(led_state(camera, frame_state, decision, recording, lost))
        return self.state

    def recording(self) -> None:
        self.set("recording")

    def attention(self) -> None:
        self.set("unclear")

    def stopped(self) -> None:
        self.set("idle")

    def close(self) -> None:
        self.led.close()

    def __enter__(self) -> "StatusLed":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
