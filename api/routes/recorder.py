"""The recorder running in this process: its status, and clock presses sent over HTTP."""
from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Body, HTTPException, Request

from tilecam.hardware.triggers import Trigger

from .. import schemas as s
from ..deps import OperatorDep

router = APIRouter(prefix="/api", tags=["recorder"])


@router.get("/status", summary="Recorder and camera status",
            description="What the recorder in this process sees: the camera's connection state, the "
                        "board (tracked, occluded, ...), frames processed and the time per stage. Empty "
                        "when no recorder runs in this process.")
def recorder_status(request: Request) -> dict:
    provider = getattr(request.app.state, "status", None)
    return provider() if provider is not None else {}


@router.post("/trigger", summary="Send a clock press or another trigger",
             description='For setups without buttons: `{"kind": "turn_end", "player": 0}` means player 1 hit '
                         "the clock (`player` may be null: whoever is on turn). Kinds: turn_end, snapshot, "
                         "challenge, undo. Needs the operator token.",
             responses=s.errors(400, 401, 409, 413, 422, 429))
def send_trigger(request: Request, operator: OperatorDep, body: dict[str, Any] = Body(...)) -> dict:
    handler = getattr(request.app.state, "on_trigger", None)
    if handler is None:
        raise HTTPException(409, "no recorder runs in this process")
    try:
        trigger = Trigger.from_dict(body, source="http")
    except ValueError as exc:
        raise HTTPException(422, str(exc)) from None
    return {"trigger": trigger.to_dict(), "action": handler(trigger), "by": operator}
