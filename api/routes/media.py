"""Media: each move's evidence frame, and the camera preview as MJPEG."""
from __future__ import annotations

import asyncio
from pathlib import Path

from fastapi import APIRouter, Request
from fastapi.responses import FileResponse, Response, StreamingResponse

from .. import limits as lim
from .. import schemas as s
from ..deps import GameDep, OperatorDep, PreviewDep, ServiceDep, SettingsDep
from ..errors import NotFound

router = APIRouter(prefix="/api", tags=["media"])
JPEG = {200: {"content": {"image/jpeg": {"schema": {"type": "string", "format": "binary"}}}}}
JPEG_BODY = {"requestBody": {"required": True, "content": {
    "image/jpeg": {"schema": {"type": "string", "format": "binary"}}}}}
BOUNDARY = "tilecamframe"


@router.get("/games/{game_id}/moves/{index}/frame.jpg", response_class=Response,
            responses={**JPEG, **s.errors(404, 409, 422)},
            summary="Evidence frame of a move", description="The camera frame the move was read from.")
def move_frame(index: int, game: GameDep, service: ServiceDep):
    frame = service.store.frame(game.row.id, game.event_seq(index))
    if frame.jpeg is not None:
        return Response(frame.jpeg, media_type="image/jpeg")
    if not Path(frame.path).is_file():
        raise NotFound(f"the evidence frame of move {index} was at {frame.path}, which is gone")
    return FileResponse(frame.path, media_type="image/jpeg")


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

