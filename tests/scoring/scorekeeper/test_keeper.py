"""The scorekeeper rebuilds real games from board snapshots alone, as the camera would see them."""
from __future__ import annotations

import pytest

from conftest import shared_data_dir
from tilecam.scoring.board import Square
from tilecam.scoring.events import Correction, Doubt, Play
from tilecam.scoring.game import Game
from tilecam.scoring.gcg import read_gcg, record_from_gcg
from tilecam.scoring.rules import get_profile
from tilecam.scoring.scorekeeper import Scorekeeper
from tilecam.scoring.snapshot import Snapshot, classes_for
from tilecam.scoring.tiles import DISTRIBUTIONS

EN = DISTRIBUTIONS["en"]
CLASSES = classes_for(EN.letters)
GAMES = sorted((shared_data_dir() / "gcg").rglob("*.gcg"))[::6]  # a spread of the shared games


@pytest.mark.parametrize("path", GAMES, ids=lambda p: p.name)
def test_plays_from_snapshots_score_as_recorded(path):
    record, _, _ = record_from_gcg(read_gcg(path.read_bytes()), get_profile("naspa-csw"), EN)
    truth = Game(get_profile("naspa-csw"), EN)
    keeper = Scorekeeper(Game(get_profile("naspa-csw"), EN))
    for ev in record.events:
        truth.append(ev)
        if ev.kind in ("challenge_bonus", "end_rack_points", "end_rack_penalty", "time_penalty"):
            continue  # said at the table, not seen on the board
        snap = Snapshot.from_board(truth.state.board.rows(), CLASSES, confidence=0.9)
        keeper.observe(snap, player=ev.player, pressed=True)
    got = [(e.player, e.engine) for e in keeper.game.events if isinstance(e, Play)]
    want = [(e.player, e.engine) for e in record.events if isinstance(e, Play)]
    assert got == want
    assert [e.kind for e in keeper.game.events].count("phony_withdrawn") == \
        [e.kind for e in record.events].count("phony_withdrawn")


def test_a_misread_is_corrected_by_later_frames():
    keeper = Scorekeeper(Game(get_profile("naspa"), EN))
    rows = ["." * 15] * 7 + ["......CAT......"] + ["." * 15] * 7
    misread = ["." * 15] * 7 + ["......COT......"] + ["." * 15] * 7
    first = keeper.observe(Snapshot.from_board(misread, CLASSES, 0.6), player=0, pressed=True)
    assert first.status == "play" and keeper.game.events[0].words == ("COT",)
    for _ in range(8):
        obs = keeper.observe(Snapshot.from_board(rows, CLASSES, 0.95))
    corrections = [e for e in keeper.entries if isinstance(e, Correction)]
    assert len(corrections) == 1 and corrections[0].by == "camera" and corrections[0].target == 0
    assert keeper.game.events[0].words == ("CAT",)
    assert keeper.game.events[0].engine == 10


def test_nothing_new_at_a_clock_press_is_a_pass():
    keeper = Scorekeeper(Game(get_profile("naspa"), EN))
    empty = Snapshot.from_board(["." * 15] * 15, CLASSES)
    assert keeper.observe(empty).status == "no_change"
    assert keeper.observe(empty, pressed=True).status == "pass"
    assert keeper.game.state.on_turn == 1


def test_sync_adopts_an_operators_correction():
    from tilecam.scoring.events import Exchange
    keeper = Scorekeeper(Game(get_profile("naspa"), EN))
    empty = Snapshot.from_board(["." * 15] * 15, CLASSES)
    keeper.observe(empty, pressed=True)            # the camera saw a pass
    fixed = keeper.entries + [Correction(0, Exchange(0, 4, None, 0), by="operator")]
    assert keeper.sync(fixed)
    assert keeper.game.events[0].kind == "exchange"
    assert not keeper.sync(list(fixed))


def test_withdrawal_and_next_play_seen_together():
    keeper = Scorekeeper(Game(get_profile("naspa"), EN))
    empty = ["." * 15] * 15
    cat = empty[:7] + ["......CAT......"] + empty[8:]
    phony = cat[:8] + ["........Z......", "........X......"] + cat[10:]   # TZX: a phony the set can supply
    cow = cat[:8] + ["......O........", "......W........"] + cat[10:]
    keeper.observe(Snapshot.from_board(cat, CLASSES, 0.95), player=0, pressed=True)
    keeper.observe(Snapshot.from_board(phony, CLASSES, 0.95), player=1, pressed=True)
    obs = keeper.observe(Snapshot.from_board(cow, CLASSES, 0.95), pressed=True)
    assert [e.kind for e in obs.entries] == ["phony_withdrawn", "play"]
    assert obs.entries[0].player == 1 and obs.entries[1].player == 0
    assert keeper.game.events[-1].words == ("COW",)


def test_a_covered_press_orders_the_two_plays_seen_at_the_next_one():
    """game08's frame 6 in miniature: a hand over part of the board at a press. Nothing is
    committed then, but the new tiles in clear view decide which play came first."""
    import numpy as np
    keeper = Scorekeeper(Game(get_profile("naspa"), EN))
    cat = ["." * 15] * 7 + ["......CAT......"] + ["." * 15] * 7
    assert keeper.observe(Snapshot.from_board(cat, CLASSES, 0.95), pressed=True).status == "play"
    ton = cat[:8] + ["........O......", "........N......"] + cat[10:]
    both = cat[:8] + ["......O.O......", "......W.N......"] + cat[10:]
    clear = np.ones((15, 15), bool)
    clear[8:, :8] = False  # a hand on the lower left
    assert keeper.glimpse(Snapshot.from_board(ton, CLASSES, 0.95), clear) == {Square(8, 8), Square(9, 8)}
    assert len(keeper.game.events) == 1  # a glimpse commits nothing
    obs = keeper.observe(Snapshot.from_board(both, CLASSES, 0.95), pressed=True)
    assert obs.status == "play"
    assert [(e.player, e.words[0]) for e in keeper.game.events[1:]] == [(1, "TON"), (0, "COW")]
    assert keeper.fusing.glimpsed == frozenset()


def _board(*words):
    rows = [["."] * 15 for _ in range(15)]
    for r, c, word, down in words:
        for i, ch in enumerate(word):
            rows[r + (i if down else 0)][c + (0 if down else i)] = ch
    return ["".join(row) for row in rows]


def test_a_tile_of_the_last_play_read_empty_is_put_back_when_later_boards_show_it():
    # CAT went down with its C read as empty: AT committed. The next board shows the C beside it
    # and TOE down from the T: the last play is re-read (a camera correction, for review) and TOE
    # follows, never a one-tile play "CAT" of its own later.
    keeper = Scorekeeper(Game(get_profile("naspa"), EN))
    keeper.observe(Snapshot.from_board(_board((7, 7, "AT", False)), CLASSES, 0.95), player=0, pressed=True)
    assert keeper.game.events[0].words == ("AT",)
    obs = keeper.observe(Snapshot.from_board(_board((7, 6, "CAT", False), (8, 8, "OE", True)), CLASSES, 0.95),
                         player=1, pressed=True)
    fix = [e for e in obs.entries if isinstance(e, Correction)]
    assert len(fix) == 1 and fix[0].by == "camera" and fix[0].target == 0 and "contradict" in fix[0].reason
    plays = [e for e in keeper.game.events if isinstance(e, Play)]
    assert [(p.player, p.words, p.engine) for p in plays] == [(0, ("CAT",), 10), (1, ("TOE",), 4)]
    assert plays[0].review and Doubt.REREAD in plays[0].doubts


def test_a_committed_play_later_boards_contradict_is_re_read_once_two_snapshots_agree():
    # CAT went down and a print square beside it read as an S: CATS committed. Later snapshots show
    # the S square empty and nothing new (unclear against the record: tiles gone that are not a
    # withdrawal). Two still snapshots agreeing, the play is re-read as CAT, for review.
    keeper = Scorekeeper(Game(get_profile("naspa"), EN))
    keeper.observe(Snapshot.from_board(_board((7, 6, "CATS", False)), CLASSES, 0.95), player=0, pressed=True)
    assert keeper.game.events[0].words == ("CATS",)
    cat = Snapshot.from_board(_board((7, 6, "CAT", False)), CLASSES, 0.95)
    first = keeper.observe(cat)
    assert first.status == "unclear" and not first.entries   # one snapshot is not enough
    second = keeper.observe(cat)
    assert second.status == "corrected"
    assert [e.kind for e in second.entries] == ["correction"] and second.entries[0].by == "camera"
    play = keeper.game.events[0]
    assert play.words == ("CAT",) and play.engine == 10 and play.review and Doubt.REREAD in play.doubts
    assert keeper.observe(cat).status == "no_change"


def _first_play_then_several_turns() -> tuple[Scorekeeper, list[str]]:
    """A keeper that recorded a real game's first play from a photo, and the board some turns later
    (more new tiles than a rack holds since): a phone photographing every few moves."""
    record, _, _ = record_from_gcg(read_gcg(GAMES[0].read_bytes()), get_profile("naspa-csw"), EN)
    truth = Game(get_profile("naspa-csw"), EN)
    keeper = Scorekeeper(Game(get_profile("naspa-csw"), EN))
    for ev in record.events:
        truth.append(ev)
        if ev.kind != "play":
            continue
        if not keeper.game.events:
            keeper.observe(Snapshot.from_board(truth.state.board.rows(), CLASSES, 0.95), player=ev.player,
                           pressed=True)
        if len(truth.state.board) - len(keeper.game.state.board) > EN.rack_size + 3:
            break
    return keeper, truth.state.board.rows()


def test_a_photo_after_several_turns_is_joined_even_at_a_press():
    # More new tiles than a rack holds cannot be one turn, so a press showing them is decoded as the
    # plays that explain the board, for review.
    keeper, rows = _first_play_then_several_turns()
    photo = Snapshot.from_board(rows, CLASSES, 0.95)
    # one photo could be a hand over the board: the tiles must still be there at the next
    assert keeper.observe(photo, pressed=True).status == "unclear"
    obs = keeper.observe(photo, pressed=True)
    assert obs.status == "play" and obs.detail.startswith("joined")
    assert keeper.game.state.board.rows() == rows
    assert all(e.review and Doubt.INFERRED in e.doubts for e in obs.entries if isinstance(e, Play))


def test_a_photo_whose_grid_slipped_is_not_joined():
    # The same photo with the grid placed a row off: the committed tiles no longer read as the
    # record has them, so the tiles it shows are not taken for plays.
    keeper, rows = _first_play_then_several_turns()
    slipped = rows[1:] + ["." * 15]
    for _ in range(2):
        obs = keeper.observe(Snapshot.from_board(slipped, CLASSES, 0.95), pressed=True)
        assert not obs.detail.startswith("joined")
    assert len([e for e in keeper.game.events if isinstance(e, Play)]) == 1


def test_a_withdrawal_says_which_play_came_off():
    """Issue 35: the demo printed `withdrawn:` with nothing after it."""
    keeper = Scorekeeper(Game(get_profile("naspa"), EN))
    empty = ["." * 15] * 15
    cat = empty[:7] + ["......CAT......"] + empty[8:]
    phony = cat[:8] + ["........Z......", "........X......"] + cat[10:]   # TZX: a phony the set can supply
    keeper.observe(Snapshot.from_board(cat, CLASSES, 0.95), player=0, pressed=True)
    word = keeper.observe(Snapshot.from_board(phony, CLASSES, 0.95), player=1, pressed=True).detail
    assert word.startswith("TZ")
    obs = keeper.observe(Snapshot.from_board(cat, CLASSES, 0.95), player=1, pressed=True)
    assert obs.status == "withdrawn" and obs.detail == f"{word} taken off the board", obs


def test_a_play_for_review_says_why_as_typed_doubts():
    # issue 43 item 7: the console showed "certainty 100.0 %" for a play in review for another
    # reason; scoring says why, typed (Play.doubts), and a sure play on a learned table has none.
    sure = Scorekeeper(Game(get_profile("naspa"), EN))
    sure.given = frozenset(EN.counts)
    sure.observe(Snapshot.from_board(_board((7, 6, "CAT", False)), CLASSES, 0.999), player=0, pressed=True)
    assert not sure.game.events[0].review and sure.game.events[0].doubts == ()
    unsure = Scorekeeper(Game(get_profile("naspa"), EN))
    unsure.given = frozenset(EN.counts)
    unsure.observe(Snapshot.from_board(_board((7, 6, "CAT", False)), CLASSES, 0.6), player=0, pressed=True)
    play = unsure.game.events[0]
    assert play.review and play.doubts == (Doubt.CERTAINTY,) and play.certainty < 0.95
    new = Scorekeeper(Game(get_profile("naspa"), EN))   # a table whose tiles are not learned yet
    new.observe(Snapshot.from_board(_board((7, 6, "CAT", False)), CLASSES, 0.999), player=0, pressed=True)
    assert new.game.events[0].doubts == (Doubt.UNLEARNED,)


def test_a_phony_taken_back_is_seen_with_a_glare_read_as_a_tile_elsewhere():
    """held-out-b (docs/racks.md): the snapshots after the phony came off showed a glare on an empty
    square far from it read as a tile (unsurely, its letters' mass spread). The new squares made no
    play, the withdrawal waited for them, and the next play, laid through a square of the phony,
    came first: never withdrawn, every later play read against it. It is seen at once."""
    import numpy as np
    keeper = Scorekeeper(Game(get_profile("naspa"), EN))
    empty = ["." * 15] * 15
    cat = empty[:7] + ["......CAT......"] + empty[8:]
    phony = cat[:8] + ["........Z......", "........X......"] + cat[10:]   # TZX: a phony the set can supply
    keeper.observe(Snapshot.from_board(cat, CLASSES, 0.95), player=0, pressed=True)
    keeper.observe(Snapshot.from_board(phony, CLASSES, 0.95), player=1, pressed=True)
    snap = Snapshot.from_board(cat, CLASSES, 0.95)
    probs = snap.probs.copy()
    glare = {".": 0.436, "?": 0.380, "C": 0.036}     # as read on held-out-b's board
    probs[1, 1] = (1.0 - sum(glare.values())) / (len(CLASSES) - len(glare))
    for label, p in glare.items():
        probs[1, 1, CLASSES.index(label)] = p
    obs = keeper.observe(Snapshot(CLASSES, probs.astype(np.float32)))
    assert obs.status == "withdrawn" and [e.kind for e in obs.entries] == ["phony_withdrawn"]
    assert [e.kind for e in keeper.game.events] == ["play", "play", "phony_withdrawn"]
