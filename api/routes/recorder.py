"""The recorder running in this process: its status, and clock presses sent over HTTP."""
from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Body, HTTPException, Request

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
    # The station's press path (api/station/triggers.py:from_http): it builds the trigger from the body,
    # a bad one a 422 naming why, and says what was done; the web never builds a hardware Trigger.
    handler = getattr(request.app.state, "on_trigger", None)
    if handler is None:
        raise HTTPException(409, "no recorder runs in this process")
    return {**handler(body), "by": operator}
