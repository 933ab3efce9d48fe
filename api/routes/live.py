"""Live: the overlay state, Server-Sent Events, and the OBS text fields.

Racks on air (issue 30): every route here takes `racks` and `racks_delay` and the server leaves
out what they hide (``rack_policy``), so a hidden rack never reaches a page, a field or the stream.
"""
from __future__ import annotations

import asyncio
import json
from typing import Annotated, Literal

from fastapi import APIRouter, Depends, Query, Request
from fastapi.responses import PlainTextResponse, StreamingResponse

from tilecam.scoring import from_json, to_json

from .. import schemas as s
from ..bus import BusMessage
from ..deps import BusDep, ServiceDep, SettingsDep, TokenDep
from ..service import RackPolicy, entry_without_rack, on_air, operator_air

router = APIRouter(prefix="/api/games", tags=["live"])
READ = s.errors(401, 404, 409, 422, 429)   # every read here takes a token (api/deps.token_holder)
MAX_RACKS_DELAY = 100  # moves; a whole game has fewer

RACKS_DOC = ("Without an operator token a rack is shown only once a play or exchange made from it is in the "
             "record, never the tiles a player holds now. `racks=off` leaves every rack out (the racks, the rack "
             "and unseen-per-player fields, the racks in the stream's entries, the exports' racks); "
             "`racks_delay=N` shows a move's rack only once N more moves have been played after it. The "
             "server's `[racks] on_air` and `delay_turns` are the least hidden: a query can hide more, never "
             "less. A request with an operator token sees the racks live; a wrong token is a 401 counted "
             "toward the same back-off as the writes (429 while it lasts).")


def rack_policy(settings: SettingsDep, who: TokenDep,
                racks: Literal["on", "off"] | None = Query(None, description="`off`: no rack leaves the server."),
                racks_delay: int | None = Query(None, ge=0, le=MAX_RACKS_DELAY,
                                                description="Show a move's rack only once this many more moves "
                                                            "were played after it.")) -> RackPolicy:
    """Which racks this response may carry: an operator token's live (a wrong token is refused and
    counted, `deps.token_holder`), else the server's on-air setting; then what the query hides on
    top (docs/racks.md, "Racks on air and in the API")."""
    base = operator_air(settings) if who is not None else on_air(settings)
    return base.join(racks, racks_delay)


RacksDep = Annotated[RackPolicy, Depends(rack_policy)]


def without_racks(entry: dict | None) -> dict | None:
    """A log entry's JSON (scoring.events.to_json) without its rack (service.entry_without_rack)."""
    return None if entry is None else to_json(entry_without_rack(from_json(entry)))


def sse(event: str, seq: int, data: dict) -> bytes:
    return f"event: {event}\nid: {seq}\ndata: {json.dumps(data, separators=(',', ':'))}\n\n".encode()


@router.get("/{game_id}/live", response_model=s.LiveOut, summary="Live state", responses=READ,
            description="Everything an overlay shows: board, last play, scores, unseen pool, racks, OBS fields. "
                        + RACKS_DOC)
def live_state(game_id: int, service: ServiceDep, racks: RacksDep):
    return service.live(game_id, racks)


@router.get("/{game_id}/fields", response_model=dict[str, str], summary="All OBS fields", responses=READ,
            description=RACKS_DOC)
def fields(game_id: int, service: ServiceDep, racks: RacksDep):
    return service.live(game_id, racks).fields


@router.get("/{game_id}/fields/{field}", response_class=PlainTextResponse, summary="One OBS field as text",
            responses=s.errors(401, 404, 409, 422, 429, json_route=False),
            description="For OBS text sources: " + ", ".join(s.OBS_FIELDS) + ". " + RACKS_DOC)
def field_text(game_id: int, field: s.ObsField, service: ServiceDep, racks: RacksDep):
    return PlainTextResponse(service.live(game_id, racks).fields[field])


@router.get("/{game_id}/events", summary="Server-Sent Events",
            description="`update` events, each with the whole live state, the log entry that caused it "
                        "and when it was committed. The first event is the current state. " + RACKS_DOC,
            response_class=StreamingResponse,
            responses={200: {"content": {"text/event-stream": {}}}, **s.errors(401, 404, 409, 422, 429, json_route=False)})
async def events(game_id: int, request: Request, service: ServiceDep, bus: BusDep, settings: SettingsDep,
                 racks: RacksDep):
    await asyncio.to_thread(service.live, game_id)  # an unknown game is a 404 before the stream starts
    keepalive = settings.live.keepalive_s

    async def shown(msg: BusMessage) -> dict:
        # The bus carries the racks live; a stream that may not see them gets the state under its
        # policy instead, and the entry without its rack.
        if racks.current:
            return msg.data
        now = await asyncio.to_thread(service.live, game_id, racks)
        return {**msg.data, "live": now.model_dump(), "entry": without_racks(msg.data.get("entry"))}

    async def stream():
        sub = bus.subscribe(game_id)
        try:
            # Subscribed first, then the current state: no update can fall between the two.
            now = await asyncio.to_thread(service.live, game_id, racks)
            yield sse("update", now.seq, {"live": now.model_dump(), "entry": None, "committed": None})
            while True:
                try:
                    msg: BusMessage | None = await asyncio.wait_for(sub.get(), keepalive)
                except TimeoutError:
                    yield b": keepalive\n\n"
                    continue
                if msg is None:
                    return
                yield sse(msg.type, msg.seq, await shown(msg))
        finally:
            bus.unsubscribe(sub)

    return StreamingResponse(stream(), media_type="text/event-stream",
                             headers={"Cache-Control": "no-cache", "X-Accel-Buffering": "no"})
