"""Render the demo game as a fixed-camera video: hands come and go, tiles appear move by move."""
from __future__ import annotations

import sys
from pathlib import Path

import cv2
from tqdm import tqdm

from tilecam.models.synth import SceneConfig, render_scene
from tilecam.scoring.game import Game


def boards_after_each_play(game: Game) -> list[list[str]]:
    """The board before the first play and after every event, as renderer rows."""
    again = Game(game.profile, game.dist, game.layout, game.players)
    boards = [again.state.board.rows()]
    for ev in game.events:  # one replay, a board per step
        again.append(ev)
        boards.append(again.state.board.rows())
    return boards


def render_video(game: Game, path: Path, seed: int = 5, fps: float = 8.0, hold_s: float = 1.5,
                 hand_s: float = 0.75, size: tuple[int, int] = (1280, 960)) -> Path:
    """Write an MJPG AVI: for each play, the board at rest, then hands over it while the tiles go down."""
    boards = boards_after_each_play(game)
    # Players lay tiles facing them, so few tiles are turned; the first play shows which way is up.
    # The family board most people know: red-rim Hasbro with printed labels, wooden tiles.
    cfg = SceneConfig(out_w_px=size[0], out_h_px=size[1], max_tilt_deg=12, hands="never", glare_prob=0.0,
                      fill_min=0.8, fill_max=0.92, style="wood", quarter_turn_prob=0.08, design="hasbro",
                      labels="full", font="dejavu-sans", line_frac=0.045)
    hands = cfg.model_copy(update={"hands": "always"})
    hold, reach = max(1, round(hold_s * fps)), max(1, round(hand_s * fps))
    plan = [(boards[0], cfg)] * hold
    for before, after in zip(boards, boards[1:]):
        plan += [(before, hands)] * (reach // 2) + [(after, hands)] * (reach - reach // 2)
        plan += [(after, cfg)] * hold
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
