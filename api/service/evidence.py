"""A move's evidence photo rectified to the board (`/moves/{index}/frame.jpg?view=board`): the
frame warped by the grid corners the recorder kept, the move's new tiles outlined and listed under
the board with the letters the record has. The pixels are vision's (`tilecam.vision.board_evidence`);
what goes on the photo is the record's, read here; the route only serves the bytes (the web draws
nothing: tests/test_layers.py)."""
from __future__ import annotations

from pathlib import Path

from tilecam.scoring import Play
from tilecam.scoring.gcg import format_square

from ..errors import InvalidInput, NotFound
from ..store import FrameRow
from .view import GameView

__all__ = ["board_view", "board_view_text"]

# vision (and with it OpenCV) is imported when a photo is drawn or described, not with the service:
# a process that serves no page (a forwarder, a command) never loads it.


def board_view_text() -> str:
    """What the board view is, as the API's description says it."""
    from tilecam.vision import BOARD_PX, PHOTO_MARGIN_PX
    return (f"({BOARD_PX} px a square, {PHOTO_MARGIN_PX} px of photo round the grid so edge "
            "rows are whole, coordinates in a band outside it)")


def frame_bytes(frame: FrameRow, index: int) -> bytes:
    """The JPEG of move `index`'s evidence frame, kept in the store or at its path."""
    if frame.jpeg is not None:
        return frame.jpeg
    try:
        return Path(frame.path).read_bytes()
    except OSError:
        raise NotFound(f"the evidence frame of move {index + 1} was at {frame.path}, which is gone") from None


def board_view(game: GameView, index: int, frame: FrameRow) -> bytes:
    """Move `index`'s evidence frame warped to the board by the corners the recorder kept, the new
    tiles outlined and listed below with the letters the record has. InvalidInput when the frame
    has no corners or is no JPEG that decodes; NotFound when a frame kept by path is gone."""
    seq = game.event_seq(index)
    jpeg = frame_bytes(frame, index)
    side = next((e.sidecar for e in game.entries if e.seq == seq), None) or {}
    corners = side.get("corners")
    if not corners:
        raise InvalidInput(f"the evidence frame of move {index + 1} has no grid corners (not read by the "
                           f"recorder), so it cannot be rectified; the raw frame is at ?view=raw")
    ev = game.events[index]
    tiles = list(ev.placement.tiles) if isinstance(ev, Play) else []
    caption = [(f"move {index + 1}" + (": " if tiles else ": no new tiles"), "label")]
    for i, t in enumerate(tiles):  # each square with the letter the record has (a blank in lower case)
        label = t.letter.lower() if t.blank else t.letter
        caption.append((f"{format_square(t.square)} {label}" + (",  " if i < len(tiles) - 1 else ""),
                        "blank" if t.blank else "tile"))
    from tilecam.vision import board_evidence
    out = board_evidence(jpeg, corners, [(t.square.row, t.square.col, t.blank) for t in tiles], caption)
    if out is None:
        raise InvalidInput(f"the evidence frame of move {index + 1} is not a JPEG that decodes")
    return out
