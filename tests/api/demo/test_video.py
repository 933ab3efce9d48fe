"""The demo game is a real tournament game: real words, a phony taken back, exchanges, a pass and a
player going out; the video gives every turn its frames, and `--moves` cuts it short."""
from __future__ import annotations

from tilecam.api.demo.game import demo_record, make_demo_game
from tilecam.api.demo.operator import event_key
from tilecam.api.demo.video import boards_after_each_play, turn_frames, video_plan
from tilecam.scoring.gcg import read_gcg, record_from_gcg, write_gcg


def test_the_demo_game_is_the_whole_real_game():
    game = make_demo_game()
    kinds = [e.kind for e in game.events]
    assert len(kinds) == 25 and kinds.count("play") == 20
    assert kinds[5] == "phony_withdrawn" and game.events[4].words[0] == "MAZEY"  # the challenged phony
    assert [e.count for e in game.events if e.kind == "exchange"] == [5, 4]
    assert kinds.count("pass") == 1 and kinds[-1] == "end_rack_points"
    assert game.state.ended and game.state.end_reason == "out" and game.state.scores == [457, 397]
    assert sum(t.blank for e in game.events if e.kind == "play" for t in e.placement.tiles) == 2


def test_moves_cuts_the_game_and_the_record_survives_gcg():
    short = make_demo_game(7)
    assert [event_key(e) for e in short.events] == [event_key(e) for e in make_demo_game().events[:7]]
    assert not short.state.ended
    record = demo_record()
    back, findings, _ = record_from_gcg(read_gcg(write_gcg(record, short.profile, short.dist)),
                                        short.profile, short.dist)
    assert findings == [] and [event_key(e) for e in back.events] == [event_key(e) for e in record.events]


def test_every_turn_has_its_frames_at_rest_after_the_hands():
    game = make_demo_game(16)  # to the pass: the exchange (11) and the pass (14) change no tile
    plan, frames = video_plan(game), turn_frames(game)
    boards = boards_after_each_play(game)
    assert len(frames) == 16 and frames == sorted(set(frames))
    for i, f in enumerate(frames):
        board, hands, shown = plan[f]
        assert not hands and shown == i + 1 and board == boards[i + 1]
        assert plan[f - 1][1]  # the hands were over the board just before
    assert boards[12] == boards[11] and boards[15] == boards[14]
