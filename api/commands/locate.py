"""tilecam locate: find the board's 15x15 grid corners in one image.

Prints the 4 outer grid corners and the fit quality. The corners are in CAMERA order:
TL, TR, BR, BL as the camera sees the board (clockwise from the corner nearest the image's
top-left), not in game orientation. Which corner is row 1, column A depends on the letters
on the tiles; ``tilecam read`` gives the board in game orientation. ``--corners`` or ``--calibration`` skip detection (the manual fallback:
4 clicked corners). The detection is the station's (tilecam.vision.locate_board), tuned by the
[locate] section of --config FILE (the settings file `tilecam run` takes).
Exit 0 on success, 3 when no board is found, 2 on bad input: an image that cannot be read
(missing, not an image, cut short, over the pixel cap), a malformed --corners/--calibration, a
--debug path that cannot be written, a settings file that does not validate.
"""
from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

from tilecam.api.cli import unwritable
from tilecam.api.commands.read import load_settings_into, parse_corners

CAMERA_ORDER = ("corners are TL, TR, BR, BL as the CAMERA sees the board (clockwise from the corner "
                "nearest the image's top-left), not game orientation; `tilecam read` gives the board "
                "in game orientation")


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.description = f"{p.description or 'find the board grid corners in an image'}. The {CAMERA_ORDER}."
    p.add_argument("image", metavar="IMAGE", help="a camera frame (any format OpenCV reads)")
    p.add_argument("--json", action="store_true", help='print {"corners", "quality", "ms"} as JSON (corners in camera order)')
    p.add_argument("--debug", metavar="OUT.png", help="draw the 16x16 grid lines on the frame and save it here")
    p.add_argument("--corners", metavar="x1,y1,...,x4,y4", help="use these 4 grid corners instead of detecting")
    p.add_argument("--calibration", metavar="FILE", help='JSON file {"corners": [[x, y], ...4]} to use instead')
    p.add_argument("--config", metavar="FILE",
                   help="settings file (TOML or JSON, as tilecam run takes): its [locate] section tunes the detection")


def _read_calibration(path: str) -> list[list[float]]:
    try:
        data = json.loads(Path(path).read_text("utf-8"))
    except OSError as exc:
        raise ValueError(f"cannot read --calibration {path}: {exc.strerror}") from None
    except ValueError as exc:  # not UTF-8, not JSON
        raise ValueError(f"--calibration {path} is not a JSON file ({exc})") from None
    manual = data.get("corners") if isinstance(data, dict) else None
    if not (isinstance(manual, list) and len(manual) == 4 and all(
            isinstance(p, list) and len(p) == 2 and all(isinstance(v, (int, float)) for v in p) for p in manual)):
        raise ValueError(f'--calibration {path} needs {{"corners": 4 [x, y] pairs}}')
    return [[float(x), float(y)] for x, y in manual]


def run(args: argparse.Namespace) -> int:
    import cv2

    from tilecam.vision import BoardNotFound, draw_fix, locate_board
    from tilecam.capture.still import ImageError, read_image

    def fail(msg: str, code: int = 2) -> int:
        print(f"tilecam locate: {msg}", file=sys.stderr)
        return code

    if code := load_settings_into(args, fail):
        return code
    cfg = args.settings.locate
    manual = None
    try:
        if args.corners:
            manual = parse_corners(args.corners).tolist()
        elif args.calibration:
            manual = _read_calibration(args.calibration)
    except ValueError as exc:
        return fail(str(exc))
    if args.debug:  # before the work, not after it
        problem = unwritable(args.debug) or (None if cv2.haveImageWriter(args.debug)
                                             else "not an image type OpenCV writes (.png, .jpg)")
        if problem:
            return fail(f"--debug {args.debug}: {problem}")
    try:
        image = read_image(args.image)
    except ImageError as exc:
        return fail(str(exc))
    t0 = time.perf_counter()
    try:
        fix = locate_board(args.settings, image, manual)
    except BoardNotFound as exc:
        return fail(f"no board found in {args.image}: {exc}", 3)
    ms = (time.perf_counter() - t0) * 1000.0

    corners = [[round(float(x), 2), round(float(y), 2)] for x, y in fix.corners]
    if args.json:
        print(json.dumps({"corners": corners, "quality": round(fix.quality, 4), "ms": round(ms, 1)}))
    else:
        for name, (x, y) in zip(("first", "second", "third", "fourth"), corners):
            print(f"{name:6s} corner  x={x:9.2f}  y={y:9.2f}")
        print(f"quality {fix.quality:.3f}   ({ms:.1f} ms)")
    if args.debug:
        out = Path(args.debug)
        out.parent.mkdir(parents=True, exist_ok=True)
        if not cv2.imwrite(str(out), draw_fix(image, fix.corners, fix.homography, cfg.square_px)):
            return fail(f"cannot write --debug {out}")
        print(f"debug image written to {out}", file=sys.stderr if args.json else sys.stdout)
    return 0
