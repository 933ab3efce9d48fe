"""tilecam locate through the real command line (a subprocess, as a user runs it)."""
from __future__ import annotations

import json
import subprocess
import sys

import cv2
import numpy as np

from conftest import REPO


def locate(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "tilecam.api.cli", "locate", *args], cwd=REPO,
                          capture_output=True, text=True, timeout=120)


def test_json_and_debug_on_a_real_frame(shared_data, tmp_path):
    frame = shared_data / "scrabscrap" / "game05" / "image-3.jpg"
    debug = tmp_path / "grid.png"
    res = locate(str(frame), "--json", "--debug", str(debug))
    assert res.returncode == 0, res.stderr
    out = json.loads(res.stdout)
    assert set(out) == {"corners", "quality", "ms"}
    corners = np.array(out["corners"])
    np.testing.assert_allclose(corners, [[42, 48], [936, 29], [963, 931], [49, 946]], atol=6)
    assert 0 < out["quality"] <= 1
    assert str(debug) in res.stderr
    drawn = cv2.imread(str(debug))
    assert drawn is not None and drawn.shape == (976, 992, 3)


def test_plain_output_and_manual_corners(shared_data, tmp_path):
    frame = shared_data / "scrabscrap" / "game12" / "board-03.png"
    res = locate(str(frame))
    assert res.returncode == 0 and "quality" in res.stdout
    res = locate(str(frame), "--json", "--corners", "130,1411,104,119,1390,99,1417,1379")
    assert res.returncode == 0, res.stderr
    out = json.loads(res.stdout)
    assert out["quality"] == 1.0 and out["corners"][0] == [104.0, 119.0]
    calib = tmp_path / "calib.json"
    calib.write_text(json.dumps({"corners": [[104, 119], [1390, 99], [1417, 1379], [130, 1411]]}))
    res = locate(str(frame), "--json", "--calibration", str(calib))
    assert res.returncode == 0 and json.loads(res.stdout)["corners"][2] == [1417.0, 1379.0]


def test_no_board_exits_3_and_an_unreadable_image_2(tmp_path):
    blank = tmp_path / "blank.png"
    cv2.imwrite(str(blank), np.full((400, 500, 3), 200, np.uint8))
    res = locate(str(blank))
    assert res.returncode == 3
    assert str(blank) in res.stderr and "no board" in res.stderr and "Traceback" not in res.stderr
    junk = tmp_path / "junk.jpg"
    junk.write_bytes(b"not an image")
    res = locate(str(junk))
    assert res.returncode == 2 and "junk.jpg" in res.stderr and "image" in res.stderr and "Traceback" not in res.stderr
    res = locate(str(tmp_path / "missing.png"))
    assert res.returncode == 2 and "missing.png" in res.stderr and "Traceback" not in res.stderr


def test_debug_path_is_checked_before_detection(shared_data, tmp_path):
    frame = shared_data / "scrabscrap" / "game05" / "image-3.jpg"
    res = locate(str(frame), "--debug", str(tmp_path / "grid.txt"))
    assert res.returncode == 2 and res.stdout == "" and "grid.txt" in res.stderr
    nested = tmp_path / "new" / "folder" / "grid.png"  # missing folders are made, as before
    res = locate(str(frame), "--debug", str(nested))
    assert res.returncode == 0, res.stderr
    assert cv2.imread(str(nested)) is not None


def test_bad_corners_argument_exits_2(tmp_path):
    res = locate(str(tmp_path / "x.png"), "--corners", "1,2,3")
    assert res.returncode == 2 and "8 numbers" in res.stderr


def test_settings_file_tunes_the_detection(shared_data, tmp_path):
    """[locate] of --config (the settings file `tilecam run` takes) tunes the detection: a fit no grid
    reaches finds no board; given corners need no detection; a key that is not a setting is named."""
    frame = shared_data / "scrabscrap" / "game05" / "image-3.jpg"
    config = tmp_path / "tilecam.toml"
    config.write_text("[locate]\nmin_fit = 1.0\nagree_min_fit = 1.0\nagree_low_fit = 1.0\n")
    res = locate(str(frame), "--config", str(config))
    assert res.returncode == 3 and "weak" in res.stderr and "Traceback" not in res.stderr
    res = locate(str(frame), "--config", str(config), "--json", "--corners", "42,48,936,29,963,931,49,946")
    assert res.returncode == 0 and json.loads(res.stdout)["quality"] == 1.0
    config.write_text("[locate]\nmin_fits = 1.0\n")
    res = locate(str(frame), "--config", str(config))
    assert res.returncode == 2 and "locate.min_fits" in res.stderr and "line 2" in res.stderr
