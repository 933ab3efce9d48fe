"""`tilecam record` on bad input: exit 2 and `tilecam record: <message>` before any work, no
traceback, and no empty game left behind."""
from __future__ import annotations

import sqlite3
import subprocess
import sys
from pathlib import Path

import cv2
import numpy as np
import pytest

REPO = Path(__file__).resolve().parents[3]


def record(*args, timeout=180):
    return subprocess.run([sys.executable, "-m", "tilecam.api.cli", "record", *map(str, args)], cwd=REPO,
                          capture_output=True, text=True, timeout=timeout)


def games(db: Path) -> int:
    with sqlite3.connect(db) as raw:
        return raw.execute("SELECT COUNT(*) FROM games").fetchone()[0]


@pytest.fixture
def photo(shared_data):
    return shared_data / "scrabscrap" / "game08" / "image-2.jpg"


@pytest.mark.parametrize("flag", ["--gcg", "--json"])
@pytest.mark.parametrize("where", ["a_folder", "under_a_file"])
def test_an_output_that_cannot_be_written_is_refused_before_recording(tmp_path, photo, flag, where):
    (tmp_path / "file.txt").write_text("x")
    bad = {"a_folder": tmp_path,
           "under_a_file": tmp_path / "file.txt" / "out"}[where]
    outs = {"--gcg": tmp_path / "g.gcg", "--json": tmp_path / "g.json", flag: bad}
    r = record(photo, "--gcg", outs["--gcg"], "--json", outs["--json"], "--db", tmp_path / "g.sqlite3")
    assert r.returncode == 2 and f"{flag} {bad}" in r.stderr and "Traceback" not in r.stderr
    assert not (tmp_path / "g.sqlite3").exists() or games(tmp_path / "g.sqlite3") == 0


def test_a_missing_output_folder_is_made(tmp_path, photo):
    # as every other command does (api.cli.unwritable): only what cannot be made is refused
    out = tmp_path / "new" / "folder" / "g.gcg"
    r = record(photo, "--gcg", out, "--db", tmp_path / "g.sqlite3")
    assert r.returncode == 0 and "Traceback" not in r.stderr, r.stderr
    assert out.read_text(encoding="utf-8").startswith("#character-encoding UTF-8")


@pytest.mark.parametrize("kind", ["folder", "text", "foreign"])
def test_a_db_that_is_not_a_tilecam_store_is_exit_2(tmp_path, photo, kind):
    db = tmp_path / "x.sqlite3"
    if kind == "folder":
        db.mkdir()
    elif kind == "text":
        db.write_text("hello\n" * 50)
    else:
        with sqlite3.connect(db) as raw:
            raw.execute("CREATE TABLE entries (x)")
    r = record(photo, "--gcg", tmp_path / "g.gcg", "--db", db)
    assert r.returncode == 2 and r.stderr.startswith("tilecam record: ") and str(db) in r.stderr
    assert "Traceback" not in r.stderr and not (tmp_path / "g.gcg").exists()


@pytest.mark.parametrize("kind", ["text", "one_pixel", "no_board"])
def test_a_source_with_no_board_says_so_and_keeps_no_empty_game(tmp_path, kind):
    if kind == "text":
        src = tmp_path / "notes.txt"
        src.write_text("not a video\n")
    elif kind == "one_pixel":
        src = tmp_path / "dot.png"
        cv2.imwrite(str(src), np.zeros((1, 1, 3), np.uint8))
    else:
        src = tmp_path / "frames"
        src.mkdir()
        for i in range(3):
            cv2.imwrite(str(src / f"f{i}.jpg"), np.full((240, 320, 3), 40 * i, np.uint8))
    db = tmp_path / "g.sqlite3"
    r = record(src, "--gcg", tmp_path / "g.gcg", "--db", db)
    last = r.stderr.strip().splitlines()[-1]
    assert r.returncode == 2 and last.startswith("tilecam record: ") and "Traceback" not in r.stderr, r.stderr
    assert "GCG written" not in r.stdout and not (tmp_path / "g.gcg").exists()
    assert not db.exists() or games(db) == 0
    if kind == "no_board":
        assert "no board" in r.stderr and "3 frames" in r.stderr and "no game" in r.stderr


def test_resuming_a_game_that_is_not_there_is_exit_2(tmp_path, photo):
    r = record(photo, "--gcg", tmp_path / "g.gcg", "--db", tmp_path / "g.sqlite3", "--game", "7")
    assert r.returncode == 2 and "no game 7" in r.stderr and "Traceback" not in r.stderr


def test_the_config_s_capture_section_reaches_the_source(tmp_path, photo):
    frames = tmp_path / "frames"
    frames.mkdir()
    (frames / "image-1.jpg").write_bytes(photo.read_bytes())
    only_png = tmp_path / "capture.toml"
    only_png.write_text('[capture]\nfolder_extensions = [".png"]\n')
    r = record(frames, "--gcg", tmp_path / "g.gcg", "--db", tmp_path / "g.sqlite3", "--config", only_png)
    assert r.returncode == 2 and "Traceback" not in r.stderr, r.stderr   # the folder holds no .png
    r = record(frames, "--gcg", tmp_path / "g.gcg", "--db", tmp_path / "g.sqlite3")
    assert r.returncode == 0, r.stderr                                    # with the default .jpg it records
    bad = tmp_path / "bad.toml"
    bad.write_text("[capture]\nreconnect_max_s = 99\n")
    r = record(frames, "--gcg", tmp_path / "g.gcg", "--db", tmp_path / "x.sqlite3", "--config", bad)
    assert r.returncode == 2 and "capture.reconnect_max_s" in r.stderr and "Traceback" not in r.stderr
