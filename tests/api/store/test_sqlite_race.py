"""Two writers on one SQLite file: other processes and the server's own threads append to one game
at once. Every append is one BEGIN IMMEDIATE transaction that checks the seq and the engine's
verdict inside it, so the log stays whole, a writer that lost the race is told (and retries),
and the game and the list of games still answer afterwards."""
from __future__ import annotations

import subprocess
import sys
import textwrap
import threading

import httpx
import pytest

from tilecam.api.bus import Bus
from tilecam.api.service import GameService
from tilecam.api.store import Conflict, open_store
from apiserver import AUTH, LiveServer
from tilecam.scoring.events import TimePenalty
from tilecam.scoring.game import GameError

pytestmark = pytest.mark.slow  # end to end (see pyproject's markers)

PER_WRITER = 30

# A writer in its own process. "build": the operator routes' path (the service builds the event on
# the record read inside the transaction). "expect": the recorder's path (the event is decided on
# the record as last read, and committed only if nobody wrote since; on a Conflict, read and decide
# again). It prints how many conflicts it lost.
WRITER = textwrap.dedent("""
    import sys
    from tilecam.api.bus import Bus
    from tilecam.api.service import GameService
    from tilecam.api.store import Conflict, open_store
    db, gid, mode, n, player = sys.argv[1], int(sys.argv[2]), sys.argv[3], int(sys.argv[4]), int(sys.argv[5])
    svc = GameService(open_store(db), Bus())
    sys.stdin.readline()  # start together
    lost = 0
    for _ in range(n):
        if mode == "build":
            svc.time_penalty(gid, player, 1)
            continue
        while True:
            view = svc.load(gid)
            ev = view.game_at().time_penalty(player, 1)
            try:
                svc.append(gid, ev, expect=len(view.entries))
                break
            except Conflict:
                lost += 1
    print(lost, flush=True)
""")


def _writers(db, gid, modes):
    procs = [subprocess.Popen([sys.executable, "-c", WRITER, str(db), str(gid), mode, str(PER_WRITER), str(i % 2)],
                              stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
             for i, mode in enumerate(modes)]
    return procs


def _check_whole(service, gid, n):
    view = service.load(gid)  # replays: every cumulative follows from the one before
    assert [e.seq for e in view.entries] == list(range(n))
    totals = [0, 0]
    for ev in view.events:
        totals[ev.player] -= 10
        assert ev.cumulative == totals[ev.player]
    return view


def test_a_stale_writer_gets_a_conflict_and_nothing_is_written(tmp_path):
    service = GameService(open_store(tmp_path / "g.sqlite3"), Bus())
    gid = service.create_game([("Ann", None), ("Bob", None)]).id
    service.end(gid, None, "time", "desk")  # overtime goes in once the game is over: entry 0
    view = service.load(gid)
    ev = view.game_at().time_penalty(0, 1)
    service.time_penalty(gid, 1, 2)  # another writer got in first
    with pytest.raises(Conflict, match="has 2 log entries, not 1"):
        service.append(gid, ev, expect=1)
    with pytest.raises(Conflict):
        service.store.append(gid, ev, expect=1)
    assert service.store.count(gid) == 2
    assert service.append(gid, service.load(gid).game_at().time_penalty(0, 1), expect=2) == 2
    # the engine's verdict is taken inside the same transaction: a stale cumulative is refused
    with pytest.raises(GameError, match="cumulative"):
        service.append(gid, TimePenalty(0, 1, None, -10, -10, -10))
    assert service.store.count(gid) == 3


def test_two_processes_and_the_servers_threads_append_to_one_game_at_once(tmp_path):
    db = tmp_path / "shared.sqlite3"
    service = GameService(open_store(db), Bus())
    gid = service.create_game([("Ann", None), ("Bob", None)]).id
    service.end(gid, None, "time", "desk")  # overtime goes in once the game is over: entry 0
    procs = _writers(db, gid, ["build", "expect", "expect"])
    http_status: list[int] = []
    with LiveServer(db) as server:
        def poster(player: int) -> None:
            with httpx.Client(base_url=server.url, timeout=30) as client:
                for _ in range(PER_WRITER):
                    r = client.post(f"/api/games/{gid}/time-penalties", json={"player": player, "minutes": 1},
                                    headers=AUTH)
                    http_status.append(r.status_code)

        threads = [threading.Thread(target=poster, args=(p,)) for p in (0, 1)]
        for p in procs:
            p.stdin.write("go\n")
            p.stdin.flush()
        for t in threads:
            t.start()
        lost = []
        for p in procs:
            out, err = p.communicate(timeout=120)
            assert p.returncode == 0, err
            lost.append(int(out.strip() or 0))
        for t in threads:
            t.join(timeout=120)
        assert http_status == [200] * (2 * PER_WRITER)
        n = PER_WRITER * (len(procs) + 2) + 1   # and the close
        _check_whole(service, gid, n)
        # Nothing answers 409 for good: the game, the list, and the next write.
        with httpx.Client(base_url=server.url, timeout=10) as client:
            detail = client.get(f"/api/games/{gid}")
            assert detail.status_code == 200 and detail.json()["entries"] == n
            listed = client.get("/api/games")
            assert listed.status_code == 200 and [g["id"] for g in listed.json()] == [gid]
            r = client.post(f"/api/games/{gid}/time-penalties", json={"player": 0, "minutes": 1}, headers=AUTH)
            assert r.status_code == 200, r.text
    print(f"race: {n} appends by 3 processes and 2 HTTP threads; conflicts lost and retried: {sum(lost)}")
