"""Stations forwarding to the central service (issue 22): what the central holds of a station's
games, and the ingest of their headers, log entries, evidence frames and heartbeats.

Every route needs a bearer token from [auth] tokens; its name is the writer: a forwarded game
takes only the writes of the token (and station name) that first forwarded it. The service
(api/service/ingest.py) decides; this module only reads the requests.
"""
from __future__ import annotations

import asyncio
import base64
import binascii
from typing import Annotated

from fastapi import APIRouter, Path, Request
from fastapi.responses import JSONResponse

from .. import limits as lim
from .. import schemas as s
from ..deps import OperatorDep, ServiceDep
from ..errors import InvalidInput, OutOfOrder
from ..service import players_of
from ..service.ingest import Mirror

router = APIRouter(prefix="/api/stations", tags=["stations"])

Station = Annotated[str, Path(pattern=r"^[A-Za-z0-9_.-]{1,64}$", description="The station's name ([tournament] station).")]
Uid = Annotated[str, Path(pattern=r"^[0-9a-f]{32}$", description="The station's id of the game (meta station_uid).")]
INGEST = s.errors(400, 401, 404, 409, 413, 422, 429)
def _out(m: Mirror) -> s.ForwardedGame:
    return s.ForwardedGame(uid=m.uid, game_id=m.game_id, next=m.next, frames=m.frames, header=m.header, racks=m.racks)


def _out_of_order(exc: OutOfOrder) -> JSONResponse:
    # A 409 like any conflict, with the seq to resend from beside the message.
    return JSONResponse({"detail": str(exc), "next": exc.next_seq}, status_code=409)


@router.get("/{station}", response_model=s.StationGames, summary="What the central holds of a station's games",
            responses=s.errors(401, 422, 429),
            description="Every game this station forwarded with this token: how many entries, which frames "
                        "and which header the central service holds. A station asks once when it starts "
                        "and after a failed push, then resends only what is missing.")
def station_games(station: Station, service: ServiceDep, who: OperatorDep):
    return s.StationGames(station=station, games=[_out(m) for m in service.station_games(station, who)])


@router.put("/{station}/games/{uid}", response_model=s.ForwardedGame, summary="Forward a game's header",
            responses=INGEST,
            description="Creates the central's mirror of the station's game, or brings its players and meta "
                        "up to the station's. Rules, tile set and layout never change (409).")
def put_header(station: Station, uid: Uid, body: s.HeaderIn, service: ServiceDep, who: OperatorDep):
    players = players_of([(p.name, p.nick) for p in body.players])
    return _out(service.ingest_header(station, who, uid, players, body.rules, body.lang, body.layout, body.meta))


@router.post("/{station}/games/{uid}/entries", response_model=s.ForwardedGame, summary="Forward log entries",
             responses=INGEST,
             description=f"Consecutive entries (at most {s.BATCH_ENTRIES}), each at its seq in the station's log. "
                         "One the central holds already is a no-op when it is the same and a 409 when it "
                         "differs; a first seq beyond what the central holds is a 409 with `next`, the seq "
                         "to send from. Nothing of a refused batch is written.")
def post_entries(station: Station, uid: Uid, body: s.EntriesIn, service: ServiceDep, who: OperatorDep):
    try:
        mirror = service.ingest_entries(station, who, uid, [(e.seq, e.entry, e.sidecar) for e in body.entries])
    except OutOfOrder as exc:
        return _out_of_order(exc)
    return _out(mirror)


@router.put("/{station}/games/{uid}/frames/{seq}", response_model=s.ForwardedGame,
            summary="Forward an evidence frame", responses=INGEST, openapi_extra={
                "requestBody": {"required": True, "content": {"image/jpeg": {"schema": {"type": "string",
                                                                                         "format": "binary"}}}}},
            description=f"The request body is the JPEG of entry `seq` (at most {lim.size_text(lim.FRAME_BYTES)}); "
                        "409 with `next` when the entry is not here yet.")
async def put_frame(station: Station, uid: Uid, seq: Annotated[int, Path(ge=0, le=100_000)], request: Request,
                    service: ServiceDep, who: OperatorDep):
    body = await request.body()  # BodyLimit has already refused more than FRAME_BYTES
    await asyncio.to_thread(lim.check_frame, body)  # off the event loop, which serves the SSE clients
    try:
        mirror = await asyncio.to_thread(service.ingest_frame, station, who, uid, seq, body)
    except OutOfOrder as exc:
        return _out_of_order(exc)
    return _out(mirror)


@router.post("/{station}/games/{uid}/racks", response_model=s.ForwardedGame, summary="Forward a rack read",
             responses=INGEST,
             description="One row of the station's rack log (issue 30: a rack camera's settled read, or its "
                         "operator's confirmation) at its seq there, its evidence JPEG in base64. One the central "
                         "holds already is a no-op when it is the same and a 409 when it differs; a seq beyond "
                         "what the central holds is a 409 with `next`.")
def post_rack(station: Station, uid: Uid, body: s.RackForwardIn, service: ServiceDep, who: OperatorDep):
    jpeg = None
    if body.jpeg is not None:
        try:
            jpeg = base64.b64decode(body.jpeg, validate=True)
        except (binascii.Error, ValueError):
            raise InvalidInput(f"rack read {body.seq}: jpeg is not base64") from None
        lim.check_frame(jpeg)
    try:
        mirror = service.ingest_rack(station, who, uid, body.seq, body.kind, body.data, jpeg)
    except OutOfOrder as exc:
        return _out_of_order(exc)
    return _out(mirror)


@router.post("/{station}/heartbeat", summary="A station is alive", responses=s.errors(400, 401, 409, 413, 422, 429),
             description="Sets `station_heard_at` on the games named (the station's current one first) as "
                         "every forwarded write does; a station sends it every few seconds while it has "
                         "nothing to forward, and at once when its clock is pressed, paused or stopped. On "
                         "the first game it keeps the station's address and the game's clock, which "
                         "`/tournament` and the overlays here show. Answers the central's game ids of those "
                         "it holds.")
def heartbeat(station: Station, body: s.HeartbeatIn, service: ServiceDep, who: OperatorDep) -> dict[str, int]:
    clock = body.clock.model_dump() if body.clock is not None else None
    return service.heartbeat(station, who, body.games, url=body.url, game=body.game, clock=clock)
