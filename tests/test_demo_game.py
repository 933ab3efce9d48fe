from __future__ import annotations

from collections import Counter

from tilecam.api.demo.game import demo_words, make_demo_game
from tilecam.scoring.gcg import GameRecord, Player, read_gcg, record_from_gcg, write_gcg


def test_demo_game_is_legal_and_repeatable():
    game = make_demo_game(12, seed=3)
    again = make_demo_game(12, seed=3)
    assert game.events == again.events and len(game.events) == 12
    vocab = set(demo_words())
    assert all(w in vocab for e in game.events for w in e.words)
    # The tiles on the board never exceed the set's distribution.
    on_board = Counter(t.letter for _, t in game.state.board.items())
    assert not on_board - Counter(game.dist.counts)
    # And the record survives GCG.
    record = GameRecord((Player("ann", "Ann"), Player("bob", "Bob")), tuple(game.events))
    back, findings, _ = record_from_gcg(read_gcg(write_gcg(record, game.profile, game.dist)), game.profile, game.dist)
    # GCG says what stood; the engine's own plays had no claim, so compare what GCG carries.
    assert [(e.placement, e.engine, e.cumulative) for e in back.events] == \
        [(e.placement, e.engine, e.cumulative) for e in record.events]
    assert findings == []
