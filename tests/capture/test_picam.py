"""PicameraSource's exposure and white-balance lock, on a fake picamera2 module.

The fake camera runs a toy auto exposure: in automatic mode each frame moves exposure and colour
gains half way to what the scene needs, and its metadata reports them as libcamera does
(ExposureTime, AnalogueGain, ColourGains, and AeLocked or, for libcamera 0.4+, AeState). Each
frame's image carries its serial number, so a test can tell which frame read() returned.
Nothing here ran on a real camera (docs/pi.md says what was checked where).
"""
from __future__ import annotations

import logging
import sys
from types import SimpleNamespace

import numpy as np
import pytest

from tilecam.capture import CaptureConfig, CaptureError, open_source
from tilecam.capture.picam import PicameraSource, picamera_of, settled

OLD_CONTROLS = {"AeEnable": (False, True, None), "AwbEnable": (False, True, None),
                "ExposureTime": (134, 1_000_000, None), "AnalogueGain": (1.0, 16.0, None),
                "ColourGains": (0.0, 32.0, None), "AeFlickerMode": (0, 1, 0),
                "AeFlickerPeriod": (100, 1_000_000, None)}
NEW_CONTROLS = {**OLD_CONTROLS, "ExposureTimeMode": (0, 1, 0), "AnalogueGainMode": (0, 1, 0)}


class Scene:
    """What auto exposure would settle on; `wobble` makes it never settle (a flickering lamp)."""

    def __init__(self, exposure_us=20000, gain=2.0, gains=(1.8, 1.4), wobble=0.0):
        self.exposure_us, self.gain, self.gains, self.wobble = exposure_us, gain, gains, wobble


class FakeCamera:
    """The part of picamera2.Picamera2 that PicameraSource uses, with a toy AE/AWB."""

    def __init__(self, num, scene: Scene, controls: dict, new_libcamera: bool):
        self.num, self.scene, self.camera_controls = num, scene, dict(controls)
        self.new_libcamera = new_libcamera
        self.log: list = []          # ("controls", dict) and ("frame", serial) in order
        self.serial = 0
        self.exposure_us, self.gain, self.gains = 5000.0, 1.0, (1.0, 1.0)
        self.ae = self.awb = True

    def create_video_configuration(self, main, controls):
        self.size = main.get("size", (64, 48))
        return {"main": main, "controls": controls}

    def configure(self, config):
        self.log.append("configure")

    def start(self):
        self.log.append("start")

    def stop(self):
        self.log.append("stop")

    def close(self):
        self.log.append("close")

    def autofocus_cycle(self):
        return True

    def set_controls(self, controls):
        self.log.append(("controls", dict(controls)))
        if "AeEnable" in controls:
            self.ae = controls["AeEnable"]
        if "AwbEnable" in controls:
            self.awb = controls["AwbEnable"]
        if not self.ae and "ExposureTime" in controls:
            self.exposure_us, self.gain = controls["ExposureTime"], controls["AnalogueGain"]
        if not self.awb and "ColourGains" in controls:
            self.gains = tuple(controls["ColourGains"])

    def _step(self):
        s = self.scene
        wobble = 1.0 + s.wobble * (-1) ** self.serial
        if self.ae:
            self.exposure_us += (s.exposure_us * wobble - self.exposure_us) / 2
            self.gain += (s.gain - self.gain) / 2
        if self.awb:
            self.gains = tuple(g + (t - g) / 2 for g, t in zip(self.gains, s.gains))

    def capture_request(self, wait=None):
        self._step()
        self.serial += 1
        self.log.append(("frame", self.serial))
        md = {"ExposureTime": int(self.exposure_us), "AnalogueGain": self.gain, "ColourGains": self.gains}
        near = abs(self.exposure_us - self.scene.exposure_us) < 0.01 * self.scene.exposure_us
        if self.new_libcamera:
            md["AeState"] = 2 if near or not self.ae else 1
        else:
            md["AeLocked"] = near or not self.ae
        serial = self.serial
        w, h = self.size
        return SimpleNamespace(get_metadata=lambda: dict(md), release=lambda: None,
                               make_array=lambda name: np.full((h, w, 3), serial % 256, np.uint8))


@pytest.fixture
def picamera2(monkeypatch):
    """Installs a fake picamera2 module; returns the cameras it made and the scene they see."""
    made: list[FakeCamera] = []
    state = SimpleNamespace(cameras=made, scene=Scene(), controls=OLD_CONTROLS, new_libcamera=False)

    def factory(num):
        made.append(FakeCamera(num, state.scene, state.controls, state.new_libcamera))
        return made[-1]

    monkeypatch.setitem(sys.modules, "picamera2", SimpleNamespace(Picamera2=factory))
    return state


def controls_sent(cam, key):
    return [e[1] for e in cam.log if isinstance(e, tuple) and e[0] == "controls" and key in e[1]]


def lock_index(cam):
    """Position in the camera's log of the controls that fixed exposure (AeEnable False)."""
    return next(i for i, e in enumerate(cam.log) if isinstance(e, tuple) and e[0] == "controls"
                and e[1].get("AeEnable") is False)


CFG = CaptureConfig(width_px=64, height_px=48, picam_settle_frames=5, picam_settle_tolerance=0.02)


def test_open_settles_then_locks_the_settled_values(picamera2):
    with PicameraSource(CFG) as source:
        lock = source.exposure_lock
        cam = picamera2.cameras[0]
        sent = cam.log[lock_index(cam)][1]
    assert lock is not None and lock.settled
    assert sent == {"ExposureTime": lock.exposure_time_us, "AnalogueGain": lock.analogue_gain,
                    "ColourGains": lock.colour_gains, "AeEnable": False, "AwbEnable": False}
    # the values of a settled frame: within the tolerance of what the scene needs ...
    assert lock.exposure_time_us == pytest.approx(20000, rel=0.02)
    assert lock.analogue_gain == pytest.approx(2.0, rel=0.02)
    assert lock.colour_gains == pytest.approx((1.8, 1.4), rel=0.02)
    # ... reached only after the camera had moved from its start (5000 us, gain 1): no early lock
    frames_before = [e for e in cam.log[:lock_index(cam)] if isinstance(e, tuple) and e[0] == "frame"]
    assert len(frames_before) == lock.frames > CFG.picam_settle_frames


def test_calibration_frame_comes_only_after_settling(picamera2):
    with PicameraSource(CFG) as source:
        first = source.read()
        cam = picamera2.cameras[0]
        lock = source.exposure_lock
    serial = int(first.image[0, 0, 0])
    assert first.index == 0
    # the frame read() returned is the first one taken after the lock was set, never a settling frame
    assert cam.log.index(("frame", serial)) > lock_index(cam)
    assert serial == lock.frames + 1


def test_unlock_between_games_and_lock_again_under_new_light(picamera2):
    with PicameraSource(CFG) as source:
        cam = picamera2.cameras[0]
        first = source.exposure_lock
        source.unlock()
        assert source.exposure_lock is None
        assert cam.log[-1] == ("controls", {"AeEnable": True, "AwbEnable": True,
                                            "ExposureTime": 0, "AnalogueGain": 0.0})
        assert cam.ae and cam.awb
        source.read()   # between games frames keep coming, exposure automatic
        picamera2.scene.exposure_us, picamera2.scene.gains = 8000, (2.2, 1.2)  # daylight now
        second = source.lock()
    assert second is not None and second.settled
    assert first.exposure_time_us == pytest.approx(20000, rel=0.02)
    assert second.exposure_time_us == pytest.approx(8000, rel=0.02)
    assert second.colour_gains == pytest.approx((2.2, 1.2), rel=0.02)
    assert cam.exposure_us == second.exposure_time_us and not cam.ae


def test_a_reopened_camera_gets_the_games_values_without_settling_again(picamera2):
    source = PicameraSource(CFG)
    source.open()
    lock = source.exposure_lock
    source.close()          # what ReconnectingSource does when the camera drops
    source.open()
    again = picamera2.cameras[1]
    try:
        first_frame = next(i for i, e in enumerate(again.log) if isinstance(e, tuple) and e[0] == "frame")
    except StopIteration:
        first_frame = len(again.log)
    assert lock_index(again) < first_frame        # fixed before any frame, no settling
    assert source.exposure_lock == lock
    assert again.log[lock_index(again)][1]["ExposureTime"] == lock.exposure_time_us
    source.unlock()
    source.close()
    source.open()           # unlocked between games: a reopen stays automatic
    assert source.exposure_lock is None and not controls_sent(picamera2.cameras[2], "AeEnable")
    source.close()


def test_a_scene_that_never_settles_locks_the_last_values_after_the_wait(picamera2, caplog):
    picamera2.scene.wobble = 0.2
    cfg = CFG.model_copy(update={"picam_settle_max_s": 0.05})
    with caplog.at_level(logging.WARNING, logger="tilecam.capture.picam"), PicameraSource(cfg) as source:
        lock = source.exposure_lock
        cam = picamera2.cameras[0]
    assert lock is not None and not lock.settled
    assert lock.exposure_time_us == cam.log[lock_index(cam)][1]["ExposureTime"]
    assert "did not settle" in caplog.text and "picam_flicker_hz" in caplog.text


@pytest.mark.parametrize("hz,period", [(50, 10000), (60, 8333)])
def test_anti_flicker_is_set_before_settling(picamera2, hz, period):
    with PicameraSource(CFG.model_copy(update={"picam_flicker_hz": hz})):
        cam = picamera2.cameras[0]
    flicker = [i for i, e in enumerate(cam.log) if isinstance(e, tuple) and e[0] == "controls"
               and "AeFlickerMode" in e[1]]
    assert len(flicker) == 1
    assert cam.log[flicker[0]][1] == {"AeFlickerMode": 1, "AeFlickerPeriod": period}
    assert flicker[0] < cam.log.index(("frame", 1))


def test_flicker_without_the_control_warns_and_lock_off_stays_automatic(picamera2, caplog):
    picamera2.controls = {k: v for k, v in OLD_CONTROLS.items() if not k.startswith("AeFlicker")}
    cfg = CFG.model_copy(update={"picam_flicker_hz": 50, "picam_lock_exposure": False})
    with caplog.at_level(logging.WARNING, logger="tilecam.capture.picam"), PicameraSource(cfg) as source:
        source.read()
        cam = picamera2.cameras[0]
    assert "no anti-flicker control" in caplog.text
    assert source.exposure_lock is None and not controls_sent(cam, "AeEnable") and cam.ae
    assert [e for e in cam.log if isinstance(e, tuple) and e[0] == "frame"] == [("frame", 1)]  # no settling


def test_libcamera_0_4_modes_and_ae_state(picamera2):
    picamera2.controls, picamera2.new_libcamera = NEW_CONTROLS, True
    with PicameraSource(CFG) as source:
        cam = picamera2.cameras[0]
        sent = cam.log[lock_index(cam)][1]
        source.unlock()
        unlocked = cam.log[-1][1]
    assert sent["ExposureTimeMode"] == 1 and sent["AnalogueGainMode"] == 1 and sent["AeEnable"] is False
    assert unlocked == {"AeEnable": True, "AwbEnable": True, "ExposureTimeMode": 0, "AnalogueGainMode": 0}


def test_settled_needs_agreeing_frames_and_a_converged_camera():
    md = {"ExposureTime": 10000, "AnalogueGain": 2.0, "ColourGains": (1.5, 1.5)}
    assert settled([md] * 3, 3, 0.01)
    assert not settled([md] * 2, 3, 0.01)                                   # too few frames
    assert not settled([md, md, {**md, "ExposureTime": 10500}], 3, 0.01)    # still moving
    assert not settled([md, md, {**md, "AeLocked": False}], 3, 0.01)
    assert not settled([md, md, {**md, "AeState": 1}], 3, 0.01)            # searching
    assert settled([md, md, {**md, "AeState": 2}], 3, 0.01)
    assert not settled([md, md, {"ExposureTime": 10000}], 3, 0.01)          # no colour gains reported


def test_open_source_picam_reaches_the_camera_through_the_reconnect_wrapper(picamera2):
    with open_source("picam:1", CFG) as source:
        cam = picamera_of(source)
        assert isinstance(cam, PicameraSource) and cam is not source and cam.camera_num == 1
        assert cam.exposure_lock is not None
    assert picamera_of(object()) is None


def test_lock_before_open_is_a_capture_error(picamera2):
    with pytest.raises(CaptureError, match="lock before open"):
        PicameraSource(CFG).lock()


def test_the_station_hands_exposure_back_to_automatic_once_when_its_game_is_over(picamera2):
    from tilecam.api.station.exposure import ExposureLock
    with PicameraSource(CFG) as source, PicameraSource(CFG, camera_num=1) as rack:
        assert source.exposure_lock is not None and rack.exposure_lock is not None  # locked when they opened
        # the board's source as open_source wraps it, a rack camera's, and a rack camera not there
        lock = ExposureLock(lambda: [SimpleNamespace(inner=source), SimpleNamespace(inner=rack), None])
        assert not lock.follow(False) and source.exposure_lock is not None       # the game goes on
        assert lock.follow(True)                                                 # this frame ended it
        assert source.exposure_lock is None and picamera2.cameras[0].ae and picamera2.cameras[0].awb
        assert rack.exposure_lock is None and picamera2.cameras[1].ae and picamera2.cameras[1].awb
        source.lock()                                                            # the next game's start
        assert not lock.follow(True) and source.exposure_lock is not None        # handed back once
        lock.new_game()
        assert not lock.follow(False) and lock.follow(True) and source.exposure_lock is None


def test_a_rack_camera_on_a_pi_5_s_second_port_opens_as_picam_1_at_the_racks_frame_size(picamera2):
    from tilecam.api.settings import load_settings
    from tilecam.api.station.racks import rack_capture
    settings = load_settings(capture={"picam_settle_frames": 5, "picam_settle_tolerance": 0.02},
                             racks={"sources": {"1": "picam:1"}, "width_px": 640, "height_px": 360, "fps": 4})
    with open_source("picam:1", rack_capture(settings, "picam:1")) as source:
        frame = source.read()
        cam = picamera2.cameras[0]
        assert cam.num == 1 and cam.size == (640, 360) and frame.image.shape == (360, 640, 3)
        assert picamera_of(source).exposure_lock is not None   # settled and locked as the board's is
