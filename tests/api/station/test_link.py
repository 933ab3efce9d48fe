"""api/station/link.py: the recorder's line to its game. GameLink writes through the game service into
a real SQLite file (entries, their evidence JPEG and sidecar in one commit, a stale count refused with
nothing written, the lost-game alert in the meta, the learned tiles in the table log, rack reads in the
rack log);
MemoryLink keeps the same in memory, and the same calls leave both with the same record."""
from __future__ import annotations

import numpy as np
import pytest

from tilecam.api.bus import Bus
from tilecam.api.errors import Conflict
from tilecam.api.service import GameService
from tilecam.api.service.view import LEARNED_META, LOST_META
from tilecam.api.station.link import GameLink, MemoryLink
from tilecam.api.store import open_store
from tilecam.capture.frame import Frame
from tilecam.scoring.events import Pass
from tilecam.scoring.racks import RackSeen


@pytest.fixture
def service(tmp_path):
    svc = GameService(open_store(tmp_path / "games.sqlite3"), Bus())
    yield svc
    svc.store.close()


def frame(index: int, shade: int = 90) -> Frame:
    return Frame(np.full((48, 64, 3), shade, np.uint8), index * 0.25, index)


def test_a_commit_keeps_its_entries_evidence_and_sidecar_together(service):
    gid = service.create_game([("Ann", None), ("Ben", None)]).id
    committed = []
    link = GameLink(service, gid, on_commit=committed.append)
    seqs = link.commit([Pass(0, 0)], frame(3), expect=0, sidecar={"frame": "f3.jpg"})
    assert seqs == [0] and committed == [[0]]
    assert link.count() == 1 and link.entries() == [Pass(0, 0)] and link.frames() == ["f3.jpg"]
    jpeg = service.frame(gid, 0).jpeg
    assert jpeg[:2] == b"\xff\xd8"                       # the frame, encoded by the link's evidence sink
    link.commit([Pass(1, 0)], None, expect=1)            # no frame: no evidence, no sidecar
    assert link.frames() == ["f3.jpg"] and service.store.frame_seqs(gid) == {0}


def test_a_stale_expect_is_a_conflict_and_nothing_is_written(service):
    gid = service.create_game([("Ann", None), ("Ben", None)]).id
    committed = []
    link = GameLink(service, gid, on_commit=committed.append)
    link.commit([Pass(0, 0)], None, expect=0)
    with pytest.raises(Conflict):
        link.commit([Pass(1, 0)], frame(1), expect=0)    # another writer added entry 0 meanwhile
    assert link.count() == 1 and committed == [[0]]


def test_the_lost_alert_and_the_learned_tiles_are_kept_in_the_games_meta(service):
    gid = service.create_game([("Ann", None), ("Ben", None)]).id
    link = GameLink(service, gid)
    link.flag("no board in view")
    assert service.game(gid).meta[LOST_META] == "no board in view"
    link.flag(None)
    assert LOST_META not in service.game(gid).meta
    link.learned({"Q", "A", "Z"})
    assert service.game(gid).meta[LEARNED_META] == "A Q Z"
    # the learned tiles are a row of the table log (issue 46): what a resumed station trusts is the
    # log's, whatever the meta (the pages' copy) says
    assert [(r.kind, r.data) for r in service.store.table_log(gid) if r.kind == "learned"] == \
        [("learned", {"tiles": ["A", "Q", "Z"]})]
    service.set_meta(gid, {LEARNED_META: None})
    from tilecam.api.station.game import attach_game
    assert attach_game(service, gid).scorekeeper.given == {"A", "Q", "Z"}


def test_a_new_game_with_the_tiles_its_table_learned_logs_them(service):
    from tilecam.api.station.game import attach_game
    rec = attach_game(service, None, learned=frozenset("CAT"))
    assert rec.scorekeeper.given == set("CAT") and service.learned(rec.game_id) == set("CAT")
    assert service.game(rec.game_id).meta[LEARNED_META] == "A C T"


def test_a_rack_read_goes_to_the_rack_log_with_its_review_its_read_and_what_it_breaks(service):
    gid = service.create_game([("Ann", None), ("Ben", None)]).id
    link = GameLink(service, gid)
    seen = RackSeen(0, 1.5, ("Q", "U", "A", "I", "L", "S", None), (0.9,) * 6 + (None,))
    read = RackSeen(0, 1.5, ("O", "U", "A", "I", "L", "S", None), (0.9,) * 6 + (None,))
    assert link.rack(seen, frame(2), review=True, read=read) == 0
    assert link.rack(seen, None, breaks="a second Q") == 1
    rows = service.store.racks(gid)
    assert [r.kind for r in rows] == ["seen", "seen"] and [r.frame for r in rows] == [True, False]
    assert rows[0].data["tiles"] == ["Q", "U", "A", "I", "L", "S", None] and rows[0].data["review"] is True
    assert rows[0].data["read"][0] == "O" and "breaks" not in rows[0].data
    assert rows[1].data["breaks"] == "a second Q" and rows[1].data["review"] is True   # off air until confirmed
    assert "read" not in rows[1].data


def play_out(link: GameLink) -> tuple:
    """The same calls a recorder makes, on either link; what each then holds."""
    link.commit([Pass(0, 0)], None, expect=0, sidecar={"frame": "a.jpg"})
    link.flag("the board has not stood still for 20 s")
    link.commit([Pass(1, 0), Pass(0, 0)], None, expect=1, sidecar={"frame": "b.jpg"})
    link.flag(None)
    link.learned(["E", "T"])
    with pytest.raises(Conflict):
        link.commit([Pass(1, 0)], None, expect=2)
    return link.count(), link.entries(), link.frames()


def test_a_memory_link_holds_what_the_store_link_holds_after_the_same_calls(service):
    gid = service.create_game([("Ann", None), ("Ben", None)]).id
    memory = MemoryLink()
    stored = play_out(GameLink(service, gid))
    assert play_out(memory) == stored == (3, [Pass(0, 0), Pass(1, 0), Pass(0, 0)], ["a.jpg", "b.jpg", "b.jpg"])
    meta = service.game(gid).meta
    assert memory.meta == {LEARNED_META: meta[LEARNED_META]} and LOST_META not in meta
    assert memory.commit_end([Pass(1, 0)], expect=3) == [3]
