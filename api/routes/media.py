"""Media: each move's evidence frame, and the camera preview as MJPEG."""
from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Literal

import cv2
import numpy as np
from fastapi import APIRouter, Query, Request
from fastapi import Path as FastPath
from fastapi.responses import FileResponse, Response, StreamingResponse

from tilecam.scoring.events import Play
from tilecam.scoring.gcg.notation import format_square
from tilecam.vision.draw import BLANK_BGR
from tilecam.vision.rectify import GRID, homography_from_corners

from .. import limits as lim
from .. import schemas as s
from ..deps import GameDep, OperatorDep, PreviewDep, ServiceDep, SettingsDep
from ..errors import InvalidInput, NotFound
from .live import RACKS_DOC, RacksDep

router = APIRouter(prefix="/api", tags=["media"])
JPEG = {200: {"content": {"image/jpeg": {"schema": {"type": "string", "format": "binary"}}}}}
JPEG_BODY = {"requestBody": {"required": True, "content": {
    "image/jpeg": {"schema": {"type": "string", "format": "binary"}}}}}
BOUNDARY = "tilecamframe"
BOARD_PX = 48            # pixels per square of the rectified evidence photo (720 px for 15x15)
PHOTO_MARGIN_PX = 24     # photo kept round the grid: tiles lean, and an edge row's tops stand past the line
LABEL_PX = 24            # the band round that for the coordinates, so no label covers a tile
GRID_ORIGIN = PHOTO_MARGIN_PX + LABEL_PX  # where square A1's top-left corner lands, in x and in y
CAPTION_PX = 30          # a line under the board: the move's new tiles as the record has them
NEW_TILE_BGR = (0, 160, 255)
BAND_BGR = (40, 48, 32)
LABEL_BGR = (220, 235, 225)


@router.get("/games/{game_id}/moves/{index}/frame.jpg", response_class=Response,
            responses={**JPEG, **s.errors(404, 409, 422)},
            summary="Evidence frame of a move",
            description="The camera frame the move was read from (`view=raw`, the default), or "
                        "(`view=board`) that frame rectified to the board in the game's orientation "
                        f"({BOARD_PX} px a square, {PHOTO_MARGIN_PX} px of photo round the grid so edge "
                        "rows are whole, coordinates in a band outside it), the move's new tiles "
                        "outlined and listed under the board with the letters the record has. A frame stored without the grid "
                        "corners (put by hand, or recorded before corners were kept) has no board "
                        "view: a 422 that says so; its raw frame is still served.")
def move_frame(index: int, game: GameDep, service: ServiceDep,
               view: Literal["raw", "board"] = Query("raw", description="raw frame, or rectified to the board")):
    seq = game.event_seq(index)
    frame = service.frame(game.row.id, seq)
    if view == "board":
        return Response(_board_view(game, index, seq, _frame_bytes(frame, index)), media_type="image/jpeg")
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
    reads = service.racks(game.row.id)
    read = next((r for r in reads if r.seq == seq), None)
    if read is not None and not racks.current:  # on air only as the rack of a stored move
        on = racks.moves_shown(game.events, game.over())
        made = [i for i, r in service.played_from(game.events, game.players, game.dist, reads).items()
                if r.seq == seq and on[i]]
        read = read if made else None
    if read is None or not read.frame or not racks.shown:
        raise NotFound(f"no evidence frame for rack read {seq} of game {game.row.id}")
    frame = service.rack_frame(game.row.id, seq)
    if frame.jpeg is not None:
        return Response(frame.jpeg, media_type="image/jpeg", headers={"Cache-Control": "no-store"})
    if not Path(frame.path).is_file():
        raise NotFound(f"the evidence frame of rack read {seq} was at {frame.path}, which is gone")
    return FileResponse(frame.path, media_type="image/jpeg", headers={"Cache-Control": "no-store"})


def _frame_bytes(frame, index: int) -> bytes:
    if frame.jpeg is not None:
        return frame.jpeg
    try:
        return Path(frame.path).read_bytes()
    except OSError:
        raise NotFound(f"the evidence frame of move {index + 1} was at {frame.path}, which is gone") from None


def _board_view(game, index: int, seq: int, jpeg: bytes) -> bytes:
    """The frame warped to the board by the corners the recorder kept, with some photo round the
    grid and the coordinates outside that; the new tiles outlined, their letters listed below."""
    side = next((e.sidecar for e in game.entries if e.seq == seq), None) or {}
    corners = side.get("corners")
    if not corners:
        raise InvalidInput(f"the evidence frame of move {index + 1} has no grid corners (not read by the "
                           f"recorder), so it cannot be rectified; the raw frame is at ?view=raw")
    image = cv2.imdecode(np.frombuffer(jpeg, np.uint8), cv2.IMREAD_COLOR)
    if image is None:
        raise InvalidInput(f"the evidence frame of move {index + 1} is not a JPEG that decodes")
    n = GRID  # the reader's grid: the corners are those of a 15x15 board
    grid = homography_from_corners(np.asarray(corners, np.float32), BOARD_PX)
    shift = np.array([[1, 0, GRID_ORIGIN], [0, 1, GRID_ORIGIN], [0, 0, 1]], np.float64)
    side_px = n * BOARD_PX + 2 * GRID_ORIGIN
    board = cv2.warpPerspective(image, shift @ grid, (side_px, side_px), flags=cv2.INTER_LINEAR,
                                borderMode=cv2.BORDER_CONSTANT, borderValue=(90, 90, 90))
    ev = game.events[index]
    tiles = list(ev.placement.tiles) if isinstance(ev, Play) else []
    _label_band(board, n, {t.square.col for t in tiles}, {t.square.row for t in tiles})
    for t in tiles:
        x, y = GRID_ORIGIN + t.square.col * BOARD_PX, GRID_ORIGIN + t.square.row * BOARD_PX
        cv2.rectangle(board, (x + 1, y + 1), (x + BOARD_PX - 2, y + BOARD_PX - 2),
                      BLANK_BGR if t.blank else NEW_TILE_BGR, 3)
    board = np.vstack([board, np.full((CAPTION_PX, side_px, 3), BAND_BGR, np.uint8)])
    _caption(board, index, tiles)
    ok, buf = cv2.imencode(".jpg", board, [cv2.IMWRITE_JPEG_QUALITY, 85])
    return buf.tobytes()


def _text(img, text: str, centre: tuple[int, int], colour, scale: float = 0.5, bold: int = 1) -> None:
    (w, h), _ = cv2.getTextSize(text, cv2.FONT_HERSHEY_SIMPLEX, scale, bold)
    cv2.putText(img, text, (centre[0] - w // 2, centre[1] + h // 2), cv2.FONT_HERSHEY_SIMPLEX, scale, colour,
                bold, cv2.LINE_AA)


def _label_band(board: np.ndarray, n: int, cols: set[int], rows: set[int]) -> None:
    """The outer band, column letters above and below, row numbers left and right; the columns
    and rows of the move's new tiles in the outline colour."""
    side = board.shape[0]
    for box in ((0, 0, side, LABEL_PX), (0, side - LABEL_PX, side, side),
                (0, 0, LABEL_PX, side), (side - LABEL_PX, 0, side, side)):
        cv2.rectangle(board, box[:2], (box[2] - 1, box[3] - 1), BAND_BGR, -1)
    mid = LABEL_PX // 2
    for i in range(n):
        at = GRID_ORIGIN + i * BOARD_PX + BOARD_PX // 2
        col_colour = NEW_TILE_BGR if i in cols else LABEL_BGR
        row_colour = NEW_TILE_BGR if i in rows else LABEL_BGR
        for y in (mid, side - mid):
            _text(board, chr(65 + i), (at, y), col_colour, bold=2 if i in cols else 1)
        for x in (mid, side - mid):
            _text(board, str(i + 1), (x, at), row_colour, 0.45, bold=2 if i in rows else 1)


def _caption(board: np.ndarray, index: int, tiles) -> None:
    """Under the board: the move's new tiles, each square with the letter the record has (a blank
    in lower case, in the blank's colour), where no label covers the photo."""
    y = board.shape[0] - CAPTION_PX // 2 + 5
    x = LABEL_PX
    parts = [(f"move {index + 1}" + (": " if tiles else ": no new tiles"), LABEL_BGR)]
    for i, t in enumerate(tiles):
        label = t.letter.lower() if t.blank else t.letter
        parts.append((f"{format_square(t.square)} {label}" + (",  " if i < len(tiles) - 1 else ""),
                      BLANK_BGR if t.blank else NEW_TILE_BGR))
    for text, colour in parts:
        cv2.putText(board, text, (x, y), cv2.FONT_HERSHEY_SIMPLEX, 0.55, colour, 1, cv2.LINE_AA)
        x += cv2.getTextSize(text, cv2.FONT_HERSHEY_SIMPLEX, 0.55, 1)[0][0]


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

