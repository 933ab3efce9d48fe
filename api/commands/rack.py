"""tilecam rack: read a player's rack in one rack camera image, or in several photos of it.

Prints the tiles left to right as the camera sees them on one line ('?' a blank, '.' a slot a
hand hides), then one line per tile with its certainty (the probability of its reading) and its box
in the image. One photo never makes a tile sure (at most 0.85): on a tile look the readers never saw
both can name the same wrong letter. Several photos of the rack (IMAGE IMAGE ..., in order, the
camera still) are read together as the station's rack camera reads its frames (vision.RackWatch): a
tile is sure when three or more photos read it alike and none otherwise; where the rack moved, the
photos from there on are read together; a photo with no rack is said on stderr and not counted.
With --json one object {"tiles": "AEIN?ST", "empty": false, "certainty": [...], "tokens": [...],
"boxes": [[x, y, w, h], ...], "ms", "photos"}: an unseen slot is '.' in "tiles" and null in
"certainty"; "photos" how many photos the reading stands on. An empty rack (found, no tiles on it: the end of a game) is a rack, not an error: exit 0,
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

    p.add_argument("image", metavar="IMAGE", nargs="+",
                   help="a photo from a rack camera; several: photos of one rack in order, read together")
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
    images = []
    for path in args.image:
        try:
            images.append(read_image(path))
        except ImageError as exc:
            return fail(str(exc), 2)
    reader, code = load_reader(args, fail)
    if reader is None:
        return code
    for path, image in zip(args.image, images):
        try:   # tiles on a board lie in rows too: a frame the board's grid fills is no rack
            fix = locate_board(args.settings, image)
        except BoardNotFound:
            continue
        return fail(f"{path}: no rack found: the image shows a board (grid quality {fix.quality:.2f}); "
                    "`tilecam read` reads a board")
    rack_reader = RackReader(reader, getattr(args.settings, "rack_read", None))
    if len(images) == 1:
        try:
            view = rack_reader.read_found(images[0])
        except RackNotFound as exc:
            return fail(f"{args.image[0]}: {exc}")
        photos = 1
    else:
        view, photos = watched(rack_reader, args.image, images)
        if view is None:
            return fail(f"{args.image[-1]}: no rack found in the last photo (the photos are read in order: the "
                        "reading is the last photos')")
    text = "".join("." if t.letter is None else t.letter for t in view.tiles)
    if args.json:
        print(json.dumps({"tiles": text, "empty": view.empty,
                          "certainty": [None if t.letter is None else t.certainty for t in view.tiles],
                          "tokens": [t.letter for t in view.tiles],
                          "boxes": [list(t.box) for t in view.tiles],
                          "ms": round(view.ms, 2), "photos": photos}, ensure_ascii=False))
        return 0
    print(text)
    if len(images) > 1:
        print(f"read together from {photos} of {len(images)} photos")
    if view.empty:
        print("empty rack: no tiles")
    for i, t in enumerate(view.tiles, 1):
        name = "unseen" if t.letter is None else "blank" if t.letter == "?" else t.letter
        certainty = "   -  " if t.letter is None else f"{t.certainty:.3f}"
        print(f"{i}  {name:6s} {certainty}  at x={t.box[0]} y={t.box[1]} w={t.box[2]} h={t.box[3]}")
    return 0


def watched(reader, paths: list[str], images: list) -> tuple[object | None, int]:
    """Photos of one rack read together as a rack camera's frames (vision.RackWatch, a second apart,
    each one read and settling): (the last view, how many photos it stands on: those since the rack
    last moved or a photo showed none), or (None, 0) when no photo showed a rack. A photo with no
    rack is said on stderr."""
    from tilecam.vision import RackWatch, WatchConfig
    watch = RackWatch(reader, WatchConfig(settle_s=0.0, reread_s=0.0))
    for i, (path, image) in enumerate(zip(paths, images)):
        watch.feed(image, float(i))
        if not watch.frames:
            print(f"tilecam rack: {path}: no rack found; the photos after it are read anew", file=sys.stderr)
    return (watch.last, watch.frames) if watch.last is not None and watch.frames else (None, 0)
