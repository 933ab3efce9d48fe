"""The Raspberry Pi camera through picamera2.

picamera2 and libcamera are not on PyPI in a usable form: on Raspberry Pi OS they come
from the OS packages (`sudo apt install python3-picamera2`), and the venv must see them,
so create it with `python3 -m venv --system-site-packages .venv` (docs/pi.md). The import
happens in open() so that the rest of tilecam runs on machines without a Pi camera.

Exposure and white balance: automatic exposure follows every hand and sleeve over the board,
and the rectified board then changes grey level between snapshots. So, with
`picam_lock_exposure`, the camera opens in automatic mode, waits until exposure and colour
gains settle (`picam_settle_frames` frames in a row agree), and fixes them for the game:
`lock()` at a game's start, `unlock()` between games. The first frame read after open (the
calibration frame of docs/pi.md) comes after settling. A lock survives the camera dropping
and being reopened: the same values are set again, not settled anew over a hand.
"""
from __future__ import annotations

import logging
import threading
import time
from dataclasses import dataclass

from .frame import Frame
from .source import BaseSource, CaptureConfig, CaptureError, StatusCallback

log = logging.getLogger(__name__)

MISSING_PICAMERA2 = (
    "picamera2 is not installed in this Python. On Raspberry Pi OS install it from the OS "
    "packages (sudo apt install python3-picamera2) and create the venv with "
    "python3 -m venv --system-site-packages .venv so that it can see them; see docs/pi.md. "
    "Without a Pi camera, use a USB camera index (0), a URL, a video file or a folder.")

# libcamera enum values as ints, to avoid importing libcamera
_AF_MODE_MANUAL = 0          # AfModeEnum.Manual
_FLICKER_MODE_MANUAL = 1     # AeFlickerModeEnum.FlickerManual: AeFlickerPeriod gives the period
_AE_STATE_CONVERGED = 2      # AeStateEnum.Converged (libcamera 0.4+; older ones report AeLocked)
_MODE_AUTO, _MODE_MANUAL = 0, 1   # ExposureTimeMode / AnalogueGainMode (libcamera 0.4+)


@dataclass(frozen=True, slots=True)
class ExposureLock:
    """The exposure and white balance a Pi camera is fixed at for a game."""
    exposure_time_us: int
    analogue_gain: float
    colour_gains: tuple[float, float]   # red, blue
    settled: bool                       # False: picam_settle_max_s ran out first
    frames: int                         # frames it took

    def controls(self, camera_controls) -> dict:
        """The picamera2 controls that fix these values on a camera offering `camera_controls`."""
        out: dict = {"ExposureTime": self.exposure_time_us, "AnalogueGain": self.analogue_gain,
                     "ColourGains": self.colour_gains}
        if "AeEnable" in camera_controls:
            out["AeEnable"] = False
        if "AwbEnable" in camera_controls:
            out["AwbEnable"] = False
        for mode in ("ExposureTimeMode", "AnalogueGainMode"):
            if mode in camera_controls:
                out[mode] = _MODE_MANUAL
        return out


def auto_controls(camera_controls) -> dict:
    """The picamera2 controls that hand exposure and white balance back to the camera."""
    out: dict = {}
    if "AeEnable" in camera_controls:
        out["AeEnable"] = True
    if "AwbEnable" in camera_controls:
        out["AwbEnable"] = True
    if "ExposureTimeMode" in camera_controls:
        out["ExposureTimeMode"] = _MODE_AUTO
        out["AnalogueGainMode"] = _MODE_AUTO
    else:
        # Before libcamera 0.4 the Pi's AGC keeps a fixed ExposureTime/AnalogueGain even with AE
        # enabled; 0 clears them.
        out["ExposureTime"] = 0
        out["AnalogueGain"] = 0.0
    return out


def settled(history: list[dict], frames: int, tolerance: float) -> bool:
    """Whether the last `frames` metadata dicts agree on exposure (time x gain) and colour gains
    within `tolerance` (relative), and the camera, where it says so, reports exposure converged."""
    if len(history) < frames:
        return False
    window = history[-frames:]
    last = window[-1]
    if last.get("AeLocked") is False:
        return False
    if "AeState" in last and last["AeState"] != _AE_STATE_CONVERGED:
        return False
    try:
        series = [[m["ExposureTime"] * m["AnalogueGain"] for m in window],
                  [m["ColourGains"][0] for m in window], [m["ColourGains"][1] for m in window]]
    except (KeyError, TypeError, IndexError):
        return False   # a frame without the values: not settled yet
    return all(max(v) > 0 and (max(v) - min(v)) <= tolerance * max(v) for v in series)


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
        self._want_lock = self.cfg.picam_lock_exposure   # lock() and unlock() change it
        self._lock: ExposureLock | None = None
        # lock() may come from another thread than read(): settling must not share frames with it.
        self._io = threading.Lock()

    @property
    def exposure_lock(self) -> ExposureLock | None:
        """The values exposure and white balance are fixed at, or None while they are automatic."""
        return self._lock

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
            self._flicker(cam)
            self._cam = cam
            if self._want_lock and self._lock is not None:
                # Reopened after a drop during a game: the game's values, not a new settling.
                cam.set_controls(self._lock.controls(cam.camera_controls))
            elif self._want_lock:
                self._settle_and_lock()
        except Exception as exc:
            self._cam = None
            cam.close()
            if isinstance(exc, CaptureError):
                raise
            raise CaptureError(f"cannot start {self.name}: {exc}") from exc
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

    def _flicker(self, cam) -> None:
        hz = self.cfg.picam_flicker_hz
        if not hz:
            return
        if "AeFlickerMode" not in cam.camera_controls:
            log.warning("%s: this camera or libcamera has no anti-flicker control; picam_flicker_hz ignored",
                        self.name)
            return
        # Lights flicker at twice the mains frequency: 10000 us at 50 Hz, 8333 us at 60 Hz.
        cam.set_controls({"AeFlickerMode": _FLICKER_MODE_MANUAL, "AeFlickerPeriod": round(1_000_000 / (2 * hz))})

    def lock(self) -> ExposureLock | None:
        """Let exposure and white balance settle in automatic mode, then fix them (a game starts);
        None when this camera cannot fix them.

        Frames taken while settling are not returned by read(), which waits meanwhile. Holds until
        unlock(), across reopening the camera."""
        with self._io:
            if self._cam is None:
                raise CaptureError(f"{self.name}: lock before open")
            self._want_lock = True
            self._lock = None
            self._cam.set_controls(auto_controls(self._cam.camera_controls))
            return self._settle_and_lock()

    def unlock(self) -> None:
        """Exposure and white balance back to automatic (between games)."""
        self._want_lock = False
        self._lock = None
        if self._cam is not None:
            self._cam.set_controls(auto_controls(self._cam.camera_controls))

    def _settle_and_lock(self) -> ExposureLock | None:
        cfg, cam = self.cfg, self._cam
        if not {"AeEnable", "ExposureTimeMode", "AwbEnable"} & set(cam.camera_controls):
            log.warning("%s: the camera offers no exposure or white-balance controls; left automatic", self.name)
            return None
        history: list[dict] = []
        deadline = time.monotonic() + cfg.picam_settle_max_s
        while True:
            try:
                request = cam.capture_request(wait=cfg.read_timeout_s)
            except Exception as exc:   # TimeoutError, or the camera went away
                raise CaptureError(f"{self.name}: no frame while exposure settles ({exc})") from exc
            try:
                history.append(dict(request.get_metadata()))
            finally:
                request.release()
            ok = settled(history, cfg.picam_settle_frames, cfg.picam_settle_tolerance)
            if ok or time.monotonic() >= deadline:
                break
        last = history[-1]
        if "ExposureTime" not in last or "AnalogueGain" not in last or "ColourGains" not in last:
            log.warning("%s: the camera reports no exposure or colour gains; left automatic", self.name)
            return None
        if not ok:
            log.warning("%s: exposure and white balance did not settle within %.1f s (%d frames); locking the "
                        "last frame's values (a flickering lamp? set picam_flicker_hz)",
                        self.name, cfg.picam_settle_max_s, len(history))
        red, blue = last["ColourGains"]
        self._lock = ExposureLock(int(last["ExposureTime"]), float(last["AnalogueGain"]),
                                  (float(red), float(blue)), ok, len(history))
        cam.set_controls(self._lock.controls(cam.camera_controls))
        log.info("%s: exposure locked at %d us, gain %.2f, colour gains %.2f/%.2f after %d frames",
                 self.name, self._lock.exposure_time_us, self._lock.analogue_gain, red, blue, len(history))
        return self._lock

    def _read(self) -> Frame:
        try:
            with self._io:
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


def picamera_of(source) -> PicameraSource | None:
    """The Pi camera behind `source` (open_source wraps it in a ReconnectingSource), or None, so
    that the recorder can lock() and unlock() it at a game's start and end."""
    while source is not None and not isinstance(source, PicameraSource):
        source = getattr(source, "inner", None)
    return source
