"""The record never holds more of a tile than the set has (issue 26, item 1; issue 35, item 2:
exchanges and racks too): one rule in scoring.tally, kept by every builder, correction, the
decoder and the scorekeeper; the recount flags a record read from a file that breaks it."""
from __future__ import annotations

import dataclasses
from collections import Counter

import pytest

from tilecam.scoring.amend import MakeExchange, ReenterPlay, Retile, admit_amendment, correct
from tilecam.scoring.board import Square
from tilecam.scoring.decode import DecodeConfig, ProposedPlay, Unclear, decode_move
from tilecam.scoring.events import Correction, Exchange
from tilecam.scoring.game import Game, SetExceeded, effective_events
from tilecam.scoring.gcg import GcgError, placement_from_gcg, read_gcg, record_from_gcg
from tilecam.scoring.recount import discrepancies, recount_lines
from tilecam.scoring.rules import get_profile
from tilecam.scoring.scorekeeper import Scorekeeper
import tilecam.scoring.scorekeeper.credit as credit
from tilecam.scoring.snapshot import Snapshot
from tilecam.scoring.tally import excess, holding, over_set, tally
from tilecam.scoring.tiles import BLANK, DISTRIBUTIONS

from test_decode import CLASSES, board_from, rows_with

EN = DISTRIBUTIONS["en"]
NASPA = get_profile("naspa")


def played(*plays: tuple[str, str]) -> Game:
    g = Game(NASPA, EN)
    for i, (pos, word) in enumerate(plays):
        g.play(i % 2, placement_from_gcg(g, pos, word))
    return g


def test_excess_names_the_tile_and_both_counts():
    assert excess(Counter({"Z": 1, BLANK: 2}), EN) is None
    assert excess(Counter({"Z": 2}), EN).says("this play") == "the set has 1 Z; this play would make 2"
    assert excess(Counter({BLANK: 3}), EN).says("this play", made=True) == "the set has 2 blanks; this play makes 3"
    # against what the record held: a tile already past the set counts only when it grows
    assert excess(Counter({"V": 3}), EN, than=Counter({"V": 3})) is None
    assert excess(Counter({"V": 4}), EN, than=Counter({"V": 3})).count == 4


def test_a_typed_play_beyond_the_set_is_refused_and_nothing_changes():
    g = Game(NASPA, EN)
    with pytest.raises(SetExceeded, match=r"^the set has 1 Z; this play would make 7$"):
        g.play(0, placement_from_gcg(g, "8D", "ZZZZZZZ"))
    assert not g.events and not len(g.state.board) and g.state.bag == 86
    g = played(("8E", "VIVA"), ("G8", "VEX"))
    before = (len(g.events), g.state.board.rows(), g.state.scores)
    with pytest.raises(SetExceeded, match=r"the set has 2 V; this play would make 3"):
        g.play(0, placement_from_gcg(g, "H8", "AVE"))
    assert (len(g.events), g.state.board.rows(), g.state.scores) == before
    g.play(0, placement_from_gcg(g, "H8", "AvE"))  # a blank standing for V is a blank, not a V


def test_a_blank_is_a_blank_whatever_it_stands_for():
    g = played(("8F", "bOa"))  # both blanks down
    assert tally(g.state.board)[BLANK] == 2
    with pytest.raises(SetExceeded, match="the set has 2 blanks; this play would make 3"):
        g.play(1, placement_from_gcg(g, "G7", "z."))
    # a rack said to hold a third blank beside them
    with pytest.raises(SetExceeded, match="the set has 2 blanks; this play with its rack would make 3"):
        g.play(1, placement_from_gcg(g, "G7", "T."), rack="T?EINRS")
    with pytest.raises(SetExceeded, match="the set has 2 blanks; this rack would make 3"):
        g.state.unseen_for(EN, "?")


def test_a_correction_beyond_the_set_is_refused_a_record_past_it_can_still_be_mended():
    g = played(("8E", "VIVA"), ("G8", "VEX"))
    entries = list(g.events)
    with pytest.raises(SetExceeded, match="the set has 2 V; this correction would make 3"):
        correct(entries, 1, Retile(Square(8, 6), "V", blank=False), NASPA, EN, by="op")
    # the runner-up of the review queue is a re-entered play: the same rule
    with pytest.raises(SetExceeded, match="the set has 2 V; this correction would make 3"):
        correct(entries, 1, ReenterPlay("G8", ".VX"), NASPA, EN, by="op")
    # naming a blank never changes the tally; the blank's letter may be a V
    g2 = played(("8E", "VIVA"), ("G8", ".eX"))
    correct(list(g2.events), 1, Retile(Square(8, 6), "V", blank=True), NASPA, EN, by="op")

    # A record already past the set (read from a file): a correction that mends it, or leaves
    # it as it was, is taken; one that adds to it is not.
    lenient = Game(NASPA, EN, within_set=False)
    for i, (pos, word) in enumerate((("8E", "VIVA"), ("G8", ".VX"), ("10E", "ZA."))):
        lenient.play(i % 2, placement_from_gcg(lenient, pos, word))
    past = list(lenient.events)
    fix = correct(past, 1, Retile(Square(8, 6), "E", blank=False), NASPA, EN, by="op")
    assert tally(Game(NASPA, EN, events=effective_events(past + [fix], NASPA, EN)).state.board)["V"] == 2
    correct(past, 2, Retile(Square(9, 5), "O", blank=False), NASPA, EN, by="op")  # the A of ZAX: V stays 3
    with pytest.raises(SetExceeded, match="the set has 2 V; this correction would make 4"):
        correct(past, 2, Retile(Square(9, 5), "V", blank=False), NASPA, EN, by="op")
    # an amendment made elsewhere (the camera, a client) is held to the same rule
    vvx = placement_from_gcg(Game(NASPA, EN, events=entries[:1]), "G8", ".VX")
    bad = Correction(1, dataclasses.replace(entries[1], placement=vvx), by="camera")
    with pytest.raises(SetExceeded, match="the set has 2 V; this correction would make 3"):
        admit_amendment(entries, bad, NASPA, EN)


GCG = """#character-encoding UTF-8
#player1 a Alice
#player2 b Bob
>a: ZZZZZZZ 8D ZZZZZZZ +210 210
>b: AEINRST 9C ANTSIER +70 70
"""


def test_a_gcg_beyond_the_set_is_refused_on_import_and_flagged_by_the_recount():
    with pytest.raises(GcgError, match=r"line 4: .*the set has 1 Z; this play would make 7"):
        record_from_gcg(read_gcg(GCG), NASPA, EN)
    record, _, line_nos = record_from_gcg(read_gcg(GCG), NASPA, EN, within_set=False)
    lines = recount_lines(record, line_nos)
    assert lines[0].over_set == "the set has 1 Z; this play makes 7" and lines[1].over_set is None
    found = [d for d in discrepancies(lines) if d.what == "tiles"]
    assert [(d.line_no, d.number, d.over_set) for d in found] == [(4, 1, "the set has 1 Z; this play makes 7")]


def test_the_decoder_never_commits_a_third_blank_nor_offers_one():
    # Both blanks, the Z and the Q are down; a new square read as a blank at 97% (a fold line, a
    # printed face), else Z, else Q: none of the letters read is left. The play the pool can
    # supply goes in, in doubt (for review), and no runner-up breaks the set.
    rows = rows_with(((7, 6), "C?T", "a"), ((6, 8), "?", "a"), ((0, 0), "Z", "a"), ((0, 14), "Q", "a"))
    board = board_from(rows)
    now = rows_with(((7, 6), "C?T", "a"), ((6, 8), "?", "a"), ((0, 0), "Z", "a"), ((0, 14), "Q", "a"),
                    ((8, 6), "O", "a"), ((9, 6), "W", "a"))
    probs = Snapshot.from_board(now, CLASSES, 0.95).probs.copy()
    probs[8, 6, :] = 0.0
    for ch, p in (("?", 0.96), ("Z", 0.015), ("Q", 0.01), ("O", 0.005), (".", 0.01)):
        probs[8, 6, CLASSES.index(ch)] = p
    d = decode_move(board, Snapshot(CLASSES, probs), EN)
    assert isinstance(d.change, ProposedPlay)
    assert [(t.letter, t.blank) for t in d.change.placement.tiles] == [("O", False), ("W", False)]
    # its certainty is the real one given the counts (the O is the only letter the pool holds among
    # those read at that square), not a figure shown as 0.0 %; the doubt is said apart (issue 35)
    assert d.change.from_pool and d.change.certainty > 0.5
    assert all(0.0 < r.probability <= d.change.certainty for r in d.change.runner_ups)
    for reading in (d.change.placement, *(r.placement for r in d.change.runner_ups)):
        held = tally(board) + Counter(BLANK if t.blank else t.letter for t in reading.tiles)
        assert excess(held, EN) is None
    # all 100 tiles on the board and one more read: no reading the pool can supply, so no play
    full = [list("." * 15) for _ in range(15)]
    for i, t in enumerate(t for t in EN.counts for _ in range(EN.counts[t])):
        full[i // 15][i % 15] = t
    rows = ["".join(r) for r in full]
    now = rows[:7] + ["E" + "." * 14] + rows[8:]
    d = decode_move(board_from(rows), Snapshot.from_board(now, CLASSES, 0.95), EN)
    assert isinstance(d.change, Unclear) and "unseen tiles cannot supply" in d.change.reason
    assert d.doubtful == (Square(7, 0),)


def test_the_scorekeeper_never_writes_a_third_v_into_a_committed_play():
    keeper = Scorekeeper(Game(NASPA, EN))
    keeper.observe(Snapshot.from_board(rows_with(((7, 4), "VIVA", "a")), CLASSES, 0.99), pressed=True)
    keeper.observe(Snapshot.from_board(rows_with(((7, 4), "VIVA", "a"), ((8, 6), "EX", "d")), CLASSES, 0.99),
                   pressed=True)
    assert len(keeper.game.events) == 2
    # later frames read the E of VEX as a V, surely: amending it would make a third V
    obs = keeper.observe(Snapshot.from_board(rows_with(((7, 4), "VIVA", "a"), ((8, 6), "VX", "d")), CLASSES, 0.99))
    assert not any(isinstance(e, Correction) for e in obs.entries)
    assert tally(keeper.game.state.board)["V"] == 2 and keeper.game.events[1].words[0] == "VEX"


# ---- issue 35, item 2: exchanges, passes and racks are held to the same counts -------------------

def test_over_set_says_what_no_rack_can_hold_beside_the_board():
    two_v = Counter({"V": 2})
    assert over_set(two_v, Counter({"V": 3}), EN).says(None) == \
        "the set has 2 V; both are on the board, so no rack can hold VVV"
    assert over_set(Counter({"V": 1}), Counter({"V": 2}), EN).says(None) == \
        "the set has 2 V; 1 is on the board, so no rack can hold VV"
    assert over_set(Counter(), Counter({"Z": 2}), EN).says(None) == "the set has 1 Z, so no rack can hold ZZ"
    assert over_set(Counter({"Z": 1}), Counter({"Z": 1}), EN).says(None, made=True) == \
        "the set has 1 Z; it is on the board, so no rack could hold Z"
    assert over_set(Counter({BLANK: 2}), Counter({BLANK: 1}), EN).says(None) == \
        "the set has 2 blanks; both are on the board, so no rack can hold ?"
    assert over_set(two_v, Counter({"V": 0, "E": 7}), EN) is None  # the board's own count is no breach
    assert over_set(Counter({"V": 3}), Counter({"E": 2}), EN) is None  # nor a tile the entry does not hold
    assert holding(two_v, Counter({"V": 1, "E": 2})) == Counter({"V": 3, "E": 2})


def test_an_exchange_of_tiles_the_set_cannot_supply_is_refused_and_nothing_changes():
    # The game: both V on the board, then an exchange of VVV, then of ZZ, both answered 200
    g = played(("8E", "VIVA"), ("G8", "VEX"))
    before = (len(g.events), g.state.bag, dict(g.state.peak))
    with pytest.raises(SetExceeded, match=r"^the set has 2 V; both are on the board, so no rack can hold VVV$"):
        g.exchange(0, 3, "VVV")
    with pytest.raises(SetExceeded, match=r"^the set has 1 Z, so no rack can hold ZZ$"):
        g.exchange(0, 2, "ZZ")
    # the rack it came from counts too: tiles thrown in are tiles the player held
    with pytest.raises(SetExceeded, match="so no rack can hold V"):
        g.exchange(0, 2, "AE", rack="AEVRSTU")
    assert (len(g.events), g.state.bag, dict(g.state.peak)) == before
    g.exchange(0, 2, "ZA", rack="ZAERSTU")  # the one Z, still off the board
    # a rack said at a pass, a lost turn or an overtime penalty: the same rule
    with pytest.raises(SetExceeded, match="the set has 2 V; both are on the board, so no rack can hold V"):
        g.pass_turn(1, rack="AEIVRST")
    with pytest.raises(SetExceeded, match="the set has 1 Z, so no rack can hold ZZ"):
        g.lose_turn(1, rack="ZZ")
    # a record rebuilt from what was said (the recorder's entries, an import) goes through it too
    with pytest.raises(SetExceeded, match="no rack can hold VVV"):
        g.admit(Exchange(1, 3, "VVV", g.state.scores[1]))


def test_a_correction_into_an_exchange_the_set_cannot_supply_is_refused():
    g = played(("8E", "VIVA"), ("G8", "VEX"))
    g.pass_turn(0)
    entries = list(g.events)
    with pytest.raises(SetExceeded, match="the set has 2 V; this correction would make 5"):
        correct(entries, 2, MakeExchange(3, "VVV"), NASPA, EN, by="op")
    correct(entries, 2, MakeExchange(3, "EEE"), NASPA, EN, by="op")


EXCHANGE_GCG = """#character-encoding UTF-8
#player1 a Alice
#player2 b Bob
>a: AIVVXAE 8E VIVA +20 20
>b: EEINRST -EE +0 0
>a: AEVVVRS -VVV +0 20
>b: EINRSTZ -ZZ +0 0
"""


def test_an_exchange_gcg_past_the_set_is_refused_on_import_and_flagged_by_the_recount():
    with pytest.raises(GcgError, match=r"line 6: .*the set has 2 V; both are on the board, so no rack can hold VVV"):
        record_from_gcg(read_gcg(EXCHANGE_GCG), NASPA, EN)
    record, _, line_nos = record_from_gcg(read_gcg(EXCHANGE_GCG), NASPA, EN, within_set=False)
    lines = recount_lines(record, line_nos)
    assert [ln.over_set for ln in lines] == [
        None, None, "the set has 2 V; both are on the board, so no rack could hold VVV",
        "the set has 1 Z, so no rack could hold ZZ"]
    found = [(d.line_no, d.what, d.over_set) for d in discrepancies(lines)]
    assert found[0] == (6, "tiles", "the set has 2 V; both are on the board, so no rack could hold VVV")


def test_a_camera_correction_to_a_runner_up_takes_its_certainty_and_offers_the_old_reading():
    """Issue 35, item 7: later frames read the A of COT surely; the play becomes CAT, its runner-up.
    Its certainty is now CAT's own and COT is the runner-up, never CAT offered against itself."""
    keeper = Scorekeeper(Game(NASPA, EN))
    probs = Snapshot.from_board(rows_with(((7, 6), "COT", "a")), CLASSES, 0.99).probs.copy()
    probs[7, 7, :] = 0.02 / (len(CLASSES) - 2)
    probs[7, 7, CLASSES.index("O")], probs[7, 7, CLASSES.index("A")] = 0.6, 0.38
    keeper.observe(Snapshot(CLASSES, probs), pressed=True)
    read = keeper.game.events[0]
    assert read.words == ("COT",) and read.review and read.runner_ups[0][:2] == ("8G", "CAT")
    keeper.observe(Snapshot.from_board(rows_with(((7, 6), "CAT", "a")), CLASSES, 0.99))
    now = keeper.game.events[0]
    assert now.words == ("CAT",) and now.certainty == read.runner_ups[0][2]
    assert now.runner_ups == (("8G", "COT", read.certainty),) + read.runner_ups[1:]


def test_a_play_the_pool_alone_read_goes_for_review_whatever_its_certainty():
    keeper = Scorekeeper(Game(NASPA, EN))
    g = keeper.game
    play = credit.play(keeper, 0, ProposedPlay(placement_from_gcg(g, "8G", "CAT"), 0.99, False, (), certainty=0.99,
                                              from_pool=True))
    assert play.review and play.certainty == 0.99
