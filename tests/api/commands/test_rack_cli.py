"""tilecam rack as a user runs it: the tiles left to right, --json, a frame with no rack."""
from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import cv2
import numpy as np

from tilecam.models.synth import render_rack

REPO = Path(__file__).resolve().parents[3]
LOOK = dict(rack="black_plastic", view="front", distance="near", tile_style="ivory", light="even", table="wood",
            camera="sharp", value_place="subscript", blank_print="plain", weight="regular", spacing="even")


def tilecam(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "tilecam.api.cli", *args], cwd=REPO, capture_output=True,
                          text=True, timeout=120)


def test_rack_prints_the_tiles_with_their_certainty(tmp_path):
    scene = render_rack("QUALMS?", 5, LOOK)
    path = tmp_path / "rack.png"
    cv2.imwrite(str(path), scene.image)
    out = tilecam("rack", str(path))
    assert out.returncode == 0, out.stderr
    lines = out.stdout.splitlines()
    assert lines[0] == "".join(scene.tiles)
    assert len(lines) == 1 + len(scene.tiles)
    assert lines[1].split()[1] == scene.tiles[0] and 0 < float(lines[1].split()[2]) <= 1
    assert "blank" in lines[7]

    js = tilecam("rack", str(path), "--json")
    assert js.returncode == 0, js.stderr
    got = json.loads(js.stdout)
    assert got["tiles"] == "".join(scene.tiles) and len(got["certainty"]) == 7
    assert all(0 < c <= 1 for c in got["certainty"])


def test_an_unseen_slot_is_a_dot_with_no_certainty(tmp_path):
    scene = render_rack("RETINAS", 5, LOOK, hand=0.3)
    path = tmp_path / "hand.png"
    cv2.imwrite(str(path), scene.image)
    got = json.loads(tilecam("rack", str(path), "--json").stdout)
    for ch, c in zip(got["tiles"], got["certainty"]):
        assert (ch == ".") == (c is None)
    assert sum(ch != "." for ch in got["tiles"]) <= sum(not o for o in scene.occluded)


def test_an_empty_rack_is_a_rack_with_no_tiles_not_an_error(tmp_path):
    """Issue 38: an empty rack (the end of a game) exited 3, "no rack"."""
    path = tmp_path / "empty.png"
    cv2.imwrite(str(path), render_rack("", 3, LOOK).image)
    out = tilecam("rack", str(path))
    assert out.returncode == 0, out.stderr
    assert out.stdout.splitlines() == ["", "empty rack: no tiles"]
    got = json.loads(tilecam("rack", str(path), "--json").stdout)
    assert got["empty"] is True and got["tiles"] == "" and got["certainty"] == [] and got["boxes"] == []
    full = tmp_path / "full.png"
    cv2.imwrite(str(full), render_rack("QUALMS?", 5, LOOK).image)
    assert json.loads(tilecam("rack", str(full), "--json").stdout)["empty"] is False


def test_no_rack_is_a_clear_error(tmp_path):
    path = tmp_path / "table.png"
    cv2.imwrite(str(path), np.full((360, 640, 3), 120, np.uint8))
    out = tilecam("rack", str(path))
    assert out.returncode == 3
    assert out.stderr.startswith("tilecam rack: ") and "no rack" in out.stderr and "Traceback" not in out.stderr
    bad = tilecam("rack", str(tmp_path / "missing.png"))
    assert bad.returncode == 2 and "Traceback" not in bad.stderr


def test_a_photo_of_the_board_is_no_rack(shared_data):
    """Issue 35: a board photo printed `O??O` (tiles on the board read as a row of them), exit 0."""
    out = tilecam("rack", str(shared_data / "scrabscrap" / "game05" / "image-10.jpg"))
    assert out.returncode == 3 and out.stdout == "", out.stdout
    assert "no rack" in out.stderr and "board" in out.stderr


def test_photos_of_one_rack_read_together_can_make_tiles_sure(tmp_path):
    """Issue 45: one photo never makes a tile sure (at most 0.85); photos of the same rack read
    together as a rack camera's frames make the tiles they agree on sure, and say how many photos
    the reading stands on."""
    paths = []
    for frame in range(4):
        paths.append(tmp_path / f"frame{frame}.png")
        cv2.imwrite(str(paths[-1]), render_rack("QUALMS?", 5, LOOK, frame=frame).image)
    one = json.loads(tilecam("rack", str(paths[0]), "--json").stdout)
    assert max(one["certainty"]) <= 0.85 and one["photos"] == 1
    out = tilecam("rack", *map(str, paths), "--json")
    assert out.returncode == 0, out.stderr
    got = json.loads(out.stdout)
    assert got["tiles"] == "".join(render_rack("QUALMS?", 5, LOOK).tiles) and got["photos"] == 4
    assert min(got["certainty"]) >= 0.9
    text = tilecam("rack", *map(str, paths))
    assert "read together from 4 of 4 photos" in text.stdout.splitlines()[1]


def test_a_photo_with_no_rack_among_them_is_said_and_the_rest_read_anew(tmp_path):
    paths = [tmp_path / "a.png", tmp_path / "table.png", tmp_path / "b.png"]
    cv2.imwrite(str(paths[0]), render_rack("QUALMS?", 5, LOOK).image)
    cv2.imwrite(str(paths[1]), np.full((360, 640, 3), 120, np.uint8))
    cv2.imwrite(str(paths[2]), render_rack("QUALMS?", 5, LOOK, frame=1).image)
    out = tilecam("rack", *map(str, paths), "--json")
    assert out.returncode == 0, out.stderr
    assert "table.png: no rack found" in out.stderr and json.loads(out.stdout)["photos"] == 1
    last = tilecam("rack", str(paths[0]), str(paths[1]))
    assert last.returncode == 3 and "table.png: no rack found in the last photo" in last.stderr
