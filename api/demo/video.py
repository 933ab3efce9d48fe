"""Render the demo game as a fixed-camera video: hands come and go, tiles appear turn by turn."""
from __future__ import annotations

import sys
from pathlib import Path

import cv2
from tqdm import tqdm

from tilecam.models.synth import SceneConfig, render_scene
from tilecam.scoring import Game


def boards_after_each_play(game: Game) -> list[list[str]]:
    """The board before the first play and after every event, as renderer rows."""
    again = Game(game.profile, game.dist, game.layout, game.players)
    boards = [again.state.board.rows()]
    for ev in game.events:  # one replay, a board per step
        again.append(ev)
        boards.append(again.state.board.rows())
    return boards


HOLD_S, HAND_S = 1.5, 0.75  # the board at rest between turns; hands over it while a turn is made


def video_plan(game: Game, fps: float = 8.0, hold_s: float = HOLD_S,
               hand_s: float = HAND_S, tile_check: int | None = None) -> list[tuple[list[str], bool, int]]:
    """Frame by frame: (the board, hands over it, how many of the game's events it shows at rest).

    Every event gets its turn on camera, a pass or an exchange too (hands over a board that does
    not change): the demo's operator script (``turn_frames``) acts at the frames this plans.
    `tile_check` (a seed): the video opens with the rules' tile check (models.synth.tile_check_plan:
    all tiles face up in the corners, then cleared); its frames show -1 events."""
    boards = boards_after_each_play(game)
    hold, reach = max(1, round(hold_s * fps)), max(1, round(hand_s * fps))
    plan = []
    if tile_check is not None:
        from tilecam.models.synth import tile_check_plan
        plan = [(board, over, -1) for board, over, _ in tile_check_plan(tile_check, hold=hold, reach=reach)]
    plan += [(boards[0], False, 0)] * hold
    for i, (before, after) in enumerate(zip(boards, boards[1:])):
        plan += [(before, True, i)] * (reach // 2) + [(after, True, i)] * (reach - reach // 2)
        plan += [(after, False, i + 1)] * hold
    return plan


def turn_frames(game: Game, fps: float = 8.0, hold_s: float = HOLD_S, hand_s: float = HAND_S) -> list[int]:
    """For each event, the first frame that shows the board at rest after it (the hands gone)."""
    plan = video_plan(game, fps, hold_s, hand_s)
    first: dict[int, int] = {}
    for frame, (_, hands, shown) in enumerate(plan):
        if not hands:
            first.setdefault(shown, frame)
    return [first[i + 1] for i in range(len(game.events))]


def render_video(game: Game, path: Path, seed: int = 5, fps: float = 8.0, hold_s: float = HOLD_S,
                 hand_s: float = HAND_S, size: tuple[int, int] = (1280, 960), tile_check: bool = False) -> Path:
    """Write an MJPG AVI: for each turn, the board at rest, then hands over it while the tiles go down."""
    # Players lay tiles facing them, so few tiles are turned; the first play shows which way is up.
    # The family board most people know: red-rim Hasbro with printed labels, wooden tiles.
    cfg = SceneConfig(out_w_px=size[0], out_h_px=size[1], max_tilt_deg=12, hands="never", glare_prob=0.0,
                      fill_min=0.8, fill_max=0.92, style="wood", quarter_turn_prob=0.08, design="hasbro",
                      labels="full", font="dejavu-sans", line_frac=0.045)
    hands = cfg.model_copy(update={"hands": "always"})
    plan = [(board, hands if over else cfg)
            for board, over, _ in video_plan(game, fps, hold_s, hand_s, seed if tile_check else None)]
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(".part.avi")
    writer = cv2.VideoWriter(str(tmp), cv2.VideoWriter_fourcc(*"MJPG"), fps, size)
    if not writer.isOpened():
        raise RuntimeError(f"cannot write video {tmp}")
    try:
        for i, (board, c) in enumerate(tqdm(plan, desc="rendering demo video", unit="frame", file=sys.stderr)):
            writer.write(render_scene(board, seed, c, frame=i).image)
    finally:
        writer.release()
    tmp.replace(path)  # only a finished video is ever cached
    return path


def reach_frames(game: Game, fps: float = 8.0, hold_s: float = HOLD_S, hand_s: float = HAND_S) -> list[int]:
    """For each event, the first frame with the hands over the board (the turn being made)."""
    first: dict[int, int] = {}
    for frame, (_, hands, shown) in enumerate(video_plan(game, fps, hold_s, hand_s)):
        if hands:
            first.setdefault(shown, frame)
    return [first[i] for i in range(len(game.events))]


class Paced:
    """A file source whose frames come later by `gap_s` before each turn's hands (frames in
    `before`): the video plays at its own rate, the board stays at rest a watchable while between
    turns. The recorder sees the frames' times stretched as a camera would (a still board for
    longer), the frame indices (what the demo's operator acts on) are the video's."""

    def __init__(self, source, before: list[int], gap_s: float) -> None:
        self.source, self.before, self.gap_s = source, set(before), gap_s

    def __getattr__(self, name):  # status, live, close, ...: the wrapped source's
        return getattr(self.source, name)

    def __iter__(self):
        from dataclasses import replace
        shift = 0.0
        for frame in self.source:
            if frame.index in self.before:
                shift += self.gap_s
            yield replace(frame, t=frame.t + shift) if shift else frame
