"""Benchmark: what one commit costs the recorder on a game whose log already holds 1,000 entries.

    python tests/bench/bench_commit.py [--entries 1000] [--commits 30] [--amended]

The log is synthetic, built by the rules engine (scoring.game.Game's builders) under the `box`
rules, which end a game on passes only (two rounds of them), never on exchanges: each cycle is a
one-tile play next to the tiles already down (the board filled outwards from the centre, the
letter one the set still holds; the first play two tiles on the centre), then six passes and six
one-tile exchanges taking turns (never four passes in a row), the two players alternating.
`--entries` of it go straight into a fresh SQLite store
(store.append, no rules); then `--commits` more are committed one at a time through
GameService.commit, as the recorder's GameLink commits a decision, on a game of at least
`--entries` entries. `--amended`: the log's second entry is a correction of the first play (the
play re-entered as read, a reviewer's confirmation), so every later event is rebuilt on replay
(scoring.game.effective_events), as in any game a person has reviewed.

Each commit is timed in two parts: the write (GameService.commit with publish=False: the checks
and the store transaction) and the live update after it (what GameService.commit does next: the
overlay's live state, published on the bus: api/service/live.py's Live.publish). Also timed: the recorder's per-snapshot look at the
game (GameLink.count). Prints the medians in milliseconds, and which tilecam it ran.
"""
from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO))

import tilecam  # noqa: E402
from tilecam.api.bus import Bus  # noqa: E402
from tilecam.api.service import GameService  # noqa: E402
from tilecam.api.station.link import GameLink  # noqa: E402
from tilecam.api.store import open_store  # noqa: E402
from tilecam.scoring.board import Direction, Square  # noqa: E402
from tilecam.scoring.events import Correction  # noqa: E402
from tilecam.scoring.game import Game  # noqa: E402
from tilecam.scoring.placement import PlacedTile, Placement  # noqa: E402
from tilecam.scoring.rules import get_profile  # noqa: E402
from tilecam.scoring.tiles import DISTRIBUTIONS  # noqa: E402

RULES = "box"
CYCLE = 13  # a play, then passes and exchanges taking turns


def synthetic_log(n: int, amended: bool) -> list:
    """`n` log entries as the rules engine builds them (see the module's docstring)."""
    dist = DISTRIBUTIONS["en"]
    game = Game(get_profile(RULES), dist)
    order = _outwards(15)
    log: list = []
    while len(log) < n:
        i = len(log)
        player = i % 2
        step = (i - (1 if amended and i >= 2 else 0)) % CYCLE
        if amended and i == 1:   # a reviewer confirms the first play: re-entered as it was read
            log.append(Correction(0, log[0], by="bench", reason="confirmed"))
            continue
        if step == 0:
            pool = game.state.unseen_for(dist)
            letters = [t for t in dist.counts if t != "?" for _ in range(pool.get(t, 0))]
            if not log:   # the first play covers the centre with two tiles
                squares = [Square(7, 7), Square(7, 8)]
            else:
                squares = [next(sq for sq in order if game.state.board[sq] is None and _touches(game, sq))]
            tiles = tuple(PlacedTile(sq, letter) for sq, letter in zip(squares, letters))
            log.append(game.play(player, Placement(tiles, Direction.ACROSS)))
        elif step % 2:
            log.append(game.pass_turn(player))
        else:
            log.append(game.exchange(player, 1))
    return log


def _outwards(size: int) -> list[Square]:
    c = size // 2
    return sorted((Square(r, k) for r in range(size) for k in range(size)),
                  key=lambda sq: (abs(sq.row - c) + abs(sq.col - c), sq.row, sq.col))


def _touches(game: Game, sq: Square) -> bool:
    return any(0 <= sq.row + dr < 15 and 0 <= sq.col + dc < 15 and game.state.board[Square(sq.row + dr, sq.col + dc)]
               is not None for dr, dc in ((0, 1), (1, 0), (0, -1), (-1, 0)))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--entries", type=int, default=1000)
    ap.add_argument("--commits", type=int, default=30)
    ap.add_argument("--amended", action="store_true")
    args = ap.parse_args()
    log = synthetic_log(args.entries + args.commits, args.amended)
    with tempfile.TemporaryDirectory() as tmp:
        store = open_store(Path(tmp) / "bench.sqlite3")
        service = GameService(store, Bus())
        gid = service.create_game([("Ann", None), ("Bob", None)], RULES, "en").id
        with store.writing():
            for seq, entry in enumerate(log[:args.entries]):
                store.append(gid, entry, seq)
        link = GameLink(service, gid)
        service.live(gid)  # a page has opened the game: its live state is computed once
        write, update, look = [], [], []
        for seq in range(args.entries, args.entries + args.commits):
            t0 = time.perf_counter()
            link.count()   # the recorder's look at the game before each snapshot is read
            t1 = time.perf_counter()
            service.commit(gid, [log[seq]], expect=seq, publish=False)
            t2 = time.perf_counter()
            service.parts.live.publish(gid, log[seq], seq)  # the live update commit() sends next
            t3 = time.perf_counter()
            look.append((t1 - t0) * 1000)
            write.append((t2 - t1) * 1000)
            update.append((t3 - t2) * 1000)
        assert store.count(gid) == args.entries + args.commits
        store.close()
    med = statistics.median
    print(f"tilecam at {Path(tilecam.__file__).parent}, load average {os.getloadavg()[0]:.1f}")
    print(f"{args.commits} commits on a {RULES} game of {args.entries}+ entries"
          f"{' (a correction in the log)' if args.amended else ''}: median ms per commit "
          f"{med(w + u for w, u in zip(write, update)):.1f} = write {med(write):.1f} + live update {med(update):.1f}; "
          f"the recorder's look at the game {med(look):.3f} ms")


if __name__ == "__main__":
    main()
