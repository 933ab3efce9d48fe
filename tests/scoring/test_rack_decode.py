"""A rack read decoded against what the game knows (scoring/rack_decode.py, issue 45): the unseen
pool, the tiles kept from the player's last rack, a play's own tiles; and its invariants."""
from __future__ import annotations

from collections import Counter

from hypothesis import given, settings, strategies as st

from tilecam.scoring.game import Game
from tilecam.scoring.gcg.notation import placement_from_gcg
from tilecam.scoring.rack_decode import decode
from tilecam.scoring.racks import RackBook, RackSeen, RackTrust
from tilecam.scoring.rules import get_profile
from tilecam.scoring.tally import unseen
from tilecam.scoring.tiles import DISTRIBUTIONS

EN = DISTRIBUTIONS["en"]
SURE = 0.9  # [racks] review_below as the settings give it
TRUST = RackTrust(SURE)  # as the station builds it from them


def read(tiles: str, cert: dict | None = None, alts: dict | None = None, player: int = 0) -> RackSeen:
    """A read of `tiles` ('.' not seen), each slot at 0.99 unless `cert` says (by position), with the
    runner-ups `alts` gives (by position)."""
    cert, alts = cert or {}, alts or {}
    return RackSeen(player, 0.0, tuple(None if t == "." else t for t in tiles),
                    tuple(None if t == "." else cert.get(i, 0.99) for i, t in enumerate(tiles)),
                    alts=tuple(tuple(alts.get(i, ())) for i in range(len(tiles))))


def played(game: Game, player: int, pos: str, word: str, rack: str):
    return game.play(player, placement_from_gcg(game, pos, word), rack=rack)


# ---- the leave: the tiles kept from the last rack ----------------------------------------

def test_a_kept_tile_read_surely_as_another_is_the_kept_tile_by_its_runner_up():
    """Ann played RATS from AEINRST (known whole): her rack now holds E, I, N. The camera reads the
    N surely as M (an unseen font: both readers agree) with N its runner-up: the rack is the N's,
    and as the game decided it, its certainty is its share of the racks that fit."""
    game = Game(get_profile("naspa"), EN)
    book = RackBook(EN, 2, TRUST)
    played(game, 0, "8E", "RATS", "AEINRST")
    assert book.kept(0, game.events) == Counter("EIN")
    r = read("EIMBCDO", {2: 0.95}, {2: (("N", 0.04),)})
    fitted = book.fit(r, game.state.board, game.events)
    assert fitted.changed and "".join(fitted.rack.tiles) == "EINBCDO"
    # its share: the other racks that fit have another slot's unlisted mass be the N, unlikely
    assert 0.9 < fitted.rack.certainty[2] < 1.0
    assert fitted.rack.certainty[0] >= 0.99              # the kept E read as E: no less sure
    assert fitted.rack.certainty[3] >= SURE              # B: might have been the N, unlikely: still sure


def test_the_game_leaving_no_other_choice_makes_the_slot_sure():
    """Every slot's letters listed in full (no mass unlisted): the leave's N can only be the third
    slot's, so it is sure though the reader put it second."""
    game = Game(get_profile("naspa"), EN)
    book = RackBook(EN, 2, TRUST)
    played(game, 0, "8E", "RATS", "AEINRST")
    r = RackSeen(0, 0.0, tuple("EIMBCDO"), (1.0, 1.0, 0.8, 1.0, 1.0, 1.0, 1.0),
                 alts=((), (), (("N", 0.2),), (), (), (), ()))
    fitted = book.fit(r, game.state.board, game.events)
    assert "".join(fitted.rack.tiles) == "EINBCDO" and fitted.rack.certainty[2] == 1.0


def test_a_read_the_leave_cannot_explain_is_taken_under_the_counts_alone():
    """A read of a later rack (Ann's next play lifted before the board shows it) need not hold the
    leave: with no runner-up that holds it, the read is taken as the counts allow, as read."""
    game = Game(get_profile("naspa"), EN)
    book = RackBook(EN, 2, TRUST)
    played(game, 0, "8E", "RATS", "AEINRST")
    r = read("BCDOPQU")
    fitted = book.fit(r, game.state.board, game.events)
    assert fitted.rack is r and not fitted.breaks


def test_the_leave_of_a_rack_not_seen_whole_is_its_sure_tiles_and_none_after_unnamed_tiles():
    game = Game(get_profile("naspa"), EN)
    book = RackBook(EN, 2, TRUST)
    assert book.kept(0, game.events) == Counter()
    # judged from a read A.E.RST: the tiles surely seen and those played
    game.play(0, placement_from_gcg(game, "8E", "RATS"), rack="AERST", rack_note="rack not seen whole")
    assert book.kept(0, game.events) == Counter("E")      # the sure E stayed
    game.exchange(1, 3, None, "ABCDEFG")
    assert book.kept(1, game.events) == Counter()
    game.pass_turn(0)
    assert book.kept(0, game.events) == Counter()


# ---- a play's own tiles ------------------------------------------------------------------

def test_the_rack_before_a_play_holds_its_tiles_by_the_readers_runner_up():
    """A D read surely as P (both readers agree on the wrong letter), D the runner-up: the play
    DIRE was made from this rack, so the rack is the D's (not a play flagged as not from the rack)."""
    game = Game(get_profile("naspa"), EN)
    book = RackBook(EN, 2, TRUST)
    r = read("AEINRSP", {6: 0.95}, {6: (("D", 0.04),)})
    judged = book.judge(r, "DIRE", game.state.board)
    assert not judged.review and judged.rack == "ADEINRS"


def test_a_play_the_game_cannot_surely_explain_is_still_not_from_the_rack():
    """The board read a blank in a play (A?) that the rack read surely without one, the blank only a
    faint runner-up of three slots: the game does not decide which slot, so nothing is bent to fit
    the board; the play is flagged, the rack read's evidence kept (train-b's A..e, a board misread)."""
    game = Game(get_profile("naspa"), EN)
    book = RackBook(EN, 2, TRUST)
    r = read("NUUARNV", alts={0: (("?", 0.005),), 1: (("?", 0.004),), 2: (("?", 0.004),)})
    judged = book.judge(r, "A?", game.state.board)
    assert judged.review and judged.rack is None and "? not on the rack read NUUARNV" in judged.note


def test_a_play_no_runner_up_explains_is_still_not_from_the_rack():
    game = Game(get_profile("naspa"), EN)
    book = RackBook(EN, 2, TRUST)
    judged = book.judge(read("AEINRSP", alts={6: (("B", 0.04),)}), "DIRE", game.state.board)
    assert judged.review and judged.rack is None


# ---- invariants ------------------------------------------------------------------------------

LETTERS = "ABCDEIKNOQRSTXZ?"
slot = st.tuples(st.sampled_from(LETTERS + "."), st.floats(0.3, 1.0),
                 st.lists(st.tuples(st.sampled_from(LETTERS), st.floats(0.0, 0.3)), max_size=3))


@settings(max_examples=300, deadline=None)
@given(slots=st.lists(slot, min_size=1, max_size=7),
       room=st.dictionaries(st.sampled_from(LETTERS), st.integers(0, 3)),
       holds=st.lists(st.sampled_from(LETTERS), max_size=4))
def test_a_decoded_rack_never_breaks_the_counts_and_always_holds_what_it_must(slots, room, holds):
    r = RackSeen(0, 0.0, tuple(None if t == "." else t for t, _, _ in slots),
                 tuple(None if t == "." else c for t, c, _ in slots),
                 alts=tuple(tuple(a) if t != "." else () for t, _, a in slots))
    got = decode(r, Counter(room), Counter(holds))
    if got is None:
        return
    named = Counter(t for t in got.tiles if t is not None)
    assert not named - Counter(room)                                   # within the unseen pool
    assert sum((Counter(holds) - named).values()) <= got.hidden       # holds the play's / kept tiles
    assert [t is None for t in got.tiles] == [t is None for t in r.tiles]   # a slot not seen stays so
    assert all(c is None or 0.0 <= c <= 1.0 for c in got.certainty)
    for t, a, opts in zip(got.tiles, r.tiles, r.alts):                 # only the reader's letters
        assert t == a or t in {x for x, _ in opts}


BAG = "AAAEEEIIINNRRSSTTDDLLOO"


@settings(max_examples=200, deadline=None)
@given(picks=st.lists(st.integers(0, len(BAG) - 1), unique=True, min_size=7, max_size=7),
       k=st.integers(1, 4), wrong=st.integers(0, 6), sure=st.floats(0.5, 0.99))
def test_a_play_from_a_rack_read_with_its_true_letter_listed_is_always_from_the_rack(picks, k, wrong, sure):
    """The play's tiles came off the rack. Whatever the judged rack, it holds them and the set can
    hold it; and a slot misread under review_below, the true letter listed, never flags the play
    (nor one the game decides surely: rack_decode)."""
    rack = [BAG[i] for i in picks]          # a rack the set can hold
    game = Game(get_profile("naspa"), EN)
    book = RackBook(EN, 2, TRUST)
    shown = list(rack)
    alts = {}
    if shown[wrong] != "Z":
        alts[wrong] = (("" + shown[wrong], round(1 - sure, 4)),)
        shown[wrong] = "Z"
    r = read("".join(shown), {wrong: sure}, alts)
    play = "".join(rack[:k]) if wrong >= k else "".join(rack[wrong:wrong + k])
    judged = book.judge(r, play, game.state.board)
    if sure < SURE or wrong not in range(len(shown)) or shown[wrong] == rack[wrong]:
        assert not judged.review
    if judged.rack is not None:
        assert not Counter(play) - Counter(judged.rack)
        assert not Counter(judged.rack) - unseen(game.state.board, EN)
    else:
        assert judged.review
