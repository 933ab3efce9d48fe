"""Settings from sections (typos fail, with the key), and `tilecam serve` end to end."""
from __future__ import annotations

import signal
import socket
import subprocess
import sys
from pathlib import Path

import httpx
import pytest

from tilecam.api.settings import Settings, SettingsError, load_settings
from apiserver import create_game_when_up

REPO = Path(__file__).resolve().parents[2]


def test_settings_defaults_and_overrides():
    s = load_settings(server={"port": 9001, "host": None}, store={"db_path": "x.sqlite3"})
    assert s.server.port == 9001 and s.server.host == "127.0.0.1" and s.store.db_path == "x.sqlite3"
    assert Settings().auth.tokens == {}
    for name, field in Settings.model_fields.items():
        assert field.description, name
        for sub, f in field.annotation.model_fields.items():
            assert f.description, f"{name}.{sub}"


def test_settings_file_and_typos(tmp_path):
    good = tmp_path / "tilecam.toml"
    good.write_text('[server]\nport = 8123\n[auth.tokens]\ndesk = "s3cret-desk-token-1"\n')
    s = load_settings(good, server={"port": 9000})
    assert s.server.port == 9000 and s.auth.tokens == {"desk": "s3cret-desk-token-1"}
    bad = tmp_path / "bad.toml"
    bad.write_text("[server]\nprot = 8123\n")
    with pytest.raises(SettingsError, match=r"bad.toml: server.prot \(line 2\): Extra inputs"):
        load_settings(bad)
    with pytest.raises(SettingsError, match="live.keepalive_s"):
        load_settings(live={"keepalive_s": -1})
    with pytest.raises(SettingsError, match="missing.toml"):
        load_settings(tmp_path / "missing.toml")


def test_serve_prints_urls_and_token_and_stops_on_ctrl_c(tmp_path):
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    proc = subprocess.Popen([sys.executable, "-m", "tilecam.api.cli", "serve", "--port", str(port),
                             "--db", str(tmp_path / "g.sqlite3")], cwd=REPO, stdout=subprocess.PIPE, text=True)
    try:
        lines = [proc.stdout.readline() for _ in range(7)]  # the address, five URLs, the token's file
        assert f"http://127.0.0.1:{port}" in lines[0]
        # the token is not printed; the file it is kept in is (mode 0600)
        assert "g.sqlite3.token" in "".join(lines)
        token = (tmp_path / "g.sqlite3.token").read_text().strip()
        assert len(token) >= 20 and token not in "".join(lines)
        r = create_game_when_up(proc, port, token)
        assert r.status_code == 201
        with httpx.Client(timeout=httpx.Timeout(5, read=None)) as c, \
                c.stream("GET", f"http://127.0.0.1:{port}/api/games/1/events") as stream:
            next(stream.iter_lines())  # an open SSE client must not hold the shutdown up
            proc.send_signal(signal.SIGINT)
            assert proc.wait(10) == 0
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert (tmp_path / "g.sqlite3").exists()
