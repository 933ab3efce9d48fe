"""The readers and locators assembled from settings: the one place that knows which model, tile
set, empty-board reference and recogniser a reader is built from, and which locator a source needs.

``settings`` is any object with vision's sections as attributes (api.settings.Settings is one):
``read`` (ReadConfig), ``reader`` (ReaderConfig), ``enroll`` (EnrollConfig), ``locate``
(LocateConfig), ``track`` (TrackConfig). Vision imports none of api: it reads the sections it owns.

    load_tile_reader(settings, lang)   the tile classifier (with the text recogniser when [read] says)
    build_reader(settings, lang)       the board reader the recorder calls (TableReader)
    build_rack_reader(settings, lang)  a rack camera's reader (RackReader), on the table's readers
    build_locator(settings, ...)       where the board is in each frame (fixed, pre-warped or tracked)
    locate_board(settings, image)      the grid in one still image (a BoardFix)
"""
from __future__ import annotations

import sys
from pathlib import Path

from tilecam.vision.errors import SetupError

__all__ = ["DEFAULT_MODEL", "build_locator", "build_rack_reader", "build_reader", "load_tile_reader", "locate_board",
           "model_path", "with_recogniser"]

DEFAULT_MODEL = Path(__file__).resolve().parents[1] / "models" / "tiles.onnx"  # read as a file, never imported


def model_path(settings, model: str | Path | None = None) -> Path:
    path = Path(model or settings.read.model_path or DEFAULT_MODEL)
    if not path.is_file():
        raise SetupError(f"no tile model at {path}")
    return path


def load_tile_reader(settings, lang: str, *, model: str | Path | None = None, tileset=None):
    """The tile classifier for a game's tile set (vision.classify.TileReader): model, enrolled tile
    set and empty-board reference from ``settings.read`` (or the model and tile set given: a path or
    a loaded tile set). What ``tilecam read``, ``enroll`` and the board reader are built on."""
    from tilecam.vision.classify import ReaderError, TileReader

    read = settings.read
    path = model_path(settings, model)
    card = path.with_suffix("").with_suffix(".card.json")
    if not card.is_file():
        raise SetupError(f"no model card {card.name} beside the tile model {path}")
    tileset = tileset if tileset is not None else read.tileset_path
    if isinstance(tileset, (str, Path)):
        from tilecam.vision.tileset import load_tileset
        try:
            tileset = load_tileset(tileset)
        except (OSError, ValueError) as exc:
            raise SetupError(f"cannot read tileset {tileset}: {exc}") from None
    try:
        reader = TileReader(path, card, tileset=tileset, lang=lang, cfg=read, empty_ref=read.empty_reference_path)
    except (ReaderError, OSError, ValueError) as exc:
        raise SetupError(f"cannot load the tile reader ({path}): {exc}") from None
    for text in reader_warnings(reader):
        _warn(f"warning: {text} ({path.name})")
    return with_recogniser(reader) if read.recogniser else reader


def reader_warnings(reader) -> list[str]:
    """What a reader runs on anyway but people must hear of, said at start, never a silent mask:
    the set's letters the tile model has no class for (`TileReader.unreadable`: every such tile on
    the table would be read as another). `reader`: a tile reader or a board reader built on one
    (``build_reader``'s); the station shows these on its console, the commands on stderr."""
    tiles = getattr(reader, "tile_reader", reader)
    missing = getattr(tiles, "unreadable", ())
    if not missing:
        return []
    return [f"the tile model has no class for {' '.join(missing)} of the {tiles.lang!r} set: those tiles are "
            "never read as themselves until a tile set teaches them (`tilecam enroll`, [read] tileset_path)"]


_RECOGNISERS: dict = {}   # one onnxruntime session per alphabet and thread count, shared by the readers
_WARNED: set = set()


def _warn(msg: str) -> None:
    """One line on stderr, once per process: a setup the reader runs on anyway."""
    if msg not in _WARNED:
        _WARNED.add(msg)
        print(msg, file=sys.stderr, flush=True)


def with_recogniser(reader):
    """The tile reader fused with the text recogniser of the rapidocr_onnxruntime wheel
    (vision.fuse.FusedTileReader, temperatures from vision/recognizer.card.json); the reader alone,
    with a one-line warning on stderr, when the wheel's model or the card is not found."""
    from tilecam.vision.fuse import CARD_PATH, FusedTileReader, load_calibration
    from tilecam.vision.recognizer import LetterRecognizer, RecognizerError

    shapes = reader.cfg.shape_rules
    key = (tuple(reader.classes), reader.cfg.threads, shapes)
    try:
        calibration = load_calibration(CARD_PATH)
        rec = _RECOGNISERS.get(key)
        if rec is None:
            from tilecam.scoring import DISTRIBUTIONS
            rec = _RECOGNISERS[key] = LetterRecognizer(DISTRIBUTIONS[reader.lang].letters, threads=reader.cfg.threads,
                                                       strokes=shapes)
    except (RecognizerError, OSError, ValueError, KeyError) as exc:
        _warn(f"warning: the text recogniser is off, the classifier reads alone ({exc})")
        return reader
    fused = FusedTileReader.around(reader, rec, calibration)
    fused.faces = shapes
    return fused


def build_reader(settings, lang: str, *, model: str | Path | None = None, tileset=None):
    """The board reader the recorder calls (vision.reader.BoardReader): the tile reader of
    ``load_tile_reader``, read in game orientation and calibrated to the table as settings.reader
    and settings.enroll say."""
    from tilecam.vision.reader import TableReader

    return TableReader(load_tile_reader(settings, lang, model=model, tileset=tileset), settings.reader,
                       settings.enroll)


def build_rack_reader(settings, lang: str, *, table=None, model: str | Path | None = None, tileset=None, cfg=None):
    """A rack camera's reader (vision.rack.RackReader). ``table``: the board's reader
    (``build_reader``'s TableReader, or a tile reader): the rack reads with its models, its tile set
    and its calibration as they are at each read, so what the tile check teaches the table reads the
    racks too. Without it, the tile reader of ``load_tile_reader``. ``cfg``: a vision.rack.RackConfig
    (default: ``settings.rack_read`` when the settings have one, else the defaults)."""
    from tilecam.vision.rack import RackReader

    source = table if table is not None else load_tile_reader(settings, lang, model=model, tileset=tileset)
    return RackReader(source, cfg if cfg is not None else getattr(settings, "rack_read", None))


def build_locator(settings, *, photos: bool = False, corners=None, prewarped: bool = False):
    """Where the board is in each frame (vision.locator.BoardLocator): given corners (a fixed
    camera), pre-warped frames, or the tracker (``settings.locate``; the re-detection policy and its
    thresholds in ``settings.track``), each warping to ``settings.reader.square_px``."""
    from tilecam.vision.locator import FixedBoard, PrewarpedBoard, TrackedBoard
    from tilecam.vision.track import BoardTracker

    square_px = settings.reader.square_px
    if corners is not None:
        return FixedBoard(corners, square_px)
    if prewarped:
        return PrewarpedBoard(square_px)
    track = settings.track
    if photos:  # photos (one per move) are each a new scene: re-detect at once; video waits for arms to leave
        track = track.model_copy(update={"wait_until_still": False})
    return TrackedBoard(BoardTracker(settings.locate, track), square_px)


def locate_board(settings, image, corners=None):
    """The grid in one still image (a vision.locate BoardFix), as ``tilecam locate``, ``read`` and
    ``enroll`` find it: the corners given (any order; ordered clockwise from the one nearest the
    image's top left, quality 1) or found by vision.locate with ``settings.locate``. Raises
    vision.errors.BoardNotFound."""
    from tilecam.vision.locate import find_board, fix_from_corners

    if corners is not None:
        return fix_from_corners(corners, settings.locate)
    return find_board(image, settings.locate)
