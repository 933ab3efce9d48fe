"""GCG reading edge cases, clear errors naming the line, and the writer's strict form."""
from __future__ import annotations

import re

import pytest

from tilecam.scoring.events import Pass, Play
from tilecam.scoring.gcg import GameRecord, GcgError, Player, check_nick, read_gcg, record_from_gcg, write_gcg
from tilecam.scoring.rules import MAX_PLAYERS, PROFILES
from tilecam.scoring.tiles import DISTRIBUTIONS

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
    # the rules' player count (rules.PLAYER_COUNT), said as the settings and the clock say it
    ("fifth player", "#player1 a A\n#player5 e E\n", 2, "player 5: a game has 2 to 4 players, numbered 1 to 4"),
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
    # never an empty rack field on a pass, never the word UNKNOWN: a tile not on the board
    assert ">b: E - +0 0" in lines
    assert "#tile-distribution english" in lines
    assert ">a: ?AC (challenge) +5 57" in lines
    assert ">a: ?AC F7 C.t +4 61" in lines   # '.' for the played-through A, lower case for the blank
    assert ">b: ABC -ABC +0 0" in lines


# ---- bad files: every one a GcgError naming the line -------------------------------------

@pytest.mark.parametrize("desc, data, line, reason", [
    ("empty file", b"", 1, "empty file"),
    ("blank lines only", b"\n  \r\n\n", 1, "empty file"),
    ("4,300-digit score", b">a: QUALM 8D QUALM +" + b"9" * 4300 + b" 52\n", 1, "4300 digits"),
    ("4,300-digit total", b">a: QUALM 8D QUALM +52 " + b"9" * 4300 + b"\n", 1, "4300 digits"),
    ("huge exchange count", b">a: AB 8G AB +8 8\n>b: -" + b"9" * 4300 + b" +0 0\n", 2, "digits"),
    ("superscript exchange count", ">a: AB 8G AB +8 8\n>b: -² +0 0\n".encode(), 2, "not a tile"),
    ("invalid UTF-8 after a BOM", b"\xef\xbb\xbf#player1 a A\n#player2 b \xff\n", 2, "not valid utf-8"),
    ("not a text encoding", b"#character-encoding rot13\n>a: AB 8G AB +8 8\n", 1, "unknown character encoding"),
    ("binary garbage", bytes(range(256)) * 4, 1, "not a GCG line"),
])
def test_bad_files_are_gcg_errors(desc, data, line, reason):
    with pytest.raises(GcgError) as err:
        load(data)
    assert err.value.line_no == line and reason in str(err.value)
    assert len(str(err.value)) < 300  # a 4,300-digit line is not echoed whole


def test_a_seat_without_a_player_line_is_taken_by_the_first_new_nickname():
    record, _, _ = load("#player2 b Bob\n>a: QUALM 8D QUALM +52 52\n>b: - +0 0\n")
    assert [p.nick for p in record.players] == ["a", "b"]
    assert [e.player for e in record.events] == [0, 1]


# ---- line separators: only \n (and \r) end a line; the writer never writes one inside a field

# every character str.splitlines() breaks at, besides \n
SEPARATORS = ["\r", "\r\n", "\x0b", "\x0c", "\x1c", "\x1d", "\x1e", "\x85", "\u2028", "\u2029"]


@pytest.mark.parametrize("sep", SEPARATORS[2:], ids=lambda s: "+".join(f"U+{ord(c):04X}" for c in s))
def test_reader_keeps_other_separators_inside_the_line(sep):
    text = f"#character-encoding UTF-8\n#player1 a Ann{sep}#player1 evil Evil\n>a: QUALM 8D QUALM +52 52\n"
    g = read_gcg(text.encode())
    assert g.players[0].nick == "a" and g.players[0].name.startswith("Ann")


def record_with(note="", name="Ann Example", nick="ann", meta=None, rack="ACLMQU?"):
    text = "#player1 ann Ann\n#player2 bob Bob\n>ann: ACLMQU? 8D QUALM +52 52\n>bob: - +0 0\n"
    record, _, _ = load(text)
    play, passed = record.events
    return GameRecord((Player(nick, name), Player("bob", "Bob")),
                      (Play(**{**{f: getattr(play, f) for f in play.__slots__}, "note": note, "rack": rack}),
                       Pass(**{**{f: getattr(passed, f) for f in passed.__slots__}, "note": note})),
                      meta or {}, "naspa", "en")


@pytest.mark.parametrize("sep", SEPARATORS, ids=lambda s: "+".join(f"U+{ord(c):04X}" for c in s))
def test_no_field_can_start_a_line(sep):
    hostile = f"fine{sep}#player1 evil Evil{sep}>ann: QUALM 8D QUALM +52 999"
    record = record_with(note=hostile, name=hostile, meta={"title": hostile, "description": hostile,
                                                            "note": hostile, "event": hostile})
    out = write_gcg(record, NASPA, EN)
    lines = out.split("\n")
    # no character any reader breaks at is left inside a line
    assert all(len(line.splitlines()) <= 1 for line in lines), [line for line in lines if len(line.splitlines()) > 1]
    assert sum(line.startswith("#player1") for line in lines) == 1
    assert sum(line.startswith(">") for line in lines) == 2
    again, findings, _ = load(out.encode())
    assert [p.nick for p in again.players] == ["ann", "bob"] and findings == []
    assert again.players[0].name.startswith("fine")
    # each line of the note is its own #note line, read back as the note's lines
    assert again.events[0].note.split("\n")[0] == "fine" and len(again.events[0].note.split("\n")) == 3
    # macondo matches its patterns anywhere in a line, #player and plays before #note: outside
    # the #player lines (which it matches first) neither may appear
    others = [line for line in lines if not line.startswith("#player")]
    assert not any("#player1 " in line or re.search(r">\S+:\s", line[1:]) for line in others)


def test_every_players_pragma_in_a_note_is_kept_a_note():
    # the writer's guard knows each player number the rules allow (rules.MAX_PLAYERS), no more
    note = " ".join(f"#player{n} x X #rack{n} ABC" for n in range(1, MAX_PLAYERS + 2))
    out = write_gcg(record_with(note=note), NASPA, EN)
    line = next(line for line in out.split("\n") if line.startswith("#note"))
    assert [f"# player{n}" in line and f"# rack{n}" in line for n in range(1, MAX_PLAYERS + 2)] == \
        [True] * MAX_PLAYERS + [False]


def test_notes_keep_hashtags_and_drop_blank_lines():
    record = record_with(note="7G AGOUTIS. #findingSADDEST\n\n  \nsecond line")
    out = write_gcg(record, NASPA, EN)
    assert "#note 7G AGOUTIS. #findingSADDEST\n#note second line\n" in out
    assert "\n#note\n" not in out  # a bare #note is not a line macondo reads


def test_a_pass_note_cannot_turn_the_pass_into_a_lost_turn():
    record = record_with(note="#unsuccessful-challenge")
    again, _, _ = load(write_gcg(record, NASPA, EN).encode())
    assert [e.kind for e in again.events] == ["play", "pass"]


@pytest.mark.parametrize("nick, reason", [
    ("", "empty"), ("a:b", "':'"), ("Ann Example", "one word"), ("a\u2028b", "one word"),
    ("a\x85b", "one word"), ("a\tb", "one word"), ("a\u200bb", "invisible"), ("x" * 65, "at most 64"),
])
def test_check_nick_refuses(nick, reason):
    with pytest.raises(GcgError) as err:
        check_nick(nick)
    assert reason in str(err.value)
    if nick:
        with pytest.raises(GcgError):
            write_gcg(record_with(nick=nick), NASPA, EN)


def test_one_nickname_for_two_players_is_written_apart():
    # macondo refuses two players with one nickname; Quackle writes "NoName" for both
    out = write_gcg(record_with(nick="bob"), NASPA, EN)
    assert "#player1 bob Ann Example\n#player2 bob_2 Bob\n" in out
    assert ">bob: " in out and ">bob_2: - " not in out and ">bob_2: " in out


@pytest.mark.parametrize("nick", ["ann", "Josh_Castellano", "Grab_em_by_the_Short_and_(James)_Curley(s)", "Zoë", "#1"])
def test_check_nick_accepts(nick):
    assert check_nick(nick) == nick
    again, _, _ = load(write_gcg(record_with(nick=nick), NASPA, EN).encode())
    assert again.players[0].nick == nick


@pytest.mark.parametrize("field", ["rack", "meta key"])
def test_writer_refuses_a_rack_or_pragma_that_is_not_one_word(field):
    record = record_with(rack="AC LM") if field == "rack" else record_with(meta={"bad key\n#player1": "x"})
    with pytest.raises(GcgError):
        write_gcg(record, NASPA, EN)


def test_an_empty_display_name_is_written_as_the_nickname():
    out = write_gcg(record_with(name=""), NASPA, EN)
    assert "#player1 ann ann\n" in out  # macondo's #player line needs a name
