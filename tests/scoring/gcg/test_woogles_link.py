"""Issue 46: the record to Woogles in one click. The link is the Woogles editor's import
(/scrabblecam/callback?gcg=..., liwords-ui boardwizard/callback_handler.tsx reads it with
URLSearchParams), and a finished game's GCG ends as macondo's reader ends a game (its end-rack
lines); one whose end racks nobody saw says so, never makes them up. Nothing here reaches the site:
the link's form is checked against liwords' source, the GCG against tests/gcgcheck.py."""
from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from urllib.parse import parse_qs, urlsplit

import pytest

from conftest import shared_data_dir
from gcgcheck import check_gcg, macondo_game_over
from tilecam.scoring.board import LAYOUTS
from tilecam.scoring.events import EndRackPenalty, EndRackPoints
from tilecam.scoring.game import Game
from tilecam.scoring.gcg import read_gcg, record_from_gcg, woogles_gap, woogles_link, write_gcg
from tilecam.scoring.gcg.woogles import END_RACKS_NOT_SEEN, ZEROS_RACKS_NOT_SEEN
from tilecam.scoring.rules import get_profile
from tilecam.scoring.tiles import DISTRIBUTIONS

EN = DISTRIBUTIONS["en"]
LIWORDS = shared_data_dir() / "gcg" / "liwords"
GCG_FILES = sorted(LIWORDS.glob("*.gcg"))
# a game ended by six scoreless turns whose racks were never taken off (nobody saw them)
ZEROS = (Path(__file__).resolve().parents[2] / "data" / "gcg" / "zeros_end_racks_unseen.gcg").read_text(encoding="utf-8")


def _record(text: str | bytes):
    gcg = read_gcg(text)
    rules = "naspa-csw" if any(t.kind == "challenge" for t in gcg.turns) else "naspa"
    record, _, _ = record_from_gcg(gcg, get_profile(rules), EN, rules=rules)
    return record, get_profile(rules)


def _replayed(record, profile) -> Game:
    game = Game(profile, EN, LAYOUTS[record.layout], len(record.players))
    for ev in record.events:
        game.append(ev)
    return game


def _unsettled(record):
    """The record as a camera that never saw the end racks keeps it: the end's lines missing."""
    events = list(record.events)
    while isinstance(events[-1], (EndRackPoints, EndRackPenalty)):
        events.pop()
    return replace(record, events=tuple(events))


def test_the_link_is_woogles_import_carrying_the_gcg_whole():
    record, profile = _record((LIWORDS / "josh_nationals_round_1.gcg").read_bytes())
    gcg = write_gcg(record, profile, EN)
    url = woogles_link(gcg)
    parts = urlsplit(url)
    assert (parts.scheme, parts.netloc, parts.path) == ("https", "woogles.io", "/scrabblecam/callback")
    # URLSearchParams (what the callback reads the GCG with) decodes as parse_qs: '+' is a space there,
    # so every score's '+' must go as %2B; the one parameter is the GCG, byte for byte
    assert "+" not in parts.query and "%2B" in parts.query
    assert parse_qs(parts.query, keep_blank_values=True, strict_parsing=True) == {"gcg": [gcg]}
    # a whole game: 1,299 characters of GCG, a link of 1.6 times that (docs/api.md says how long)
    assert url == "https://woogles.io/scrabblecam/callback?" + parts.query and not parts.fragment
    assert 1_000 < len(gcg) < len(url) < 1.7 * len(gcg)


def test_the_link_encodes_as_encode_uri_component():
    # what JavaScript's encodeURIComponent leaves alone is A-Z a-z 0-9 - _ . ! ~ * ' ( ); Python's
    # quote leaves the same but for ! * ' ( ), which it escapes: both decode to the same text
    text = "#player1 Zoë Zoë & Co\n#note 100% + #tag?=x/y\n>Zoë: ?AB 8H BA +4 4\n"
    query = urlsplit(woogles_link(text)).query
    assert query.startswith("gcg=") and query.count("=") == 1 and "&" not in query and "#" not in query
    assert "%C3%AB" in query and "%0A" in query and "%20" in query and "%2F" in query
    assert parse_qs(query, strict_parsing=True) == {"gcg": [text]}


@pytest.mark.parametrize("path", GCG_FILES, ids=lambda p: p.name)
def test_a_finished_game_is_complete_for_woogles(path):
    record, profile = _record(path.read_bytes())
    text = write_gcg(record, profile, EN)
    assert woogles_gap(_replayed(record, profile)) is None
    assert macondo_game_over(text), "macondo's reader ends the game at its end-rack lines"
    last = [ln for ln in text.splitlines() if ln.startswith(">")][-1]
    assert "(" in last.split()[1] + last.split()[2], last   # '(RACK) +N' or 'RACK (RACK) -N'
    assert "Woogles" not in text and check_gcg(text) == []


def test_a_game_whose_end_racks_were_not_seen_says_so():
    record, profile = _record((LIWORDS / "josh_nationals_round_1.gcg").read_bytes())
    seen = write_gcg(record, profile, EN)
    unseen = _unsettled(record)
    assert woogles_gap(_replayed(unseen, profile)) == END_RACKS_NOT_SEEN
    text = write_gcg(unseen, profile, EN)
    assert text.splitlines()[-1] == "#note Woogles will not mark this game complete: the end racks were not seen"
    assert not macondo_game_over(text)          # the going out waits for the end-rack line nobody saw
    assert check_gcg(text) == []                # and the file still loads
    # nothing made up: the written lines are the complete game's without its end
    assert seen.splitlines()[-1] == ">jvc: (IQ) +22 491" and text.splitlines()[:-1] == seen.splitlines()[:-1]
    again, _ = _record(text)                    # our reader drops the note again
    assert again.events == unseen.events and write_gcg(again, profile, EN) == text


def test_a_game_ended_by_scoreless_turns_needs_its_racks_off():
    record, profile = _record(ZEROS)
    game = _replayed(record, profile)
    assert game.state.end_reason == "zeros" and woogles_gap(game) == ZEROS_RACKS_NOT_SEEN
    text = write_gcg(record, profile, EN)
    assert text.splitlines()[-1] == f"#note {ZEROS_RACKS_NOT_SEEN}"
    assert macondo_game_over(text)   # macondo (and Woogles) end it themselves: with racks of their own
    # the racks taken off, as the rules take them: complete, and no note
    game.final_racks(["?ACDELO", "EEIOUUV"])
    done = replace(record, events=tuple(game.events))
    assert woogles_gap(_replayed(done, profile)) is None
    text = write_gcg(done, profile, EN)
    assert "Woogles" not in text
    assert text.splitlines()[-2:] == [">ann: ?ACDELO (?ACDELO) -9 57", ">bob: EEIOUUV (EEIOUUV) -10 -10"]


def test_a_plus_minus_end_is_both_lines():
    # WESPA: the out-player gains the rack's value once, the opponent loses it: two end lines, both kept
    record, _ = _record((LIWORDS / "josh_nationals_round_1.gcg").read_bytes())
    wespa = get_profile("wespa")
    game = _replayed(_unsettled(record), wespa)
    game.finish_out()
    done = replace(record, events=tuple(game.events), rules="wespa")
    text = write_gcg(done, wespa, EN)
    assert text.splitlines()[-2:] == [">jvc: (IQ) +11 480", ">Dielle: IQ (IQ) -11 408"]
    assert woogles_gap(_replayed(done, wespa)) is None and macondo_game_over(text) and check_gcg(text) == []
