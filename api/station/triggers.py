"""What a trigger means: the one table. Hardware (buttons, keyboard) only reports presses as
``hardware.triggers.Trigger``, and the HTTP routes as JSON, which ``from_http`` turns into one (the
web never reaches hardware); this decides what the game clock and the recorder do with each kind.

| kind      | the game clock                            | the recorder                                |
|-----------|-------------------------------------------|---------------------------------------------|
| turn_end  | press: the player's turn ends             | snapshot: the board they leave is their move |
| snapshot  | -                                         | snapshot: an operator's "read the board now" |
| challenge | -                                         | notice: the operator enters the outcome      |
| undo      | undo: the last press is taken back        | notice: the operator decides what to take back |
| pause     | pause or resume                           | -                                            |
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable, Mapping

from tilecam.hardware.triggers import Trigger
from tilecam.scoring import MAX_PLAYERS

from tilecam.api.errors import InvalidInput

__all__ = ["MEANING", "Meaning", "connect", "from_http", "recorder_action"]


@dataclass(frozen=True)
class Meaning:
    clock: str | None      # "press" | "undo" | "pause" | None: the clock has no part in it
    recorder: str | None   # "snapshot" | "notice" | None: the recorder has no use for it


MEANING: dict[str, Meaning] = {
    "turn_end": Meaning(clock="press", recorder="snapshot"),
    "snapshot": Meaning(clock=None, recorder="snapshot"),
    "challenge": Meaning(clock=None, recorder="notice"),
    "undo": Meaning(clock="undo", recorder="notice"),
    "pause": Meaning(clock="pause", recorder=None),
}


def recorder_action(kind: str) -> str:
    """What the recorder does with a trigger of this kind ("snapshot" or "notice")."""
    meaning = MEANING.get(kind)
    return (meaning.recorder if meaning is not None else None) or "notice"


def connect(on_trigger: Callable[[Trigger], str], on_press: Callable[[int | None, float], int | None],
            on_pause: Callable[[float], bool], on_undo: Callable[[int | None, float], object]
            ) -> Callable[[Trigger], str]:
    """One trigger callback for the buttons, keyboard and HTTP that runs the game clock first (as
    MEANING says) and then tells the recorder (`on_trigger`) what it needs:

    * press: `on_press(player, t)` presses the clock and returns whose turn ended, or None when the
      press only started the clock; the recorder hears a turn_end for that player only (a shared
      key's None filled in). A press the clock refuses raises, and nobody hears of it.
    * pause: `on_pause(t)` pauses or resumes (returns paused); the recorder has no use for it.
    * undo (a held clock button): `on_undo(player, t)` takes the last press back, then the
      recorder hears it too (the operator decides what to take back from the record).

    Returns what was done, as the HTTP trigger route reports it.
    """
    def handle(trigger: Trigger) -> str:
        meaning = MEANING.get(trigger.kind, Meaning(None, "notice"))
        if meaning.clock == "press":
            ended = on_press(trigger.player, trigger.t)
            if ended is None:
                return "clock started"
            trigger = Trigger(trigger.kind, ended, trigger.t, trigger.source)
        elif meaning.clock == "pause":
            return "clock paused" if on_pause(trigger.t) else "clock resumed"
        elif meaning.clock == "undo":
            on_undo(trigger.player, trigger.t)
        return on_trigger(trigger)
    return handle


def from_http(on_trigger: Callable[[Trigger], str]) -> Callable[[Mapping[str, Any]], dict[str, Any]]:
    """What the station hands the web as `app.state.on_trigger`: the routes pass a press as JSON
    (`{"kind": "turn_end", "player": 0}`) and never build a Trigger (the web does not reach
    hardware). A press that is no trigger is InvalidInput (a 422 naming why); what `on_trigger`
    raises goes on as it is. Returns the trigger as built and what was done with it."""
    def handle(press: Mapping[str, Any]) -> dict[str, Any]:
        try:
            trigger = Trigger.from_dict(press, seats=MAX_PLAYERS, source="http")  # the rules' player count
        except ValueError as exc:
            raise InvalidInput(str(exc)) from None
        return {"trigger": trigger.to_dict(), "action": on_trigger(trigger)}
    return handle
