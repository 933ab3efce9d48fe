"""tilecam read: read every square of the board in one image and print the board.

Prints the board in game orientation (letters upright, row 1 at the top, column A at the left, as
GCG coordinates read), with column letters A-O on top and row numbers 1-15 at the left: '.' empty,
an upper-case letter, '?' a blank tile; a '~' after a square marks a doubtful read (its best
reading under --doubt probability), and the lines under the board list those squares with their
runner-up. --plain prints only the 15 lines of 15 characters (for scripts).
With --json one object {"board", "confidence", "doubtful", "corners", "orientation", "ms"}:
  doubtful     the doubtful squares, [{"square": "H8", "read", "p", "else", "p_else"}, ...]
  orientation  clockwise degrees (0, 90, 180, 270) the board's print is turned in the image,
               i.e. in the grid as the camera sees it (corners ordered from the image's top
               left, clockwise); turning the camera's grid that many degrees counter-clockwise
               gives the game board. null when no tiles are read or their rotation votes have
               no clear majority; the board is then printed as the camera sees it.
  corners      the grid's outer corners in the photo in game order: A1's outer corner, then
               O1's, O15's and A15's (camera order when orientation is null).
Settings (--config FILE, the file `tilecam run` takes): [read] names the model, the tile set and the
empty-board reference and tunes the reader (orientation share, count caps, lone tiles ...),
[locate] the board detection, [enroll] --self-enroll's exemplars; --model, --tileset and --empty-ref
override their keys. The reader and the detection are vision's (tilecam.vision), as the station's.
Exit 3 when no board is found; 2 on bad arguments and bad files (an image that cannot be
read, is not an image, is cut short or over the pixel cap; a tile set that cannot be read;
a missing model; a settings file that does not validate).
"""
from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

NO_BOARD = 3
# Below this the best reading is marked doubtful (the reader's bar for a confident exemplar is 0.95,
# vision.enroll; at 0.9 a right German board shows a dozen doubtful empty squares, at 0.8 a few).
DOUBT_DEFAULT = 0.8
COLUMNS = "ABCDEFGHIJKLMNOPQRSTU"  # A-O on the 15x15 board (a Super board goes on to U)
# self-enrollment is opt-in: on synthetic renders it did not help (docs/results/select_self_enroll.json)
SELF_ENROLL_DEFAULT = False


def add_arguments(p: argparse.ArgumentParser) -> None:
    from tilecam.scoring import DISTRIBUTIONS

    p.add_argument("image", metavar="IMAGE", help="a photo of the board (or a pre-warped board)")
    p.add_argument("--lang", default="en", help=f"tile set language: {', '.join(DISTRIBUTIONS)}")
    p.add_argument("--config", metavar="FILE",
                   help="settings file (TOML or JSON, as tilecam run takes): [read], [locate], [enroll]")
    p.add_argument("--tileset", metavar="FILE",
                   help="enrolled tile set, or an empty-board reference (either .npz from tilecam enroll); "
                        "default: the settings' read.tileset_path")
    p.add_argument("--empty-ref", metavar="FILE",
                   help="empty-board reference (.npz from tilecam enroll --empty-board): a square that "
                        "still looks as it did empty is read as empty, whatever is printed on it; "
                        "default: the settings' read.empty_reference_path")
    p.add_argument("--self-enroll", action=argparse.BooleanOptionalAction, default=SELF_ENROLL_DEFAULT,
                   help="without --tileset: the board's confident tiles become exemplars for re-reading "
                        "its doubtful squares (vision.enroll.self_enroll)")
    p.add_argument("--corners", metavar="x1,y1,...,x4,y4",
                   help="the grid's outer corners TL,TR,BR,BL in pixels (skips board detection)")
    p.add_argument("--prewarped", action="store_true",
                   help="the image already shows the board from above, edge to edge (ScrabScrap warps)")
    p.add_argument("--model", help="ONNX tile model; its card sits beside it (default: the settings' "
                                   "read.model_path, else models/tiles.onnx)")
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.add_argument("--plain", action="store_true",
                   help="print only the bare grid, 15 lines of 15 characters (no coordinates, marks or legend)")
    p.add_argument("--doubt", type=float, default=DOUBT_DEFAULT, metavar="P",
                   help=f"mark a square doubtful when its best reading has less than this probability "
                        f"(default {DOUBT_DEFAULT})")


def doubtful_squares(snapshot, doubt: float) -> list[dict]:
    """The squares whose best reading is under `doubt`, with the runner-up, row by row."""
    import numpy as np
    order = np.argsort(-snapshot.probs, axis=2)
    out = []
    for r, c in zip(*np.nonzero(snapshot.confidence() < doubt)):
        first, second = order[r, c, 0], order[r, c, 1]
        # floored, so that a square under the bar never prints as the bar itself (0.899 -> 0.89)
        out.append({"square": f"{COLUMNS[c]}{r + 1}", "read": snapshot.classes[first],
                    "p": np.floor(float(snapshot.probs[r, c, first]) * 1000) / 1000,
                    "else": snapshot.classes[second],
                    "p_else": np.floor(float(snapshot.probs[r, c, second]) * 1000) / 1000})
    return out


def board_text(board: list[str], doubtful: list[dict], doubt: float, oriented: bool) -> str:
    """The board as a board is written: column letters on top, row numbers at the left, '~' after
    a doubtful square; then a legend and the doubtful squares."""
    marked = {d["square"] for d in doubtful}
    lines = ["    " + " ".join(COLUMNS[: len(board[0])])]
    for r, row in enumerate(board):
        cells = "".join(ch + ("~" if f"{COLUMNS[c]}{r + 1}" in marked else " ") for c, ch in enumerate(row))
        lines.append(f"{r + 1:>2}  {cells.rstrip()}")
    name = lambda cls: "blank" if cls == "?" else "empty" if cls == "." else cls  # noqa: E731
    lines.append(f". empty, ? blank tile, ~ doubtful (best reading under {doubt:.0%}): "
                 f"{len(doubtful)} square{'' if len(doubtful) == 1 else 's'}")
    if doubtful:
        lines.append("doubtful: " + ", ".join(f"{d['square']} {name(d['read'])} {d['p']:.3f} "
                                              f"(else {name(d['else'])} {d['p_else']:.3f})" for d in doubtful))
    if not oriented:
        lines.append("orientation unknown (no clear majority of upright tiles): shown as the camera sees it")
    return "\n".join(lines)


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


def load_settings_into(args, fail, **overrides) -> int:
    """``args.settings``: the --config file (or the defaults) with `overrides` (this command's flags,
    None: not given) on top; 0, or fail's exit code when the file does not validate."""
    from tilecam.api.settings import SettingsError, load_settings
    try:
        args.settings = load_settings(getattr(args, "config", None), **overrides)
    except SettingsError as exc:
        return fail(str(exc), 2)
    return 0


def locate(image, args):
    """Grid corners: given (--corners), fitted to a pre-warped image, or found by vision.locate with
    the settings' [locate] (``args.settings``; the defaults without it): vision.still_corners."""
    from tilecam.vision import still_corners
    settings = getattr(args, "settings", None)
    if settings is None:
        from tilecam.api.settings import Settings
        settings = Settings()
    given = parse_corners(args.corners) if args.corners else None
    return still_corners(settings, image, corners=given, prewarped=args.prewarped)


def load_reader(args, fail):
    """The tile reader of ``args.settings`` (``vision.load_tile_reader``: [read]'s model, tile
    set, empty-board reference and tuning, the flags already on top) for ``args.lang``; (reader, 0)
    or (None, fail's exit code)."""
    from tilecam.vision import EnrollError, SetupError, load_tile_reader, load_tileset

    settings = args.settings
    tileset, empty_ref = settings.read.tileset_path, settings.read.empty_reference_path
    if tileset and Path(tileset).is_file():
        from tilecam.vision import is_reference
        if is_reference(tileset):  # `tilecam enroll --empty-board` wrote it: the table's empty look
            flag = bool(getattr(args, "tileset", None))  # from the command line, else from the settings
            if empty_ref and bool(getattr(args, "empty_ref", None)) == flag:
                names = ("--tileset", "--empty-ref") if flag else ("read.tileset_path", "read.empty_reference_path")
                return None, fail(f"{names[0]} is an empty-board reference and so is {names[1]}: give one", 2)
            # the flag overrides the settings' key
            tileset, empty_ref = None, empty_ref if getattr(args, "empty_ref", None) else tileset
    try:  # loaded here, so that a bad file is named as the tile set it is
        loaded = load_tileset(tileset) if tileset else None
    except EnrollError as exc:
        return None, fail(str(exc), 2)
    read = settings.read.model_copy(update={"tileset_path": None, "empty_reference_path": empty_ref})
    try:
        return load_tile_reader(settings.model_copy(update={"read": read}), args.lang, tileset=loaded), 0
    except SetupError as exc:
        return None, fail(str(exc), 2)


def run(args: argparse.Namespace) -> int:
    import numpy as np

    from tilecam.capture.still import ImageError, read_image
    from tilecam.vision import VisionError, read_still, to_game, warp_still

    def fail(msg: str, code: int = NO_BOARD) -> int:
        print(f"tilecam read: {msg}", file=sys.stderr)
        return code

    code = load_settings_into(args, fail, read={"model_path": args.model, "tileset_path": args.tileset,
                                                "empty_reference_path": args.empty_ref})
    if code:
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
    still = warp_still(image, corners, int(reader.card["square_px"]))
    if args.self_enroll and reader.tileset is None:
        from tilecam.vision import self_enroll
        result, _ = self_enroll(reader, still.warped, enroll_cfg=args.settings.enroll)
    else:
        result = read_still(reader, still)  # a fused reader cuts its letters from the frame
    game = to_game(result, corners, reader.cfg.min_orientation_share)
    if not 0.0 < args.doubt <= 1.0:
        return fail(f"--doubt {args.doubt:g}: a probability above 0 and at most 1", 2)
    doubtful = doubtful_squares(game.snapshot, args.doubt)
    if args.json:
        print(json.dumps({"board": game.board,
                          "confidence": np.round(game.snapshot.confidence(), 4).tolist(),
                          "doubtful": doubtful,
                          "corners": np.round(game.corners, 2).tolist(),
                          "orientation": game.orientation,
                          "ms": round(result.ms, 2)}, ensure_ascii=False))
    elif args.plain:
        print("\n".join(game.board))
    else:
        print(board_text(game.board, doubtful, args.doubt, game.orientation is not None))
    return 0
