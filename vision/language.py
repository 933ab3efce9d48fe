"""Which tile set a recording is played with, read off its frames: a German board shows Ä, Ö or Ü,
which no English set has (the model knows no other language's own letters, so French, Spanish and
Polish need to be named)."""
from __future__ import annotations

from pathlib import Path

__all__ = ["DETECT_CONF", "detect_german", "sample_images"]

# an umlaut read at least this sure. Measured at 7ade803 on the last 3 frames: the 5 ScrabScrap games' real
# umlauts 0.992-0.999; the English family game's finished board (no umlaut) up to 0.956, on squares whose
# runner-up is "empty" (0.9 was passed there once issue 28's occupancy rule sharpened those squares)
DETECT_CONF = 0.98


def sample_images(source: str | Path, extensions, samples: int = 3) -> list[tuple[str, object]]:
    """The last frames of a file or folder, where the most tiles lie: [(name, image)]; none for a
    camera (its frames are still to come)."""
    import cv2

    from tilecam.capture.folder import list_images

    source = Path(source)
    images = []
    if source.is_dir():  # the last photos hold the most tiles
        paths = list_images(source, extensions)[-samples:]
        images = [(p.name, cv2.imread(str(p))) for p in paths]
    elif source.is_file():
        cap = cv2.VideoCapture(str(source))
        total = int(cap.get(cv2.CAP_PROP_FRAME_COUNT) or 0)
        for at in (0.97, 0.85, 0.7)[:samples] if total else ():
            cap.set(cv2.CAP_PROP_POS_FRAMES, int(total * at))
            ok, image = cap.read()
            if ok:
                images.append((f"frame {int(total * at)}", image))
        cap.release()
    return [(name, im) for name, im in images if im is not None]


def detect_german(settings, source: str | Path, *, model=None, tileset=None, corners=None,
                  prewarped: bool = False, samples: int = 3) -> str | None:
    """Which German letters (Ä, Ö, Ü) the last frames of a file or folder show, read with
    confidence, or None. A camera is not sampled; a reader that cannot be built says nothing (the
    recording's own reader says what is wrong with the model)."""
    from tilecam.vision.assemble import load_tile_reader
    from tilecam.vision.errors import SetupError, VisionError
    from tilecam.vision.still import still_corners, warp_still

    images = sample_images(source, settings.capture.folder_extensions, samples)
    if not images:
        return None
    try:
        reader = load_tile_reader(settings, "de", model=model, tileset=tileset)
    except SetupError:
        return None
    px = int(reader.card["square_px"])
    for name, image in images:
        try:
            found = still_corners(settings, image, corners=corners, prewarped=prewarped)
        except (VisionError, ValueError):
            continue
        snap = reader.read(warp_still(image, found, px).warped).snapshot
        best, conf = snap.best(), snap.confidence()
        umlauts = sorted({snap.classes[best[r, c]] for r in range(best.shape[0]) for c in range(best.shape[1])
                          if snap.classes[best[r, c]] in "ÄÖÜ" and conf[r, c] >= DETECT_CONF})
        if umlauts:
            return f"{', '.join(umlauts)} read on {name}"
    return None
