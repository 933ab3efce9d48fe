"""What a source's name says before it is opened: whether it names a camera or a stream (one that may
be absent for a while) or a file, and which device it is (two names for one camera are one device)."""
from __future__ import annotations

import pytest

from tilecam.capture import CaptureConfig, CaptureError, device_key, names_live, open_source


@pytest.mark.parametrize("uri", ["0", "2", "/dev/video4", "/dev/v4l/by-id/usb-Logi_C920-video-index0",
                                 "picam", "picam:1", "picamera2:1", "PICAM:1",
                                 "rtsp://cam.local/stream", "http://10.0.0.9:8080/video.mjpg"])
def test_cameras_and_streams_are_live(uri):
    assert names_live(uri)


@pytest.mark.parametrize("uri", ["racks1.mp4", "/tmp/frames", "board.jpg", "ftp://x/y.avi", ""])
def test_files_folders_and_unknown_schemes_are_not(uri):
    assert not names_live(uri)


@pytest.mark.parametrize("a, b", [("picam", "picam:0"), ("picamera:0", "picam"), ("picamera2:1", "picam:1"),
                                  ("2", "/dev/video2"), (" 2 ", "/dev/video2"), ("racks/../racks", "racks")])
def test_two_names_of_one_device_are_one_key(a, b, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    assert device_key(a) == device_key(b)


@pytest.mark.parametrize("a, b", [("picam:0", "picam:1"), ("0", "1"), ("/dev/video2", "/dev/video4"),
                                  ("a.avi", "b.avi"), ("picam:0", "0")])
def test_two_devices_are_two_keys(a, b):
    assert device_key(a) != device_key(b)


def test_a_stable_camera_name_is_opened_as_a_camera(tmp_path):
    # /dev/v4l/by-id/... is a camera's name that survives a replug: a camera, not a missing file
    with pytest.raises(CaptureError, match="cannot open /dev/v4l/by-id/usb-none-video-index0"):
        open_source("/dev/v4l/by-id/usb-none-video-index0", CaptureConfig(reconnect=False))


@pytest.mark.parametrize("uri, kind, number", [
    ("0", "index", 0), (" 3 ", "index", 3),                                   # a USB camera by index
    ("/dev/video2", "device", 0), ("/dev/v4l/by-id/usb-Logi_C920-video-index0", "device", 0),
    ("rtsp://cam.local/stream", "stream", 0), ("HTTPS://cam/x.mjpg", "stream", 0),   # a URL
    ("picam", "picam", 0), ("picamera2:1", "picam", 1), ("PICAM:1", "picam", 1),     # a Pi camera
    ("frames", "folder", 0), ("board.jpg", "image", 0), ("game.mp4", "video", 0),    # on disk
    ("ftp://x/y.avi", "scheme", 0), ("nothing.mp4", "missing", 0),
])
def test_what_kind_of_source_a_name_is_is_parsed_once(uri, kind, number, tmp_path, monkeypatch):
    """One parse (capture.open.source_name) that open_source, names_live and device_key all read."""
    from tilecam.capture.open import LIVE_KINDS, source_name
    monkeypatch.chdir(tmp_path)
    (tmp_path / "frames").mkdir()
    (tmp_path / "board.jpg").write_bytes(b"")
    (tmp_path / "game.mp4").write_bytes(b"")
    name = source_name(uri)
    assert (name.kind, name.number, name.text) == (kind, number, uri.strip())
    assert name.live == (kind in LIVE_KINDS) == names_live(uri)
    if kind == "scheme":
        with pytest.raises(CaptureError, match="unsupported stream scheme 'ftp'"):
            open_source(uri)
    elif kind == "missing":
        with pytest.raises(CaptureError, match="no such file, folder or camera"):
            open_source(uri)
