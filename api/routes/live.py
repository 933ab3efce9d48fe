"""Live: the overlay state, Server-Sent Events, and the OBS text fields.

Racks on air (issues 30, 43): every route here takes `racks` and `broadcast` and the server leaves
out what the request may not see (``rack_policy``), so a hidden rack never reaches a page, a field or
the stream.
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
from ..errors import InvalidInput
from ..deps import BroadcastDep, BusDep, ServiceDep, SettingsDep, TokenDep
from ..service import RackPolicy, broadcast_air, entry_for_viewer, on_air, operator_air

router = APIRouter(prefix="/api/games", tags=["live"])
READ = s.errors(401, 404, 409, 422, 429)   # every read here takes a token (api/deps.token_holder)

RACKS_DOC = ("Racks (docs/racks.md): without a token a rack is shown only once the game is over (nobody holds "
             "one then), never while it is played, and an exchange's tiles only the rack cameras saw likewise. "
             "`broadcast=<broadcast token>`: the broadcaster's overlay sees each player's rack live (its sure tiles; "
             "the broadcast delays its stream). An operator token sees every read as it came. `racks=off` leaves "
             "every rack out; the server's `[racks] on_air = \"off\"` does so for every request without the "
             "operator token. A wrong token of either kind is a 401 counted toward the same back-off as the "
             "writes (429 while it lasts).")


def no_delay(racks_delay: str | None) -> None:
    """`racks_delay` is gone (issue 43): a rack shown N moves late still shows the tiles its
    player holds. Said, never ignored: a page asking for it would show more than it meant."""
    if racks_delay is not None:
        raise InvalidInput("query.racks_delay is gone: a rack shown moves late still shows the tiles its player "
                           "holds. Without a token a rack shows once the game is over; the broadcaster's overlay "
                           "shows them live with ?broadcast=<broadcast token>")


def rack_policy(settings: SettingsDep, who: TokenDep, broadcast: BroadcastDep,
                racks: Literal["on", "off"] | None = Query(None, description="`off`: no rack leaves the server."),
                racks_delay: str | None = Query(None, include_in_schema=False)) -> RackPolicy:
    """Which racks this response may carry: an operator token's every read live, the broadcast
    token's the racks live, else the public's (after the game) or none ([racks] on_air; a wrong
    token is refused and counted, `deps`); then what the query hides on top (docs/racks.md)."""
    no_delay(racks_delay)
    base = operator_air(settings) if who is not None else broadcast_air(settings) if broadcast else on_air(settings)
    return base.join(racks)


RacksDep = Annotated[RackPolicy, Depends(rack_policy)]


def entry_shown(entry: dict | None, racks: RackPolicy, over: bool) -> dict | None:
    """A log entry's JSON (scoring.events.to_json) as `racks` shows it (service.entry_for_viewer)."""
    return None if entry is None else to_json(entry_for_viewer(from_json(entry), racks, over))


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
        if racks.raw:
            return msg.data
        now = await asyncio.to_thread(service.live, game_id, racks)
        return {**msg.data, "live": now.model_dump(), "entry": entry_shown(msg.data.get("entry"), racks, now.ended)}

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
