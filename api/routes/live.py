"""Live: the overlay state, Server-Sent Events, and the OBS text fields."""
from __future__ import annotations

import asyncio
import json

from fastapi import APIRouter, Request
from fastapi.responses import PlainTextResponse, StreamingResponse

from .. import schemas as s
from ..bus import BusMessage
from ..deps import BusDep, ServiceDep, SettingsDep

router = APIRouter(prefix="/api/games", tags=["live"])
READ = s.errors(404, 409, 422)


def sse(event: str, seq: int, data: dict) -> bytes:
    return f"event: {event}\nid: {seq}\ndata: {json.dumps(data, separators=(',', ':'))}\n\n".encode()


@router.get("/{game_id}/live", response_model=s.LiveOut, summary="Live state", responses=READ,
            description="Everything an overlay shows: board, last play, scores, unseen pool, OBS fields.")
def live_state(game_id: int, service: ServiceDep):
    return service.live(game_id)


@router.get("/{game_id}/fields", response_model=dict[str, str], summary="All OBS fields", responses=READ)
def fields(game_id: int, service: ServiceDep):
    return service.live(game_id).fields


@router.get("/{game_id}/fields/{field}", response_class=PlainTextResponse, summary="One OBS field as text",
            responses=s.errors(404, 409, 422, json_route=False),
            description="For OBS text sources: " + ", ".join(s.OBS_FIELDS) + ".")
def field_text(game_id: int, field: s.ObsField, service: ServiceDep):
    return PlainTextResponse(service.live(game_id).fields[field])


@router.get("/{game_id}/events", summary="Server-Sent Events",
            description="`update` events, each with the whole live state, the log entry that caused it "
                        "and when it was committed. The first event is the current state.",
            response_class=StreamingResponse,
            responses={200: {"content": {"text/event-stream": {}}}, **s.errors(404, 409, 422, json_route=False)})
async def events(game_id: int, request: Request, service: ServiceDep, bus: BusDep, settings: SettingsDep):
    await asyncio.to_thread(service.live, game_id)  # an unknown game is a 404 before the stream starts
    keepalive = settings.live.keepalive_s

    async def stream():
        sub = bus.subscribe(game_id)
        try:
            # Subscribed first, then the current state: no update can fall between the two.
            now = await asyncio.to_thread(service.live, game_id)
            yield sse("update", now.seq, {"live": now.model_dump(), "entry": None, "committed": None})
            while True:
                try:
                    msg: BusMessage | None = await asyncio.wait_for(sub.get(), keepalive)
                except TimeoutError:
                    yield b": keepalive\n\n"
                    continue
                if msg is None:
                    return
                yield sse(msg.type, msg.seq, msg.data)
        finally:
            bus.unsubscribe(sub)

    return StreamingResponse(stream(), media_type="text/event-stream",
                             headers={"Cache-Control": "no-cache", "X-Accel-Buffering": "no"})
