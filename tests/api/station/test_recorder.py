"""The recorder end to end: rendered frames -> locate -> read -> scorekeeper -> SQLite, and resume."""
from __future__ import annotations

import json
import subprocess
import sys

import cv2
import numpy as np
import pytest

from tilecam.api.bus import Bus
from tilecam.api.station.link import GameLink, MemoryLink
from tilecam.api.demo.game import make_demo_game
from tilecam.api.demo.video import boards_after_each_play
from tilecam.api.settings import Settings
from tilecam.vision import build_reader
from tilecam.api.station import build_recorder
from tilecam.api.service import GameService
from tilecam.api.store import open_store
from tilecam.capture.frame import Frame
from tilecam.models.synth import SceneConfig, render_scene
from tilecam.scoring.game import Game
from tilecam.scoring.gcg import read_gcg
from tilecam.scoring.rules import get_profile
from tilecam.scoring.scorekeeper import Scorekeeper
from tilecam.scoring.tiles import DISTRIBUTIONS

pytestmark = pytest.mark.slow  # end to end (see pyproject's markers)

SIZE = dict(out_w_px=960, out_h_px=720, max_tilt_deg=10, glare_prob=0.0, fill_min=0.85, fill_max=0.92, style="ivory",
            quarter_turn_prob=0.08,  # players lay tiles facing them: few are turned
            design="standard", labels="short", line_frac=0.045, font="dejavu-sans")  # a trained look: these tests are about recording


@pytest.fixture(scope="module")
def demo():
    game = make_demo_game(4)
    return game, boards_after_each_play(game)


def video_frames(boards, seed=21, hold=10, reach=3):
    still = SceneConfig(hands="never", **SIZE)
    hands = SceneConfig(hands="always", **SIZE)
    plan = [(boards[0], still)] * hold
    for before, after in zip(boards, boards[1:]):
        plan += [(before, hands)] * (reach // 2) + [(after, hands)] * (reach - reach // 2) + [(after, still)] * hold
    return [Frame(render_scene(b, seed, c, frame=i).image, i / 8.0, i, "synth") for i, (b, c) in enumerate(plan)], plan


def seen(play):
    """What a camera can check of a play: its tiles (a blank shows no letter) and its score."""
    return tuple((t.square, "?" if t.blank else t.letter) for t in play.placement.tiles), play.engine


def make_recorder(keeper, sink):
    settings = Settings()  # the defaults, through the one factory every command uses
    return build_recorder(settings, keeper, sink, reader=build_reader(settings, "en"))


def test_records_a_rendered_game_into_the_store_and_resumes(tmp_path, demo):
    game, boards = demo
    frames, plan = video_frames(boards)
    store = open_store(tmp_path / "rec.sqlite3")
    service = GameService(store, Bus())
    gid = service.create_game([("Ann", None), ("Bob", None)], "naspa", "en").id
    keeper = Scorekeeper(Game(get_profile("naspa"), DISTRIBUTIONS["en"]))
    recorder = make_recorder(keeper, GameLink(service, gid))
    # Stop (as a crash would) just after the second play was committed.
    outcomes, committed, half = [], 0, len(frames)
    for i, f in enumerate(frames):
        outcomes.append(recorder.process(f))
        committed += len(outcomes[-1].seqs)
        if committed == 2:
            half = i + 1
            break
    # No entry while hands are over the board.
    assert not any(o.seqs for o, (_, c) in zip(outcomes, plan) if c.hands == "always")
    # A restarted recorder picks the game up from the store.
    store.close()
    store = open_store(tmp_path / "rec.sqlite3")
    service = GameService(store, Bus())
    keeper2 = Scorekeeper(Game(get_profile("naspa"), DISTRIBUTIONS["en"]))
    keeper2.sync([e.entry for e in store.entries(gid)])
    assert keeper2.game.events == keeper.game.events
    recorder2 = make_recorder(keeper2, GameLink(service, gid))
    for f in frames[half:]:
        recorder2.process(f)
    plays = [e for e in service.load(gid).events if e.kind == "play"]
    want = [seen(e) for e in game.events]
    got = [seen(e) for e in plays]
    # Loose: the reader is judged in its benchmark; here the wiring must carry the plays through.
    # Known miss (left open): the ivory blank of the third play, on row 1's plain square, is read
    # as empty at its own turn and then committed with the fourth play, so one misread costs two.
    assert len(got) == len(want)
    assert got[:2] == want[:2] and sum(g == w for g, w in zip(got, want)) >= len(want) - 2


def test_record_cli_writes_gcg_and_sidecar(tmp_path, demo):
    game, boards = demo
    folder = tmp_path / "frames"
    folder.mkdir()
    for i, board in enumerate(boards[1:], start=1):  # one photo per move, as ScrabScrap takes them
        cv2.imwrite(str(folder / f"image-{i}.jpg"), render_scene(board, 33, SceneConfig(hands="never", **SIZE)).image)
    out = tmp_path / "game.gcg"
    side = tmp_path / "game.json"
    r = subprocess.run([sys.executable, "-m", "tilecam.api.cli", "record", str(folder), "--gcg", str(out), "--json", str(side),
                        "--db", str(tmp_path / "g.sqlite3"), "--players", "Ann Demo", "Bob Demo"],
                       capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr
    assert out.is_file() and str(out) in r.stdout
    gcg = read_gcg(out.read_bytes())
    assert [p.name for p in gcg.players] == ["Ann Demo", "Bob Demo"]
    assert sum(t.kind == "play" for t in gcg.turns) >= len(game.events) - 1
    doc = json.loads(side.read_text())
    assert doc["entries"] and "evidence" in doc["entries"][0] and "frame_index" in doc["entries"][0]


def test_record_cli_bad_source_is_a_clear_error(tmp_path):
    r = subprocess.run([sys.executable, "-m", "tilecam.api.cli", "record", str(tmp_path / "nothing.avi"), "--gcg",
                        str(tmp_path / "x.gcg"), "--db", str(tmp_path / "x.sqlite3")],
                       capture_output=True, text=True, timeout=120)
    assert r.returncode == 2 and "cannot open" in r.stderr and "Traceback" not in r.stderr


def test_each_recorded_move_keeps_its_evidence_frame(tmp_path, demo):
    game, boards = demo
    frames, _ = video_frames(boards[:2])
    service = GameService(open_store(tmp_path / "ev.sqlite3"), Bus())
    gid = service.create_game([("Ann", None), ("Bob", None)], "naspa", "en").id
    keeper = Scorekeeper(Game(get_profile("naspa"), DISTRIBUTIONS["en"]))
    recorder = make_recorder(keeper, GameLink(service, gid))
    for f in frames:
        recorder.process(f)
    view = service.load(gid)
    assert len(view.events) == 1
    jpeg = service.store.frame(gid, 0).jpeg
    assert cv2.imdecode(np.frombuffer(jpeg, np.uint8), cv2.IMREAD_COLOR).shape[:2] == (720, 960)


def test_a_board_turned_half_round_between_turns_is_still_read_in_its_first_plays_orientation(demo):
    """A turntable turned toward each player in turn: the grid lands where it was, so nothing is
    re-detected, and the tiles must be read back onto the committed board."""
    game, boards = demo
    base = dict(SIZE, rotation_deg=20.0)
    frames = []
    for k, board in enumerate(boards[:4]):
        cfg = SceneConfig(hands="never", **{**base, "rotation_deg": 20.0 + 180.0 * (k % 2)})
        for _ in range(8):
            frames.append(Frame(render_scene(board, 7, cfg, frame=len(frames)).image, len(frames) / 8.0,
                                len(frames), "synth"))
    keeper = Scorekeeper(Game(get_profile("naspa"), DISTRIBUTIONS["en"]))
    recorder = make_recorder(keeper, MemoryLink())
    for f in frames:
        recorder.process(f)
    got = [seen(e) for e in keeper.game.events]
    want = [seen(e) for e in game.events[:3]]
    assert [e.kind for e in keeper.game.events] == ["play"] * 3
    assert sum(g == w for g, w in zip(got, want)) >= 2


def test_the_recorder_follows_corrections_written_by_the_server_on_the_same_file(tmp_path, demo):
    """An operator rules a different score for the first play through `tilecam serve` while the
    recorder runs: every later running total moves. The recorder adopts the correction before its
    next decision (before issue 12 its next play was refused with a PlacementError traceback), and
    a write that slips in between its decision and its commit makes it decide again."""
    import httpx

    from apiserver import AUTH, LiveServer

    game, boards = demo
    frames, _ = video_frames(boards)
    db = tmp_path / "shared.sqlite3"
    service = GameService(open_store(db), Bus())
    gid = service.create_game([("Ann", None), ("Bob", None)], "naspa", "en").id
    from tilecam.api.schemas import ScoreFix
    desk = GameService(open_store(db), Bus())  # another writer on the file, as a second process would be

    class Interrupted(GameLink):
        """Before its third commit, the desk rules a score: the recorder's decision is stale."""
        commits = 0
        conflicts = 0

        def commit(self, entries, frame, expect, sidecar=None):
            Interrupted.commits += 1
            if Interrupted.commits == 3:
                desk.correct(gid, 0, ScoreFix(kind="score", agreed=100, reason="the desk agrees"), by="desk")
            try:
                return super().commit(entries, frame, expect, sidecar)
            except Exception:
                Interrupted.conflicts += 1
                raise

    keeper = Scorekeeper(Game(get_profile("naspa"), DISTRIBUTIONS["en"]))
    recorder = make_recorder(keeper, Interrupted(service, gid))
    with LiveServer(db) as server, httpx.Client(base_url=server.url, timeout=10) as client:
        ruled = False
        for f in frames:
            recorder.process(f)
            if not ruled and service.store.count(gid) == 1:
                r = client.post(f"/api/games/{gid}/moves/0/corrections", headers=AUTH,
                                json={"kind": "score", "agreed": 100, "reason": "director's ruling"})
                assert r.status_code == 200, r.text
                ruled = True
        assert ruled
        view = service.load(gid)  # the log replays: every cumulative follows from the one before
        kinds = [e.entry.kind for e in view.entries]
        assert kinds[:2] == ["play", "correction"] and kinds.count("correction") >= 2
        # Only the decision the desk's write overtook was refused (then decided again and committed):
        # the ruling had been adopted before the next decision, not discovered by a refused commit.
        assert Interrupted.conflicts == 1
        plays = [e for e in view.events if e.kind == "play"]
        assert len(plays) >= len(game.events) - 1
        assert plays[0].agreed == 100 and keeper.game.events == view.events
        assert client.get(f"/api/games/{gid}").json()["scores"] == view.game_at().state.scores
