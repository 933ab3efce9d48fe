"""The README's main job on a fresh machine: `tilecam demo` (the console script `make run` runs) with an
empty HOME and no TILECAM_* variables renders its video into a cache folder that does not exist yet,
records and serves the first move at table 1. (It once ended with `cannot create token file
~/.cache/tilecam/demo.sqlite3.token: No such file or directory`.)"""
from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
from pathlib import Path

import httpx
import pytest

pytestmark = pytest.mark.slow  # end to end: renders the video (see pyproject's markers)

TILECAM = Path(sys.executable).parent / "tilecam"  # the console script in .venv/bin, as `make run` runs it


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def test_demo_on_a_fresh_machine_serves_the_first_move(tmp_path):
    home = tmp_path / "home"
    home.mkdir()
    # the suite's conftest may set TILECAM_CACHE (and others): a fresh machine has none of them
    env = {k: v for k, v in os.environ.items() if not k.startswith("TILECAM_")}
    env.update(HOME=str(home), XDG_CACHE_HOME=str(home / ".cache"))
    port = free_port()
    assert TILECAM.is_file(), f"no console script at {TILECAM} (pip install -e .)"
    # --moves 2 and a short pace keep it quick; the code path is the one `make run` takes
    proc = subprocess.Popen([str(TILECAM), "demo", "--port", str(port), "--moves", "2", "--pace", "3"],
                            cwd=tmp_path, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        deadline = time.monotonic() + 300
        with httpx.Client(base_url=f"http://127.0.0.1:{port}", timeout=10) as client:
            while True:
                assert proc.poll() is None, f"tilecam demo exited {proc.returncode}: {proc.stderr.read()}"
                assert time.monotonic() < deadline, "no move served within 300 s"
                try:
                    table = client.get("/api/tables/1")
                except httpx.TransportError:  # still rendering, or not listening yet
                    table = None
                if table is not None and table.status_code == 200:
                    moves = client.get(f"/api/games/{table.json()['game_id']}/moves").json()
                    if moves:
                        break
                time.sleep(0.5)
        assert moves[0]["kind"] == "play" and moves[0]["engine"] == 30, moves[0]  # DJINN, the game's first play
    finally:
        proc.terminate()
        out, err = proc.communicate(timeout=30)
    cache = home / ".cache" / "tilecam"
    assert list(cache.glob("demo-*.avi")) and (cache / "demo.sqlite3").is_file()
    assert oct((cache / "demo.sqlite3.token").stat().st_mode & 0o777) == "0o600"
    assert f"http://127.0.0.1:{port}/overlay/table/1" in out, out
    assert "Traceback" not in err, err
