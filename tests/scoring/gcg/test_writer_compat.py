"""Every GCG tilecam writes loads in macondo (Woogles) and Quackle, and the records those tools
and tilecam's earlier versions wrote load in tilecam. The readers' rules are in gcgcheck.py."""
from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import given

from conftest import shared_data_dir
from gcgcheck import check_gcg
from tilecam.scoring.blanks import designate
from tilecam.scoring.board import LAYOUTS, Direction, Square
from tilecam.scoring.events import BLANK_NOT_READ, Play
from tilecam.scoring.game import Game
from tilecam.scoring.gcg import GameRecord, GcgError, Player, gcg_lang, read_gcg, record_from_gcg, write_gcg
from tilecam.scoring.lexicon import Lexicon
from tilecam.scoring.placement import PlacedTile, Placement
from tilecam.scoring.rules import PROFILES
from tilecam.scoring.tiles import DISTRIBUTIONS
from test_writer_roundtrip import PROFILE, game_logs

DATA = Path(__file__).resolve().parents[2] / "data" / "gcg"
EN, DE = DISTRIBUTIONS["en"], DISTRIBUTIONS["de"]
NASPA = PROFILES["naspa"]
STANDARD_PRAGMAS = {"character-encoding", "player1", "player2", "player3", "player4", "title", "description",
                    "id", "lexicon", "tile-distribution", "board-layout", "note"}


def fixture(name: str) -> bytes:
    return (DATA / name).read_bytes()


def verify(*args):
    return subprocess.run([sys.executable, "-m", "tilecam.api.cli", "verify", *map(str, args)],
                          capture_output=True, text=True, timeout=120)


# ---- the writer: every record it writes passes both readers' rules -----------------------

@given(game_logs())
def test_every_gcg_written_passes_macondo_and_quackle(record):
    text = write_gcg(record, PROFILE, EN)
    assert check_gcg(text) == []
    assert "UNKNOWN" not in text


@pytest.mark.parametrize("lang", ["en", "de", "fr", "es", "pl"])
def test_tile_distribution_is_written_for_every_language(lang):
    dist = DISTRIBUTIONS[lang]
    game = Game(NASPA, dist)
    letters = [t for t in dist.letters if len(t) == 1][:3]
    game.play(0, Placement(tuple(PlacedTile(Square(7, 6 + i), t) for i, t in enumerate(letters)), Direction.ACROSS))
    game.pass_turn(1)
    text = write_gcg(GameRecord((Player("a", "A"), Player("b", "B")), tuple(game.events), lang=lang), NASPA, dist)
    named = re.search(r"^#tile-distribution (\S+)$", text, re.M).group(1)
    assert named == {"en": "english", "de": "german", "fr": "french", "es": "spanish", "pl": "polish"}[lang]
    assert gcg_lang(read_gcg(text).meta) == lang
    assert check_gcg(text) == []


def test_old_tilecam_german_record_reads_and_is_written_loadable():
    # What tilecam wrote before: no tile set, '?' in a play, UNKNOWN racks, '-3', '#event'.
    old = fixture("tilecam_old_german.gcg").decode()
    problems = "\n".join(check_gcg(old))
    for line in (4, 5, 6, 7, 8):  # #event, German tiles in the English set, DUB?O.EN, UNKNOWN -, UNKNOWN -3
        assert f"line {line}:" in problems, problems
    record, findings, _ = record_from_gcg(read_gcg(old.encode()), NASPA, DE, lang="de")
    assert findings == []
    assert record.events[1].blank_undecided  # '?' read back as the blank nobody named
    text = write_gcg(record, NASPA, DE)
    assert check_gcg(text) == [], text
    plays = [line for line in text.splitlines() if line.startswith(">") and " - " not in line]
    assert not any("?" in line.split()[3] for line in plays if len(line.split()) > 5)
    assert "#tile-distribution german" in text and "UNKNOWN" not in text and "#event" not in text
    assert "#description event: Vereinsabend" in text
    assert f"#note {BLANK_NOT_READ}: written as e" in text  # E is the commonest German tile
    assert re.search(r"^>Player_2: [A-Z]{3} -3 \+0 66$", text, re.M)  # Quackle's count, a rack macondo cuts
    again, findings, _ = record_from_gcg(read_gcg(text), NASPA, DE)
    assert findings == [] and again.events[1].blank_undecided  # the note keeps it flagged
    assert [e.cumulative for e in again.events] == [e.cumulative for e in record.events]


def test_a_blank_the_lexicon_decides_gets_no_note():
    game = Game(NASPA, EN)
    game.play(0, Placement((PlacedTile(Square(7, 7), "Q"), PlacedTile(Square(7, 8), "?", blank=True),
                            PlacedTile(Square(7, 9), "A"), PlacedTile(Square(7, 10), "D")), Direction.ACROSS))
    record = GameRecord((Player("a", "A"), Player("b", "B")), tuple(game.events))
    lexicon = Lexicon.from_lines(["QUAD", "QUID", "CAT"])
    chosen = designate(Game(NASPA, EN).state.board, game.events[0].placement, EN, lexicon, claimed=24)
    assert [t.letter for t in chosen.placement.tiles] == ["Q", "U", "A", "D"] and chosen.candidates == 1
    text = write_gcg(record, NASPA, EN, lexicon=lexicon)
    assert ">a: Q?AD 8H QuAD +" in text and BLANK_NOT_READ not in text
    # two valid letters: the commoner in the set (I: 9, U: 4) wins, and the note says it was a guess
    two = write_gcg(record, NASPA, EN, lexicon=Lexicon.from_lines(["QUAD", "QIAD"]))
    assert ">a: Q?AD 8H QiAD +" in two and f"#note {BLANK_NOT_READ}: written as i" in two
    # no lexicon: the commonest letter of the set, E, flagged
    guess = write_gcg(record, NASPA, EN)
    assert "QeAD" in guess and BLANK_NOT_READ in guess and check_gcg(guess) == []


# ---- the checker refuses what the readers refuse ----------------------------------------

HEAD = "#character-encoding UTF-8\n#player1 a A\n#player2 b B\n"


@pytest.mark.parametrize("desc, text, says", [
    ("unknown pragma", HEAD + "#event Club\n>a: QUALM 8D QUALM +52 52\n", "no pattern"),
    ("'?' in a play", HEAD + ">a: QUAL? 8D QUAL? +52 52\n", "'?' in the play"),
    ("UNKNOWN rack on a pass", HEAD + ">a: QUALM 8D QUALM +52 52\n>b: UNKNOWN - +0 0\n", "taken for the rack"),
    ("no rack on a pass", HEAD + ">a: QUALM 8D QUALM +52 52\n>b: - +0 0\n", "no pattern"),
    ("exchange count as a tile", HEAD + ">a: QUALM 8D QUALM +52 52\n>b: AB -3 +0 0\n", "exchanged more"),
    ("negative total on a pass", HEAD + ">a: QUALM 8D QUALM +52 52\n>b: AB - +0 -5\n", "no pattern"),
    ("note before the first turn", HEAD + "#note hi\n>a: QUALM 8D QUALM +52 52\n", "before the first turn"),
    ("lexicon after a turn", HEAD + ">a: QUALM 8D QUALM +52 52\n#lexicon NWL23\n", "after the first turn"),
    ("third player", HEAD + "#player3 c C\n>a: QUALM 8D QUALM +52 52\n", "no pattern"),
    ("same nickname", "#player1 a A\n#player2 a B\n>a: QUALM 8D QUALM +52 52\n", "two players"),
    ("German tiles in the English set", HEAD + ">a: KRÄME 8D KRÄME +34 34\n", "no tile in en"),
    ("played tiles not on the rack", HEAD + ">a: ABCDE 8D QUALM +52 52\n", "not in the rack"),
    ("a third blank", HEAD + ">a: ??? 8D abc +0 0\n", "cannot set the rack"),
    # Quackle's '-- +0': macondo's exchange pattern takes it, an exchange of the tile '-'
    ("withdrawal written +0", HEAD + ">a: QUALM 8D QUALM +52 52\n>a: QUALM -- +0 0\n", "reads a exchange line"),
    ("encoding not first", "#player1 a A\n#character-encoding UTF-8\n", "first line"),
    ("colon apart from the nickname", HEAD + ">a : QUALM 8D QUALM +52 52\n", "colon on the nickname"),
])
def test_checker_refuses_what_the_readers_refuse(desc, text, says):
    assert says in "\n".join(check_gcg(text))


# ---- the reader: real records other tools write --------------------------------------------

def test_quackle_withdrawn_phony_written_plus_zero_takes_the_total():
    record, findings, _ = record_from_gcg(read_gcg(fixture("quackle_withdrawn_plus0.gcg")), NASPA, EN)
    assert findings == []  # not a discrepancy on this line and every later one
    withdrawn = record.events[2]
    assert (withdrawn.kind, withdrawn.player, withdrawn.agreed, withdrawn.cumulative) == ("phony_withdrawn", 1, -40, 0)
    assert "written +0" in withdrawn.note
    # one nickname for both players ("NoName"): turn order tells them apart
    assert [e.player for e in record.events] == [0, 1, 1, 0]
    text = write_gcg(record, NASPA, EN)
    assert "#player2 NoName_2 NoName" in text and ">NoName_2: AEQTUXZ -- -40 0" in text
    assert check_gcg(text) == []


def test_four_player_box_record_reads_and_writes():
    box = PROFILES["box"]
    record, findings, _ = record_from_gcg(read_gcg(fixture("box_four_players.gcg")), box, EN)
    assert findings == [] and [p.nick for p in record.players] == ["ann", "bob", "cy", "dee"]
    text = write_gcg(record, box, EN)
    assert "#player4 dee Dee" in text
    # macondo plays two-player games only; Quackle reads #player3 and #player4
    assert check_gcg(text, readers=("quackle",)) == []
    assert any("#player3" in p for p in check_gcg(text, readers=("macondo",)))
    again, _, _ = record_from_gcg(read_gcg(text), box, EN)
    assert [(e.kind, e.player, e.cumulative) for e in again.events] == \
        [(e.kind, e.player, e.cumulative) for e in record.events]


def test_a_third_nickname_without_player_lines_is_refused():
    with pytest.raises(GcgError, match="unknown player 'c'"):
        read_gcg(">a: AB 8G AB +8 8\n>b: - +0 0\n>c: - +0 0\n")


@pytest.mark.parametrize("name, reason", [
    ("declared_utf8_is_latin1.gcg", "line 2: not valid UTF-8 text"),
    ("declared_utf16_is_ascii.gcg", "not valid UTF-16 text"),
])
def test_a_wrongly_declared_encoding_is_a_clear_error(name, reason, tmp_path):
    with pytest.raises(GcgError, match=reason):
        read_gcg(fixture(name))
    r = verify(DATA / name)
    assert r.returncode == 2 and reason.split(": ")[-1] in r.stderr and "Traceback" not in r.stderr


def test_latin1_declared_over_utf8_reads_without_a_crash():
    assert read_gcg(fixture("declared_latin1_is_utf8.gcg")).players[0].name == "Zo\u00c3\u00ab"


@pytest.mark.parametrize("meta, lang", [
    ({"tile-distribution": "german"}, "de"), ({"lexicon": "RD28"}, "de"), ({"lexicon": "OSPS49"}, "pl"),
    ({"lexicon": "FRA20"}, "fr"), ({"lexicon": "ODS8"}, "fr"), ({"lexicon": "FILE2017"}, "es"),
    ({"lexicon": "FISE2"}, "es"), ({"lexicon": "NWL2023"}, "en"), ({"lexicon": "CSW21"}, "en"),
    ({"lexicon": "Collins"}, "en"), ({"tile-distribution": "english_super"}, "en-super"),
    ({"lexicon": "XYZ"}, None), ({}, None),
])
def test_tile_set_from_pragmas(meta, lang):
    assert gcg_lang(meta) == lang


def test_verify_takes_the_tile_set_from_the_lexicon():
    r = verify(DATA / "polish_osps.gcg", "--json")
    assert r.returncode == 0, r.stderr
    assert json.loads(r.stdout)["final"][0] == 28  # Ż, Ó, Ł are Polish tiles
    assert "tiles pl" in verify(DATA / "polish_osps.gcg").stdout


def _ended_by_going_out():
    """A shared game that ends with a player going out and the 2x rack points."""
    for path in sorted((shared_data_dir() / "gcg").rglob("*.gcg")):
        text = path.read_text(encoding="utf-8", errors="replace")
        lines = text.replace("\r", "").rstrip("\n").split("\n")
        turns = [i for i, line in enumerate(lines) if line.startswith(">")]
        last = lines[turns[-1]]
        challenged = any(" -- " in lines[i] or "(challenge)" in lines[i] for i in turns)
        if re.match(r">\S+:\s+\(\S+\) \+\d+ \d+$", last.strip()) and not challenged:
            return path, lines, turns
    raise AssertionError("no shared game ends with a player going out")


def test_plus_minus_ending_is_noticed_by_rules_auto(tmp_path):
    path, lines, turns = _ended_by_going_out()
    out_line = lines[turns[-1]]
    nick, rack, points, total = re.match(r">(\S+):\s+\((\S+)\) \+(\d+) (\d+)$", out_line.strip()).groups()
    record, _, _ = record_from_gcg(read_gcg("\n".join(lines[:turns[-1]])), NASPA, EN)
    opp = next(p for p in record.players if p.nick != nick)
    opp_total = next(e.cumulative for e in reversed(record.events) if record.players[e.player] is opp)
    half = int(points) // 2
    lines[turns[-1]] = f">{opp.nick}: {rack} ({rack}) -{half} {opp_total - half}"
    lines.insert(turns[-1] + 1, f">{nick}: ({rack}) +{half} {int(total) - half}")
    (tmp_path / "pm.gcg").write_text("\n".join(lines) + "\n", encoding="utf-8")
    r = verify(tmp_path / "pm.gcg")
    assert "rules wespa" in r.stdout and r.returncode == 0, r.stdout + r.stderr


def test_a_pass_after_the_going_out_play_is_read(tmp_path):
    # '>doug: EGOP - +0 451' after emely went out: doug challenged the out-play and lost his turn
    path, lines, turns = _ended_by_going_out()
    record, _, _ = record_from_gcg(read_gcg("\n".join(lines)), NASPA, EN)
    out_player = record.events[-1].player
    opp = next(i for i in range(2) if i != out_player)
    opp_total = next(e.cumulative for e in reversed(record.events) if e.player == opp)
    rack = re.match(r">\S+:\s+\((\S+)\)", lines[turns[-1]]).group(1)
    lines.insert(turns[-1], f">{record.players[opp].nick}: {rack} - +0 {opp_total}")
    text = "\n".join(lines) + "\n"
    again, findings, _ = record_from_gcg(read_gcg(text), NASPA, EN)
    assert findings == [] and again.events[-2].kind == "pass" and again.events[-2].player == opp
    written = write_gcg(again, NASPA, EN)
    assert check_gcg(written) == [] and f">{record.players[opp].nick}: {rack} - +0 {opp_total}" in written


def test_only_standard_pragmas_are_written():
    record, _, _ = record_from_gcg(read_gcg(HEAD + ">a: QUALM 8D QUALM +52 52\n"), NASPA, EN)
    record = GameRecord(record.players, record.events, {"event": "Club", "round": "3", "id": "one",
                                                        "title": "T", "note": "before"})
    text = write_gcg(record, NASPA, EN)
    pragmas = {line[1:].split()[0] for line in text.splitlines() if line.startswith("#")}
    assert pragmas <= STANDARD_PRAGMAS
    assert "#description before; id: one; event: Club; round: 3" in text
    assert check_gcg(text) == []


def test_tilecam_record_writes_a_gcg_every_reader_loads(tmp_path, shared_data):
    # game07: a real German game, one pre-warped photo per move, with a blank no lexicon names
    gcg = tmp_path / "game07.gcg"
    r = subprocess.run([sys.executable, "-m", "tilecam.api.cli", "record", shared_data / "scrabscrap" / "game07",
                        "--prewarped", "--lang", "de", "--gcg", gcg, "--db", tmp_path / "g.sqlite3"],
                       cwd=Path(__file__).resolve().parents[3], capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr
    text = gcg.read_text(encoding="utf-8")
    assert check_gcg(text) == []
    assert "UNKNOWN" not in text and "#tile-distribution german" in text
    plays = [line.split() for line in text.splitlines() if re.match(r">\S+: \S+ \w+ \S+ \+\d+ \d+$", line)]
    assert len(plays) >= 15 and not any("?" in play[3] for play in plays)
    assert {line[1:].split()[0] for line in text.splitlines() if line.startswith("#")} <= STANDARD_PRAGMAS
    assert f"#note {BLANK_NOT_READ}: written as e" in text  # SPUREN? with no lexicon: flagged


def test_a_guessed_blank_reads_back_flagged_however_the_note_is_worded():
    # The GCG file says it in words (its only channel), a line beginning with its mark's
    # (Mark.BLANK_GUESSED: the one place they are); the record says it in Play.blank_guessed, which
    # the reader sets from the mark and the writer writes, whatever the rest of the line says.
    from tilecam.scoring.gcg import Mark
    game = Game(NASPA, EN)
    game.play(0, Placement((PlacedTile(Square(7, 7), "Q"), PlacedTile(Square(7, 8), "?", blank=True),
                            PlacedTile(Square(7, 9), "A"), PlacedTile(Square(7, 10), "D")), Direction.ACROSS))
    text = write_gcg(GameRecord((Player("a", "A"), Player("b", "B")), tuple(game.events)), NASPA, EN)
    line = f"#note {Mark.BLANK_GUESSED.value}: written as e"
    assert line in text
    for said in (text, text.replace(line, f"#note {Mark.BLANK_GUESSED.value} (reworded)")):
        again, findings, _ = record_from_gcg(read_gcg(said), NASPA, EN)
        play = again.events[0]
        assert findings == [] and play.blank_guessed and play.blank_undecided and play.note == ""
        assert line in write_gcg(again, NASPA, EN)


def test_an_overtime_penalty_taking_a_total_below_zero_is_a_line_macondo_reads():
    """Issue 43 item 9: a time penalty entered mid-game made a running total negative on a later
    turn's line, '>ann: E - +0 -30', which macondo's patterns do not read (a turn's total is \\d+).
    Overtime now goes in only once the game is over (scoring.game.check_open); its line, '(time)',
    is the one (with the end's rack lines) whose total macondo reads below zero."""
    from tilecam.scoring.game import GameError, check_open
    from tilecam.scoring.events import TimePenalty

    g = Game(NASPA, EN)
    with pytest.raises(GameError, match="overtime is counted once the game is over"):
        check_open(g.time_penalty(0, 3), None, "game 1", g.state.ended)
    g = Game(NASPA, EN)
    for i in range(6):                       # six scoreless turns end the game
        g.pass_turn(i % 2)
    assert g.state.ended
    penalty = g.time_penalty(0, 3)
    check_open(penalty, None, "game 1", g.state.ended)
    assert isinstance(penalty, TimePenalty) and penalty.cumulative == -30
    text = write_gcg(GameRecord((Player("ann", "Ann"), Player("bob", "Bob")), tuple(g.events)), NASPA, EN)
    assert re.search(r"^>ann: \S+ \(time\) -30 -30$", text, re.M), text
    assert check_gcg(text) == []
    back, _, _ = record_from_gcg(read_gcg(text.encode()), NASPA, EN)
    assert back.events[-1].cumulative == -30


def test_overtime_an_older_version_let_in_mid_game_is_written_at_the_end():
    """Issue 43 item 3 (of the hedge branch): a legacy record holds a time penalty entered before the
    game was over (older versions allowed it): the turns after it had totals below zero, a line
    macondo cannot read ('>ann: E - +0 -30'). The writer puts the '(time)' line after every turn,
    where macondo reads a negative total and takes the game as over, the totals before it without it."""
    g = Game(NASPA, EN)
    g.play(0, Placement((PlacedTile(Square(7, 7), "A"), PlacedTile(Square(7, 8), "T")), Direction.ACROSS))
    g.time_penalty(0, 3)                      # -30 mid-game: Ann's total 4 - 30 = -26
    for i in range(6):                        # then the turns (scoreless) that end the game
        g.pass_turn((i + 1) % 2)
    record = GameRecord((Player("ann", "Ann"), Player("bob", "Bob")), tuple(g.events))
    text = write_gcg(record, NASPA, EN)
    assert check_gcg(text) == [], text
    turns = [line for line in text.splitlines() if line.startswith(">")]
    assert re.fullmatch(r">ann: \S+ \(time\) -30 -26", turns[-1]), text
    assert all(int(line.split()[-1]) >= 0 for line in turns[:-1]), text
    assert "#note overtime entered after move 1, before the game was over" in text
    back, _, _ = record_from_gcg(read_gcg(text.encode()), NASPA, EN)
    assert [type(e).__name__ for e in back.events][-1] == "TimePenalty"
    assert Game(NASPA, EN, events=list(back.events)).state.scores == g.state.scores == [-26, 0]
