"""A recorder in another process writes the shared SQLite file; the server announces it live."""
from __future__ import annotations

import json
import subprocess
import sys
import textwrap
import time

import httpx

from apiserver import LiveServer


def test_entries_from_another_process_reach_sse_clients(tmp_path):
    db = tmp_path / "shared.sqlite3"
    # The other process creates the game first and plays when told, as `tilecam record --db` would.
    writer = textwrap.dedent(f"""
        import sys
        from tilecam.api.bus import Bus
        from tilecam.api.service import GameService
        from tilecam.api.store import open_store
        svc = GameService(open_store({str(db)!r}), Bus())
        gid = svc.create_game([("Ann", None), ("Bob", None)], "naspa", "en").id
        print(gid, flush=True)
        sys.stdin.readline()
        svc.play(gid, "8D", "QUALM")
        print("done", flush=True)
        sys.stdin.readline()
    """)
    proc = subprocess.Popen([sys.executable, "-c", writer], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    try:
        gid = int(proc.stdout.readline())
        with LiveServer(db) as server, httpx.Client(base_url=server.url, timeout=10) as client:
            with client.stream("GET", f"/api/games/{gid}/events") as stream:
                lines = stream.iter_lines()
                first = next(line for line in lines if line.startswith("data:"))
                assert json.loads(first[5:])["live"]["scores"] == [0, 0]
                proc.stdin.write("go\n")
                proc.stdin.flush()
                assert proc.stdout.readline().strip() == "done"
                deadline = time.monotonic() + 10
                for line in lines:
                    if line.startswith("data:") and json.loads(line[5:])["live"]["scores"] == [52, 0]:
                        break
                    assert time.monotonic() < deadline, "the other process's play never arrived"
    finally:
        proc.kill()
