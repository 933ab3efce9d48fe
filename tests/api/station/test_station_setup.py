"""What a station says at setup that it runs on anyway: the set's letters its tile model has no class
for (vision.reader_warnings) go on the console's notices (/api/status), not on stderr alone."""
from __future__ import annotations

import cv2
import numpy as np

from tilecam.api.bus import Bus
from tilecam.api.service import GameService
from tilecam.api.settings import Settings
from tilecam.api.station import Job, Station
from tilecam.api.store import open_store
from tilecam.vision.classify import ReadConfig


def _station(tmp_path, lang: str) -> Station:
    folder = tmp_path / f"board-{lang}"
    folder.mkdir()
    cv2.imwrite(str(folder / "image-1.jpg"), np.full((240, 320, 3), 128, np.uint8))
    service = GameService(open_store(tmp_path / f"{lang}.sqlite3"), Bus())
    settings = Settings().model_copy(update={"read": ReadConfig(recogniser=False)})
    return Station(settings, Job(str(folder), new_game=True, lang=lang, clock=False, own=False, quiet=True),
                   service=service)


def test_the_letters_the_reader_cannot_read_are_on_the_console(tmp_path):
    st = _station(tmp_path, "ca").open()
    try:
        said = [n for n in st.recorder.status()["notices"] if "no class for" in n]
        assert len(said) == 1 and all(letter in said[0].split() for letter in ("Ç", "L·L", "NY", "QU")), said
    finally:
        st.close()
        st.service.store.close()
    st = _station(tmp_path, "en").open()
    try:
        assert not [n for n in st.recorder.status()["notices"] if "no class for" in n]
    finally:
        st.close()
        st.service.store.close()
