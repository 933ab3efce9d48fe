"""Which tile set a recording is played with, decided from the evidence of its whole game (issue 35).

The model knows no language's own letters but German's (Ä, Ö, Ü), so the choice read off the frames
is English or German (French, Spanish, Polish... need to be named). One confident square on one
frame never decides it: the demo's English game was once recorded as German off one Ä, which was
an A the German reader's count caps had pushed off (the board held more A's than a German set has,
and the surplus fell to its next class). So the frames are read *before* the count caps (the caps
assume a set: they cannot be evidence for one), at several points of the game, and German needs
both

* an umlaut read on the same square, as the same letter, on at least ``MIN_FRAMES`` frames (a tile
  laid stays: a real one is read again; a stray read is not), and
* the fullest board's letter counts (a tile check when the samples catch one: every tile face up)
  fitting the German set better than the English: fewer tiles over the set's counts.

Evidence the other way is the operator's to look at (``SetDecision.doubt``), never a silent
choice: umlauts read again and again on a board whose counts are English, say.
"""
from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import Mapping, Sequence

from tilecam.scoring import BLANK, DISTRIBUTIONS, EMPTY

__all__ = ["COUNT_CONF", "DETECT_CONF", "MIN_FRAMES", "FrameTiles", "SetDecision", "decide_set",
           "read_tile_set", "sample_images"]

# an umlaut read at least this sure (before the count caps). Measured at 7ade803 on the last 3
# frames: the 5 ScrabScrap games' real umlauts 0.992-0.999; the English family game's finished board
# (no umlaut) up to 0.956. Before the caps (issue 35): the family game's best umlaut 0.966 (one
# frame), the demo's English game's 0.684; with the caps the demo showed Ä 0.983-0.989 on 5 frames.
DETECT_CONF = 0.98
COUNT_CONF = 0.9    # a square counted in the board's letter counts (hands read as blanks are not counted)
MIN_FRAMES = 2      # an umlaut square must be read on this many sampled frames (fewer frames: all)
# where the game is sampled, as shares of a video's frames or of a folder's photos: the start (a
# tile check), and more towards the end, where the most tiles lie
SHARES = (0.02, 0.3, 0.5, 0.65, 0.75, 0.85, 0.9, 0.95, 0.99)
DEFAULT, MARKED = "en", "de"
# the letters only the marked set has (Ä, Ö, Ü), from the sets themselves
MARKS = tuple(t for t in DISTRIBUTIONS[MARKED].letters if t not in DISTRIBUTIONS[DEFAULT].counts)


@dataclass(frozen=True)
class FrameTiles:
    """One sampled frame's read (before the count caps): `tiles` square (row, col) -> (tile,
    confidence), the squares read as a tile."""

    name: str
    tiles: Mapping[tuple[int, int], tuple[str, float]]


@dataclass(frozen=True)
class SetDecision:
    """The tile set (`lang`), why (`why`: the evidence, one line), and `doubt`: evidence against it
    that the operator must look at (None: none)."""

    lang: str
    why: str
    doubt: str | None = None


def _over(counts: Counter, lang: str) -> int:
    """How many of `counts`' tiles a `lang` set cannot hold (each tile beyond its count)."""
    have = DISTRIBUTIONS[lang].counts
    return sum(max(0, n - have.get(t, 0)) for t, n in counts.items())


def _sq(square: tuple[int, int]) -> str:
    return f"{chr(ord('A') + square[1])}{square[0] + 1}"


def decide_set(frames: Sequence[FrameTiles]) -> SetDecision:
    """English or German from the frames' reads (see the module)."""
    seen = [f for f in frames if f.tiles]
    if not seen:
        return SetDecision(DEFAULT, "no tiles read on the sampled frames")
    need = min(MIN_FRAMES, len(seen))
    marks = Counter((sq, t) for f in seen for sq, (t, c) in f.tiles.items() if t in MARKS and c >= DETECT_CONF)
    again = sorted((sq, t) for (sq, t), n in marks.items() if n >= need)
    stray = sorted((sq, t) for (sq, t), n in marks.items() if n < need)
    fullest = max(seen, key=lambda f: sum(1 for t, c in f.tiles.values() if c >= COUNT_CONF and t != BLANK))
    counts = Counter(t for t, c in fullest.tiles.values() if c >= COUNT_CONF and t != BLANK)
    over = {lang: _over(counts, lang) for lang in (DEFAULT, MARKED)}
    fit = (f"the {sum(counts.values())} tiles of {fullest.name} are over the English counts by {over[DEFAULT]}, "
           f"the German by {over[MARKED]}")
    if again:
        letters = ", ".join(f"{t} at {_sq(sq)}" for sq, t in again)
        umlauts = f"{letters} read on at least {need} of {len(seen)} frames"
        if over[MARKED] < over[DEFAULT]:
            return SetDecision(MARKED, f"{umlauts}; {fit}")
        return SetDecision(DEFAULT, f"{fit}", doubt=f"{umlauts}, yet {fit}: is this a German set?")
    why = f"no Ä, Ö or Ü read on the same square on {need} of {len(seen)} frames" + \
          (f" ({', '.join(f'{t} at {_sq(sq)}' for sq, t in stray)} on one only)" if stray else "") + f"; {fit}"
    return SetDecision(DEFAULT, why)


def sample_images(source: str | Path, extensions, shares: Sequence[float] = SHARES) -> list[tuple[str, object]]:
    """Frames over the whole game of a file or folder: [(name, image)]; none for a camera (its
    frames are still to come)."""
    import cv2

    from tilecam.capture.folder import list_images

    source = Path(source)
    images = []
    if source.is_dir():
        paths = list_images(source, extensions)
        picked = sorted({min(len(paths) - 1, int(len(paths) * s)) for s in shares}) if paths else []
        images = [(paths[i].name, cv2.imread(str(paths[i]))) for i in picked]
    elif source.is_file():
        cap = cv2.VideoCapture(str(source))
        total = int(cap.get(cv2.CAP_PROP_FRAME_COUNT) or 0)
        for at in sorted({min(total - 1, int(total * s)) for s in shares}) if total else ():
            cap.set(cv2.CAP_PROP_POS_FRAMES, at)
            ok, image = cap.read()
            if ok:
                images.append((f"frame {at}", image))
        cap.release()
    return [(name, im) for name, im in images if im is not None]


def read_tile_set(settings, source: str | Path, *, model=None, tileset=None, corners=None,
                  prewarped: bool = False) -> SetDecision | None:
    """The tile set of a file's or folder's game (``decide_set`` on frames over the whole game, read
    with the German reader before its count caps), or None: a camera (not sampled), or a reader
    that cannot be built (the recording's own reader says what is wrong with the model)."""
    from tilecam.vision.assemble import load_tile_reader
    from tilecam.vision.errors import SetupError, VisionError
    from tilecam.vision.still import read_still, still_corners, warp_still

    images = sample_images(source, settings.capture.folder_extensions)
    if not images:
        return None
    uncapped = settings.model_copy(update={"read": settings.read.model_copy(update={"cap_counts": False})})
    try:
        reader = load_tile_reader(uncapped, MARKED, model=model, tileset=tileset)
    except SetupError:
        return None
    px = int(reader.card["square_px"])
    frames = []
    for name, image in images:
        try:
            found = still_corners(settings, image, corners=corners, prewarped=prewarped)
        except (VisionError, ValueError):
            continue
        snap = read_still(reader, warp_still(image, found, px)).snapshot
        best, conf = snap.best(), snap.confidence()
        frames.append(FrameTiles(name, {(r, c): (snap.classes[best[r, c]], float(conf[r, c]))
                                        for r in range(best.shape[0]) for c in range(best.shape[1])
                                        if snap.classes[best[r, c]] != EMPTY}))
    return decide_set(frames)
