"""What the station shows of its recording off the web: the status LED ([leds], hardware/leds.py:
`led_state` maps what it is told onto the LED's states) and the lines it says on the console
(stderr) as the frames go by: each committed decision, and the recorder's lost-game alert, said
once when it changes. The web's /api/status is the station's (Station.status).

    open_led(leds, pin_factory=...)   the StatusLed [leds] wires, or None
    StatusShow(led, quiet=...)        frame(frame, outcome, recorder) after each frame, show(recorder) between
"""
from __future__ import annotations

import sys
from typing import Callable

__all__ = ["StatusShow", "open_led"]


def _say(*parts) -> None:
    print(*parts, file=sys.stderr, flush=True)


def open_led(cfg, pin_factory=None):
    """The status LED of the [leds] section (a LedConfig) when it is enabled and wired; else None.
    `pin_factory`: gpiozero's (tests: MockFactory; None: the board's pins)."""
    if not cfg.enabled:
        return None
    from tilecam.hardware.leds import StatusLed
    return StatusLed.from_config(cfg, pin_factory=pin_factory)


class StatusShow:
    """The LED and the console, after each frame (`frame`) and when the camera's state or the frame
    loop's changes (`show`). `led`: a StatusLed or None (no LED: only the console); `quiet`: nothing
    said (`tilecam record`'s progress bar says it itself); `say`: where lines go (stderr)."""

    def __init__(self, led=None, *, quiet: bool = False, say: Callable = _say) -> None:
        self.led = led
        self.quiet = quiet
        self.say = say
        self.decision: str | None = None   # "unclear" while the last decision could not be committed
        self.lost_said: str | None = None  # the recorder's lost-game alert as last said

    def frame(self, frame, outcome, recorder, recording: bool = True) -> None:
        """After `recorder` processed `frame` (its FrameOutcome `outcome`): an unclear read keeps the
        LED blinking until a later decision commits; a committed decision is said; the lost-game
        alert is said when it comes and when it goes."""
        obs = outcome.observation
        if obs is not None:
            self.decision = "unclear" if obs.status == "unclear" else None if obs.entries else self.decision
            if obs.entries and not self.quiet:
                self.say(f"frame {frame.index}: {obs.status}" + (f": {obs.detail}" if obs.detail else ""))
        lost = recorder.lost
        if lost != self.lost_said and not self.quiet:   # said at once, and once
            self.say(f"frame {frame.index}: " + (f"the camera has lost the game: {lost}" if lost else
                                                 "the camera follows the game again"))
        self.lost_said = lost
        self.show(recorder, outcome.state, recording)

    def show(self, recorder, frame_state: str | None = None, recording: bool = True) -> str | None:
        """The LED for the recorder's camera state, the last frame's state, the last decision,
        whether a game is being recorded and the lost-game alert; the state it shows (None: no LED)."""
        if self.led is None:
            return None
        return self.led.show(recorder.camera_status, frame_state, self.decision, recording, recorder.lost is not None)

    def close(self) -> None:
        if self.led is not None:
            self.led.close()
