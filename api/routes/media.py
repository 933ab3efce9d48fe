"""Media: each move's evidence frame, and the camera preview as MJPEG."""
from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Literal

from fastapi import APIRouter, Query, Request
from fastapi import Path as FastPath
from fastapi.responses import FileResponse, Response, StreamingResponse

from .. import limits as lim
from .. import schemas as s
from ..deps import GameDep, OperatorDep, PreviewDep, ServiceDep, SettingsDep
from ..errors import NotFound
from ..service import board_view_text
from .live import RACKS_DOC, RacksDep

router = APIRouter(prefix="/api", tags=["media"])
JPEG = {200: {"content": {"image/jpeg": {"schema": {"type": "string", "format": "binary"}}}}}
JPEG_BODY = {"requestBody": {"required": True, "content": {
    "image/jpeg": {"schema": {"type": "string", "format": "binary"}}}}}
BOUNDARY = "tilecamframe"


@router.get("/games/{game_id}/moves/{index}/frame.jpg", response_class=Response,
            responses={**JPEG, **s.errors(404, 409, 422)},
            summary="Evidence frame of a move",
            description="The camera frame the move was read from (`view=raw`, the default), or "
                        "(`view=board`) that frame rectified to the board in the game's orientation "
                        f"{board_view_text()}, the move's new tiles "
                        "outlined and listed under the board with the letters the record has. A frame stored without the grid "
                        "corners (put by hand, or recorded before corners were kept) has no board "
                        "view: a 422 that says so; its raw frame is still served.")
def move_frame(index: int, game: GameDep, service: ServiceDep,
               view: Literal["raw", "board"] = Query("raw", description="raw frame, or rectified to the board")):
    if view == "board":  # drawn by vision, asked by the service: the web draws nothing
        return Response(service.board_frame(game, index), media_type="image/jpeg")
    frame = service.frame(game.row.id, game.event_seq(index))
    if frame.jpeg is not None:
        return Response(frame.jpeg, media_type="image/jpeg")
    if not Path(frame.path).is_file():
        raise NotFound(f"the evidence frame of move {index + 1} was at {frame.path}, which is gone")
    return FileResponse(frame.path, media_type="image/jpeg")


@router.get("/games/{game_id}/racks/{seq}/frame.jpg", response_class=Response,
            responses={**JPEG, **s.errors(401, 404, 409, 422, 429)}, summary="Evidence frame of a rack read",
            description="The rack camera's frame a rack read (its `seq` in `/racks`, a move's `rack_seq`) was "
                        "settled from. On air as the rack itself: a rack not shown to this request is a 404, "
                        "as if no frame were kept. " + RACKS_DOC)
def rack_frame(game: GameDep, service: ServiceDep, racks: RacksDep,
               seq: int = FastPath(ge=0, le=2**62, description="The read's seq in the game's rack log.")):
    read = service.shown_read(game, seq, racks)   # on air as the rack itself (service.Racks.shown_read)
    if read is None or not read.frame:
        raise NotFound(f"no evidence frame for rack read {seq} of game {game.row.id}")
    frame = service.rack_frame(game.row.id, seq)
    if frame.jpeg is not None:
        return Response(frame.jpeg, media_type="image/jpeg", headers={"Cache-Control": "no-store"})
    if not Path(frame.path).is_file():
        raise NotFound(f"the evidence frame of rack read {seq} was at {frame.path}, which is gone")
    return FileResponse(frame.path, media_type="image/jpeg", headers={"Cache-Control": "no-store"})


@router.put("/games/{game_id}/moves/{index}/frame.jpg", status_code=204, summary="Store an evidence frame",
            description=f"The request body is the JPEG: at most {lim.size_text(lim.FRAME_BYTES)} and "
                        f"{lim.FRAME_PIXELS:,} pixels, and it must decode.",
            response_class=Response, responses=s.errors(401, 404, 409, 413, 422, 429), openapi_extra=JPEG_BODY)
async def put_move_frame(index: int, request: Request, game: GameDep, service: ServiceDep, who: OperatorDep):
    body = await request.body()  # BodyLimit has already refused more than FRAME_BYTES
    seq = game.event_seq(index)
    # Decoding a 12 MP frame takes a while: off the event loop, which serves the SSE clients.
    await asyncio.to_thread(lim.check_frame, body)
    await asyncio.to_thread(service.put_frame, game.row.id, seq, jpeg=body)
    return Response(status_code=204)


@router.get("/preview.jpg", response_class=Response, responses={**JPEG, **s.errors(404)},
            summary="Latest preview frame")
def preview_still(preview: PreviewDep):
    _, jpeg = preview.latest()
    if jpeg is None:
        raise NotFound("no preview frame yet: the recorder has not published one")
    return Response(jpeg, media_type="image/jpeg", headers={"Cache-Control": "no-store"})


@router.get("/preview.mjpg", summary="MJPEG camera preview",
            description="multipart/x-mixed-replace stream of the annotated camera frames; each frame is "
                        "encoded once, whatever the number of viewers.",
            response_class=StreamingResponse,
            responses={200: {"content": {f"multipart/x-mixed-replace; boundary={BOUNDARY}": {}}}})
async def preview_stream(preview: PreviewDep, settings: SettingsDep):
    min_gap = 1.0 / settings.preview.max_fps

    async def stream():
        async with preview.watch() as viewer:
            last = 0
            while not preview.closed:
                idx, jpeg = await viewer.next_frame(last, timeout=5.0)
                if jpeg is not None and idx != last:
                    last = idx
                    yield (f"--{BOUNDARY}\r\nContent-Type: image/jpeg\r\nContent-Length: {len(jpeg)}\r\n\r\n"
                           .encode() + jpeg + b"\r\n")
                    await asyncio.sleep(min_gap)  # caps this viewer's frame rate
                else:
                    yield b"\r\n"  # a few bytes now and then notice a viewer that left

    return StreamingResponse(stream(), media_type=f"multipart/x-mixed-replace; boundary={BOUNDARY}",
                             headers={"Cache-Control": "no-store"})

