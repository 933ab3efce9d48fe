"""api/service/queries.py on a real SQLite store, without HTTP: the unseen pool's vowels (one rule for
/unseen and the overlay's field), what a person's correction confirms and the camera's does not, and
a game a director closed reading as ended."""
from __future__ import annotations

import dataclasses

import pytest

from gcgcheck import check_gcg
from servicekit import new_game, service  # noqa: F401  (fixture)
from tilecam.scoring.events import CAMERA, Correction
from tilecam.api.schemas import PlayFix
from tilecam.scoring.game import SetExceeded
from tilecam.scoring.gcg import placement_from_gcg


def test_unseen_and_the_overlay_count_vowels_alike(service):
    gid = new_game(service)
    fresh = service.unseen(service.load(gid))
    assert (fresh.count, fresh.vowels, fresh.consonants, fresh.blanks) == (100, 42, 56, 2)
    service.play(gid, "8H", "C?T")  # a blank: neither vowel nor consonant
    view = service.load(gid)
    after = service.unseen(view)
    assert (after.count, after.vowels, after.consonants, after.blanks) == (97, 42, 54, 1)
    assert service.live(gid).fields["vowels_consonants"] == "42 vowels · 54 consonants"
    assert service.unseen(view, rack="AEZ").vowels == 40


def test_a_persons_correction_confirms_a_doubtful_play_and_the_cameras_does_not(service):
    gid = new_game(service)
    game = service.load(gid).game_at()
    play = game.play(0, placement_from_gcg(game, "8H", "CAT"), certainty=0.41, review=True)
    service.append(gid, play)
    assert service.moves(service.load(gid))[0].review and service.live(gid).unconfirmed == [0]
    service.append(gid, Correction(0, dataclasses.replace(play, note="read again"), by=CAMERA))
    assert service.moves(service.load(gid))[0].review and service.live(gid).unconfirmed == [0]
    service.append(gid, Correction(0, play, by="desk"))
    assert not service.moves(service.load(gid))[0].review and service.live(gid).unconfirmed == []


def test_a_game_a_director_closed_reads_as_ended_with_its_reason(service):
    gid = new_game(service)
    service.play(gid, "8H", "CAT")
    view = service.load(gid)
    assert not service.summary(view)["ended"] and service.live(gid).fields["on_turn"] == "Ben"
    gcg = service.gcg(view)
    service.end(gid, None, "forfeit", by="desk")
    assert service.gcg(service.load(gid)) == gcg and check_gcg(gcg) == []   # GCG has no line for a close
    summary = service.summary(service.load(gid))
    live = service.live(gid)
    assert summary["ended"] and summary["end_reason"] == "forfeit" and summary["closed_by"] == "desk"
    assert live.ended and live.fields["on_turn"] == "" and live.fields["winner"] == "Ann"
    export = service.record_json(service.load(gid))   # the close is in the log; the moves are as they were
    assert export["log"][-1] == {"seq": 1, "created": export["log"][-1]["created"], "kind": "close", "by": "desk",
                                 "reason": "forfeit"}
    assert [e["kind"] for e in export["events"]] == ["play"] and export["game"]["moves"] == 1


def test_runner_ups_are_offered_only_within_the_counts_and_never_the_reading_on_air(service):
    """Issue 35, item 7: the review queue offered a runner-up the counts forbid (taking it was then
    refused: 'the set has 15 E; this correction would make 16') and one identical to the reading on
    air. /moves now gives only those a correction could take, each with its own probability."""
    gid = new_game(service)
    game = service.load(gid).game_at()
    runner_ups = (("8G", "AVE", 0.3),   # the reading on air (a camera correction made it that)
                  ("8G", "AVV", 0.2),   # two V: the set's both, and the V played since makes three
                  ("8G", "ACE", 0.1))
    play = game.play(0, placement_from_gcg(game, "8G", "AVE"), certainty=0.4, review=True, runner_ups=runner_ups)
    service.append(gid, play)
    assert [r.word for r in service.moves(service.load(gid))[0].runner_ups] == ["AVV", "ACE"]
    service.play(gid, "H7", "V.")  # the second V goes down: AVV would now make three
    [m, _] = service.moves(service.load(gid))
    assert [(r.word, r.probability) for r in m.runner_ups] == [("ACE", 0.1)]
    assert m.certainty == 0.4 and m.review
    # what is left out is exactly what the correction would refuse
    with pytest.raises(SetExceeded, match="the set has 2 V; this correction would make 3"):
        service.correct(gid, 0, PlayFix(kind="play", position="8G", word="AVV"), by="op")
    service.correct(gid, 0, PlayFix(kind="play", position="8G", word="ACE"), by="op")
