"""Clock presses and a dropping camera, through the real recorder."""
from __future__ import annotations

import time

import numpy as np
import pytest
from gpiozero import Device
from gpiozero.pins.mock import MockFactory

from tilecam.api.demo.game import make_demo_game
from tilecam.api.demo.video import boards_after_each_play
from tilecam.api.station.link import MemoryLink
from tilecam.api.settings import Settings
from tilecam.vision import build_reader
from tilecam.api.station import build_recorder
from tilecam.capture import CaptureConfig, CaptureError, ReconnectingSource, SourceEnded
from tilecam.capture.frame import Frame
from tilecam.capture.source import BaseSource
from tilecam.hardware.buttons import ButtonConfig, ClockButtons
from tilecam.hardware.triggers import Trigger
from tilecam.models.synth import SceneConfig, render_scene
from tilecam.scoring.game import Game
from tilecam.scoring.rules import get_profile
from tilecam.scoring.scorekeeper import Scorekeeper
from tilecam.scoring.tiles import DISTRIBUTIONS

# A trained look (the tests here are about presses and reconnects; boards the network never saw
# are measured by tests/bench/bench_read.py and bench_record.py).
SCENE = SceneConfig(out_w_px=960, out_h_px=720, max_tilt_deg=8, glare_prob=0.0, fill_min=0.85, fill_max=0.92,
                    style="ivory", quarter_turn_prob=0.05, hands="never", design="standard", labels="short", line_frac=0.045,
                    font="dejavu-sans")


def recorder_for(entries: list, photos: bool = False):
    """The recorder as `tilecam run` builds it (api.station), committing into `entries`."""
    keeper = Scorekeeper(Game(get_profile("naspa"), DISTRIBUTIONS["en"]))
    settings = Settings()
    rec = build_recorder(settings, keeper, MemoryLink(entries),
                         reader=build_reader(settings, "en"), photos=photos)
    return rec, keeper


@pytest.fixture
def mock_pins():
    Device.pin_factory = MockFactory()
    yield Device.pin_factory
    Device.pin_factory.reset()


def test_a_clock_button_press_with_no_new_tiles_is_a_pass(mock_pins):
    entries: list = []
    rec, keeper = recorder_for(entries)
    cfg = ButtonConfig(enabled=True, debounce_ms=0)
    buttons = ClockButtons(cfg, rec.on_trigger, pin_factory=mock_pins)
    board = ["." * 15] * 15
    frames = [Frame(render_scene(board, 4, SCENE, i).image, i / 8.0, i, "t") for i in range(4)]
    rec.process(frames[0])
    pin = mock_pins.pin(cfg.player2_pin)
    pin.drive_low()     # player 2 hits the clock
    pin.drive_high()
    deadline = time.monotonic() + 5
    while rec._press == (False, None) and time.monotonic() < deadline:
        time.sleep(0.01)
    for f in frames[1:]:
        rec.process(f)
    assert [e.kind for e in entries] == ["pass"] and entries[0].player == 1
    assert rec.on_trigger(Trigger("challenge", 0)) == "notice" and rec.status()["notices"]
    buttons.close()


class DroppingCamera(BaseSource):
    """Rendered frames of a game; the connection drops twice mid-game."""

    live = True

    def __init__(self, frames: list[np.ndarray], drop_at: tuple[int, ...]) -> None:
        super().__init__("dropping")
        self.frames, self.drop_at, self.next = frames, set(drop_at), 0

    def _open(self) -> None:
        pass

    def _read(self) -> Frame:
        if self.next in self.drop_at:
            self.drop_at.discard(self.next)
            raise CaptureError("USB reset")
        if self.next >= len(self.frames):
            raise SourceEnded("done")
        self.next += 1
        return Frame(self.frames[self.next - 1], 0.0, self.next - 1, self.name)


def test_a_camera_that_drops_mid_game_loses_no_move():
    game = make_demo_game(2)
    boards = boards_after_each_play(game)
    images = []
    for k, board in enumerate(boards):
        images += [render_scene(board, 6, SCENE, len(images) + i).image for i in range(9)]
    camera = ReconnectingSource(DroppingCamera(images, drop_at=(12, 20)),
                                CaptureConfig(reconnect_initial_s=0.01, reconnect_max_s=0.02))
    entries: list = []
    rec, keeper = recorder_for(entries)
    with camera:
        for i, frame in enumerate(camera):
            # Live frames carry wall-clock time; the gate needs the video's own pace here.
            rec.process(Frame(frame.image, i / 8.0, frame.index, frame.source))

    assert camera.reconnects == 2
    plays = [e for e in entries if e.kind == "play"]
    assert [(e.placement, e.engine) for e in plays] == [(e.placement, e.engine) for e in game.events]


def test_a_copied_photo_in_a_folder_is_not_a_second_press():
    """One photo per move: a file that repeats the previous one byte for byte (ScrabScrap's test
    games copy a photo where a challenge was pressed) is not a pass that flips the turn order."""
    entries: list = []
    rec, keeper = recorder_for(entries, photos=True)   # a folder: every photo is a press
    empty = render_scene(["." * 15] * 15, 4, SCENE, 0).image
    again = render_scene(["." * 15] * 15, 4, SCENE, 1).image  # the same board, a new photo
    outcomes = [rec.process(Frame(img, i, i, "t")) for i, img in enumerate([empty, empty.copy(), again])]
    assert [o.state for o in outcomes] == ["snapshot", "duplicate", "snapshot"]
    assert [e.kind for e in entries] == ["pass", "pass"]


def test_the_turn_order_notice_follows_the_corrections_cause_not_its_words():
    """Issue 37: the console says a press contradicted the turn order when scoring's correction says
    so in its `cause` (PRESS_CAUSE); rewording its reason changes nothing, and words alone do nothing."""
    from tilecam.api.station.recorder import Recorder
    from tilecam.scoring.events import CAMERA, PRESS_CAUSE, RACK_CAUSE, Correction
    from tilecam.scoring.gcg import placement_from_gcg
    from tilecam.scoring.scorekeeper import Observation

    keeper = Scorekeeper(Game(get_profile("naspa"), DISTRIBUTIONS["en"]))
    play = keeper.game.play(0, placement_from_gcg(keeper.game, "8H", "CAT"))
    rec = Recorder(keeper, None, None, MemoryLink([play]))
    frame = Frame(np.zeros((4, 4, 3), np.uint8), 0.0, 7, "test")
    rec._turn_notice(frame, Observation((Correction(0, play, CAMERA, reason="reworded entirely", cause=PRESS_CAUSE),),
                                        "corrected"))
    rec._turn_notice(frame, Observation((Correction(0, play, CAMERA, reason="the clock press, in words only",
                                                    cause=RACK_CAUSE),), "corrected"))
    rec._turn_notice(frame, Observation((Correction(0, play, "desk", reason="the clock press", cause=PRESS_CAUSE),),
                                        "corrected"))
    assert len(rec.notices) == 1 and "reworded entirely" in rec.notices[0]
