"""api/service/racks.py on a real SQLite store, without HTTP: the station's add_rack and racks, the
operator's confirmation, and which racks a live state carries under a policy (off, delayed)."""
from __future__ import annotations

import pytest

from servicekit import new_game, service  # noqa: F401  (fixture)
from tilecam.api.errors import InvalidInput, NotFound
from tilecam.api.service import LIVE, RackPolicy, RacksOnAir
from tilecam.scoring import RackTrust


def seen(player: int, tiles: str, certainty: float = 0.99, t: float = 1.0) -> dict:
    """The JSON shape of scoring.racks.RackSeen.to_json()."""
    ts = [None if c == "." else c for c in tiles]
    # marked for review as the station marks it, against [racks] review_below (the service keeps no threshold)
    return {"player": player, "t": t, "tiles": ts, "certainty": [None if c is None else certainty for c in ts],
            "frame": None, "review": certainty < 0.9}


def test_a_settled_read_is_kept_with_its_turn_and_evidence_and_shown_live(service):
    gid = new_game(service)
    sent = []
    service.bus.publish = sent.append
    assert service.add_rack(gid, seen(0, "AEINRST"), jpeg=b"\xff\xd8r0") == 0
    assert service.add_rack(gid, seen(1, "QUIZ.XY")) == 1
    reads = service.racks(gid)
    # a read with a tile not seen (a hand over it) is not whole: it waits for the operator's word too
    assert [(r.seq, r.player, r.turn, r.frame, r.review) for r in reads] == [(0, 0, 0, True, False), (1, 1, 0, False, True)]
    assert service.rack_frame(gid, 0).jpeg == b"\xff\xd8r0"
    live = service.live(gid)
    assert live.fields["rack1"] == "AEINRST" and live.fields["rack2"] == "QUIZ·XY" and live.fields["rack3"] == ""
    assert live.racks[0].text == "AEINRST" and live.racks[0].unseen_count == 93
    assert live.fields["unseen1"].startswith("AAAAAAAA ")  # 9 A's less the one on the rack
    assert len(sent) == 2 and sent[-1].data["live"]["fields"]["rack2"] == "QUIZ·XY"  # each read is published


def test_racks_off_and_public_leave_no_letter_in_the_live_state_until_the_game_is_over(service):
    gid = new_game(service)
    service.add_rack(gid, seen(0, "CATXYZE"))
    service.play(gid, "8H", "CAT", rack="CATXYZE")
    service.add_rack(gid, seen(0, "XYZEJKL"))  # after the draw, at turn 1
    hidden = service.live(gid, RackPolicy(False))
    assert hidden.racks == [None, None] and "CATXYZE" not in hidden.model_dump_json() and "XYZEJKL" not in hidden.model_dump_json()
    public = service.live(gid, RackPolicy(True))   # the public: a move's rack still shows its leave, held now
    assert public.racks == [None, None] and "CATXYZE" not in public.model_dump_json()
    broadcast = service.live(gid, RackPolicy(True, live=True))   # the broadcaster's: the rack held now
    assert broadcast.fields["rack1"] == "XYZEJKL" and "CATXYZE" not in broadcast.model_dump_json()
    assert service.live(gid).fields["rack1"] == "XYZEJKL"  # the operator's: live
    # the moves: the rack a move was played from, hidden as its read is
    assert service.moves(service.load(gid))[0].rack == "CATXYZE"
    assert service.moves(service.load(gid))[0].rack_seq == 0
    late = service.moves(service.load(gid), RackPolicy(True))[0]
    assert (late.rack, late.rack_seq, late.rack_frame) == (None, None, None)
    service.pass_turn(gid, player=1)
    assert service.live(gid, RackPolicy(True)).fields["rack1"] == ""   # a move later: still held
    service.end(gid, None, "the players stopped", "tester")
    over = service.live(gid, RackPolicy(True))
    assert over.fields["rack1"] == "CATXYZE" and over.racks[0].unseen_count == 93  # the board before move 1
    assert service.moves(service.load(gid), RackPolicy(True))[0].rack == "CATXYZE"


def test_an_unsure_or_flagged_read_waits_for_one_click_and_a_fix_is_recorded(service):
    gid = new_game(service)
    service.add_rack(gid, seen(0, "AEINRST", certainty=0.5))
    service.add_rack(gid, {**seen(1, "EEEIIOU"), "flag": "a play not from this rack"})
    assert [r.review for r in service.racks(gid)] == [True, True]
    assert service.live(gid).racks[0].review
    assert service.confirm_rack(gid, 0, None, "desk") == 2
    assert service.confirm_rack(gid, 1, "eeiiou?", "desk") == 3
    first, second = service.racks(gid)
    assert (first.review, first.confirmed_by, first.fixed) == (False, "desk", False)
    assert (second.review, second.fixed, second.tiles, second.read[-1]) == (False, True, tuple("EEIIOU?"), "U")
    assert service.live(gid).fields["rack2"] == "EEIIOU?"
    assert [r.kind for r in service.rack_log(gid)] == ["seen", "seen", "confirm", "confirm"]  # append-only
    with pytest.raises(NotFound):
        service.confirm_rack(gid, 2, None, "desk")  # a confirmation is no read
    with pytest.raises(InvalidInput, match="rack"):
        service.confirm_rack(gid, 0, "AE1", "desk")


def test_the_station_s_threshold_is_the_only_one(service):
    """Issue 35, item 11: [racks] review_below reaches the review queue through the station's mark;
    the service holds no 0.9 of its own (a station at review_below 0.4 keeps a 0.5 read off it)."""
    gid = new_game(service)
    service.add_rack(gid, {**seen(0, "AEINRST", certainty=0.5), "review": False})
    service.add_rack(gid, {**seen(1, "EEIIOUA", certainty=0.95), "review": True})   # at review_below 0.96
    assert [r.review for r in service.racks(gid)] == [False, True]


def test_a_read_that_breaks_the_counts_is_off_air_and_for_review_until_confirmed(service):
    gid = new_game(service)
    service.add_rack(gid, seen(0, "AEINRST"))
    service.add_rack(gid, {**seen(0, "XNUXEEO"), "breaks": "the set has 1 X; the rack read would make 2"})
    service.add_rack(gid, {**seen(1, "EEIIOUA"), "read": list("EEIIOUX")})   # runner-ups taken: kept as read too
    racks = service.racks(gid)
    assert racks[1].review and racks[1].breaks.startswith("the set has 1 X") and racks[1].flag == racks[1].breaks
    live = service.live(gid)
    assert live.racks[0] is None and live.fields["rack1"] == ""      # not the read, nor the rack before it
    assert "".join(racks[2].tiles) == "EEIIOUA" and "".join(racks[2].read) == "EEIIOUX"
    assert live.fields["rack2"] == "EEIIOUA"
    service.confirm_rack(gid, 1, "?EENOUX", "desk")
    assert service.live(gid).fields["rack1"] == "?EENOUX"
    with pytest.raises(InvalidInput, match="breaks"):
        service.add_rack(gid, {**seen(0, "AEINRST"), "breaks": 3})
    with pytest.raises(InvalidInput, match="read"):
        service.add_rack(gid, {**seen(0, "AEINRST"), "read": list("AEI")})


@pytest.mark.parametrize("bad", [
    {"player": 2, "tiles": ["A"]}, {"player": True, "tiles": ["A"]}, {"player": 0, "tiles": list("ABCDEFGHIJKLM")},
    {"player": 0, "tiles": ["Å"]}, {"player": 0, "tiles": ["A", "B"], "certainty": [1.0]},
    {"player": 0, "tiles": ["A"], "certainty": [1.5]}, {"player": 0, "tiles": ["A"], "t": "soon"}, "AEI"])
def test_a_read_that_is_not_one_is_refused_with_a_reason_and_nothing_is_written(service, bad):
    gid = new_game(service)
    with pytest.raises(InvalidInput, match="rack read"):
        service.add_rack(gid, bad)
    assert service.racks(gid) == []


def test_the_on_air_default_is_read_in_one_place_and_a_request_can_only_hide_more():
    class Section:
        on_air, review_below = "off", 0.8

    class Settings:
        racks = Section()
    off = RacksOnAir.from_settings(Settings())
    sure = RackTrust(0.8)
    assert off.trust == sure
    assert off.public == off.broadcast == RackPolicy(False)
    assert off.operator == RackPolicy(live=True, raw=True, trust=sure)   # the operator: always
    assert off.policy(operator=False, broadcast=True) == RackPolicy(False)
    Section.on_air = "broadcast"
    air = RacksOnAir.from_settings(Settings())
    # what is sure on air is [racks] review_below, the station's threshold
    assert air.public == air.policy(operator=False, broadcast=False) == RackPolicy(True, trust=sure)
    assert air.broadcast == air.policy(operator=False, broadcast=True) == RackPolicy(True, live=True, trust=sure)
    assert air.policy(operator=True, broadcast=True) == air.operator    # the operator token wins
    assert not air.policy(operator=True, broadcast=False, racks="off").shown   # a request hides more
    assert RackPolicy(True, live=True, trust=sure).join(None) == RackPolicy(True, live=True, trust=sure)
    assert not RackPolicy(True, live=True, raw=True).join("off").shows(True)
    assert RackPolicy(False).join("on") == RackPolicy(False)
    assert [RackPolicy(True).shows(over) for over in (False, True)] == [False, True]


def test_a_play_scoring_found_not_on_its_rack_puts_that_read_under_review(service):
    import dataclasses

    from tilecam.scoring.gcg import placement_from_gcg
    from tilecam.scoring.racks import RackSeen

    gid = new_game(service)
    assert service.add_rack(gid, RackSeen(0, 1.0, tuple("DOGEIRS"), (0.99,) * 7)) == 0  # a RackSeen itself
    game = service.load(gid).game_at()
    play = game.play(0, placement_from_gcg(game, "8H", "CAT"), review=True)
    # scoring's typed word (Play.not_from_rack), whatever its note says in words
    service.append(gid, dataclasses.replace(play, not_from_rack=True, note="reworded: CAT is missing from DEGIORS"))
    assert [r.review for r in service.racks(gid)] == [False]  # the read alone was sure
    flagged = service.rack_reviews(gid)[0]
    assert flagged.review and flagged.flag.startswith("move 1: ")
    service.confirm_rack(gid, 0, "CATEIRS", "desk")
    assert not service.rack_reviews(gid)[0].review


def test_a_play_stored_before_the_flag_was_kept_flags_its_read_by_its_note(service, monkeypatch):
    """A log from before Play.not_from_rack and Play.rack_note: only the note said them. It reads the
    same: the read flagged, and the note's rack line off air with the rack."""
    import dataclasses

    import tilecam.api.store.rows as rows
    from tilecam.api.service import RackPolicy
    from tilecam.scoring.events import to_json
    from tilecam.scoring.gcg import placement_from_gcg
    from tilecam.scoring.racks import RackSeen

    # the store as tilecam wrote it then: no field it did not know
    monkeypatch.setattr(rows, "to_json", lambda e: {k: v for k, v in to_json(e).items()
                                                    if k not in ("not_from_rack", "rack_note", "blank_guessed")})
    gid = new_game(service)
    service.add_rack(gid, RackSeen(0, 1.0, tuple("DOGEIRS"), (0.99,) * 7))
    game = service.load(gid).game_at()
    play = game.play(0, placement_from_gcg(game, "8H", "CAT"), review=True)
    assert not play.not_from_rack
    said = "rack not seen with this play's tiles: CAT not on the rack read DEGIORS"
    service.append(gid, dataclasses.replace(play, note=f"well played\n{said}"))
    stored = service.load(gid).events[0]
    assert stored.not_from_rack and (stored.note, stored.rack_note) == ("well played", said)
    assert service.rack_reviews(gid)[0].review
    assert service.moves(service.load(gid))[0].note == f"well played\n{said}"
    assert service.moves(service.load(gid), RackPolicy(False))[0].note == "well played"


def test_a_play_its_rack_held_flags_no_read(service):
    from tilecam.scoring.gcg import placement_from_gcg
    from tilecam.scoring.racks import RackSeen

    gid = new_game(service)
    service.add_rack(gid, RackSeen(0, 1.0, tuple("CATEIRS"), (0.99,) * 7))
    game = service.load(gid).game_at()
    service.append(gid, game.play(0, placement_from_gcg(game, "8H", "CAT"), review=True))  # under review, from its rack
    assert not any(r.review or r.flag for r in service.rack_reviews(gid))


def test_a_move_takes_no_read_from_before_the_players_previous_move(service):
    gid = new_game(service)
    service.add_rack(gid, seen(0, "CATXYZE"))
    service.play(gid, "8H", "CAT")  # Ann, from the read
    service.pass_turn(gid)  # Ben
    service.pass_turn(gid)  # Ann: no read since her play
    moves = service.moves(service.load(gid))
    assert (moves[0].rack_seq, moves[0].rack) == (0, "CATXYZE")
    assert (moves[2].rack_seq, moves[2].rack) == (None, None)


def test_a_move_off_air_loses_what_its_rack_read_said_whatever_the_words():
    from tilecam.api.service import entry_without_rack
    from tilecam.scoring.board import Direction, Square
    from tilecam.scoring.events import Correction, Pass, Play
    from tilecam.scoring.placement import PlacedTile, Placement

    cat = Play(0, Placement((PlacedTile(Square(7, 7), "C"), PlacedTile(Square(7, 8), "A"),
                             PlacedTile(Square(7, 9), "T")), Direction.ACROSS), ("CAT",), None, 10, 10, 10,
               rack="ACEIRST", note="well played", rack_note="any words: the read was AEINRST")
    off = entry_without_rack(Correction(0, cat, by="desk"))
    assert (off.replacement.rack, off.replacement.rack_note, off.replacement.note) == (None, "", "well played")
    assert entry_without_rack(Pass(1, 0, "AEIRSTT", "", "read AEIRSTT")).rack_note == ""


def test_record_s_report_names_a_read_a_play_was_not_made_from(service, capsys):
    """`tilecam record`'s "needs review" lines are the console's: a sure read scoring found a play's
    tiles not on is named there (its flag: the move), and "nothing to review" is not said."""
    import argparse

    from tilecam.api.commands.record import _report
    from tilecam.scoring.gcg import placement_from_gcg
    from tilecam.scoring.racks import RackSeen

    gid = new_game(service)
    service.add_rack(gid, RackSeen(0, 1.0, tuple("DOGEIRS"), (0.99,) * 7))   # sure: no review of its own
    game = service.load(gid).game_at()
    service.append(gid, game.play(0, placement_from_gcg(game, "8H", "CAT"), certainty=0.97, review=True, not_from_rack=True,
                                  rack_note="CAT not on the rack read"))
    args = argparse.Namespace(store_shown="games.sqlite3", gcg=None, json=None, serve_hint="")
    assert _report(service, gid, args) == 0
    out = capsys.readouterr().out
    assert "needs review: rack of Ann read at 1.0 s: DOGEIRS (move 1: CAT not on the rack read)" in out, out
    assert "nothing to review" not in out


def test_a_read_not_whole_shows_only_its_sure_tiles_to_the_broadcast_and_after_the_game(service):
    """Issue 38: a view's policy (its trust: [racks] review_below) never gets the letter read unsure."""
    gid = new_game(service)
    read = seen(0, "CATXYZE")
    read["certainty"][5] = 0.5   # the Z
    service.add_rack(gid, read)
    service.play(gid, "8H", "CAT")
    assert service.live(gid, RackPolicy(True, trust=RackTrust(0.9))).racks[0] is None   # the public, in the game
    for policy in (RackPolicy(True, live=True, trust=RackTrust(0.9)), RackPolicy(True, trust=RackTrust(0.9))):
        if not policy.live:
            service.end(gid, None, "stopped", "tester")
        rack = service.live(gid, policy).racks[0]
        assert (rack.text, rack.tiles[5], rack.slots[5], rack.whole) == ("CATXY·E", None, "unsure", False)
        assert service.moves(service.load(gid), policy)[0].rack is None   # not whole: no export's
    # the read came unmarked: without a trust (None) only the station's word counts, so the routes
    # always give one (RacksOnAir)
    assert service.live(gid, RackPolicy(True)).racks[0].text == "CATXYZE"


def test_an_empty_rack_is_a_read_shown_as_empty(service):
    """Issue 43 item 3: a rack camera that sees an empty rack (after a bingo, during a 7-tile
    exchange, a player out) gives a read with no tiles, as `tilecam rack` reads it: kept, not under
    review (nothing unsure in it), and the player's rack on the console's live state is empty."""
    gid = new_game(service)
    service.add_rack(gid, seen(0, "AEINRST"))
    assert service.add_rack(gid, seen(0, "")) == 1
    reads = service.racks(gid)
    assert reads[1].tiles == () and not reads[1].review and reads[1].to_out(gid).text == ""
    live = service.live(gid, LIVE)
    assert live.racks[0].tiles == [] and live.racks[0].whole and live.fields["rack1"] == ""
    assert live.racks[0].unseen_count == 100   # nothing on the rack: the player sees every tile as unseen


def test_an_exchange_told_from_unsure_rack_reads_waits_for_review_and_is_hedged_until_confirmed(service):
    """Issue 43 item 9: an exchange had no review field, so one the rack camera told from reads with
    unsure slots (its tiles unnamed, its count as read) was never in the review queue nor hedged on
    air. It is under review, on /live's `unconfirmed` as an unconfirmed play is, until a person
    confirms it (an exchange correction, as read or with another count)."""
    from tilecam.api.schemas import ExchangeFix
    from tilecam.scoring import Exchange, Pass

    gid = new_game(service)
    service.commit(gid, [Pass(0, 0), Exchange(1, 3, None, 0, None, "an exchange, its tiles not named", review=True)],
                   expect=0)
    moves = service.moves(service.load(gid))
    assert [m.review for m in moves] == [False, True]
    assert service.live(gid).unconfirmed == [1] and service.live(gid).last_unconfirmed
    service.correct(gid, 1, ExchangeFix(kind="exchange", count=3, reason="confirmed as read"), by="desk")
    assert [m.review for m in service.moves(service.load(gid))] == [False, False] and service.live(gid).unconfirmed == []
