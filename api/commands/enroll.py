"""tilecam enroll: adapt the tile reader to the tile set on the table; writes a tile set .npz.

Labelled:   tilecam enroll --images F1 F2 ... --truth truth.jsonl --out tileset.npz [--lang de]
Tile check: tilecam enroll --tile-check IMAGE --lang en --out tileset.npz
Empty board: tilecam enroll --empty-board IMAGE --out ref.npz   (for tilecam read --empty-ref)
(the tile check: every tile face up on the board, any arrangement; the language's
distribution says how many of each there are). Exit 3 when an image or its board cannot be
read, 2 on bad arguments.
"""
from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from api.commands.read import DEFAULT_MODEL, NO_BOARD, load_reader, locate


def add_arguments(p: argparse.ArgumentParser) -> None:
    src = p.add_mutually_exclusive_group(required=True)
    src.add_argument("--images", nargs="+", metavar="F", help="frames with known contents")
    src.add_argument("--tile-check", metavar="IMAGE", help="one frame of the pre-game tile check")
    src.add_argument("--empty-board", metavar="IMAGE",
                     help="one frame of the empty board: keeps each square's look for tilecam read --empty-ref")
    p.add_argument("--truth", metavar="FILE",
                   help="with --images: truth.jsonl, one {\"frame\": name, \"board\": [15 rows]} per line")
    p.add_argument("--out", required=True, metavar="FILE", help="where the tile set goes (.npz)")
    p.add_argument("--lang", default="en", help="tile set language: en, de, fr, es, pl")
    p.add_argument("--corners", metavar="x1,y1,...,x4,y4", help="grid corners TL,TR,BR,BL for every image")
    p.add_argument("--prewarped", action="store_true", help="images already show the board edge to edge")
    p.add_argument("--model", default=str(DEFAULT_MODEL), help="ONNX tile model; its card sits beside it")
    p.set_defaults(tileset=None, empty_ref=None)


def run(args: argparse.Namespace) -> int:
    import cv2

    from scoring.tiles import DISTRIBUTIONS
    from vision.enroll import EnrollError, enroll_labelled, enroll_tile_check, save_tileset
    from vision.errors import VisionError
    from vision.rectify import homography_from_corners, warp_board

    def fail(msg: str, code: int = NO_BOARD) -> int:
        print(f"tilecam enroll: {msg}", file=sys.stderr)
        return code

    if args.lang not in DISTRIBUTIONS:
        return fail(f"unknown --lang {args.lang!r}", 2)
    if args.images and not args.truth:
        return fail("--images needs --truth", 2)
    if args.empty_board:
        return run_empty_board(args, fail)
    reader, code = load_reader(args, fail)
    if reader is None:
        return code
    px = int(reader.card["square_px"])

    def warped(path: str):
        image = cv2.imread(path, cv2.IMREAD_COLOR)
        if image is None:
            raise EnrollError(f"cannot read image {path}")
        try:
            corners = locate(image, args)
        except ModuleNotFoundError:
            raise EnrollError("board detection (vision.locate) is not in this build: "
                              "pass --corners or --prewarped") from None
        return warp_board(image, homography_from_corners(corners, px), px)

    try:
        if args.tile_check:
            tileset, board = enroll_tile_check(reader, warped(args.tile_check), DISTRIBUTIONS[args.lang].counts)
            print("\n".join(board))
        else:
            truth = {}
            for line in Path(args.truth).read_text(encoding="utf-8").splitlines():
                if line.strip():
                    row = json.loads(line)
                    truth[row["frame"]] = row["board"]
            frames = []
            for f in args.images:
                if Path(f).name not in truth:
                    return fail(f"{args.truth} has no board for {Path(f).name}", 2)
                frames.append((warped(f), truth[Path(f).name]))
            tileset = enroll_labelled(reader, frames)
    except OSError as exc:
        return fail(str(exc), 2)
    except ValueError as exc:  # bad corners, bad truth, EnrollError
        return fail(str(exc), NO_BOARD if isinstance(exc, EnrollError) else 2)
    except VisionError as exc:
        return fail(f"no board found: {exc}")
    out = save_tileset(args.out, tileset)
    meta = tileset["meta"]
    print(f"tile set written to {out}: {meta['exemplars']} exemplars of {len(meta['classes'])} classes "
          f"from {meta['source']} in {meta['seconds']:.2f} s")
    return 0


def run_empty_board(args: argparse.Namespace, fail) -> int:
    """The empty-board reference: no model needed, only the grid."""
    import cv2

    from vision.errors import VisionError
    from vision.rectify import homography_from_corners, warp_board
    from vision.reference import CELL_PX, EmptyBoardRef

    image = cv2.imread(args.empty_board, cv2.IMREAD_COLOR)
    if image is None:
        return fail(f"cannot read image {args.empty_board}")
    try:
        corners = locate(image, args)
    except ModuleNotFoundError:
        return fail("board detection (vision.locate) is not in this build: pass --corners or --prewarped")
    except ValueError as exc:
        return fail(str(exc), 2)
    except VisionError as exc:
        return fail(f"no board found in {args.empty_board}: {exc}")
    px = 2 * CELL_PX
    warped = warp_board(image, homography_from_corners(corners, px), px)
    ref = EmptyBoardRef.from_frame(warped, source=Path(args.empty_board).name)
    try:
        out = ref.save(args.out)
    except OSError as exc:
        return fail(str(exc), 2)
    print(f"empty-board reference written to {out}: 225 squares from {Path(args.empty_board).name}")
    return 0
