"""Issue 27 end to end: a rendered video that begins mid-game (a station started after three plays),
the board turned to an odd angle, the camera shaking: the recorder joins the game
from the board as it stands (every tile on it in a play, each marked for review), follows the next play, and
ends with nothing it cannot explain. Before, such a first snapshot (many tiles, nothing committed)
could be taken for the tile check, and its snapshots dropped as "occluded"."""
from __future__ import annotations

import pytest

from tilecam.api.demo.game import make_demo_game
from tilecam.api.demo.video import boards_after_each_play
from tilecam.api.station.link import MemoryLink
from tilecam.api.settings import Settings
from tilecam.vision import build_reader
from tilecam.api.station import build_recorder
from tilecam.capture.frame import Frame
from tilecam.models.synth import SceneConfig, render_scene
from tilecam.scoring.game import Game
from tilecam.scoring.scorekeeper import Scorekeeper

pytestmark = pytest.mark.slow  # end to end (see pyproject's markers)

LOOK = dict(out_w_px=960, out_h_px=720, max_tilt_deg=10, glare_prob=0.0, fill_min=0.85, fill_max=0.92,
            style="ivory", quarter_turn_prob=0.05, design="standard", labels="short", font="dejavu-sans",
            rotation_deg=37.0)


def test_a_video_begun_mid_game_recovers_every_play_and_follows_on():
    game = make_demo_game(4)
    boards = boards_after_each_play(game)
    start, then = boards[3], boards[4]   # the camera joins after three plays; the fourth follows
    still, hands = SceneConfig(hands="never", **LOOK), SceneConfig(hands="always", **LOOK)
    plan = [(start, still)] * 12 + [(start, hands), (then, hands)] + [(then, still)] * 10
    frames = [Frame(render_scene(b, 27, c, frame=i, jitter_px=0.3).image, i / 8.0, i, "synth")
              for i, (b, c) in enumerate(plan)]

    settings = Settings()
    keeper = Scorekeeper(Game(game.profile, game.dist, game.layout, game.players))
    recorder = build_recorder(settings, keeper, MemoryLink(), reader=build_reader(settings, "en"))
    outcomes = [recorder.process(f) for f in frames]

    assert recorder.counts["dropped"] == 0, recorder.counts   # still and hand-free: never "occluded"
    assert not any(o.observation and o.observation.status == "tile_check" for o in outcomes)
    plays = [e for e in keeper.game.events if e.kind == "play"]
    # every tile on the board at the join explained by a play, each marked for review (the split is
    # inferred: here DJINNI then WITHY, where the game had DJINN then WITHY hooking the I), then the
    # next play exactly
    joined = [e for e in plays if e.review][:3]
    assert set().union(*map(tiles, joined)) == set().union(*map(tiles, game.events[:3])), [e.words for e in plays]
    assert len(plays) == 4 and tiles(plays[3]) == tiles(game.events[3]), [e.words for e in plays]
    assert recorder.lost is None, recorder.alerts


def tiles(play) -> frozenset:
    """A play's squares and tiles, a blank as '?' (the camera sees a blank, not its letter)."""
    return frozenset((t.square, "?" if t.blank else t.letter) for t in play.placement.tiles)
