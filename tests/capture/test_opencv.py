"""OpenCVSource on a short MJPG video written with cv2.VideoWriter, and picamera2 code on a fake module."""
from __future__ import annotations

import sys
from pathlib import Path
from types import SimpleNamespace

import cv2
import numpy as np
import pytest

from tilecam.capture import CaptureConfig, CaptureError, LatestFrameReader, SourceEnded, open_source
from tilecam.capture.opencv import OpenCVSource
from tilecam.capture.picam import PicameraSource
from tilecam.capture.reconnect import ReconnectingSource
from tilecam.capture.source import redact

FPS = 5.0
N_FRAMES = 8


@pytest.fixture(scope="module")
def video(tmp_path_factory) -> Path:
    path = tmp_path_factory.mktemp("video") / "game.avi"
    writer = cv2.VideoWriter(str(path), cv2.VideoWriter_fourcc(*"MJPG"), FPS, (64, 48))
    assert writer.isOpened(), "MJPG/AVI writer unavailable in this OpenCV build"
    for i in range(N_FRAMES):
        writer.write(np.full((48, 64, 3), i * 30, np.uint8))   # brightness encodes the frame number
    writer.release()
    return path


def test_video_file_frames_count_and_timestamps(video):
    with open_source(str(video), CaptureConfig()) as source:
        assert isinstance(source, OpenCVSource) and not source.live
        assert source.total_frames == N_FRAMES and source.fps == pytest.approx(FPS)
        frames = list(source)
        assert source.status.state == "ended"
    assert [f.index for f in frames] == list(range(N_FRAMES))
    assert [f.t for f in frames] == pytest.approx([i / FPS for i in range(N_FRAMES)], abs=1e-3)
    assert [round(float(f.image.mean()) / 30) for f in frames] == list(range(N_FRAMES))
    assert frames[0].image.shape == (48, 64, 3) and frames[0].source == str(video)


def test_video_end_is_ended_not_a_failure_through_the_wrapper(video):
    source = ReconnectingSource(OpenCVSource(str(video)), CaptureConfig())
    with source:
        assert len(list(source)) == N_FRAMES
        with pytest.raises(SourceEnded):
            source.read()
        assert source.status.state == "ended"


def test_reader_without_drop_delivers_every_file_frame(video):
    with LatestFrameReader(open_source(str(video))) as reader:
        assert reader.drop is False     # files are not live
        indices = [f.index for f in reader]
    assert indices == list(range(N_FRAMES))
    assert reader.stats.dropped == 0 and reader.stats.delivered == N_FRAMES


def test_missing_or_broken_video_fails_clearly(tmp_path):
    with pytest.raises(CaptureError, match="no such video file"):
        OpenCVSource(str(tmp_path / "none.avi")).open()
    bad = tmp_path / "bad.avi"
    bad.write_bytes(b"not a video at all")
    with pytest.raises(CaptureError, match="cannot open"):
        open_source(str(bad))


def test_uri_kinds_pick_the_implementation(monkeypatch, video):
    opened = []
    monkeypatch.setattr(OpenCVSource, "_open", lambda self: opened.append(self))
    source = open_source("0", CaptureConfig(reconnect=False))
    assert isinstance(source, OpenCVSource) and source.target == 0 and source.live
    stream = open_source("rtsp://admin:pw@10.0.0.5/stream1")
    assert isinstance(stream, ReconnectingSource) and stream.live
    assert stream.name == "rtsp://admin:***@10.0.0.5/stream1"
    assert isinstance(open_source("/dev/video0", CaptureConfig(reconnect=False)), OpenCVSource)
    assert not open_source(str(video)).live
    assert redact("http://cam.local/mjpg") == "http://cam.local/mjpg"


class FakePicamera2:
    """The part of picamera2's API that PicameraSource uses."""

    def __init__(self, num):
        self.num, self.calls, self.camera_controls = num, [], {"AfMode": (0, 2, 0), "LensPosition": (0.0, 15.0, 1.0)}

    def create_video_configuration(self, main, controls):
        self.calls.append(("config", main, controls))
        return {"main": main}

    def configure(self, config):
        self.calls.append("configure")

    def start(self):
        self.calls.append("start")

    def set_controls(self, controls):
        self.calls.append(("controls", controls))

    def autofocus_cycle(self):
        self.calls.append("autofocus")
        return True

    def capture_request(self, wait=None):
        size = self.calls[0][1]["size"]
        return SimpleNamespace(make_array=lambda name: np.zeros((size[1], size[0], 3), np.uint8),
                               release=lambda: self.calls.append("release"))

    def stop(self):
        self.calls.append("stop")

    def close(self):
        self.calls.append("close")


def test_picamera_source_configures_focuses_and_reads(monkeypatch):
    cams = []
    monkeypatch.setitem(sys.modules, "picamera2",
                        SimpleNamespace(Picamera2=lambda n: cams.append(FakePicamera2(n)) or cams[-1]))
    cfg = CaptureConfig(width_px=320, height_px=240, fps=10, picam_lens_position_dioptre=1.4)
    with PicameraSource(cfg, camera_num=1) as source:
        frames = [source.read(), source.read()]
    cam = cams[0]
    assert cam.num == 1
    assert cam.calls[0] == ("config", {"format": "RGB888", "size": (320, 240)},
                            {"FrameDurationLimits": (100000, 100000)})
    assert ("controls", {"AfMode": 0, "LensPosition": 1.4}) in cam.calls
    assert [f.index for f in frames] == [0, 1] and frames[0].image.shape == (240, 320, 3)
    assert cam.calls.count("release") == 2 and cam.calls[-2:] == ["stop", "close"]
