"""When a rack read counts (scoring.racks.RackTrust), and which read a play came from (one answer)."""
from __future__ import annotations

import ast
from pathlib import Path

from tilecam.scoring.game import Game
from tilecam.scoring.gcg.notation import placement_from_gcg, played_tiles
from tilecam.scoring.racks import SURE, UNSEEN, UNSURE, Fitted, RackBook, RackSeen, RackTrust
from tilecam.scoring.rules import get_profile
from tilecam.scoring.tiles import DISTRIBUTIONS

EN = DISTRIBUTIONS["en"]
TRUST = RackTrust(0.9)
ROOT = Path(__file__).resolve().parents[2]


def test_a_slot_is_sure_at_the_threshold_unsure_under_it_and_unseen_without_a_tile():
    assert TRUST.slot("A", 0.9) == SURE            # exactly at [racks] review_below: it counts
    assert TRUST.slot("A", 0.8999) == UNSURE
    assert TRUST.slot("A", None) == SURE           # no certainty given (a person's word): it counts
    assert TRUST.slot(None, None) == UNSEEN and TRUST.slot(None, 0.1) == UNSEEN
    read = RackSeen(0, 0.0, ("A", None, "Q", "E"), (0.9, None, 0.5, None))
    assert TRUST.slots(read) == (SURE, UNSEEN, UNSURE, SURE)
    assert TRUST.doubtful(read) == ["Q"]
    sure = TRUST.trusted(read)
    assert sure.tiles == ("A", None, None, "E") and sure.certainty == (0.9, None, None, None)
    whole = RackSeen(0, 0.0, ("A", "B"), (0.9, 0.95))
    assert TRUST.trusted(whole) is whole and TRUST.doubtful(whole) == []
    assert RackTrust(0.96).doubtful(whole) == ["A", "B"]   # another threshold, another answer


def test_a_read_waits_for_a_person_when_a_tile_is_unsure_or_it_breaks_the_counts():
    sure = RackSeen(0, 0.0, ("A", "B"), (0.9, 0.95))
    unsure = RackSeen(0, 0.0, ("A", "B"), (0.9, 0.5))
    assert not TRUST.review(Fitted(sure, sure))
    assert TRUST.review(Fitted(unsure, unsure))
    assert TRUST.review(Fitted(sure, sure, breaks="the set has 1 Q"))
    # what the log keeps is judged: runner-ups that made the rack sure leave nothing to review
    assert not TRUST.review(Fitted(unsure, sure))


def _seen(rack: str, t: float) -> RackSeen:
    return RackSeen(0, t, tuple(rack), (0.99,) * len(rack))


def test_which_read_a_play_came_from_has_one_answer_before_and_after_it_is_committed():
    """The player rearranges ACEIRST (a second read of the same rack) and plays CAT: the play's rack is
    that second read, asked at the commit (`read_before`, the record's flags), of the stored play
    (`read_before` on the events before it, the console's flag) and of the stored moves
    (`played_from`, what goes on air). A play not from its rack: `read_before` names the turn's
    read (flagged), `played_from` leaves the play out (no rack of it on air)."""
    game = Game(get_profile("naspa"), EN)
    book = RackBook(EN, 2, TRUST)
    book.add(_seen("ACEIRST", 0.0))
    book.add(_seen("TSRIECA", 1.0))
    at_commit = book.read_before(0, "ACT", game.events)
    game.play(0, placement_from_gcg(game, "8G", "CAT"))
    book.add(_seen("EIORSUX", 2.0))                  # the rack after: CAT gone, OUX drawn
    assert at_commit == 1 == book.read_before(0, "ACT", game.events[:0])
    assert book.played_from(0, game.events) == {0: 1}
    game.play(1, placement_from_gcg(game, "9G", "OX"))
    assert book.read_before(0, "QI", game.events) == 2        # not on the rack read EIORSUX: flagged by it
    game.play(0, placement_from_gcg(game, "10G", "QI"))
    assert 2 not in book.played_from(0, game.events).values()   # and never on air as QI's rack


def test_read_before_and_played_from_agree_on_every_stored_play():
    game = Game(get_profile("naspa"), EN)
    book = RackBook(EN, 2, TRUST)
    plays = [(0, "8G", "CAT", "ACEIRST", "EIORSUX"), (1, "9G", "OX", "ADEMOXY", "ADEMYLN"),
             (0, "10G", "SIR", "EIORSUX", "EOUXABD")]
    for who, pos, word, before, after in plays:
        book.add(RackSeen(who, 0.0, tuple(before), (0.99,) * 7))
        book.add(RackSeen(who, 0.0, tuple(before[::-1]), (0.99,) * 7))   # shuffled: the same rack
        game.play(who, placement_from_gcg(game, pos, word))
        book.add(RackSeen(who, 0.0, tuple(after), (0.99,) * 7))
    for p in (0, 1):
        made = book.played_from(p, game.events)
        stored = {i: book.read_before(p, played_tiles(e.placement, EN), game.events[:i])
                  for i, e in enumerate(game.events) if e.player == p}
        assert made and made == stored


# Where a certainty may meet a review threshold: the rack's in RackTrust alone; the board's
# ([decode] review_below, a play's certainty) where the scorekeeper credits a play.
OWNERS = {"scoring/racks.py": "RackTrust", "scoring/scorekeeper/credit.py": None}
THRESHOLDS = {"review_below", "sure_at"}


def _compares_a_threshold(node: ast.Compare) -> bool:
    if not any(isinstance(op, (ast.Lt, ast.LtE, ast.Gt, ast.GtE)) for op in node.ops):
        return False
    return any(isinstance(n, ast.Attribute) and n.attr in THRESHOLDS or isinstance(n, ast.Name) and n.id in THRESHOLDS
               for side in (node.left, *node.comparators) for n in ast.walk(side))


def test_no_module_but_the_policy_compares_a_certainty_with_the_review_threshold():
    found = []
    for path in sorted(ROOT.rglob("*.py")):
        rel = path.relative_to(ROOT).as_posix()
        if rel.startswith(("tests/", ".venv/", "build/")) or "/." in f"/{rel}":
            continue
        tree = ast.parse(path.read_text(encoding="utf-8"))
        owner = OWNERS.get(rel, False)
        allowed: set[int] = set()
        if owner:   # only inside the policy's class
            allowed = {id(n) for c in ast.walk(tree) if isinstance(c, ast.ClassDef) and c.name == owner
                       for n in ast.walk(c)}
        for node in ast.walk(tree):
            if isinstance(node, ast.Compare) and _compares_a_threshold(node):
                if owner is None or id(node) in allowed:
                    continue
                found.append(f"{rel}:{node.lineno}")
    assert not found, f"a certainty compared with a review threshold outside its policy: {found}"
