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


MODEL, CARD = REPO / "models" / "tiles.onnx", REPO / "models" / "tiles.card.json"


def test_a_set_added_as_one_entry_is_read_with_its_letters_and_counts(monkeypatch):
    """Issue 37: a distribution added to scoring.tiles alone reaches the reader: its classes, its
    count caps, the recogniser's alphabet, and the letters the model was never trained on, said."""
    from tilecam.scoring.tiles import _dist

    monkeypatch.setitem(DISTRIBUTIONS, "xx", _dist("xx", "A:9:1 Þ:1:7 E:10:1 R:8:1 ?:2:0"))
    reader = TileReader(MODEL, CARD, lang="xx")
    assert reader.classes[2:] == ("A", "Þ", "E", "R") and list(reader.caps[2:]) == [9, 1, 10, 8]
    assert reader.unreadable == ("Þ",)
    assert LetterRecognizer(DISTRIBUTIONS["xx"].letters).missing == ["Þ"]


@pytest.mark.parametrize("lang", UNTRAINED)
def test_the_letters_no_class_reads_are_named(lang):
    reader = TileReader(MODEL, CARD, lang=lang)
    assert list(reader.unreadable) == UNTRAINED[lang]


def test_a_tile_set_that_teaches_a_letter_takes_it_off_the_unread(tmp_path):
    import numpy as np

    reader = TileReader(MODEL, CARD, lang="no")
    n = int(reader.card["input_size"])
    _, _, emb = reader.embed(np.zeros((1, n, n, 3), np.uint8))
    classes = len(reader.card["classes"])
    taught = reader.with_tileset({"labels": ["Æ", "A"], "embeddings": np.eye(2, emb.shape[1], dtype=np.float32),
                                  "readings": np.full((1, classes), 1.0 / classes, np.float32),
                                  "reading_labels": ["Æ"]})
    assert taught.unreadable == ("Ø", "Å")


def test_setup_warns_of_the_letters_it_cannot_read(monkeypatch, capsys):
    from tilecam.api.settings import Settings
    from tilecam.vision import assemble
    from tilecam.vision.classify import ReadConfig

    monkeypatch.setattr(assemble, "_WARNED", set())
    settings = Settings().model_copy(update={"read": ReadConfig(recogniser=False)})
    assemble.load_tile_reader(settings, "en")
    assert capsys.readouterr().err == ""
    assemble.load_tile_reader(settings, "ca")
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("warning:")
    assert all(letter in err[0].split() for letter in ("Ç", "L·L", "NY", "QU"))
