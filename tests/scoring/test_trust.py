"""Trust is earned per table (scoring.trust, issues 36 and 44): a camera play holding a tile the
table cannot vouch for (no person confirmed or corrected it, the two readers did not name it alike,
the game did not teach its letter; a blank unless a person did) goes under review, whatever its
certainty, and only a person takes it out."""
from __future__ import annotations

from dataclasses import replace

from hypothesis import settings, strategies as st
from hypothesis.stateful import RuleBasedStateMachine, initialize, invariant, rule

from tilecam.scoring.amend import (CorrectionError, ReenterPlay, Retile, confirmed, correct, standing,
                                   undo_correction, void)
from tilecam.scoring.board import Direction, Square
from tilecam.scoring.decode import DecodeConfig
from tilecam.scoring.errors import ScoringError
from tilecam.scoring.events import CAMERA, Correction, Doubt, Play
from tilecam.scoring.game import Game, effective_events
from tilecam.scoring.gcg.notation import play_notation
from tilecam.scoring.placement import PlacedTile, Placement, score_placement
from tilecam.scoring.rules import get_profile
from tilecam.scoring.scorekeeper import Scorekeeper
from tilecam.scoring.snapshot import Snapshot, classes_for
from tilecam.scoring.tiles import DISTRIBUTIONS
from tilecam.scoring.trust import TAUGHT_BY, built_on, face, in_doubt, learned, learning, seconded, taught, unlearned

import numpy as np

EN = DISTRIBUTIONS["en"]
NASPA = get_profile("naspa")
CLASSES = classes_for(EN.letters)
OP = "op"   # a person's token name


def snap(board, new: dict[tuple[int, int], str], p: float = 0.999,
         named: dict[tuple[int, int], tuple[str, str]] | None = None) -> Snapshot:
    """The board as the record holds it, with `new` tiles on it, read with probability `p`;
    `named`: what the classifier and the recogniser each named alone on a square (none: nothing)."""
    rows = [["."] * 15 for _ in range(15)]
    for sq, tile in board.items():
        rows[sq.row][sq.col] = "?" if tile.blank else tile.letter
    for (r, c), ch in new.items():
        rows[r][c] = ch
    readers = np.full((15, 15, 2), -1, np.int16)
    for (r, c), pair in (named or {}).items():
        readers[r, c] = [CLASSES.index(x) if x else -1 for x in pair]
    return Snapshot.from_board(["".join(row) for row in rows], CLASSES, p, readers=readers)


def pair(text: str) -> tuple[str, str]:
    """"CD": the classifier named C, the recogniser D; "|D": the classifier nothing; "|": neither."""
    return tuple(text.split("|")) if "|" in text else (text[0], text[1])


def across(keeper: Scorekeeper, r: int, c: int, word: str, p: float = 0.999, named=None) -> Play:
    """A camera play across; `named`: per tile, what the two readers named (e.g. ["CC", "A", ...])."""
    pairs = {} if named is None else {(r, c + i): pair(n) for i, n in enumerate(named)}
    obs = keeper.observe(snap(keeper.game.state.board, {(r, c + i): ch for i, ch in enumerate(word)}, p, pairs),
                         player=keeper.game.state.on_turn, pressed=True)
    assert obs.status == "play", obs
    return keeper.game.events[-1]


def down(keeper: Scorekeeper, r: int, c: int, word: str, p: float = 0.999, named=None) -> Play:
    """A camera play down from (r, c); `named` as for `across`."""
    pairs = {} if named is None else {(r + i, c): pair(n) for i, n in enumerate(named)}
    obs = keeper.observe(snap(keeper.game.state.board, {(r + i, c): ch for i, ch in enumerate(word)}, p, pairs),
                         player=keeper.game.state.on_turn, pressed=True)
    assert obs.status == "play", obs
    return keeper.game.events[-1]


def confirm(keeper: Scorekeeper, index: int) -> Correction:
    """A person's one click: the play re-entered as read."""
    events = keeper.game.events
    _, pos, word = play_notation(events[index], Game(NASPA, EN, events=events[:index]))
    entry = correct(keeper.entries, index, ReenterPlay(pos, word), NASPA, EN, by=OP, reason="confirmed as read")
    keeper.sync(keeper.entries + [entry])
    return entry


def test_a_sure_play_of_tiles_not_yet_learned_waits_for_a_person():
    keeper = Scorekeeper(Game(NASPA, EN))
    cat = across(keeper, 7, 6, "CAT")
    assert cat.certainty >= keeper.cfg.review_below and cat.review   # sure, and still flagged
    assert unlearned(cat.placement, keeper.learned()) == ["C", "A", "T"]
    confirm(keeper, 0)
    assert keeper.learned() == {"C", "A", "T"} and 0 in confirmed(keeper.entries)
    # the same tiles again: learned, so the certainty alone decides
    act = across(keeper, 8, 5, "TA")
    assert not act.review
    # a tile not yet seen at this table: flagged again
    assert across(keeper, 9, 4, "ZO").review


def test_a_tile_both_readers_named_alike_is_trusted_in_its_own_play():
    keeper = Scorekeeper(Game(NASPA, EN))
    cat = across(keeper, 7, 6, "CAT", named=["CC", "AA", "TT"])
    assert cat.readers == (("C", "C"), ("A", "A"), ("T", "T")) and not cat.review
    # one tile the readers named apart: the table cannot vouch for it
    assert across(keeper, 8, 5, "TO", named=["TT", "DO"]).review


def test_the_game_teaches_a_letter_seconded_on_earlier_tiles():
    keeper = Scorekeeper(Game(NASPA, EN))
    assert TAUGHT_BY == 2
    across(keeper, 7, 6, "OAT", named=["OO", "AA", "TT"])
    assert taught(keeper.entries, EN) == frozenset()
    across(keeper, 8, 5, "TO", named=["TT", "OO"])
    assert taught(keeper.entries, EN) == {"O", "T"}
    # O taught: a tile of it is trusted where one reader named O and the other nothing or O ...
    assert not across(keeper, 9, 4, "OT", named=["|O", "TT"]).review
    # ... never where a reader named another letter, nor where neither named it
    assert across(keeper, 10, 3, "TO", named=["TT", "DO"]).review
    assert across(keeper, 11, 2, "TO", named=["TT", "|"]).review


def test_a_blank_is_never_taught_by_the_game():
    keeper = Scorekeeper(Game(NASPA, EN))
    play = across(keeper, 7, 6, "C?T", named=["CC", "|", "TT"])
    assert play.review and unlearned(play.placement, frozenset(), play.readers) == ["?"]
    assert not seconded(PlacedTile(Square(0, 0), "A", True), ("A", "A"))   # a blank naming A is still a blank


def test_the_counts_unteach_a_letter_read_past_the_set():
    def plays(letter: str, n: int) -> list[Play]:
        return [Play(0, Placement((PlacedTile(Square(r, 7), letter, False),), Direction.ACROSS), (letter,), None, 1, 1,
                     1, certainty=1.0, readers=((letter, letter),)) for r in range(n)]
    assert taught(plays("E", 2), EN) == {"E"}
    # two Z seconded, the set has one: the counts say a Z reading is wrong somewhere
    assert taught(plays("Z", 2), EN) == frozenset()
    # a person's play teaches nothing here (its tiles are learned by confirming it)
    person = [Play(0, p.placement, p.words, None, 1, 1, 1) for p in plays("E", 2)]
    assert taught(person, EN) == frozenset()


def test_a_play_through_a_tile_read_in_doubt_goes_under_review():
    # the held-out videos' false plays: an earlier play under review, then a play both readers named
    # alike through a tile of it read in doubt: its own tiles right, its score the misread's. Here
    # the earlier A was named by no reader (the classifier said V, the recogniser nothing)
    keeper = Scorekeeper(Game(NASPA, EN))
    cat = across(keeper, 7, 6, "CAT", named=["CC", "V|", "TT"])
    assert cat.review and in_doubt(keeper.entries) == {Square(7, 7): "A"}
    ate = down(keeper, 8, 7, "TE", named=["TT", "EE"])
    assert ate.words[0] == "ATE" and ate.review and ate.doubts == (Doubt.BUILT_ON,)
    # through the tiles the readers agreed on (C, T) the play stands on its own reading
    assert not down(keeper, 8, 8, "OE", named=["OO", "EE"]).review


def test_one_reader_naming_another_letter_is_no_doubt_to_build_on():
    # a sure play whose A the classifier read V and the recogniser A: under review (the A is not
    # seconded), but a play through that A stands on its own reading
    keeper = Scorekeeper(Game(NASPA, EN))
    assert across(keeper, 7, 6, "CAT", named=["CC", "VA", "TT"]).review and in_doubt(keeper.entries) == {}
    assert not down(keeper, 8, 7, "TE", named=["TT", "EE"]).review


def test_a_play_read_under_the_certainty_threshold_puts_all_its_tiles_in_doubt():
    keeper = Scorekeeper(Game(NASPA, EN))
    cat = across(keeper, 7, 6, "CAT", p=0.9, named=["CC", "AA", "TT"])
    assert cat.doubts == (Doubt.CERTAINTY,) and set(in_doubt(keeper.entries)) == {Square(7, c) for c in (6, 7, 8)}
    assert down(keeper, 8, 8, "OE", named=["OO", "EE"]).doubts == (Doubt.BUILT_ON,)


def test_a_person_vouching_for_the_earlier_play_lifts_the_doubt():
    keeper = Scorekeeper(Game(NASPA, EN))
    across(keeper, 7, 6, "CAT", named=["CC", "V|", "TT"])
    confirm(keeper, 0)
    assert in_doubt(keeper.entries) == {}
    assert not down(keeper, 8, 7, "TE", named=["TT", "EE"]).review


def test_a_blank_is_in_doubt_when_a_reader_named_a_letter_on_it():
    # white-coloured-dark-odd: an M read as a blank (the classifier said M, the recogniser K)
    entries = [Play(0, Placement((PlacedTile(Square(7, 7), "M", True), PlacedTile(Square(7, 8), "O", False)),
                                 Direction.ACROSS), ("mO",), None, 4, 4, 4, certainty=0.99, review=True,
                    readers=(("M", "K"), ("O", "O")), doubts=(Doubt.UNLEARNED,))]
    assert in_doubt(entries) == {Square(7, 7): "?"}
    assert built_on([Square(7, 7), Square(7, 8)], in_doubt(entries)) == [Square(7, 7)]
    # a blank no reader named a letter on looks as a blank should: its play is flagged, not one through it
    plain = [replace(entries[0], readers=(("", ""), ("O", "O")))]
    assert in_doubt(plain) == {}


def test_a_letter_the_table_learned_is_still_in_doubt_when_read_unsure():
    # dark-jewel-check-odd: the tile check taught every letter, and a V read as A at 0.89 was built on
    keeper = Scorekeeper(Game(NASPA, EN))
    keeper.given = frozenset(EN.counts)
    cat = across(keeper, 7, 6, "CAT", p=0.9, named=["CC", "AA", "TT"])
    assert cat.doubts == (Doubt.CERTAINTY,) and Square(7, 7) in in_doubt(keeper.entries)
    assert down(keeper, 8, 7, "TE", named=["TT", "EE"]).doubts == (Doubt.BUILT_ON,)


def test_learn_table_off_builds_on_any_reading():
    keeper = Scorekeeper(Game(NASPA, EN), cfg=DecodeConfig(learn_table=False))
    across(keeper, 7, 6, "CAT", p=0.9, named=["CC", "V|", "TT"])
    assert not down(keeper, 8, 7, "TE", named=["TT", "EE"]).review


def test_learn_from_game_off_keeps_the_persons_word_alone():
    keeper = Scorekeeper(Game(NASPA, EN), cfg=DecodeConfig(learn_from_game=False))
    assert across(keeper, 7, 6, "CAT", named=["CC", "AA", "TT"]).review


def test_readers_survive_the_log_and_turning():
    from tilecam.scoring.events import from_json, to_json
    keeper = Scorekeeper(Game(NASPA, EN))
    cat = across(keeper, 7, 6, "CAT", named=["CC", "AD", "T|"])
    assert from_json(to_json(cat)) == cat and to_json(cat)["readers"] == [["C", "C"], ["A", "D"], ["T", ""]]
    s = snap(keeper.game.state.board, {}, named={(0, 1): ("Q", "O")})
    assert s.turned(1).named_by(13, 0) == ("Q", "O") and s.turned(1).turned(3).named_by(0, 1) == ("Q", "O")


def test_off_the_certainty_alone_decides():
    keeper = Scorekeeper(Game(NASPA, EN), cfg=DecodeConfig(learn_table=False))
    assert not across(keeper, 7, 6, "CAT").review


def test_the_tiles_a_table_learned_before_are_trusted():
    keeper = Scorekeeper(Game(NASPA, EN))
    keeper.given = frozenset("CAT")          # the tile check, or the game before at this table
    assert not across(keeper, 7, 6, "CAT").review
    assert across(keeper, 8, 5, "EX").review


def test_an_undo_of_the_confirmation_unlearns_and_hands_the_reader_nothing():
    keeper = Scorekeeper(Game(NASPA, EN))
    across(keeper, 7, 6, "CAT")
    first = confirm(keeper, 0)
    assert keeper.operator_squares() == [Square(7, 6), Square(7, 7), Square(7, 8)]   # labels for the reader
    undo = undo_correction(keeper.entries, keeper.entries.index(first), NASPA, EN, by=OP)
    keeper.sync(keeper.entries + [undo])
    assert keeper.learned() == frozenset() and 0 not in confirmed(keeper.entries)
    assert keeper.operator_squares() == []   # an undo is no one's word on the tiles


def test_a_correction_teaches_the_letter_the_person_gave():
    keeper = Scorekeeper(Game(NASPA, EN))
    across(keeper, 7, 6, "CAT")
    fix = correct(keeper.entries, 0, Retile(Square(7, 8), "R", blank=False), NASPA, EN, by=OP)
    keeper.sync(keeper.entries + [fix])
    assert keeper.learned() == {"C", "A", "R"}   # the reading the person replaced is not learned


def test_a_blank_is_a_tile_of_its_own():
    blank = PlacedTile(Square(7, 7), "S", blank=True)
    assert face(blank) == "?"
    game = Game(NASPA, EN)
    play = game.play(0, Placement((PlacedTile(Square(7, 6), "A"), blank), Direction.ACROSS), certainty=0.99,
                     review=True)
    entries = [play, Correction(0, play, OP, reason="confirmed as read")]
    assert learned(entries) == {"A", "?"}
    got = learning(entries, EN)
    assert (got.seen, got.of, got.confirmed, got.trusted) == (2, 27, 1, False)
    assert got.text == "learning: 2 of 27 tiles seen, 1 play confirmed"
    assert learning(entries, EN, given=EN.counts).text == "learned: all 27 tiles seen, 1 play confirmed"
    assert learned(entries, camera=OP) == frozenset()   # the camera's own word teaches nothing


# ---- the model: any sequence of camera plays, confirmations, corrections, undos and voids --------

class TrustMachine(RuleBasedStateMachine):
    """Camera plays hang down and up from a first play across row 8; a person confirms, corrects,
    undoes and voids. After every step: a camera play holding a tile not learned when it was made is
    under review, and a play leaves review only by a person's act on that very play."""

    @initialize(first=st.integers(4, 7), length=st.integers(2, 5), data=st.data())
    def start(self, first, length, data):
        self.keeper = Scorekeeper(Game(NASPA, EN))
        self.under: set[int] = set()
        self.camera(data, first=(7, max(first, 8 - length), length))

    def pool(self) -> list[str]:
        left = dict(EN.counts)
        for _, t in self.keeper.game.state.board.items():
            left["?" if t.blank else t.letter] -= 1
        return [t for t, n in left.items() for _ in range(n) if t != "?"]

    def camera(self, data, first=None):
        keeper = self.keeper
        board = keeper.game.state.board
        if first is not None:
            r, c, n = first
            squares = [(r, c + i) for i in range(n)]
        else:
            row8 = sorted(sq.col for sq, _ in board.items() if sq.row == 7)
            if not row8:
                return
            col = data.draw(st.sampled_from(row8))
            down = data.draw(st.booleans())
            n = data.draw(st.integers(1, 4))
            squares = [(8 + i, col) if down else (6 - i, col) for i in range(n)]
            # a line of its own: nothing on or beside it but the tile it hangs from
            if any(board[Square(r, c)] is not None or board[Square(r, c - 1)] is not None
                   or board[Square(r, c + 1)] is not None for r, c in squares if 0 <= c - 1 and c + 1 < 15):
                return
        pool = self.pool()
        if len(pool) < len(squares):
            return
        letters = data.draw(st.permutations(pool))[:len(squares)]
        p = data.draw(st.sampled_from([0.9, 0.99, 0.999]))
        # a blank now and then; what each reader named: alike, one of them, another letter, nothing
        letters = [("?" if data.draw(st.integers(0, 9)) == 0 else ch) for ch in letters]
        named = {}
        for sq, ch in zip(squares, letters):
            other = data.draw(st.sampled_from(EN.letters))
            named[sq] = data.draw(st.sampled_from([(ch, ch), ("", ch), (ch, ""), (other, ch), ("", "")])) \
                if ch != "?" else data.draw(st.sampled_from([("", ""), (other, other)]))
        before = list(keeper.entries)
        known = learned(before)
        doubt = in_doubt(before)
        board_before = keeper.game.state.board.copy()
        keeper.observe(snap(board, dict(zip(squares, letters)), p, named), player=keeper.game.state.on_turn,
                       pressed=True)
        for e in keeper.entries[len(before):]:
            if isinstance(e, Play) and e.certainty is not None and not e.review:
                for t, (c, o) in zip(e.placement.tiles, e.readers or [("", "")] * len(e.placement.tiles)):
                    if face(t) in known:
                        continue
                    assert not t.blank, "a blank no person vouched for went on air unflagged"
                    assert t.letter in (c, o) and {c, o} <= {"", t.letter}, \
                        f"{t.letter} read as {c or '-'}/{o or '-'} went on air unflagged"
                mine = {t.square for t in e.placement.tiles}
                words = score_placement(board_before, e.placement, EN, validate=False).words
                assert not built_on({sq for w in words for sq in w.squares if sq not in mine}, doubt), \
                    "a play through a tile read in doubt went on air unflagged"
        self.check(person=None)

    @rule(data=st.data())
    def camera_play(self, data):
        self.camera(data)

    def moves(self) -> list[int]:
        return standing(self.keeper.entries)

    @rule(data=st.data())
    def person_confirms(self, data):
        waiting = sorted(self.under)
        if not waiting:
            return
        at = data.draw(st.sampled_from(waiting))
        try:
            confirm(self.keeper, self.moves().index(at))
        except CorrectionError:
            return   # a blank nobody named: the console asks for its letter first
        self.check(person=at)

    @rule(data=st.data())
    def person_corrects(self, data):
        keeper = self.keeper
        plays = [i for i, e in enumerate(keeper.game.events) if isinstance(e, Play)]
        if not plays:
            return
        index = data.draw(st.sampled_from(plays))
        tile = data.draw(st.sampled_from(keeper.game.events[index].placement.tiles))
        letter = data.draw(st.sampled_from(EN.letters))
        try:
            entry = correct(keeper.entries, index, Retile(tile.square, letter, blank=False), NASPA, EN, by=OP)
        except ScoringError:
            return   # refused: the counts, or a later play built on it
        keeper.sync(keeper.entries + [entry])
        self.check(person=self.moves()[index])

    @rule(data=st.data())
    def person_undoes(self, data):
        keeper = self.keeper
        latest = {}
        for i, e in enumerate(keeper.entries):
            if isinstance(e, Correction):
                latest[e.target] = i
        if not latest:
            return
        at = data.draw(st.sampled_from(sorted(latest.values())))
        try:
            entry = undo_correction(keeper.entries, at, NASPA, EN, by=OP)
        except ScoringError:
            return
        keeper.sync(keeper.entries + [entry])
        self.check(person=keeper.entries[at].target)

    @rule()
    def person_voids_the_last(self):
        keeper = self.keeper
        moves = self.moves()
        if len(moves) < 2:
            return
        try:
            entry = void(keeper.entries, len(moves) - 1, NASPA, EN, by=OP)
        except ScoringError:
            return
        keeper.sync(keeper.entries + [entry])
        self.check(person=moves[-1])

    def review(self) -> set[int]:
        """Log positions of the plays under review as the API shows them (queries._reading)."""
        entries = self.keeper.entries
        yes = confirmed(entries)
        events = effective_events(entries, NASPA, EN)
        return {at for at, ev in zip(standing(entries), events)
                if isinstance(ev, Play) and ev.review and at not in yes}

    def check(self, person: int | None) -> None:
        now = self.review()
        left = self.under - now - ({person} if person is not None else set())
        assert not left, f"plays {left} left review with no person acting on them"
        self.under = now

    @invariant()
    def learned_is_what_people_vouched_for(self):
        entries = self.keeper.entries
        assert self.keeper.learned() <= set(EN.counts)
        if not any(isinstance(e, Correction) and e.by != CAMERA for e in entries):
            assert self.keeper.learned() == frozenset()


TrustMachine.TestCase.settings = settings(max_examples=40, stateful_step_count=12, deadline=None,
                                          derandomize=True)
test_trust_machine = TrustMachine.TestCase
