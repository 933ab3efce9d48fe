"""Issue 35: a folder was always one photo per move. A folder of a video's frames then recorded a
pass per still frame and ended 0-0 (flagged lost, which was honest). `--video-frames` says what the
folder is: recorded as a video, each move taken when the board stands still ([capture] fps apart,
or --fps)."""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import cv2
import pytest

from tilecam.api.demo.game import make_demo_game
from tilecam.api.demo.video import boards_after_each_play
from tilecam.models.synth import SceneConfig, render_scene

pytestmark = pytest.mark.slow  # end to end (see pyproject's markers)

REPO = Path(__file__).resolve().parents[3]
LOOK = dict(out_w_px=960, out_h_px=720, max_tilt_deg=5, glare_prob=0.0, fill_min=0.85, fill_max=0.92,
            style="ivory", quarter_turn_prob=0.0, design="standard", labels="short", font="dejavu-sans")


def record(*args):
    return subprocess.run([sys.executable, "-m", "tilecam.api.cli", "record", *map(str, args)], cwd=REPO,
                          capture_output=True, text=True, timeout=300)


@pytest.fixture(scope="module")
def frames(tmp_path_factory) -> Path:
    """A video's frames, one file each: the empty board still, hands laying DJINN, the board still."""
    boards = boards_after_each_play(make_demo_game(1))
    still, hands = SceneConfig(hands="never", **LOOK), SceneConfig(hands="always", **LOOK)
    plan = [(boards[0], still)] * 12 + [(boards[0], hands), (boards[1], hands)] + [(boards[1], still)] * 12
    folder = tmp_path_factory.mktemp("frames")
    for i, (board, look) in enumerate(plan):
        cv2.imwrite(str(folder / f"frame-{i:03d}.jpg"), render_scene(board, 27, look, frame=i, jitter_px=0.3).image)
    return folder


@pytest.mark.parametrize("fps", [None, 5])
def test_a_folder_of_video_frames_records_its_play(frames, tmp_path, fps):
    gcg = tmp_path / "g.gcg"
    r = record(frames, "--video-frames", *(["--fps", fps] if fps else []), "--lang", "en",
               "--db", tmp_path / "g.sqlite3", "--gcg", gcg)
    assert r.returncode == 0, r.stderr
    assert ">Player_1: DJINN 8D DJINN +30 30" in gcg.read_text(encoding="utf-8").splitlines()


def test_the_same_folder_as_photos_is_a_pass_per_frame_and_says_it_lost_the_game(frames, tmp_path):
    # what the default (one photo per move) makes of it: honest, and the reason for the flag
    r = record(frames, "--lang", "en", "--db", tmp_path / "g.sqlite3")
    assert r.returncode == 3 and "LOST: " in r.stderr, r.stderr


@pytest.mark.parametrize("args,said", [
    (["--video-frames", "--every-frame"], "not allowed with argument"),
    (["--fps", "5"], "--fps is the frame rate of a folder of video frames: give --video-frames too"),
    (["--video-frames", "--fps", "0"], "--fps 0: between 0 and 120"),
], ids=["both", "fps alone", "fps zero"])
def test_what_the_folder_is_said_wrongly_is_exit_2(frames, tmp_path, args, said):
    r = record(frames, *args, "--db", tmp_path / "g.sqlite3")
    assert r.returncode == 2 and said in r.stderr and "Traceback" not in r.stderr, r.stderr


def test_video_frames_of_a_file_is_exit_2(frames, tmp_path):
    r = record(next(frames.iterdir()), "--video-frames", "--db", tmp_path / "g.sqlite3")
    assert r.returncode == 2 and "is not a folder" in r.stderr, r.stderr
