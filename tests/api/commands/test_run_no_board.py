"""Issue 35 item 10: a station that never sees a board is flagged. A `tilecam run` fed a camera that
shows a table top (a video of one, played at its own pace like a camera) said "no move yet" for three
minutes, with no flag anywhere: the lost-game watch began only once a grid had been found. Now, once
`[recorder.lost] no_board_s` has passed without a board, its /api/status, /api/tables and its own
console (Debian chromium) say "no board in view since ..."; and the lost-camera words fit what the
locator saw (no board in view, or a board whose grid is not where it was)."""
from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import cv2
import httpx
import numpy as np
import pytest

from browser import chromium_page
from tilecam.api.station.lostwatch import LostConfig, LostWatch

pytestmark = pytest.mark.slow  # end to end (see pyproject's markers)

REPO = Path(__file__).resolve().parents[3]
TOKEN = "no-board-operator-token"
NO_BOARD_S = 2.0
FPS = 5


def table_top(w: int = 1280, h: int = 960) -> np.ndarray:
    """A wooden table seen from above with a mug and a lined score sheet on it, and no board."""
    rng = np.random.default_rng(3)
    y, x = np.mgrid[0:h, 0:w].astype(np.float32)
    grain = 20 * np.sin(x / 37.0 + 3 * np.sin(y / 180.0)) + rng.normal(0, 6, (h, w))
    image = np.clip(np.stack([70 + grain * 0.6, 105 + grain * 0.8, 150 + grain], -1), 0, 255).astype(np.uint8)
    cv2.circle(image, (300, 260), 90, (235, 235, 240), -1)
    cv2.circle(image, (300, 260), 70, (40, 30, 20), -1)
    cv2.rectangle(image, (760, 420), (1060, 820), (245, 245, 245), -1)
    for k in range(12):
        cv2.line(image, (780, 450 + 28 * k), (1040, 450 + 28 * k), (120, 120, 120), 1)
    return image


NO_BOARD_PHOTOS = 4


def table_frames():
    image = table_top()
    for i in range(FPS * 40):   # 40 s: the test stops it long before
        frame = image.copy()
        cv2.putText(frame, f"{i:04d}", (40, 900), cv2.FONT_HERSHEY_SIMPLEX, 1.0, (30, 30, 30), 2)  # sensor noise
        yield i, frame


@pytest.fixture(scope="module")
def video(tmp_path_factory) -> Path:
    path = tmp_path_factory.mktemp("tabletop") / "tabletop.avi"
    out = cv2.VideoWriter(str(path), cv2.VideoWriter_fourcc(*"MJPG"), FPS, (1280, 960))
    for _, frame in table_frames():
        out.write(frame)
    out.release()
    return path


@pytest.fixture(scope="module")
def frames(tmp_path_factory) -> Path:
    """The same frames as a folder (a video's frames, or photos taken at each press)."""
    folder = tmp_path_factory.mktemp("tabletop-frames")
    for i, frame in table_frames():
        if i >= FPS * 12:
            break
        cv2.imwrite(str(folder / f"frame-{i:04d}.jpg"), frame)
    return folder


# Every source kind gets the same watch (issue 43 item 6: a folder said nothing after 47 s while the
# same frames as a video were flagged at 11 s): a video and a folder of a video's frames after
# no_board_s of frames (frame 0 at 0 s, frame 10 at 2 s), a folder of one photo per move after
# no_board_photos photos (no time passes between photos to judge by).
@pytest.mark.parametrize("kind", ["video", "video frames", "photos"])
def test_a_station_that_never_sees_a_board_is_flagged_everywhere(kind, video, frames, tmp_path):
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    cfg = tmp_path / "tilecam.toml"
    cfg.write_text(f'[server]\nport = {port}\n\n[store]\ndb_path = "{tmp_path / "s.sqlite3"}"\n\n'
                   f'[capture]\nfps = {FPS}\n\n'
                   f'[recorder.lost]\nno_board_s = {NO_BOARD_S}\nno_board_photos = {NO_BOARD_PHOTOS}\n')
    source = [str(video)] if kind == "video" else [str(frames), "--video-frames"] if kind == "video frames" \
        else [str(frames)]
    proc = subprocess.Popen([sys.executable, "-m", "tilecam.api.cli", "run", "--source", *source,
                             "--config", str(cfg), "--table", "4"], cwd=REPO, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, env={**os.environ, "TILECAM_TOKEN": TOKEN})
    try:
        with httpx.Client(base_url=f"http://127.0.0.1:{port}", timeout=10) as client:
            deadline = time.monotonic() + 60
            while True:
                try:
                    client.get("/api/games").raise_for_status()
                    break
                except httpx.TransportError:
                    assert proc.poll() is None and time.monotonic() < deadline, proc.communicate()[1]
                    time.sleep(0.1)
            seen_at = None
            deadline = time.monotonic() + 60
            while True:
                st = client.get("/api/status").json()
                if seen_at is None and st.get("frames"):
                    seen_at = time.monotonic()   # the first frames are in
                if st.get("lost"):
                    break
                assert st.get("state") in (None, "no_board"), st
                assert proc.poll() is None and time.monotonic() < deadline, f"never flagged: {st}"
                time.sleep(0.1)
            # At the frame that ends the setting's time (frame 0 at 0 s, frame 10 at 2 s), give or take
            # the polls. The video plays at its own pace, but a frame with no board costs a full search
            # (~0.6 s on a loaded 2-core machine) and a paced file drops none, so its 2 s take longer
            # in wall time; a camera drops them, and its frames carry the wall clock.
            raised_at = NO_BOARD_PHOTOS if kind == "photos" else NO_BOARD_S * FPS + 1
            assert raised_at <= st["frames"] <= raised_at + 2, st
            assert time.monotonic() - seen_at < 60
            assert st["state"] == "no_board" and "no board" in st["lost"], st
            assert (f"in {NO_BOARD_PHOTOS} photos in a row" in st["lost"]) == (kind == "photos"), st
            table = {t["table"]: t for t in client.get("/api/tables").json()["tables"]}[4]
            assert table["flags"][0] == "lost" and table["lost"] == st["lost"], table

            with chromium_page(tmp_path / "profile", 1280, 800) as page:
                page.goto(f"http://127.0.0.1:{port}/operator")
                page.wait_for_selector("#camera-lost:not([hidden])", timeout=10_000)
                banner = page.locator("#camera-lost").text_content()
                assert banner == f"CAMERA LOST: {st['lost']}", banner
                page.screenshot(path=str(tmp_path / "console.png"))
                page.goto(f"http://127.0.0.1:{port}/tournament")
                page.wait_for_selector(".flag.lost", timeout=10_000)
                assert st["lost"] in page.locator("body").text_content()
                page.screenshot(path=str(tmp_path / "tournament.png"))
                assert not page.errors, page.errors
                if os.environ.get("TILECAM_SHOTS"):   # for a person to look at
                    for name in ("console.png", "tournament.png"):
                        (Path(os.environ["TILECAM_SHOTS"]) / f"{kind.replace(' ', '-')}-{name}").write_bytes(
                            (tmp_path / name).read_bytes())
    finally:
        proc.send_signal(signal.SIGINT)
        out, err = proc.communicate(timeout=30)
    assert "lost the game" in err and "no board" in err, err  # the station's console
    assert "Traceback" not in err, err


def test_the_lost_camera_words_fit_what_the_locator_saw():
    """No board found yet: nothing for `no_board_s`, then "no board in view", cleared by a board. A
    grid lost once found: "no board in view where it was" when the locator finds none (the camera
    knocked off the board), "in view but its grid is not found" when it sees one elsewhere."""
    watch = LostWatch(LostConfig(no_board_s=10, blind_s=1))
    assert all(watch.frame(i, i * 0.5, "no_board") is None for i in range(20))   # 9.5 s
    alert = watch.frame(20, 10.0, "no_board")
    assert alert.kind == "no_board" and "frame 0" in alert.what   # since when, for a person
    assert watch.frame(21, 10.5, "no_board") is None and len(watch.open) == 1   # raised once, the words stand
    watch.frame(22, 11.0, "clear")
    assert watch.open == []
    watch.frame(23, 11.5, "blind", in_view=False)
    assert "no board in view where it was (the camera moved off the board" in watch.frame(25, 12.5, "blind", False).what
    watch.frame(26, 13.0, "clear")
    watch.frame(27, 13.5, "blind")
    assert "the board is in view but its grid is not found where it was" in watch.frame(29, 14.5, "blind").what


def test_a_folder_of_photos_with_no_board_is_flagged_after_no_board_photos_and_a_board_clears_it():
    """One photo per move has no time between photos to judge by (a folder's photos are stamped
    i / fps, a camera's at each press): the count of photos in a row with no board raises it."""
    watch = LostWatch(LostConfig(no_board_s=10, no_board_photos=3))
    assert watch.photo(0, 0.0, board=False) is None and watch.photo(1, 0.1, board=False) is None
    alert = watch.photo(2, 0.2, board=False)
    assert alert.kind == "no_board" and "3 photos in a row" in alert.what and "frame 0" in alert.what
    assert watch.photo(3, 0.3, board=False) is None and len(watch.open) == 1   # raised once, the words stand
    watch.photo(4, 0.4, board=True)
    assert watch.open == [] and watch.alerts[0].cleared_at == 4
    assert watch.photo(5, 0.5, board=False) is None   # counted afresh
