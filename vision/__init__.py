"""Vision's face: what callers outside vision use. Everything about pixels lives behind it; the
modules it names may move without breaking anyone (import from ``tilecam.vision``).

    open a reader   load_tile_reader(settings, lang)    the tile classifier (+ text recogniser)
                    build_reader(settings, lang)        the board reader the recorder calls
    locate a board  build_locator(settings, ...)        per frame: fixed, pre-warped or tracked
                    locate_board(settings, image)       in one still image (a BoardFix)
    read a still    still_corners, warp_still, read_still
    the tile set    read_tile_set(settings, source)     English or German, from frames over the whole game
    learn a table   enroll_labelled, enroll_tile_check, EmptyBoardRef, load_tileset, save_tileset
    read a rack     build_rack_reader(settings, lang, table=...) -> RackReader.read(image) -> RackView;
                    RackWatch(reader).feed(image, t) -> a settled RackView or None

``settings`` is any object with vision's sections (api.settings.Settings is one; see
vision/assemble.py). Names are loaded on first use, so ``import tilecam.vision.stability`` does not
pull in onnxruntime.
"""
from __future__ import annotations

from importlib import import_module

_FACE = {
    "DEFAULT_MODEL": "assemble", "build_locator": "assemble", "build_reader": "assemble",
    "build_rack_reader": "assemble", "RackConfig": "rack", "RackReader": "rack", "RackTile": "rack",
    "RackView": "rack", "RackWatch": "rack", "RackNotFound": "errors",
    "load_tile_reader": "assemble", "locate_board": "assemble", "reader_warnings": "assemble",
    "BoardNotFound": "errors", "SetupError": "errors", "VisionError": "errors",
    "Still": "still", "read_still": "still", "still_corners": "still", "warp_still": "still",
    "DETECT_CONF": "language", "read_tile_set": "language", "decide_set": "language",
    "enroll_labelled": "enroll", "enroll_tile_check": "enroll", "EmptyBoardRef": "reference",
    "load_tileset": "tileset", "save_tileset": "tileset",
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
