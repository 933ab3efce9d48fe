"""tilecam read: read every square of the board in one image and print the board.

Prints 15 lines of 15 characters ('.' empty, upper-case letter, '?' blank tile) in game
orientation: letters upright, row 1 at the top, column A at the left, as GCG coordinates read.
With --json one object {"board", "confidence", "corners", "orientation", "ms"}:
  orientation  clockwise degrees (0, 90, 180, 270) the board's print is turned in the image,
               i.e. in the grid as the camera sees it (corners ordered from the image's top
               left, clockwise); turning the camera's grid that many degrees counter-clockwise
               gives the game board. null when no tiles are read or their rotation votes have
               no clear majority; the board is then printed as the camera sees it.
  corners      the grid's outer corners in the photo in game order: A1's outer corner, then
               O1's, O15's and A15's (camera order when orientation is null).
Exit 3 when no board is found; 2 on bad arguments and bad files (an image that cannot be
read, is not an image, is cut short or over the pixel cap; a tile set that cannot be read;
a missing model).
"""
from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
DEFAULT_MODEL = REPO / "models" / "tiles.onnx"
NO_BOARD = 3
# self-enrollment is opt-in: on synthetic renders it did not help (docs/results/select_self_enroll.json)
SELF_ENROLL_DEFAULT = False


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("image", metavar="IMAGE", help="a photo of the board (or a pre-warped board)")
    p.add_argument("--lang", default="en", help="tile set language: en, de, fr, es, pl")
    p.add_argument("--tileset", metavar="FILE",
                   help="enrolled tile set, or an empty-board reference (either .npz from tilecam enroll)")
    p.add_argument("--empty-ref", metavar="FILE",
                   help="empty-board reference (.npz from tilecam enroll --empty-board): a square that "
                        "still looks as it did empty is read as empty, whatever is printed on it")
    p.add_argument("--self-enroll", action=argparse.BooleanOptionalAction, default=SELF_ENROLL_DEFAULT,
                   help="without --tileset: the board's confident tiles become exemplars for re-reading "
                        "its doubtful squares (vision.enroll.self_enroll)")
    p.add_argument("--corners", metavar="x1,y1,...,x4,y4",
                   help="the grid's outer corners TL,TR,BR,BL in pixels (skips board detection)")
    p.add_argument("--prewarped", action="store_true",
                   help="the image already shows the board from above, edge to edge (ScrabScrap warps)")
    p.add_argument("--model", default=str(DEFAULT_MODEL), help="ONNX tile model; its card sits beside it")
    p.add_argument("--json", action="store_true", help="print one JSON object")


def parse_corners(text: str):
    import numpy as np
    try:
        values = [float(v) for v in text.replace(";", ",").split(",") if v.strip()]
    except ValueError:
        raise ValueError(f"--corners {text!r}: not numbers") from None
    if len(values) != 8:
        raise ValueError(f"--corners needs 8 numbers (x,y of TL,TR,BR,BL), got {len(values)}")
    if not all(np.isfinite(values)):  # float() takes "nan" and "inf"
        raise ValueError(f"--corners {text!r}: every number must be finite")
    return np.array(values, np.float32).reshape(4, 2)


def locate(image, args):
    """Grid corners: given, fitted to a pre-warped image, or found by vision.locate."""
    from tilecam.vision.classify import prewarped_corners
    if args.corners:
        return parse_corners(args.corners)
    if args.prewarped:
        return prewarped_corners(image)
    from tilecam.vision.locate import LocateConfig, find_board
    return find_board(image, LocateConfig()).corners


def load_reader(args, fail):
    from tilecam.vision.classify import ReaderError, TileReader
    model = Path(args.model)
    card = model.with_suffix("").with_suffix(".card.json")
    if not model.is_file() or not card.is_file():
        return None, fail(f"no tile model at {model} (with {card.name} beside it)", 2)
    tileset, empty_ref = args.tileset, getattr(args, "empty_ref", None)
    try:
        if tileset and Path(tileset).is_file():
            from tilecam.vision.reference import is_reference
            if is_reference(tileset):  # `tilecam enroll --empty-board` wrote it: the table's empty look
                if empty_ref:
                    return None, fail("--tileset is an empty-board reference and so is --empty-ref: give one", 2)
                tileset, empty_ref = None, tileset
        return TileReader(model, card, tileset=tileset, lang=args.lang, empty_ref=empty_ref), 0
    except (ReaderError, ValueError) as exc:
        return None, fail(str(exc), 2)


def run(args: argparse.Namespace) -> int:
    import numpy as np

    from tilecam.capture.still import ImageError, read_image
    from tilecam.vision.classify import to_game
    from tilecam.vision.errors import VisionError
    from tilecam.vision.rectify import homography_from_corners, warp_board

    def fail(msg: str, code: int = NO_BOARD) -> int:
        print(f"tilecam read: {msg}", file=sys.stderr)
        return code

    try:
        image = read_image(args.image)
    except ImageError as exc:
        return fail(str(exc), 2)
    try:
        corners = np.asarray(locate(image, args), np.float32)
    except ValueError as exc:
        return fail(str(exc), 2)
    except ModuleNotFoundError:
        return fail("board detection (vision.locate) is not in this build: pass --corners or --prewarped")
    except VisionError as exc:
        return fail(f"no board found in {args.image}: {exc}")
    reader, code = load_reader(args, fail)
    if reader is None:
        return code
    px = int(reader.card["square_px"])
    warped = warp_board(image, homography_from_corners(corners, px), px)
    if args.self_enroll and reader.tileset is None:
        from tilecam.vision.enroll import self_enroll
        result, _ = self_enroll(reader, warped)
    else:
        result = reader.read(warped)
    game = to_game(result, corners, reader.cfg.min_orientation_share)
    if args.json:
        print(json.dumps({"board": game.board,
                          "confidence": np.round(game.snapshot.confidence(), 4).tolist(),
                          "corners": np.round(game.corners, 2).tolist(),
                          "orientation": game.orientation,
                          "ms": round(result.ms, 2)}, ensure_ascii=False))
    else:
        print("\n".join(game.board))
    return 0
