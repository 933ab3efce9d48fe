"""What a request may carry, and how a refusal reads.

Every bound the API enforces is here, so the schemas, the docs and the tests quote one number:
body sizes per route (a middleware stops reading past them), text lengths (the schemas'
`max_length`), and the evidence frame's size and pixel count (a real decode). A request that
breaks a bound, or any validation rule, is a 4xx with one `{"detail": "..."}` message.
"""
from __future__ import annotations

import re

from fastapi import FastAPI, HTTPException, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from tilecam.scoring import DISTRIBUTIONS, LAYOUTS

KiB, MiB = 1024, 1024 * 1024

# ---- request bodies, per route -------------------------------------------------------
JSON_BYTES = 64 * KiB       # every JSON body; the largest legal one, all emoji and \u-escaped, is 41 KiB
GCG_BYTES = 64 * KiB        # a GCG import; the largest of the 67 shared games is 2.9 KiB
GCG_TURNS = 200             # turn lines in an import; the longest shared game has 36. Each is replayed
                            # on the ones before, so the cost grows with the square (3,000 took 282 s)
FRAME_BYTES = 8 * MiB       # an evidence JPEG; a 12 MP Pi HQ camera frame at quality 95 is about 4 MiB
INGEST_BYTES = 1 * MiB      # a batch of forwarded log entries with their sidecars (a station sends under 256 KiB)
RACK_INGEST_BYTES = FRAME_BYTES * 4 // 3 + 64 * KiB  # a forwarded rack read with its evidence JPEG in base64
FRAME_PIXELS = 16_000_000  # decoded frames: above the Pi HQ camera's 12.3 MP and Camera Module 3's 11.9 MP

# (method, path) -> limit; anything else that carries a body gets JSON_BYTES.
BODY_LIMITS: tuple[tuple[str, re.Pattern[str], int], ...] = (
    ("PUT", re.compile(r"/api/games/[^/]+/moves/[^/]+/frame\.jpg"), FRAME_BYTES),
    ("POST", re.compile(r"/api/games/gcg"), GCG_BYTES),
    ("PUT", re.compile(r"/api/stations/[^/]+/games/[^/]+/frames/[^/]+"), FRAME_BYTES),
    ("POST", re.compile(r"/api/stations/[^/]+/games/[^/]+/entries"), INGEST_BYTES),
    ("POST", re.compile(r"/api/stations/[^/]+/games/[^/]+/racks"), RACK_INGEST_BYTES),
)

# ---- text fields and numbers -----------------------------------------------------------
# A play spans at most the longest board side (Super Scrabble's 21). In GCG notation a square is
# at most a bracketed multi-letter tile ("[L·L]", "[l·l]" for a blank), and each played-through run
# adds "(" and ")": at worst every other square starts one.
MAX_SIDE = max(layout.size for layout in LAYOUTS.values())
TILE_CHARS = max(len(t) for d in DISTRIBUTIONS.values() for t in d.letters)  # "L·L": 3
WORD_CHARS = MAX_SIDE * (TILE_CHARS + 2) + 2 * ((MAX_SIDE + 1) // 2)
RACK_CHARS = max(d.rack_size for d in DISTRIBUTIONS.values()) * (TILE_CHARS + 2)
POSITION_CHARS = 8          # "15O" or "O15", with room for stray spaces
NAME_CHARS = 80
NICK_CHARS = 40
NOTE_CHARS = 2000           # a note on a turn, also served back by /moves
REASON_CHARS = 500          # why a correction or an early end
CHOICE_CHARS = 32           # names of rules, tile sets, layouts
META_KEYS, META_KEY_CHARS, META_VALUE_CHARS = 16, 32, 200
MAX_TURNS = 500             # scoresheet rows: a real game has fewer than 40 per player
MAX_TURN_INDEX = 10_000     # ?turn= query; a turn beyond the record is a 404 anyway
MAX_PLAYER = 99             # player numbers; the service names the players a game has
MAX_TOTAL = 99_999          # a running total; the highest tournament score is under 1,700


def limit_for(method: str, path: str) -> int:
    for m, pattern, limit in BODY_LIMITS:
        if method == m and pattern.fullmatch(path):
            return limit
    return JSON_BYTES


def size_text(n: int) -> str:
    return f"{n // MiB} MiB" if n % MiB == 0 else f"{n // KiB} KiB" if n % KiB == 0 else f"{n} bytes"


class BodyLimit:
    """Reads a request body up to its route's limit before the app sees it; past the limit the
    answer is a 413 and the rest is never read (a declared Content-Length too large is refused
    unread). The app then gets the body in one piece."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope["method"] not in ("POST", "PUT", "PATCH"):
            await self.app(scope, receive, send)
            return
        limit = limit_for(scope["method"], scope["path"])
        declared = dict(scope["headers"]).get(b"content-length", b"")
        if declared.isdigit() and int(declared) > limit:
            await too_large(limit, scope, receive, send)
            return
        chunks, size = [], 0
        while True:
            message = await receive()
            if message["type"] == "http.disconnect":
                return  # the client left mid-upload: nobody to answer
            body = message.get("body", b"")
            size += len(body)
            if size > limit:
                await too_large(limit, scope, receive, send)
                return
            chunks.append(body)
            if not message.get("more_body", False):
                break
        whole: Message | None = {"type": "http.request", "body": b"".join(chunks), "more_body": False}

        async def replay() -> Message:
            nonlocal whole
            if whole is not None:
                message, whole = whole, None
                return message
            return await receive()  # after the body: only the disconnect, which streams wait for

        await self.app(scope, replay, send)


async def too_large(limit: int, scope: Scope, receive: Receive, send: Send) -> None:
    detail = f"the request body is larger than the {size_text(limit)} this route accepts"
    # Close the connection: the unread rest of the body must not be taken for the next request.
    await JSONResponse({"detail": detail}, status_code=413, headers={"Connection": "close"})(scope, receive, send)


# ---- validation errors: the documented shape ---------------------------------------------
def validation_message(exc: RequestValidationError, most: int = 5) -> str:
    """FastAPI's list of errors as one line: 'body.word: String should have at most 106 characters'."""
    parts = []
    for err in exc.errors()[:most]:
        if err.get("type") == "json_invalid":
            parts.append(f"the body is not valid JSON ({err.get('ctx', {}).get('error', 'decode error')})")
            continue
        where = ".".join(str(p) for p in err.get("loc", ()))
        parts.append(f"{where}: {err.get('msg', 'invalid')}" if where else str(err.get("msg", "invalid")))
    extra = len(exc.errors()) - most
    return "; ".join(parts) + (f"; and {extra} more" if extra > 0 else "")


async def validation_error(request: Request, exc: RequestValidationError) -> JSONResponse:
    return JSONResponse({"detail": validation_message(exc)}, status_code=422)


def install_limits(app: FastAPI) -> None:
    """The body-size middleware, and 422s in the `{"detail": str}` shape the schema documents."""
    app.add_middleware(BodyLimit)
    app.add_exception_handler(RequestValidationError, validation_error)


# ---- evidence frames ------------------------------------------------------------------------
def check_frame(data: bytes, max_pixels: int = FRAME_PIXELS) -> None:
    """A JPEG that really decodes, within the pixel cap; a 422 saying why not otherwise. The
    size is read from the header before anything is decoded (capture.still), so a small file
    declaring a huge image costs nothing."""
    from tilecam.capture.still import ImageError, decode_image, image_size  # OpenCV only when a frame comes

    try:
        fmt = image_size(data, "the frame")[2]
        if fmt != "JPEG":
            raise ImageError(f"the frame is a {fmt} image, not a JPEG")
        decode_image(data, "the frame", max_pixels)
    except ImageError as exc:
        raise HTTPException(422, str(exc)) from None
