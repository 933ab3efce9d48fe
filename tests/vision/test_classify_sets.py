"""The readers for the tile sets added in issue 28 (item 4): each builds on the committed model and
recogniser, and the letters neither was trained on are said, not guessed: they are masked (read
only through an enrolled tile set, `tilecam enroll`)."""
from __future__ import annotations

from pathlib import Path

import pytest

from tilecam.scoring.tiles import DISTRIBUTIONS
from tilecam.vision.classify import TileReader
from tilecam.vision.recognizer import LetterRecognizer

REPO = Path(__file__).resolve().parents[2]
UNTRAINED = {"it": [], "nl": [], "no": ["Æ", "Ø", "Å"], "ca": ["Ç", "L·L", "NY", "QU"], "ro": []}


@pytest.mark.parametrize("lang", UNTRAINED)
def test_a_reader_builds_for_the_set_and_masks_what_the_model_lacks(lang):
    reader = TileReader(REPO / "models" / "tiles.onnx", REPO / "models" / "tiles.card.json", lang=lang)
    assert reader.classes[2:] == DISTRIBUTIONS[lang].letters
    assert [c for c, i in zip(reader.classes, reader.logit_index) if i < 0] == UNTRAINED[lang]
    assert list(reader.caps[2:]) == [DISTRIBUTIONS[lang].counts[t] for t in DISTRIBUTIONS[lang].letters]
    assert LetterRecognizer(DISTRIBUTIONS[lang].letters).missing == UNTRAINED[lang]
