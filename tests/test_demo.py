"""tilecam demo on a fresh machine: renders its own game, records it through the real pipeline."""
from __future__ import annotations

import subprocess
import sys


def test_demo_records_its_rendered_game_and_caches_the_video(tmp_path):
    cmd = [sys.executable, "-m", "tilecam.api.cli", "demo", "--no-serve", "--moves", "2", "--cache", str(tmp_path)]
    first = subprocess.run(cmd, capture_output=True, text=True, timeout=400)
    assert first.returncode == 0, first.stderr
    assert "demo video rendered to" in first.stdout
    assert "recorded 2 plays; 2 of 2 exactly as played" in first.stdout
    again = subprocess.run(cmd, capture_output=True, text=True, timeout=400)
    assert "demo video (cached)" in again.stdout
    assert list(tmp_path.glob("*.part.avi")) == []
