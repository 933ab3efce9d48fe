"""tilecam enroll: adapt the tile reader to the tile set on the table; writes a tile set .npz.

Labelled:   tilecam enroll --images F1 F2 ... --truth truth.jsonl --out tileset.npz [--lang de]
Tile check: tilecam enroll --tile-check IMAGE --lang en --out tileset.npz
Empty board: tilecam enroll --empty-board IMAGE --out ref.npz   (for tilecam read --empty-ref)
(the tile check: every tile face up on the board, any arrangement; the language's
distribution says how many of each there are).
Settings (--config FILE, the file `tilecam run` takes): [enroll] (exemplars kept per class, the
tile check's rounds ...), [read] (the model and the reader's tuning; not the tile set or the
empty-board reference it names: enrolment starts from the network alone), [locate] (the board
detection); --model overrides read.model_path. The reader and the detection are vision's
(tilecam.vision), as the station's.
Exit 3 when no board is found in an image; 2 on bad arguments and bad files (an image that cannot be read, a truth line that is not
{"frame": name, "board": [15 rows]}, an --out that cannot be written, a settings file that
does not validate), checked before the model loads.
"""
from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from tilecam.api.cli import unwritable
from tilecam.api.commands.read import NO_BOARD, load_reader, load_settings_into, locate


def add_arguments(p: argparse.ArgumentParser) -> None:
    from tilecam.scoring import DISTRIBUTIONS

    src = p.add_mutually_exclusive_group(required=True)
    src.add_argument("--images", nargs="+", metavar="F", help="frames with known contents")
    src.add_argument("--tile-check", metavar="IMAGE", help="one frame of the pre-game tile check")
    src.add_argument("--empty-board", metavar="IMAGE",
                     help="one frame of the empty board: keeps each square's look for tilecam read --empty-ref")
    p.add_argument("--truth", metavar="FILE",
                   help="with --images: truth.jsonl, one {\"frame\": name, \"board\": [15 rows]} per line")
    p.add_argument("--out", required=True, metavar="FILE", help="where the tile set goes (.npz)")
    p.add_argument("--lang", default="en", help=f"tile set language: {', '.join(DISTRIBUTIONS)}")
    p.add_argument("--corners", metavar="x1,y1,...,x4,y4", help="grid corners TL,TR,BR,BL for every image")
    p.add_argument("--prewarped", action="store_true", help="images already show the board edge to edge")
    p.add_argument("--model", help="ONNX tile model; its card sits beside it (default: the settings' "
                                   "read.model_path, else models/tiles.onnx)")
    p.add_argument("--config", metavar="FILE",
                   help="settings file (TOML or JSON, as tilecam run takes): [enroll], [read], [locate]")
    p.set_defaults(tileset=None, empty_ref=None)


def read_truth(path: str) -> dict[str, list[str]]:
    """truth.jsonl as {frame name: board}; ValueError naming the file and line of a bad one."""
    try:
        lines = Path(path).read_text(encoding="utf-8").splitlines()
    except OSError as exc:
        raise ValueError(f"cannot read --truth {path}: {exc.strerror}") from None
    except UnicodeDecodeError:
        raise ValueError(f"--truth {path} is not UTF-8 text") from None
    truth = {}
    for n, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        try:
            row = json.loads(line)
        except ValueError as exc:
            raise ValueError(f"{path} line {n}: not JSON ({exc})") from None
        if not isinstance(row, dict) or not isinstance(row.get("frame"), str) or "board" not in row:
            raise ValueError(f'{path} line {n}: expected {{"frame": name, "board": [15 rows]}}')
        board = row["board"]
        if not isinstance(board, list) or len(board) != 15 or \
                not all(isinstance(r, str) and len(r) == 15 for r in board):
            raise ValueError(f"{path} line {n}: the board is not 15 rows of 15 characters")
        truth[row["frame"]] = board
    if not truth:
        raise ValueError(f"{path}: no truth lines")
    return truth


def run(args: argparse.Namespace) -> int:
    from tilecam.capture.still import ImageError, read_image
    from tilecam.scoring import DISTRIBUTIONS
    from tilecam.vision import EnrollError, VisionError, enroll_labelled, enroll_tile_check, save_tileset, warp_still

    def fail(msg: str, code: int = NO_BOARD) -> int:
        print(f"tilecam enroll: {msg}", file=sys.stderr)
        return code

    if code := load_settings_into(args, fail, read={"model_path": args.model}):
        return code
    # enrolment starts from the network alone: not from the tile set or reference the settings name
    read = args.settings.read.model_copy(update={"tileset_path": None, "empty_reference_path": None})
    args.settings = args.settings.model_copy(update={"read": read})
    if args.lang not in DISTRIBUTIONS:
        return fail(f"unknown --lang {args.lang!r}", 2)
    if args.images and not args.truth:
        return fail("--images needs --truth", 2)
    if problem := unwritable(args.out):  # before any work, not after it
        return fail(f"--out {args.out}: {problem}", 2)
    if args.empty_board:
        return run_empty_board(args, fail)
    truth = {}
    if args.images:
        try:
            truth = read_truth(args.truth)
        except ValueError as exc:
            return fail(str(exc), 2)
        missing = [Path(f).name for f in args.images if Path(f).name not in truth]
        if missing:
            return fail(f"{args.truth} has no board for {', '.join(missing)}", 2)
    for f in args.images or [args.tile_check]:  # a mistyped name is found before the model loads
        if not Path(f).is_file():
            return fail(f"cannot read image {f}: {'a folder' if Path(f).is_dir() else 'no such file'}", 2)
    reader, code = load_reader(args, fail)
    if reader is None:
        return code
    px = int(reader.card["square_px"])

    def warped(path: str):
        image = read_image(path)  # one at a time: a dozen 12 MP photos held at once is 0.4 GB
        try:
            corners = locate(image, args)
        except ModuleNotFoundError:
            raise EnrollError("board detection (vision.locate) is not in this build: "
                              "pass --corners or --prewarped") from None
        except VisionError as exc:
            if isinstance(exc, ValueError):
                raise
            raise VisionError(f"{path}: {exc}") from None
        return warp_still(image, corners, px).warped

    try:
        if args.tile_check:
            tileset, board = enroll_tile_check(reader, warped(args.tile_check), DISTRIBUTIONS[args.lang].counts,
                                               args.settings.enroll)
            print("\n".join(board))
        else:
            frames = [(warped(f), truth[Path(f).name]) for f in args.images]
            tileset = enroll_labelled(reader, frames, args.settings.enroll)
    except ImageError as exc:
        return fail(str(exc), 2)
    except ValueError as exc:  # bad corners, bad truth, EnrollError
        return fail(str(exc), NO_BOARD if isinstance(exc, EnrollError) else 2)
    except VisionError as exc:
        return fail(f"no board found in {exc}")
    try:
        out = save_tileset(args.out, tileset)
    except OSError as exc:
        return fail(f"cannot write --out {args.out}: {exc.strerror}", 2)
    meta = tileset["meta"]
    print(f"tile set written to {out}: {meta['exemplars']} exemplars of {len(meta['classes'])} classes "
          f"from {meta['source']} in {meta['seconds']:.2f} s")
    return 0


def run_empty_board(args: argparse.Namespace, fail) -> int:
    """The empty-board reference: no model needed, only the grid."""
    from tilecam.capture.still import ImageError, read_image
    from tilecam.vision import CELL_PX, EmptyBoardRef, VisionError, warp_still

    try:
        image = read_image(args.empty_board)
    except ImageError as exc:
        return fail(str(exc), 2)
    try:
        corners = locate(image, args)
    except ModuleNotFoundError:
        return fail("board detection (vision.locate) is not in this build: pass --corners or --prewarped")
    except ValueError as exc:
        return fail(str(exc), 2)
    except VisionError as exc:
        return fail(f"no board found in {args.empty_board}: {exc}")
    warped = warp_still(image, corners, 2 * CELL_PX).warped
    ref = EmptyBoardRef.from_frame(warped, source=Path(args.empty_board).name)
    try:
        out = ref.save(args.out)
    except OSError as exc:
        return fail(f"cannot write --out {args.out}: {exc.strerror}", 2)
    print(f"empty-board reference written to {out}: 225 squares from {Path(args.empty_board).name}")
    return 0
