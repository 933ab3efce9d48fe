"""A real MJPEG-over-HTTP camera on 127.0.0.1 that goes away and comes back.

The server is what an IP camera or `mjpg-streamer` serves: multipart/x-mixed-replace JPEG
frames. OpenCV's FFmpeg backend opens it by URL through `open_source`, exactly as
`tilecam record http://...` would. Each run of the server paints its frames a different
grey, so the test can tell the first frame after the outage from a buffered old one.
"""
from __future__ import annotations

import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import cv2
import numpy as np
import pytest

from tilecam.capture import CaptureConfig, LatestFrameReader, ReconnectingSource, open_source
from tilecam.capture.opencv import OpenCVSource

pytestmark = pytest.mark.slow  # end to end (see pyproject's markers)

GREY_STEP = 60          # run n paints its frames n * GREY_STEP
OUTAGE_S = 4.0          # the outage of issue 12: with the old doubling backoff frames came back 3.4 s late
BACK_BOUND_S = 2.5      # generous: the default cap is 1 s, plus one open and one read


class MjpegCamera:
    """A multipart JPEG stream on a fixed local port that can be stopped and restarted."""

    def __init__(self, fps: float = 20.0) -> None:
        self.fps = fps
        self.port = 0
        self.run = 0
        self._server: ThreadingHTTPServer | None = None
        self._stopping = threading.Event()

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}/stream.mjpg"

    def start(self) -> None:
        self.run += 1
        self._stopping.clear()
        camera, run = self, self.run
        ok, jpeg = cv2.imencode(".jpg", np.full((48, 64, 3), run * GREY_STEP, np.uint8))
        assert ok
        part = (b"--frame\r\nContent-Type: image/jpeg\r\nContent-Length: %d\r\n\r\n" % len(jpeg)
                + jpeg.tobytes() + b"\r\n")

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args) -> None:
                pass

            def do_GET(self) -> None:
                self.send_response(200)
                self.send_header("Content-Type", "multipart/x-mixed-replace; boundary=frame")
                self.end_headers()
                try:
                    while not camera._stopping.wait(1 / camera.fps):
                        self.wfile.write(part)
                except OSError:          # the client went away
                    pass

        # HTTPServer sets SO_REUSEADDR, so the restarted camera gets the same port.
        self._server = ThreadingHTTPServer(("127.0.0.1", self.port), Handler)
        self._server.daemon_threads = True
        self.port = self._server.server_address[1]
        threading.Thread(target=self._server.serve_forever, daemon=True).start()

    def stop(self) -> None:
        """Close the listening socket; open streams end at their next frame."""
        self._stopping.set()
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()
            self._server = None


@pytest.fixture
def camera():
    cam = MjpegCamera()
    cam.start()
    yield cam
    cam.stop()


def run_of(frame) -> int:
    return round(float(frame.image.mean()) / GREY_STEP)


def wait_for(predicate, timeout_s: float) -> bool:
    deadline = time.monotonic() + timeout_s
    while not predicate():
        if time.monotonic() > deadline:
            return False
        time.sleep(0.01)
    return True


def test_stream_outage_is_reported_and_frames_resume_soon_after_the_camera_is_back(camera):
    seen = []
    source = open_source(camera.url, on_status=seen.append)      # the defaults users get
    assert isinstance(source, ReconnectingSource) and isinstance(source.inner, OpenCVSource)
    frames = []
    with LatestFrameReader(source) as reader:
        while len(frames) < 3:
            frame = reader.get(timeout=5)
            assert frame is not None, "no frame from the local MJPEG stream"
            frames.append(frame)
        assert run_of(frames[-1]) == 1 and source.status.state == "connected"

        camera.stop()
        stopped = time.monotonic()
        assert wait_for(lambda: source.status.state == "reconnecting", 8), source.status
        assert "retrying in" in source.status.message
        time.sleep(max(0.0, OUTAGE_S - (time.monotonic() - stopped)))
        assert source.status.state == "reconnecting"       # still down: nothing to read

        camera.start()
        back = time.monotonic()
        while True:
            frame = reader.get(timeout=10)
            assert frame is not None, f"no frame 10 s after the camera came back; {source.status}"
            frames.append(frame)
            if run_of(frame) == 2:
                break
        gap_s = time.monotonic() - back
        assert source.status.state == "connected" and source.reconnects == 1
        assert source.status.message.startswith("reconnected after")

    assert gap_s < BACK_BOUND_S, f"camera back -> first frame took {gap_s:.2f} s"
    states = [s.state for i, s in enumerate(seen) if i == 0 or seen[i - 1].state != s.state]
    assert states == ["connected", "reconnecting", "connected", "closed"]
    assert [f.index for f in frames] == sorted(f.index for f in frames)      # one sequence across the gap
    assert frames[-1].t - frames[2].t >= OUTAGE_S - 0.5                      # time ran on through it


def test_settings_reach_the_stream_and_its_reconnects(camera):
    cfg = CaptureConfig(reconnect_initial_s=0.05, reconnect_max_s=0.2, read_timeout_s=2, open_timeout_s=2)
    with open_source(camera.url, cfg) as source:
        assert source.cfg is cfg and source.inner.cfg is cfg
        assert run_of(source.read()) == 1
        camera.stop()
        with LatestFrameReader(source) as reader:
            assert reader.cfg is cfg
            assert wait_for(lambda: source.status.state == "reconnecting", 5), source.status
            # The wait announced never exceeds this config's cap, however long the outage.
            time.sleep(1.0)
            assert source.status.message.endswith("retrying in 0.2 s"), source.status.message
            camera.start()
            frame = reader.get(timeout=5)
            while frame is None or run_of(frame) != 2:
                frame = reader.get(timeout=5)
                assert frame is not None
