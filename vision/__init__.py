"""Vision's face: what callers outside vision use. Everything about pixels lives behind it; the
modules it names may move without breaking anyone (import from ``tilecam.vision``).

    open a reader   load_tile_reader(settings, lang)    the tile classifier (+ text recogniser)
                    build_reader(settings, lang)        the board reader the recorder calls
    locate a board  build_locator(settings, ...)        per frame: fixed, pre-warped or tracked
                    locate_board(settings, image)       in one still image (a BoardFix)
    read a still    still_corners, warp_still, read_still
    the tile set    read_tile_set(settings, source)     English or German, from frames over the whole game
    learn a table   enroll_labelled, enroll_tile_check, self_enroll, EmptyBoardRef, CELL_PX, is_reference,
                    load_tileset, save_tileset, EnrollError
    the gate        StabilityGate(cfg).look/update (is the board clear and still), RepeatedPhoto
    draw            draw_grid (the preview), draw_fix (a located board), encode_jpeg,
                    board_evidence(jpeg, corners, new_tiles, caption) (a move's photo rectified to the
                    board, BOARD_PX a square, PHOTO_MARGIN_PX of photo round the grid)
    settings        ReadConfig, EnrollConfig, LocateConfig, ReaderConfig, StabilityConfig, TrackConfig,
                    RackConfig, SETTLE_S: each stage's section of the settings tree
    read a rack     build_rack_reader(settings, lang, table=...) -> RackReader.read(image) -> RackView;
                    RackWatch(reader, WatchConfig()).feed(image, t) -> a settled RackView or None

``settings`` is any object with vision's sections (api.settings.Settings is one; see
vision/assemble.py). Names are loaded on first use, so ``import tilecam.vision.stability`` does not
pull in onnxruntime.
"""
from __future__ import annotations

from importlib import import_module

_FACE = {
    "DEFAULT_MODEL": "assemble", "build_locator": "assemble", "build_reader": "assemble",
    "build_rack_reader": "assemble", "RackConfig": "rack", "RackReader": "rack", "RackTile": "rack",
    "RackView": "rack", "RackWatch": "rack", "WatchConfig": "rack", "RackNotFound": "errors",
    "load_tile_reader": "assemble", "locate_board": "assemble", "reader_warnings": "assemble",
    "BoardNotFound": "errors", "SetupError": "errors", "VisionError": "errors",
    "Still": "still", "read_still": "still", "still_corners": "still", "warp_still": "still",
    "DETECT_CONF": "language", "read_tile_set": "language", "decide_set": "language",
    "enroll_labelled": "enroll", "enroll_tile_check": "enroll", "EmptyBoardRef": "reference",
    "load_tileset": "tileset", "save_tileset": "tileset", "EnrollError": "tileset",
    "self_enroll": "enroll", "CELL_PX": "reference", "is_reference": "reference", "to_game": "classify",
    # each stage's settings section, which the settings tree (api/settings.py) is built from
    "ReadConfig": "classify", "EnrollConfig": "enroll", "LocateConfig": "locate", "ReaderConfig": "reader",
    "StabilityConfig": "stability", "TrackConfig": "track", "SETTLE_S": "rack",
    # the stability gate the recorder asks (is the board clear and still; the same photo twice?)
    "StabilityGate": "stability", "RepeatedPhoto": "stability",
    # drawing: the preview's grid, a located board, a move's evidence photo rectified to the board
    "draw_grid": "draw", "draw_fix": "draw", "encode_jpeg": "draw", "board_evidence": "draw",
    "BOARD_PX": "draw", "PHOTO_MARGIN_PX": "draw",
}

__all__ = sorted(_FACE)


def __getattr__(name: str):
    if name not in _FACE:
        raise AttributeError(f"module 'tilecam.vision' has no attribute {name!r}")
    value = getattr(import_module(f"tilecam.vision.{_FACE[name]}"), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_FACE))
