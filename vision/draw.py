"""Drawing on frames, apart from computing: each function takes a frame and a result and returns a
new frame (the caller's image is never drawn on)."""
from __future__ import annotations

import cv2
import numpy as np

GRID_BGR = (0, 255, 0)
LETTER_BGR = (255, 0, 0)
BLANK_BGR = (0, 0, 255)     # a blank's letter (lower case in the board rows)
CORNER_BGR = (0, 255, 255)  # the grid corners, numbered


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
