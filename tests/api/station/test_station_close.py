"""A station honours a director's close (issue 37): the close the operator console writes mid-game is
an entry of the log, which the recorder follows at its next snapshot; from then on it decides no
turn (before, it kept proposing plays the writer refused), and the station ends the game as it does
when the rules end it: the cameras back to automatic exposure, the clock stopped once.

Real parts: the demo game's first two plays rendered as photos, read by the real reader, recorded
by a real Station into a real SQLite store; the director's close goes through the game service."""
from __future__ import annotations

from pathlib import Path

import cv2
import pytest

from tilecam.api.bus import Bus
from tilecam.api.service import GameService
from tilecam.api.settings import Settings
from tilecam.api.station import Hooks, Job, Station
from tilecam.api.store import open_store

SCENE = dict(out_w_px=960, out_h_px=720, max_tilt_deg=10, glare_prob=0.0, fill_min=0.85, fill_max=0.92,
             style="ivory", quarter_turn_prob=0.08, design="standard", labels="short", line_frac=0.045,
             font="dejavu-sans")


@pytest.fixture(scope="module")
def board(tmp_path_factory) -> Path:
    """A folder of one photo per move of the demo game's first two plays."""
    from tilecam.api.demo.game import make_demo_game
    from tilecam.api.demo.video import boards_after_each_play
    from tilecam.models.synth import SceneConfig, render_scene

    folder = tmp_path_factory.mktemp("board")
    for i, rows in enumerate(boards_after_each_play(make_demo_game(2))[1:], start=1):
        cv2.imwrite(str(folder / f"image-{i}.jpg"), render_scene(rows, 33, SceneConfig(hands="never", **SCENE)).image)
    return folder


def test_a_director_closing_the_game_mid_recording_ends_it_at_the_station(tmp_path, board, monkeypatch):
    service = GameService(open_store(tmp_path / "games.sqlite3"), Bus())
    unlocked: list[int] = []
    from tilecam.api.station import exposure
    monkeypatch.setattr(exposure, "hand_back", lambda sources: unlocked.append(st.recording.game_id))
    statuses: list[str] = []

    def director_closes_after_the_first_photo(frame, outcome):
        if outcome.observation is not None:
            statuses.append(outcome.observation.status)
        if frame.index == 0:
            service.end(st.recording.game_id, None, "forfeit", by="desk")

    st = Station(Settings(), Job(str(board), new_game=True, clock=True, own=False, quiet=True),
                 Hooks(on_outcome=director_closes_after_the_first_photo), service=service)
    st.open()
    try:
        assert st.record_here() == "ended"
    finally:
        st.close()
    gid = st.recording.game_id
    assert [e.entry.kind for e in service.entries(gid)] == ["play", "close"]
    assert statuses == ["play", "ended"]     # the second play is not even tried against a closed game
    assert st.recording.scorekeeper.over and not st.recording.scorekeeper.game.state.ended
    assert unlocked == [gid]                 # once, at the close the recorder followed
    clock = service.game_clock(gid).state(1e9)
    assert clock.finished and clock.overtime_minutes == (0, 0)
    service.store.close()


def test_a_restarted_station_resumes_its_open_game_never_one_a_director_closed(tmp_path):
    from tilecam.api.station.game import STATION_META, game_to_resume
    service = GameService(open_store(tmp_path / "games.sqlite3"), Bus())
    older, newer = (service.create_game([("Ann", None), ("Ben", None)], meta=STATION_META).id for _ in range(2))
    assert game_to_resume(service) == newer
    service.end(newer, None, "forfeit", by="desk")
    assert game_to_resume(service) == older
    service.store.update_game(older, meta={"closed_by": "desk"})   # closed before closes were logged
    assert game_to_resume(service) is None
    service.store.close()
