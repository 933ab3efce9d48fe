"""tilecam read / enroll as a user runs them: exit codes, output shape, no tracebacks."""
from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import cv2
import numpy as np

REPO = Path(__file__).resolve().parents[2]


def tilecam(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "tilecam.api.cli", *args], cwd=REPO, capture_output=True,
                          text=True, timeout=60)


def test_read_prewarped_frame(shared_data):
    frame = shared_data / "scrabscrap" / "game08" / "image-18.jpg"
    out = tilecam("read", str(frame), "--lang", "de", "--prewarped")
    assert out.returncode == 0, out.stderr
    lines = out.stdout.splitlines()
    assert len(lines) == 15 and all(len(line) == 15 for line in lines)
    assert sum(ch != "." for line in lines for ch in line) > 40


def test_read_json(shared_data):
    frame = shared_data / "scrabscrap" / "game06" / "image-5.jpg"
    out = tilecam("read", str(frame), "--lang", "de", "--prewarped", "--json")
    assert out.returncode == 0, out.stderr
    doc = json.loads(out.stdout)
    assert set(doc) == {"board", "confidence", "corners", "orientation", "ms"}
    assert len(doc["board"]) == 15 and len(doc["confidence"]) == 15 and len(doc["corners"]) == 4
    assert doc["orientation"] == 0


def test_read_with_explicit_corners(shared_data):
    frame = shared_data / "scrabscrap" / "game06" / "image-1.jpg"
    out = tilecam("read", str(frame), "--lang", "de", "--corners", "28,24,776,24,776,775,28,775")
    assert out.returncode == 0, out.stderr
    assert "GEMAUST" in out.stdout.splitlines()[7]


def test_no_board_exits_3(tmp_path):
    blank = tmp_path / "grey.png"
    cv2.imwrite(str(blank), np.full((480, 640, 3), 128, np.uint8))
    out = tilecam("read", str(blank))
    assert out.returncode == 3
    assert "Traceback" not in out.stderr and out.stderr.startswith("tilecam read:")


def test_unreadable_image_is_bad_input_exit_2(tmp_path):
    # a file that is not an image is bad input (2); 3 is kept for a photo without a board
    bad = tmp_path / "not-an-image.jpg"
    bad.write_text("hello")
    out = tilecam("read", str(bad), "--prewarped")
    assert out.returncode == 2 and "not-an-image.jpg: not an image" in out.stderr and "Traceback" not in out.stderr


def test_bad_corners_exit_2(shared_data):
    frame = shared_data / "scrabscrap" / "game06" / "image-1.jpg"
    out = tilecam("read", str(frame), "--corners", "1,2,3")
    assert out.returncode == 2 and "Traceback" not in out.stderr


def test_enroll_then_read(shared_data, tmp_path):
    game = shared_data / "scrabscrap" / "game06"
    out_file = tmp_path / "g06.npz"
    out = tilecam("enroll", "--images", str(game / "image-20.jpg"), str(game / "image-33.jpg"),
                  "--truth", str(game / "truth.jsonl"), "--out", str(out_file), "--lang", "de", "--prewarped")
    assert out.returncode == 0, out.stderr
    assert out_file.is_file() and str(out_file) in out.stdout
    frame = shared_data / "scrabscrap" / "game08" / "image-18.jpg"
    read = tilecam("read", str(frame), "--lang", "de", "--prewarped", "--tileset", str(out_file))
    assert read.returncode == 0, read.stderr
    assert len(read.stdout.splitlines()) == 15


def test_enroll_needs_truth(shared_data, tmp_path):
    frame = shared_data / "scrabscrap" / "game06" / "image-1.jpg"
    out = tilecam("enroll", "--images", str(frame), "--out", str(tmp_path / "x.npz"), "--prewarped")
    assert out.returncode == 2 and "--truth" in out.stderr


def english_photo(shared_data, name):
    rows = [json.loads(x) for x in (shared_data / "english" / "truth.jsonl").read_text("utf-8").splitlines()
            if x.strip()]
    row = next(r for r in rows if r["frame"] == name)
    return shared_data / "english" / "frames" / name, np.float32(row["corners"]), row["board"]


def test_read_prints_game_orientation_on_a_turned_photo(shared_data):
    # the finished English board (100 tiles); its corners given as a camera that sees the
    # board turned k quarter turns clockwise would order them: TL is then game corner (4-k)%4
    frame, corners, truth = english_photo(shared_data, "IMG_20151016_170757.jpg")
    for k in (1, 2, 3):
        cam = np.roll(corners, k, axis=0)
        text = ",".join(f"{v:.2f}" for v in cam.ravel())
        out = tilecam("read", str(frame), "--corners", text, "--json")
        assert out.returncode == 0, out.stderr
        doc = json.loads(out.stdout)
        assert doc["orientation"] == 90 * k
        assert np.allclose(doc["corners"], corners, atol=0.01)  # back in game order: A1, O1, O15, A15
        same = np.mean([a == b for a, b in zip("".join(doc["board"]), "".join(truth))])
        assert same >= 0.7, f"turn {k}: {same:.3f} of squares as in the truth (game orientation)"
        plain = tilecam("read", str(frame), "--corners", text)
        assert plain.stdout.splitlines() == doc["board"]


def test_empty_board_reference_round_trip(shared_data, tmp_path):
    rows = [json.loads(x) for x in (shared_data / "english" / "truth.jsonl").read_text("utf-8").splitlines()
            if x.strip()]
    empties = [r for r in rows if r["session"] == "2015" and not any(ch != "." for b in r["board"] for ch in b)]
    assert len(empties) == 4
    ref_file = tmp_path / "ref.npz"
    first = empties[0]
    text = ",".join(f"{v:.2f}" for v in np.float32(first["corners"]).ravel())
    out = tilecam("enroll", "--empty-board", str(shared_data / "english" / "frames" / first["frame"]),
                  "--corners", text, "--out", str(ref_file))
    assert out.returncode == 0, out.stderr
    assert ref_file.is_file() and str(ref_file) in out.stdout
    frame, corners, truth = english_photo(shared_data, "IMG_20151016_170757.jpg")
    text = ",".join(f"{v:.2f}" for v in corners.ravel())
    read = tilecam("read", str(frame), "--corners", text, "--empty-ref", str(ref_file))
    assert read.returncode == 0, read.stderr
    assert len(read.stdout.splitlines()) == 15
    bad = tilecam("read", str(frame), "--corners", text, "--empty-ref", str(tmp_path / "missing.npz"))
    assert bad.returncode == 2 and "Traceback" not in bad.stderr
    # the reference can also be passed as the tile set (the issue's `tilecam read --tileset`)
    as_tileset = tilecam("read", str(frame), "--corners", text, "--tileset", str(ref_file))
    assert as_tileset.returncode == 0 and as_tileset.stdout == read.stdout
    both = tilecam("read", str(frame), "--corners", text, "--tileset", str(ref_file), "--empty-ref", str(ref_file))
    assert both.returncode == 2 and "give one" in both.stderr
