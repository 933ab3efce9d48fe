"""tilecam read / enroll as a user runs them: exit codes, output shape, no tracebacks."""
from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import cv2
import numpy as np

REPO = Path(__file__).resolve().parents[3]


def tilecam(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "tilecam.api.cli", *args], cwd=REPO, capture_output=True,
                          text=True, timeout=60)


def test_read_prewarped_frame(shared_data):
    frame = shared_data / "scrabscrap" / "game08" / "image-18.jpg"
    out = tilecam("read", str(frame), "--lang", "de", "--prewarped", "--plain")
    assert out.returncode == 0, out.stderr
    lines = out.stdout.splitlines()
    assert len(lines) == 15 and all(len(line) == 15 for line in lines)
    assert sum(ch != "." for line in lines for ch in line) > 40


def test_read_prints_coordinates_and_marks_doubtful_squares(shared_data, tmp_path):
    """As a board is written: columns A-O on top, rows 1-15 at the left; a German board read with
    the English set has its Ö and Ä doubtful (no English class fits), marked and listed."""
    frame = shared_data / "scrabscrap" / "game08" / "image-18.jpg"
    plain = tilecam("read", str(frame), "--lang", "de", "--prewarped", "--plain").stdout.splitlines()
    out = tilecam("read", str(frame), "--lang", "de", "--prewarped")
    assert out.returncode == 0, out.stderr
    lines = out.stdout.splitlines()
    assert lines[0].split() == list("ABCDEFGHIJKLMNO")
    for r in range(15):  # row r+1: its number, then each square's letter at its column
        label, cells = lines[1 + r][:2], lines[1 + r][4:]
        assert int(label) == r + 1 and cells[::2].ljust(15) == plain[r]
    assert lines[1 + 5][4:][2 * 5] == "Ö"  # F6, read confidently with the German set
    assert all(key in lines[16] for key in (". empty", "? blank", "~ doubtful", "80%"))   # the legend

    # the classifier alone: an Ö has no English class, so the read is doubtful
    config = tmp_path / "tilecam.toml"
    config.write_text("[read]\nrecogniser = false\n")
    english = tilecam("read", str(frame), "--prewarped", "--config", str(config)).stdout.splitlines()
    row6 = english[1 + 5][4:]
    assert row6[2 * 5:2 * 5 + 2] == "O~"  # F6
    doubtful = next(ln for ln in english if ln.startswith("doubtful: "))
    assert "F6 O " in doubtful and "M9 A " in doubtful
    # fused with the text recogniser (the default), which reads letters without their dots: O
    fused = tilecam("read", str(frame), "--prewarped").stdout.splitlines()
    assert fused[1 + 5][4:][2 * 5] == "O"


def test_read_json(shared_data):
    frame = shared_data / "scrabscrap" / "game06" / "image-5.jpg"
    out = tilecam("read", str(frame), "--lang", "de", "--prewarped", "--json")
    assert out.returncode == 0, out.stderr
    doc = json.loads(out.stdout)
    assert set(doc) == {"board", "confidence", "doubtful", "corners", "orientation", "ms"}
    assert all(d["p"] < 0.8 and set(d) == {"square", "read", "p", "else", "p_else"} for d in doc["doubtful"])
    assert len(doc["board"]) == 15 and len(doc["confidence"]) == 15 and len(doc["corners"]) == 4
    assert doc["orientation"] == 0


def test_read_with_explicit_corners(shared_data):
    frame = shared_data / "scrabscrap" / "game06" / "image-1.jpg"
    out = tilecam("read", str(frame), "--lang", "de", "--corners", "28,24,776,24,776,775,28,775", "--plain")
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
    assert out.returncode == 2 and "not-an-image.jpg" in out.stderr and "Traceback" not in out.stderr


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
    read = tilecam("read", str(frame), "--lang", "de", "--prewarped", "--tileset", str(out_file), "--plain")
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
        plain = tilecam("read", str(frame), "--corners", text, "--plain")
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
    read = tilecam("read", str(frame), "--corners", text, "--empty-ref", str(ref_file), "--plain")
    assert read.returncode == 0, read.stderr
    assert len(read.stdout.splitlines()) == 15
    bad = tilecam("read", str(frame), "--corners", text, "--empty-ref", str(tmp_path / "missing.npz"))
    assert bad.returncode == 2 and "Traceback" not in bad.stderr
    # the reference can also be passed as the tile set (the issue's `tilecam read --tileset`)
    as_tileset = tilecam("read", str(frame), "--corners", text, "--tileset", str(ref_file), "--plain")
    assert as_tileset.returncode == 0 and as_tileset.stdout == read.stdout
    both = tilecam("read", str(frame), "--corners", text, "--tileset", str(ref_file), "--empty-ref", str(ref_file))
    assert both.returncode == 2 and "give one" in both.stderr
    # the settings' [read] may name it too (as tileset_path or empty_reference_path); a flag overrides the key
    config = tmp_path / "tilecam.toml"
    config.write_text(f'[read]\ntileset_path = "{ref_file}"\n')
    from_file = tilecam("read", str(frame), "--corners", text, "--config", str(config), "--plain")
    assert from_file.returncode == 0 and from_file.stdout == read.stdout
    config.write_text(f'[read]\nempty_reference_path = "{tmp_path / "missing.npz"}"\n')
    overridden = tilecam("read", str(frame), "--corners", text, "--config", str(config), "--plain",
                         "--tileset", str(ref_file))
    assert overridden.returncode == 0 and overridden.stdout == read.stdout
    config.write_text(f'[read]\ntileset_path = "{ref_file}"\nempty_reference_path = "{ref_file}"\n')
    both = tilecam("read", str(frame), "--corners", text, "--config", str(config))
    assert both.returncode == 2 and "read.tileset_path" in both.stderr and "empty-board" in both.stderr


def test_read_honours_the_settings_file(shared_data, tmp_path):
    """--config FILE, the settings file `tilecam run` takes: [read] tunes the reader (here the one
    orientation rule's share), [locate] the detection; a flag overrides its key of the file."""
    frame, corners, _ = english_photo(shared_data, "IMG_20151016_170757.jpg")
    text = ",".join(f"{v:.2f}" for v in corners.ravel())
    config = tmp_path / "tilecam.toml"
    base = tilecam("read", str(frame), "--corners", text, "--json")
    assert base.returncode == 0, base.stderr
    assert json.loads(base.stdout)["orientation"] == 0
    config.write_text("[read]\nmin_orientation_share = 0.99\n")  # no quarter turn has 99% of the votes
    strict = tilecam("read", str(frame), "--corners", text, "--config", str(config))
    assert strict.returncode == 0, strict.stderr
    assert "orientation unknown" in strict.stdout
    # the file names a model that is not there; --model overrides it
    config.write_text(f'[read]\nmodel_path = "{tmp_path / "missing.onnx"}"\n')
    missing = tilecam("read", str(frame), "--corners", text, "--config", str(config), "--plain")
    assert missing.returncode == 2 and "missing.onnx" in missing.stderr and "Traceback" not in missing.stderr
    given = tilecam("read", str(frame), "--corners", text, "--config", str(config), "--plain",
                    "--model", str(REPO / "models" / "tiles.onnx"))
    assert given.returncode == 0, given.stderr
    assert given.stdout.splitlines() == json.loads(base.stdout)["board"]
    # [locate]: a fit no grid reaches finds no board (--prewarped and --corners need no detection)
    config.write_text("[locate]\nmin_fit = 1.0\nagree_min_fit = 1.0\nagree_low_fit = 1.0\n")
    photo = shared_data / "scrabscrap" / "game05" / "image-3.jpg"
    assert tilecam("read", str(photo), "--plain").returncode == 0
    strict = tilecam("read", str(photo), "--plain", "--config", str(config))
    assert strict.returncode == 3 and "weak" in strict.stderr
    config.write_text("[read]\nmodel = 1\n")  # a key that is not a setting is named, with its line
    bad = tilecam("read", str(photo), "--config", str(config))
    assert bad.returncode == 2 and "read.model (line 2)" in bad.stderr and "Traceback" not in bad.stderr


def test_enroll_honours_the_settings_file(shared_data, tmp_path):
    """[enroll] of --config: max_exemplars and max_empty_exemplars cap what the saved tile set keeps."""
    import collections
    game = shared_data / "scrabscrap" / "game06"
    config = tmp_path / "tilecam.toml"
    config.write_text("[enroll]\nmax_exemplars = 2\nmax_empty_exemplars = 5\n")
    counts = {}
    for name, extra in (("default", ()), ("capped", ("--config", str(config)))):
        out_file = tmp_path / f"{name}.npz"
        out = tilecam("enroll", "--images", str(game / "image-20.jpg"), str(game / "image-33.jpg"),
                      "--truth", str(game / "truth.jsonl"), "--out", str(out_file), "--lang", "de", "--prewarped",
                      *extra)
        assert out.returncode == 0, out.stderr
        with np.load(out_file) as z:
            counts[name] = collections.Counter(str(x) for x in z["labels"])
        assert f"{sum(counts[name].values())} exemplars" in out.stdout
    default, capped = counts["default"], counts["capped"]
    assert set(capped) == set(default)  # every class still there
    assert max(n for c, n in default.items() if c != ".") > 2 and default["."] > 5
    assert capped["."] == 5 and all(n == min(default[c], 2) for c, n in capped.items() if c != ".")
