"""The Raspberry Pi camera through picamera2.

picamera2 and libcamera are not on PyPI in a usable form: on Raspberry Pi OS they come
from the OS packages (`sudo apt install python3-picamera2`), and the venv must see them,
so create it with `python3 -m venv --system-site-packages .venv` (docs/pi.md). The import
happens in open() so that the rest of tilecam runs on machines without a Pi camera.
"""
from __future__ import annotations

import logging
import time

from .frame import Frame
from .source import BaseSource, CaptureConfig, CaptureError, StatusCallback

log = logging.getLogger(__name__)

MISSING_PICAMERA2 = (
    "picamera2 is not installed in this Python. On Raspberry Pi OS install it from the OS "
    "packages (sudo apt install python3-picamera2) and create the venv with "
    "python3 -m venv --system-site-packages .venv so that it can see them; see docs/pi.md. "
    "Without a Pi camera, use a USB camera index (0), a URL, a video file or a folder.")

_AF_MODE_MANUAL = 0   # libcamera.controls.AfModeEnum.Manual, as an int to avoid importing libcamera


class PicameraSource(BaseSource):
    """A Pi camera module, live, stamped with seconds since open."""

    live = True

    def __init__(self, cfg: CaptureConfig | None = None, *, camera_num: int = 0,
                 on_status: StatusCallback | None = None) -> None:
        super().__init__(f"picamera {camera_num}", on_status)
        self.cfg = cfg or CaptureConfig()
        self.camera_num = camera_num
        self._cam = None
        self._index = 0
        self._t0 = 0.0

    def _open(self) -> None:
        try:
            from picamera2 import Picamera2
        except ImportError as exc:
            raise CaptureError(MISSING_PICAMERA2) from exc
        cfg = self.cfg
        try:
            cam = Picamera2(self.camera_num)
        except (IndexError, RuntimeError) as exc:   # no camera at that number, or it is busy
            raise CaptureError(f"cannot open {self.name}: {exc}") from exc
        try:
            # picamera2's "RGB888" is laid out [B, G, R] per pixel: what OpenCV calls BGR.
            main: dict = {"format": "RGB888"}
            if cfg.width_px and cfg.height_px:
                main["size"] = (cfg.width_px, cfg.height_px)
            frame_us = int(1_000_000 / cfg.fps)
            config = cam.create_video_configuration(
                main=main, controls={"FrameDurationLimits": (frame_us, frame_us)})
            cam.configure(config)
            cam.start()
            self._focus(cam)
        except Exception as exc:
            cam.close()
            raise CaptureError(f"cannot start {self.name}: {exc}") from exc
        self._cam = cam
        self._index = 0
        self._t0 = time.monotonic()

    def _focus(self, cam) -> None:
        if "AfMode" not in cam.camera_controls:
            return   # fixed-focus modules (v1, v2, HQ with a manual lens): focus by hand, docs/pi.md
        lens = self.cfg.picam_lens_position_dioptre
        if lens is not None:
            cam.set_controls({"AfMode": _AF_MODE_MANUAL, "LensPosition": lens})
        elif not cam.autofocus_cycle():
            log.warning("%s: autofocus did not converge; set picam_lens_position_dioptre", self.name)

    def _read(self) -> Frame:
        try:
            request = self._cam.capture_request(wait=self.cfg.read_timeout_s)
        except Exception as exc:   # TimeoutError, or the camera went away
            raise CaptureError(f"{self.name}: no frame within {self.cfg.read_timeout_s} s ({exc})") from exc
        try:
            # make_array copies out of the camera buffer, which goes back to libcamera on release.
            image = request.make_array("main")
        finally:
            request.release()
        frame = Frame(image, time.monotonic() - self._t0, self._index, self.name)
        self._index += 1
        return frame

    def _close(self) -> None:
        cam, self._cam = self._cam, None
        if cam is None:
            return
        try:
            cam.stop()
        finally:
            cam.close()
