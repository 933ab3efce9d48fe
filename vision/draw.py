"""Drawing on frames, apart from computing: each function takes a frame and a result and returns a
new frame (the caller's image is never drawn on)."""
from __future__ import annotations

import cv2
import numpy as np

GRID_BGR = (0, 255, 0)
LETTER_BGR = (255, 0, 0)
BLANK_BGR = (0, 0, 255)     # a blank's letter (lower case in the board rows)
CORNER_BGR = (0, 255, 255)  # the grid corners, numbered

# A move's evidence photo, rectified (board_evidence): the route /moves/{index}/frame.jpg?view=board.
BOARD_PX = 48            # pixels per square of the rectified evidence photo (720 px for 15x15)
PHOTO_MARGIN_PX = 24     # photo kept round the grid: tiles lean, and an edge row's tops stand past the line
LABEL_PX = 24            # the band round that for the coordinates, so no label covers a tile
GRID_ORIGIN = PHOTO_MARGIN_PX + LABEL_PX  # where square A1's top-left corner lands, in x and in y
CAPTION_PX = 30          # a line under the board: the move's new tiles as the record has them
NEW_TILE_BGR = (0, 160, 255)
BAND_BGR = (40, 48, 32)
LABEL_BGR = (220, 235, 225)


def draw_grid(image: np.ndarray, homography: np.ndarray, square_px: int, rows: list[str] | None = None,
              quarter_turns: int = 0, thickness: int = 1) -> np.ndarray:
    """The frame with the grid of `homography` (image -> board of `square_px` squares) and the
    letters of `rows` (game orientation, '.' empty) drawn on it; `quarter_turns` turns the game's
    rows back to how the board lies in the image."""
    out = image.copy()
    inv = np.linalg.inv(homography)
    n = 15 * square_px
    ends = np.float32([[(0, i * square_px), (n, i * square_px), (i * square_px, 0), (i * square_px, n)]
                       for i in range(16)]).reshape(-1, 1, 2)
    ends = cv2.perspectiveTransform(ends, inv).reshape(-1, 2, 2).astype(np.int32)
    cv2.polylines(out, list(ends), False, GRID_BGR, thickness, cv2.LINE_AA)
    if not rows:
        return out
    grid = np.rot90(np.array([list(r) for r in rows]), k=-quarter_turns)  # back to image orientation
    rc = np.argwhere(grid != ".")
    if len(rc):
        centres = cv2.perspectiveTransform(((rc[:, ::-1] + 0.5) * square_px).astype(np.float32)[:, None], inv)
        for (r, c), (px, py) in zip(rc, centres[:, 0]):
            ch = grid[r, c]
            cv2.putText(out, ch.upper(), (int(px) - 6, int(py) + 6), cv2.FONT_HERSHEY_SIMPLEX, 0.6,
                        BLANK_BGR if ch.islower() else LETTER_BGR, 2, cv2.LINE_AA)
    return out


def draw_fix(image: np.ndarray, corners: np.ndarray, homography: np.ndarray, square_px: int) -> np.ndarray:
    """`tilecam locate --debug`: the grid lines, lines thick enough to see on a large photo, and
    the four corners numbered in the order they are reported."""
    thick = max(1, int(round(max(image.shape[:2]) / 600)))
    out = draw_grid(image, homography, square_px, thickness=thick)
    for i, (x, y) in enumerate(np.asarray(corners, np.float64)):
        cv2.circle(out, (int(round(x)), int(round(y))), 4 * thick, CORNER_BGR, -1, cv2.LINE_AA)
        cv2.putText(out, str(i), (int(x) + 6 * thick, int(y) - 6 * thick), cv2.FONT_HERSHEY_SIMPLEX,
                    0.6 * thick, CORNER_BGR, thick, cv2.LINE_AA)
    return out


def encode_jpeg(image: np.ndarray, quality: int = 85) -> bytes | None:
    """The frame as JPEG bytes (an evidence photo), or None when it cannot be encoded."""
    ok, buf = cv2.imencode(".jpg", image, [cv2.IMWRITE_JPEG_QUALITY, int(quality)])
    return buf.tobytes() if ok else None


def board_evidence(jpeg: bytes, corners, new_tiles, caption) -> bytes | None:
    """A move's evidence frame (JPEG) warped to the board by the grid `corners` the recorder kept
    (vision.rectify.warp_board_framed), some photo round the grid and the coordinates outside it;
    `new_tiles` ((row, col, blank) each, in game orientation) outlined, their rows and columns
    marked; `caption` ((text, kind) pieces, kind "label", "tile" or "blank") written under the
    board. JPEG bytes, or None when `jpeg` does not decode."""
    from .rectify import GRID, warp_board_framed
    image = cv2.imdecode(np.frombuffer(jpeg, np.uint8), cv2.IMREAD_COLOR)
    if image is None:
        return None
    board = warp_board_framed(image, corners, BOARD_PX, GRID_ORIGIN)
    _label_band(board, GRID, {c for _, c, _ in new_tiles}, {r for r, _, _ in new_tiles})
    for row, col, blank in new_tiles:
        x, y = GRID_ORIGIN + col * BOARD_PX, GRID_ORIGIN + row * BOARD_PX
        cv2.rectangle(board, (x + 1, y + 1), (x + BOARD_PX - 2, y + BOARD_PX - 2),
                      BLANK_BGR if blank else NEW_TILE_BGR, 3)
    board = np.vstack([board, np.full((CAPTION_PX, board.shape[1], 3), BAND_BGR, np.uint8)])
    _caption(board, caption)
    return encode_jpeg(board, 85)


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


def _caption(board: np.ndarray, parts) -> None:
    """Under the board, where no label covers the photo: the pieces of text one after another."""
    colours = {"label": LABEL_BGR, "tile": NEW_TILE_BGR, "blank": BLANK_BGR}
    y = board.shape[0] - CAPTION_PX // 2 + 5
    x = LABEL_PX
    for text, kind in parts:
        cv2.putText(board, text, (x, y), cv2.FONT_HERSHEY_SIMPLEX, 0.55, colours[kind], 1, cv2.LINE_AA)
        x += cv2.getTextSize(text, cv2.FONT_HERSHEY_SIMPLEX, 0.55, 1)[0][0]
