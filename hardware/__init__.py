"""Table hardware: clock buttons, the status LED and keyboard triggers.

Imports nothing of tilecam: inputs become Trigger values passed to an on_trigger
callback, and api/station/recorder.py decides what a press means.
"""
from .buttons import ButtonConfig, ClockButtons
from .keyboard import KeyboardTrigger
from .leds import StatusLed
from .triggers import TRIGGER_KINDS, Trigger, TriggerCallback

__all__ = ["ButtonConfig", "ClockButtons", "KeyboardTrigger", "StatusLed", "TRIGGER_KINDS",
           "Trigger", "TriggerCallback"]
