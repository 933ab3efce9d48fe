"""The tile check in a recorded video: the 100 tiles face up in the corners before the first play
are calibration (the reader enrolls the table's tile set from them), never a play; the game starts
when the board is cleared."""
from __future__ import annotations

import pytest

from tilecam.api.demo.game import make_demo_game
from tilecam.api.demo.video import boards_after_each_play
from tilecam.api.station.link import MemoryLink
from tilecam.api.settings import Settings
from tilecam.vision import build_reader
from tilecam.api.station import build_recorder
from tilecam.capture.frame import Frame
from tilecam.models.synth import SceneConfig, render_scene, tile_check_plan
from tilecam.scoring.game import Game
from tilecam.scoring.scorekeeper import Scorekeeper

pytestmark = pytest.mark.slow  # end to end (see pyproject's markers)

LOOK = dict(out_w_px=960, out_h_px=720, max_tilt_deg=10, glare_prob=0.0, fill_min=0.85, fill_max=0.92, style="ivory",
            quarter_turn_prob=0.08, design="standard", labels="short", line_frac=0.045, font="dejavu-sans")


def test_a_video_opening_with_the_tile_check_records_the_game_and_nothing_from_the_check():
    game = make_demo_game(3)
    boards = boards_after_each_play(game)[:3]  # two plays (the third lays a blank at the board's edge,
    # which this look reads as empty with or without a check)
    still, hands = SceneConfig(hands="never", **LOOK), SceneConfig(hands="always", **LOOK)
    plan = [(b, hands if over else still, what) for b, over, what in tile_check_plan(7, hold=9, pause=False)]
    for before, after in zip(boards, boards[1:]):
        plan += [(before, hands, "hands"), (after, hands, "hands")] + [(after, still, "game")] * 9
    frames = [Frame(render_scene(b, 21, c, frame=i).image, i / 8.0, i, "synth") for i, (b, c, _) in enumerate(plan)]

    settings = Settings()
    keeper = Scorekeeper(Game(game.profile, game.dist, game.layout, game.players))
    link = MemoryLink()
    reader = build_reader(settings, "en")
    recorder = build_recorder(settings, keeper, link, reader=reader)
    outcomes = [recorder.process(f) for f in frames]

    checks = [o for o, (_, _, what) in zip(outcomes, plan) if o.observation and o.observation.status == "tile_check"]
    assert checks, "the check was never seen as one"
    # nothing was committed from the check: every entry came after the board was cleared
    first_game_frame = next(i for i, (_, _, what) in enumerate(plan) if what in ("hands", "game"))
    assert all(o.index >= first_game_frame for o in outcomes if o.seqs)
    # the check taught the reader this table's tile set
    assert reader.enrollment.tiles >= 50 and reader.tile_reader.tileset is not None
    # the game's plays, exactly
    want = [(tuple((t.square, t.letter) for t in e.placement.tiles), e.engine) for e in game.events[:2]]
    got = [(tuple((t.square, t.letter) for t in e.placement.tiles), e.engine) for e in keeper.game.events
           if e.kind == "play"]
    assert got == want


def test_tilecam_enroll_labels_a_rendered_tile_check_frame(tmp_path):
    """`tilecam enroll --tile-check FRAME`: the board found in a camera frame of the corner blocks,
    its tiles labelled by assignment against the English counts, the tile set written."""
    import subprocess
    import sys
    from pathlib import Path

    import cv2
    import numpy as np

    from tilecam.models.synth import tile_check_board

    board = tile_check_board(4)
    frame = tmp_path / "check.jpg"
    cv2.imwrite(str(frame), render_scene(board, 4, SceneConfig(hands="never", **LOOK)).image)
    out = tmp_path / "ts.npz"
    p = subprocess.run([sys.executable, "-m", "tilecam.api.cli", "enroll", "--tile-check", str(frame), "--out", str(out)],
                       cwd=Path(__file__).resolve().parents[3], capture_output=True, text=True)
    assert p.returncode == 0, p.stderr
    rows = [line for line in p.stdout.splitlines() if len(line) == 15][:15]
    got, truth = np.array([list(r) for r in rows]), np.array([list(r) for r in board])
    # the grid image's orientation is the locator's: the best of the four turns
    assert max(int((np.rot90(got, k) == truth).sum()) for k in range(4)) >= 220 and out.is_file()
