"""Nicknames on the way in: every stored player's nickname can be written as a GCG nickname."""
from __future__ import annotations

import pytest

from tilecam.api.bus import Bus
from tilecam.api.service import GameService, nick_of
from tilecam.api.store import open_store
from tilecam.scoring.gcg import GcgError, check_nick, read_gcg


@pytest.mark.parametrize("name", ["Ann Lee", "Ann:Lee", "a\u2028b", "tab\there", "x" * 200, "  ", "é ü"])
def test_a_nickname_made_from_any_name_is_a_gcg_nickname(name):
    assert check_nick(nick_of(name)) == nick_of(name)


def test_a_given_nickname_is_checked_and_the_export_reads_back(tmp_path):
    service = GameService(open_store(tmp_path / "g.sqlite3"), Bus())
    with pytest.raises(GcgError, match="':'"):
        service.create_game([("Ann", "an:n"), ("Bob", None)])
    gid = service.create_game([("Ann: the champ", None), ("Bob\u2028Smith", None)]).id
    service.pass_turn(gid)
    players = read_gcg(service.gcg(service.load(gid))).players
    assert [(p.nick, p.name) for p in players] == [("Ann_the_champ", "Ann: the champ"), ("Bob_Smith", "Bob Smith")]
    with pytest.raises(GcgError, match="one word"):
        service.set_players(gid, [("Ann", "A nn"), ("Bob", None)], by="test")
