"""Live: the overlay state, Server-Sent Events, and the OBS text fields.

Racks on air (issues 30, 43): every route here takes `racks` and `broadcast` and the server leaves
out what the request may not see (``rack_policy``: the app's ``RacksOnAir`` asked, never decided
here), so a hidden rack never reaches a page, a field or the stream. A stream's update is made once
per policy, whatever the number of streams that follow the game (``BusMessage.once``).
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
from ..deps import BroadcastDep, BusDep, OnAirDep, ServiceDep, SettingsDep, TokenDep
from ..service import RackPolicy, entry_for_viewer

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


def rack_policy(on_air: OnAirDep, who: TokenDep, broadcast: BroadcastDep,
                racks: Literal["on", "off"] | None = Query(None, description="`off`: no rack leaves the server."),
                racks_delay: str | None = Query(None, include_in_schema=False)) -> RackPolicy:
    """Which racks this response may carry, as the app's rack-on-air rule says for its tokens (a
    wrong token is refused and counted, `deps`) and its query (docs/racks.md)."""
    no_delay(racks_delay)
    return on_air.policy(operator=who is not None, broadcast=broadcast, racks=racks)


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

    def view(msg: BusMessage) -> dict:
        now = service.live(game_id, racks)
        return {**msg.data, "live": now.model_dump(), "entry": entry_shown(msg.data.get("entry"), racks, now.ended)}

    async def shown(msg: BusMessage) -> dict:
        # The bus carries the racks live; a stream that may not see them gets the state under its
        # policy instead, and the entry without its rack: made by the first stream under this
        # policy to take the update, shared by the others (the message is the same object for all).
        if racks.raw:
            return msg.data
        return await asyncio.to_thread(msg.once, racks, lambda: view(msg))

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
