"""The demo game: a real tournament game, Cesar v Josh, as liwords keeps it in its test data
(vs_josh.gcg, copied byte for byte from woogles-io/liwords pkg/stats/testdata, AGPL-3.0).

Chosen because it has everything a recorder meets on the day in 25 turns: real words, two
blanks, a challenged phony taken back (MAZEY, ``--``), two exchanges and a pass, and a player
going out with the rack points added at the end. The demo must run on a fresh machine, so the
record ships with the package.
"""
from __future__ import annotations

from pathlib import Path

from tilecam.scoring import DISTRIBUTIONS, Game, get_profile
from tilecam.scoring.gcg import GameRecord, read_gcg, record_from_gcg

__all__ = ["DEMO_GCG", "demo_record", "make_demo_game"]

DEMO_GCG = Path(__file__).with_name("vs_josh.gcg")


def demo_record() -> GameRecord:
    """The whole game, replayed through the rules engine (the record has no score the engine disputes)."""
    profile, dist = get_profile("naspa"), DISTRIBUTIONS["en"]
    record, findings, _ = record_from_gcg(read_gcg(DEMO_GCG.read_bytes()), profile, dist)
    if findings:  # the shipped file is fixed: a finding means the engine changed under it
        raise ValueError(f"{DEMO_GCG.name}: {findings[0]}")
    return record


def make_demo_game(moves: int | None = None) -> Game:
    """The demo game cut to its first `moves` turns (every event counts: a play, the phony's
    withdrawal, an exchange, a pass); None: the whole game."""
    record = demo_record()
    game = Game(get_profile(record.rules), DISTRIBUTIONS[record.lang], players=len(record.players))
    for ev in record.events[:moves]:
        game.append(ev)
    return game
