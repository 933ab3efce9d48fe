"""Property tests: writer -> reader preserves the event log; cumulatives add up; tiles tally."""
from __future__ import annotations


from hypothesis import HealthCheck, given, settings, strategies as st

from tilecam.scoring.board import Direction, Square
from tilecam.scoring.events import points
from tilecam.scoring.game import Game, GameError
from tilecam.scoring.gcg import GameRecord, GcgError, Player, read_gcg, record_from_gcg, write_gcg
from tilecam.scoring.placement import PlacedTile, Placement, PlacementError, score_placement, validate_placement
from tilecam.scoring.rules import PROFILES
from tilecam.scoring.tally import tally, unseen
from tilecam.scoring.tiles import DISTRIBUTIONS

settings.register_profile("ci", derandomize=True, max_examples=60, deadline=None,
                          suppress_health_check=[HealthCheck.too_slow])
settings.load_profile("ci")

EN = DISTRIBUTIONS["en"]
PROFILE = PROFILES["naspa-csw"]
LETTERS = "".join(EN.letters)
notes = st.lists(st.text(alphabet="abc XYZ.!", min_size=1, max_size=12).map(str.strip).filter(bool),
                 max_size=3).map("\n".join)
# A real rack U-N-K-N-O-W-N would read as "rack unknown", the convention liwords uses.
racks = st.text(alphabet=LETTERS + "?", min_size=1, max_size=7).filter(lambda r: r != "UNKNOWN")


def random_placement(data, game: Game) -> Placement | None:
    board = game.state.board
    direction = data.draw(st.sampled_from(list(Direction)))
    dr, dc = direction.step
    if len(board) == 0:
        length = data.draw(st.integers(2, 7))
        offset = data.draw(st.integers(0, length - 1))
        start = Square(7 - dr * offset, 7 - dc * offset)
    else:
        anchor = data.draw(st.sampled_from(sorted(sq for sq, _ in board.items())))
        length = data.draw(st.integers(1, 4))
        offset = data.draw(st.integers(-length, 1))
        start = Square(anchor.row + dr * offset, anchor.col + dc * offset)
    tiles, sq = [], start
    pool = unseen(board, EN)  # only tiles the set still has: a fourth S or a third blank is no game
    while len(tiles) < length and game.layout.contains(sq):
        if sq not in board:
            letter = data.draw(st.sampled_from(sorted(t for t in LETTERS if pool[t] > 0)))
            blank = pool["?"] > 0 and data.draw(st.booleans())
            pool["?" if blank else letter] -= 1
            tiles.append(PlacedTile(sq, letter, blank))
        sq = Square(sq.row + dr, sq.col + dc)
    p = Placement(tuple(tiles), direction)
    try:
        validate_placement(board, p, EN)
    except PlacementError:
        return None
    return p


def offboard(rack, game):
    """The rack as recorded, when the tiles off the board can make it (a rack they cannot make is a
    misread: the writer leaves it out and says so, tests/scoring/gcg/test_writer_notes.py)."""
    if rack is None:
        return None
    have = unseen(game.state.board, EN)
    have.subtract(EN.tokens(rack))
    return rack if all(n >= 0 for n in have.values()) else None


@st.composite
def game_logs(draw):
    data = draw(st.data())
    game = Game(PROFILE, EN)
    for _ in range(draw(st.integers(0, 24))):
        s = game.state
        if s.ended:
            break
        p = s.on_turn
        last = game.events[-1] if game.events else None
        kind = draw(st.sampled_from(["play", "play", "play", "pass", "exchange", "withdraw",
                                     "challenge", "lost"]))
        note = draw(notes)
        try:
            if kind == "play" and (pl := random_placement(data, game)) is not None:
                rack = EN.spell(["?" if t.blank else t.letter for t in pl.tiles])
                # A recorded score may differ from the engine's; the record keeps both.
                engine = score_placement(game.state.board, pl, EN).score
                off = draw(st.sampled_from([0, 0, 0, 2, -3]))
                game.play(p, pl, claimed=max(0, engine + off), rack=rack, note=note)
            elif kind == "withdraw" and last is not None and last.kind == "play":
                game.withdraw(last.player, claimed=-last.agreed, rack=last.rack, note=note)
            elif kind == "challenge" and last is not None and last.kind == "play":
                game.challenge_bonus(last.player, claimed=5 * draw(st.integers(1, 2)),
                                     rack=offboard(draw(st.none() | racks), game), note=note)
            elif kind == "exchange" and s.bag >= 7:
                pool = sorted(unseen(s.board, EN).elements())  # what the rack can hold
                tiles = draw(st.none() | st.permutations(pool).flatmap(
                    lambda tiles: st.integers(1, 7).map(lambda n: "".join(tiles[:n]))))
                game.exchange(p, len(tiles) if tiles else draw(st.integers(1, 7)), tiles,
                              rack=tiles, note=note)
            elif kind == "lost":
                game.lose_turn(p, rack=offboard(draw(st.none() | racks), game), note=note)
            else:
                game.pass_turn(p, rack=offboard(draw(st.none() | racks), game), note=note)
        except GameError:
            continue
    # Overtime is counted when the clocks stop: a time penalty comes after the last turn.
    if draw(st.booleans()):
        game.time_penalty(draw(st.integers(0, 1)), claimed=-10 * draw(st.integers(1, 3)),
                          rack=offboard(draw(st.none() | racks), game))
    if game.state.ended and game.state.end_reason == "zeros":
        for p in range(2):
            # a rack the tiles off the board can make: the set's counts hold for the end's racks too
            rack = offboard(draw(racks), game) or "".join(sorted(unseen(game.state.board, EN).elements())[:1])
            game.end_rack_penalty(p, rack, claimed=-EN.rack_value(rack))
    players = (Player("ann", "Ann A"), Player("bob", "Bob B"))
    return GameRecord(players, tuple(game.events), {"title": "prop"}, PROFILE.name, "en")


@given(game_logs())
def test_write_then_read_preserves_the_event_log(record):
    text = write_gcg(record, PROFILE, EN)
    again, findings, _ = record_from_gcg(read_gcg(text), PROFILE, EN)
    assert len(again.events) == len(record.events)
    assert again.events == record.events
    assert again.players == record.players
    assert again.meta.get("title") == "prop"


@given(game_logs())
def test_each_cumulative_is_the_previous_plus_the_events_points(record):
    totals = [0, 0]
    for ev in record.events:
        assert ev.cumulative == totals[ev.player] + points(ev)
        totals[ev.player] = ev.cumulative


@given(game_logs())
def test_board_racks_and_bag_tally_to_the_distribution(record):
    game = Game(PROFILE, EN, events=list(record.events))
    s = game.state
    on_board = sum(tally(s.board).values())
    assert on_board + sum(s.rack_sizes) + s.bag == EN.total
    assert all(n >= 0 for n in tally(s.board).values())
    assert s.bag >= 0 and all(0 <= r <= EN.rack_size for r in s.rack_sizes)


# Any text at all in notes and names: the written GCG has one line per event and its two
# player lines, whatever separators, controls or GCG-looking text the fields hold.
any_text = st.text(alphabet=st.characters(codec="utf-8"), max_size=40) | st.sampled_from(
    ["a\u2028#player1 evil Evil", "x\x85>ann: Q 8D Q +20 20", "\r\n#note", "#unsuccessful-challenge"])


@given(game_logs(), any_text, any_text)
def test_no_note_or_name_adds_a_line(record, note, name):
    events = tuple(type(ev)(**{**{f: getattr(ev, f) for f in ev.__slots__}, "note": note}) for ev in record.events)
    hostile = GameRecord((Player("ann", name), Player("bob", "Bob B")), events, {"title": note, "note": note},
                         PROFILE.name, "en")
    text = write_gcg(hostile, PROFILE, EN)
    assert all(len(line.splitlines()) <= 1 for line in text.split("\n"))
    again, _, _ = record_from_gcg(read_gcg(text.encode("utf-8")), PROFILE, EN)
    assert [p.nick for p in again.players] == ["ann", "bob"]
    assert [(e.kind, e.player, e.cumulative) for e in again.events] == \
        [(e.kind, e.player, e.cumulative) for e in record.events]


@given(st.binary(max_size=300) | st.text(alphabet="#>: +-0123456789abcAB?()\n\r\u2028\x85", max_size=200)
       .map(lambda t: t.encode("utf-8")))
def test_any_bytes_read_or_name_the_line(data):
    try:
        record_from_gcg(read_gcg(data), PROFILE, EN)
    except GcgError as exc:
        assert exc.line_no >= 1 and str(exc).startswith(f"line {exc.line_no}:")
