"""tilecam rack: read a player's rack in one rack camera image.

Prints the tiles left to right as the camera sees them on one line ('?' a blank, '.' a slot a
hand hides), then one line per tile with its certainty (the probability of its reading, at most
0.85: one photo never makes a tile sure, since on a tile look the readers never saw both can name
the same wrong letter; a rack camera's frames agreeing do, in `tilecam run`) and its box in the image. With --json one object {"tiles": "AEIN?ST", "empty": false, "certainty": [...],
"tokens": [...], "boxes": [[x, y, w, h], ...], "ms"}: an unseen slot is '.' in "tiles" and null in
"certainty". An empty rack (found, no tiles on it: the end of a game) is a rack, not an error: exit 0,
an empty first line then "empty rack: no tiles", or "tiles": "" and "empty": true.
Settings (--config FILE, the file `tilecam run` takes): [read] names the model and the tile set (an
enrolled set reads the racks too); --model and --tileset override their keys. The reader is
vision's (tilecam.vision.build_rack_reader), as the station's.
Exit 3 when no rack is found (a photo of the board is not a rack: tiles on the board would read as
a row of them); 2 on bad arguments and bad files.
"""
from __future__ import annotations

import argparse
import json
import sys

NO_RACK = 3


def add_arguments(p: argparse.ArgumentParser) -> None:
    from tilecam.scoring import DISTRIBUTIONS

    p.add_argument("image", metavar="IMAGE", help="a photo from a rack camera")
    p.add_argument("--lang", default="en", help=f"tile set language: {', '.join(DISTRIBUTIONS)}")
    p.add_argument("--config", metavar="FILE", help="settings file (TOML or JSON, as tilecam run takes): [read]")
    p.add_argument("--tileset", metavar="FILE",
                   help="enrolled tile set (.npz from tilecam enroll); default: the settings' read.tileset_path")
    p.add_argument("--model", help="ONNX tile model; its card sits beside it (default: the settings' "
                                   "read.model_path, else models/tiles.onnx)")
    p.add_argument("--json", action="store_true", help="print one JSON object")


def run(args: argparse.Namespace) -> int:
    from tilecam.api.commands.read import load_reader, load_settings_into
    from tilecam.capture.still import ImageError, read_image
    from tilecam.vision import BoardNotFound, RackNotFound, RackReader, locate_board

    def fail(msg: str, code: int = NO_RACK) -> int:
        print(f"tilecam rack: {msg}", file=sys.stderr)
        return code

    args.empty_ref = None
    code = load_settings_into(args, fail, read={"model_path": args.model, "tileset_path": args.tileset})
    if code:
        return code
    try:
        image = read_image(args.image)
    except ImageError as exc:
        return fail(str(exc), 2)
    reader, code = load_reader(args, fail)
    if reader is None:
        return code
    try:
        view = RackReader(reader, getattr(args.settings, "rack_read", None)).read_found(image)
    except RackNotFound as exc:
        return fail(f"{args.image}: {exc}")
    try:   # tiles on a board lie in rows too: a frame the board's grid fills is no rack
        fix = locate_board(args.settings, image)
    except BoardNotFound:
        pass
    else:
        return fail(f"{args.image}: no rack found: the image shows a board (grid quality {fix.quality:.2f}); "
                    "`tilecam read` reads a board")
    text = "".join("." if t.letter is None else t.letter for t in view.tiles)
    if args.json:
        print(json.dumps({"tiles": text, "empty": view.empty,
                          "certainty": [None if t.letter is None else t.certainty for t in view.tiles],
                          "tokens": [t.letter for t in view.tiles],
                          "boxes": [list(t.box) for t in view.tiles],
                          "ms": round(view.ms, 2)}, ensure_ascii=False))
        return 0
    print(text)
    if view.empty:
        print("empty rack: no tiles")
    for i, t in enumerate(view.tiles, 1):
        name = "unseen" if t.letter is None else "blank" if t.letter == "?" else t.letter
        certainty = "   -  " if t.letter is None else f"{t.certainty:.3f}"
        print(f"{i}  {name:6s} {certainty}  at x={t.box[0]} y={t.box[1]} w={t.box[2]} h={t.box[3]}")
    return 0
