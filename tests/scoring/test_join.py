"""Joining a game under way (scoring.join.explain): real games' boards decoded into the plays that lay them."""
from __future__ import annotations

import pytest

from tilecam.scoring.board import Board, LAYOUTS, Square
from tilecam.scoring.game import Game
from tilecam.scoring.gcg import read_gcg, record_from_gcg
from tilecam.scoring.join import explain, unlikely
from tilecam.scoring.lexicon import Lexicon
from tilecam.scoring.placement import score_placement, validate_placement
from tilecam.scoring.rules import get_profile
from tilecam.scoring.scorekeeper import Scorekeeper
from tilecam.scoring.snapshot import Snapshot, classes_for
from tilecam.scoring.tiles import DISTRIBUTIONS

EN = DISTRIBUTIONS["en"]
CLASSES = classes_for(EN.letters)


def board_after(path, plays: int):
    """A real game (GCG) after its first `plays` plays that stand (a withdrawn phony's tiles come
    off): its board, and each play's squares and score as played; None when it has fewer."""
    profile = get_profile("naspa-csw")
    record, _, _ = record_from_gcg(read_gcg(path.read_bytes()), profile, EN)
    game, laid = Game(profile, EN), []
    for ev in record.events:
        score = score_placement(game.state.board, ev.placement, EN, validate=False).score \
            if ev.kind == "play" else None
        game.append(ev)
        if ev.kind == "play":
            laid.append((frozenset(t.square for t in ev.placement.tiles), score))
        elif ev.kind == "phony_withdrawn":
            laid.pop()
        if len(laid) == plays:
            return game.state.board.rows(), laid
    return None


def joined(rows, lexicon=None):
    """explain on an empty board, from a snapshot that reads `rows` (a blank as a blank tile)."""
    squares = [Square(r, c) for r, row in enumerate(rows) for c, ch in enumerate(row) if ch != "."]
    return explain(Board(LAYOUTS["standard"]), Snapshot.from_board(rows, CLASSES, 0.95), EN, squares,
                   lexicon), squares


def test_real_boards_after_six_plays_are_split_as_played(shared_data):
    """Every GCG game after 6 plays, read as one snapshot: every tile lies in a legal play (the first
    through the centre, each on the board the ones before it left), and most plays come out as
    played. 333 of 396 at this test's commit (tests/bench/bench_join.py); the first-fit peel it
    replaced split 304."""
    exact = scored = total = 0
    for path in sorted((shared_data / "gcg").rglob("*.gcg")):
        got = board_after(path, 6)
        if got is None:
            continue
        rows, laid = got
        plays, squares = joined(rows)
        assert plays is not None, path.name
        board = Board(LAYOUTS["standard"])
        for p in plays:
            validate_placement(board, p.placement, EN)
            for t in p.placement.tiles:
                board.put(t.square, t.tile)
        assert set(sq for sq, _ in board.items()) == set(squares), path.name   # every tile explained
        split = {(frozenset(t.square for t in p.placement.tiles)) for p in plays}
        exact += sum(sq in split for sq, _ in laid)
        total += len(laid)
    assert total > 350
    assert exact >= 0.8 * total, f"{exact} of {total} plays split as played"


def test_a_plural_hook_goes_with_the_word_across_it():
    """CATS across and SOME down from its S: CAT, then SOME hooking its S on (the same board as CATS
    then OME: the split is inferred, and an S at a word's end crossed by another word is a hook)."""
    rows = ["." * 15 for _ in range(15)]
    rows[7] = "....CATS......."
    for i, ch in enumerate("SOME"):
        rows[7 + i] = rows[7 + i][:7] + ch + rows[7 + i][8:]
    plays, _ = joined(rows)
    got = [sorted((t.square.row, t.square.col) for t in p.placement.tiles) for p in plays]
    assert sorted(got) == [[(7, 4), (7, 5), (7, 6)], [(7, 7), (8, 7), (9, 7), (10, 7)]], got


def test_a_line_longer_than_a_rack_is_two_plays(shared_data, enable_path):
    """QUANT down through the centre, then ALI above it: ALIQUANT holds 8 new tiles, more than a
    rack, so it is two plays (before, no split of it was tried and the board was not explained);
    which two, the lexicon tells: IQUANT or LIQUANT was never a word on the board."""
    rows, laid = board_after(shared_data / "gcg" / "liwords" / "test_vertical_openings_1.gcg", 2)
    plays, _ = joined(rows)
    assert plays is not None and len(plays) == 2
    plays, _ = joined(rows, Lexicon.from_file(enable_path))
    assert {frozenset(t.square for t in p.placement.tiles) for p in plays} == {sq for sq, _ in laid}


@pytest.mark.parametrize("n", [4, 8])
def test_a_hand_or_the_bag_is_not_a_board(n, shared_data):
    """A patch of tiles that touches no play (a hand, the bag on a corner) is never explained away."""
    rows, _ = board_after(shared_data / "gcg" / "liwords" / "josh_nationals_round_1.gcg", n)
    assert all(rows[r][c] == "." for r in range(0, 4) for c in range(0, 4))
    rows = [row if r > 2 else "EEE" + row[3:] for r, row in enumerate(rows)]
    plays, _ = joined(rows)
    assert plays is None


def _rows(*words) -> list[str]:
    rows = [list("." * 15) for _ in range(15)]
    for r, c, word, down in words:
        for i, ch in enumerate(word):
            rows[r + i * down][c + i * (not down)] = ch
    return ["".join(r) for r in rows]


def test_a_board_no_rack_could_lay_is_no_catch_up():
    """Issue 36: eight Zs across the centre (the set has one) were laid as Z??, AAA and AA, plays
    that never happened, read with certainty 0; now `unlikely` says why they are no catch-up."""
    plays, _ = joined(_rows((7, 4, "ZZZZ", False), (8, 4, "ZZZZ", False)))
    assert plays
    why = unlikely(plays, EN)
    assert why is not None and "certainty" in why


def test_real_boards_are_catch_ups_a_rack_could_make(shared_data):
    """The boards of real games after 6 plays, read as one snapshot: every sequence found passes."""
    for path in sorted((shared_data / "gcg" / "liwords").glob("josh_nationals_round_1*.gcg")):
        got = board_after(path, 6)
        if got is None:
            continue
        plays, _ = joined(got[0])
        assert plays and unlikely(plays, EN) is None, path.name


def test_a_catch_up_no_rack_could_make_is_flagged_and_records_nothing(shared_data):
    """The scorekeeper's catch-up: a board change no rack sequence explains is left unexplained (the
    lost-game watch's flag) and no play is recorded; a board a rack could lay is recorded, every play
    under review."""
    keeper = Scorekeeper(Game(get_profile("naspa-csw"), EN))
    rows = _rows((7, 4, "ZZZZ", False), (8, 4, "ZZZZ", False))
    obs = keeper.observe(Snapshot.from_board(rows, CLASSES, 0.95))
    assert obs.status == "unclear" and "no plays a rack could make" in obs.detail, obs
    assert not keeper.game.events
    assert len(keeper.unexplained()) == 8
    keeper = Scorekeeper(Game(get_profile("naspa-csw"), EN))
    rows, _ = board_after(shared_data / "gcg" / "liwords" / "josh_nationals_round_1.gcg", 4)
    obs = keeper.observe(Snapshot.from_board(rows, CLASSES, 0.97))
    assert obs.status == "play" and "joined" in obs.detail, obs
    assert len(keeper.game.events) >= 3 and all(e.review for e in keeper.game.events)
    assert keeper.unexplained() == []
