"""Media: each move's evidence frame, and the camera preview as MJPEG."""
from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Literal

import cv2
import numpy as np
from fastapi import APIRouter, Query, Request
from fastapi.responses import FileResponse, Response, StreamingResponse

from tilecam.scoring.events import Play
from tilecam.vision.draw import BLANK_BGR
from tilecam.vision.rectify import homography_from_corners, warp_board

from .. import limits as lim
from .. import schemas as s
from ..deps import GameDep, OperatorDep, PreviewDep, ServiceDep, SettingsDep
from ..errors import InvalidInput, NotFound

router = APIRouter(prefix="/api", tags=["media"])
JPEG = {200: {"content": {"image/jpeg": {"schema": {"type": "string", "format": "binary"}}}}}
JPEG_BODY = {"requestBody": {"required": True, "content": {
    "image/jpeg": {"schema": {"type": "string", "format": "binary"}}}}}
BOUNDARY = "tilecamframe"
BOARD_PX = 48            # pixels per square of the rectified evidence photo (720 px for 15x15)
NEW_TILE_BGR = (0, 160, 255)


@router.get("/games/{game_id}/moves/{index}/frame.jpg", response_class=Response,
            responses={**JPEG, **s.errors(404, 409, 422)},
            summary="Evidence frame of a move",
            description="The camera frame the move was read from (`view=raw`, the default), or "
                        "(`view=board`) that frame rectified to the board in the game's orientation, "
                        "the move's new tiles outlined and labelled. A frame stored without the grid "
                        "corners (put by hand, or recorded before corners were kept) has no board "
                        "view: a 422 that says so; its raw frame is still served.")
def move_frame(index: int, game: GameDep, service: ServiceDep,
               view: Literal["raw", "board"] = Query("raw", description="raw frame, or rectified to the board")):
    seq = game.event_seq(index)
    frame = service.store.frame(game.row.id, seq)
    if view == "board":
        return Response(_board_view(game, index, seq, _frame_bytes(frame, index)), media_type="image/jpeg")
    if frame.jpeg is not None:
        return Response(frame.jpeg, media_type="image/jpeg")
    if not Path(frame.path).is_file():
        raise NotFound(f"the evidence frame of move {index} was at {frame.path}, which is gone")
    return FileResponse(frame.path, media_type="image/jpeg")


def _frame_bytes(frame, index: int) -> bytes:
    if frame.jpeg is not None:
        return frame.jpeg
    try:
        return Path(frame.path).read_bytes()
    except OSError:
        raise NotFound(f"the evidence frame of move {index} was at {frame.path}, which is gone") from None


def _board_view(game, index: int, seq: int, jpeg: bytes) -> bytes:
    """The frame warped to the board by the corners the recorder kept, new tiles outlined."""
    side = next((e.sidecar for e in game.entries if e.seq == seq), None) or {}
    corners = side.get("corners")
    if not corners:
        raise InvalidInput(f"the evidence frame of move {index} has no grid corners (not read by the "
                           f"recorder), so it cannot be rectified; the raw frame is at ?view=raw")
    image = cv2.imdecode(np.frombuffer(jpeg, np.uint8), cv2.IMREAD_COLOR)
    if image is None:
        raise InvalidInput(f"the evidence frame of move {index} is not a JPEG that decodes")
    board = warp_board(image, homography_from_corners(np.asarray(corners, np.float32), BOARD_PX), BOARD_PX)
    ev = game.events[index]
    for t in ev.placement.tiles if isinstance(ev, Play) else ():
        x, y = t.square.col * BOARD_PX, t.square.row * BOARD_PX
        colour = BLANK_BGR if t.blank else NEW_TILE_BGR
        cv2.rectangle(board, (x + 1, y + 1), (x + BOARD_PX - 2, y + BOARD_PX - 2), colour, 3)
        # the letter as the record has it, in a corner so the tile itself stays visible
        label = t.letter.lower() if t.blank else t.letter
        cv2.rectangle(board, (x + 2, y + 2), (x + 18, y + 20), colour, -1)
        cv2.putText(board, label, (x + 4, y + 17), cv2.FONT_HERSHEY_SIMPLEX, 0.5, (255, 255, 255), 1, cv2.LINE_AA)
    ok, buf = cv2.imencode(".jpg", board, [cv2.IMWRITE_JPEG_QUALITY, 85])
    return buf.tobytes()


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

