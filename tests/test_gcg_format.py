"""GCG reading edge cases, clear errors naming the line, and the writer's strict form."""
from __future__ import annotations

import pytest

from scoring.gcg import GcgError, read_gcg, record_from_gcg, write_gcg
from scoring.rules import PROFILES
from scoring.tiles import DISTRIBUTIONS

EN, DE = DISTRIBUTIONS["en"], DISTRIBUTIONS["de"]
NASPA = PROFILES["naspa"]


def load(text, dist=EN, profile=NASPA):
    return record_from_gcg(read_gcg(text), profile, dist)


def test_lenient_reader():
    text = (
        "#character-encoding UTF-8\r\n"
        "#player1 ann Ann Example\r\n"
        "#player2 bob Bob\r\n"
        "#title Club night\r\n"
        "#lexicon NWL2023\r\n"
        "#note pre-game\r\n"
        ">ann: ACLMQU? 8d QUALM +52 52 trailing words\r\n"
        "#note first line\r\n"
        "and a second line\r\n"
        "#note repeated\r\n"
        ">bob: AEEST h4 SEAT(M)E +70 70\r\n"   # old style: (M) is the M of QUALM, played through
        ">ann: AC?  -  +0 52\r\n"
        ">bob:  -4 +0 70\r\n"
        "#rack1 AC?\r\n"
    )
    record, findings, line_nos = load(text)
    g = read_gcg(text)
    assert [p.name for p in record.players] == ["Ann Example", "Bob"]
    assert g.meta["title"] == "Club night" and g.meta["lexicon"] == "NWL2023"
    assert g.meta["note"] == "pre-game"
    assert record.events[0].note == "first line\nand a second line\nrepeated"
    assert record.events[0].engine == 52
    assert record.events[1].words[0] == "SEATME"
    assert [e.kind for e in record.events] == ["play", "play", "pass", "exchange"]
    assert record.events[3].count == 4 and record.events[3].rack is None
    assert g.final_racks == {0: "AC?"}
    assert line_nos == [7, 11, 12, 13]


def test_played_through_letters_may_be_written_as_letters():
    text = ">a: QUALM 8D QUALM +52 52\n>b: S 8D QUALMS +17 17\n"
    record, findings, _ = load(text)
    assert findings == []
    assert len(record.events[1].placement.tiles) == 1


def test_latin1_is_the_default_encoding():
    data = "#player1 jose José\n#player2 b B\n>jose: QUALM 8D QUALM +52 52\n".encode("latin-1")
    record, _, _ = load(data)
    assert record.players[0].name == "José"


def test_german_umlaut_tiles():
    data = "#character-encoding UTF-8\n>a: ÄRGER 8D ÄRGER +24 24\n".encode()
    record, findings, _ = load(data, dist=DE)
    # Ä(6) on the double letter 8D: (12 + 1 + 2 + 1 + 1) x 2 = 34; the record's 24 is flagged.
    assert record.events[0].engine == 34
    assert [(f.what, f.recorded, f.engine) for f in findings] == [("score", 24, 34), ("cumulative", 24, 34)][:1]


@pytest.mark.parametrize("desc, text, line, reason", [
    ("truncated line", ">a: QUALM 8D QUALM +52\n", 1, "missing score"),
    ("truncated after a good line", ">a: QUALM 8D QUALM +52 52\n>b: AB 9D\n", 2, "missing score"),
    ("unknown coordinate", ">a: QUALM 8Z QUALM +52 52\n", 1, "off the 15x15 board"),
    ("unknown coordinate form", ">a: QUALM 88 QUALM +52 52\n", 1, "coordinate"),
    ("tile not in the set", ">a: QUÄLM 8D QUÄLM +52 52\n", 1, "not a tile of the en set"),
    ("play through an empty square", ">a: QUALM 8D QU.LM +52 52\n", 1, "empty"),
    ("not a GCG line", "#player1 a A\nhello there\n", 2, "not a GCG line"),
    ("third player", ">a: AB 8G AB +8 8\n>b: - +0 0\n>c: - +0 0\n", 3, "unknown player"),
    ("illegal placement", ">a: QUALM 1A QUALM +52 52\n", 1, "centre"),
    ("withdrawn without a play", ">a: AB -- -8 -8\n", 1, "no play"),
    ("bad exchange rack", ">a: AB 8G AB +8 8\n>b: AB% -AB% +0 0\n", 2, "not a tile"),
])
def test_bad_gcg_names_the_line(desc, text, line, reason):
    with pytest.raises(GcgError) as err:
        load(text.encode("utf-8"))
    assert err.value.line_no == line
    assert reason in str(err.value)
    assert f"line {line}:" in str(err.value)


def test_invalid_utf8_names_the_line():
    data = b"#character-encoding UTF-8\n#player1 a A\n#player2 b \xff\xfe\n"
    with pytest.raises(GcgError) as err:
        read_gcg(data)
    assert err.value.line_no == 3


def test_writer_is_strict():
    text = (">a: ?ACLMQU 8D QUALM +52 52\n>a: ?AC (challenge) +5 57\n>b: - +0 0\n"
            ">a: ?AC F7 C.t +4 61\n>b: ABC -ABC +0 0\n")
    record, findings, _ = record_from_gcg(read_gcg(text), PROFILES["naspa-csw"], EN)
    out = write_gcg(record, PROFILES["naspa-csw"], EN)
    lines = out.splitlines()
    assert lines[0] == "#character-encoding UTF-8"
    assert ">b: UNKNOWN - +0 0" in lines      # never an empty rack field on a pass
    assert ">a: ?AC (challenge) +5 57" in lines
    assert ">a: ?AC F7 C.t +4 61" in lines   # '.' for the played-through A, lower case for the blank
    assert ">b: ABC -ABC +0 0" in lines
