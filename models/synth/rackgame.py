"""Rendered game videos with rack cameras (issue 30): one board stream and one rack stream per player.

`game_video` plans a video from a game's rack truth (models.synth.rackplan): the first `turns` turns
of the game, on the table's own clock (wall time, seconds). Each camera samples it at its own rate:
the board camera at `board_fps` from wall time 0, each rack camera at its own fps from its own start
(the cameras are not in step, and each frame's `t` is its camera's own clock). What happens, turn
by turn (a play by P):

* P's hand takes the play's tiles off P's rack (a hand over some tiles for a few frames), the rack
  shows the leave at rest;
* hands over the board while the tiles go down; the board at rest with the play; P presses the
  clock;
* P draws: a hand puts the new tiles on the rack (after the leave, or the whole rack rearranged),
  and the rack rests. Between turns the rack sits a few pixels elsewhere (nudged).

An exchange: tiles off, the rack rests with the leave, new tiles on; the board untouched; the press
comes after the new rack rests, or (some exchanges) before it. A pass: a press, the rack untouched
(sometimes rearranged: the same tiles in another order). A withdrawn phony: the tiles come back off
the board and onto the rack. `render_board_frames` and `render_rack_frames` draw the frames
(models.synth.scene.render_scene and models.synth.rack.render_rack).
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from .rackplan import RackGame, RackTurn

__all__ = ["BoardShot", "GameVideo", "Press", "RackShot", "Settle", "game_video", "render_board_frame",
           "render_rack_frame"]

# seconds on the table's clock
REACH_S = 1.0        # a hand over a rack taking tiles off, or putting them on
PLACE_S = 1.2        # hands over the board while the tiles go down
REST_S = 1.4         # a rack or a board at rest before the next thing happens
PRESS_AFTER_S = 0.8  # the board at rest this long before the clock press
GAP_S = 0.6          # after a turn, before the next player's hand moves


@dataclass(frozen=True)
class Press:
    wall: float
    player: int
    event: int              # the RackGame event whose turn it ends


@dataclass(frozen=True)
class Settle:
    """Truth: a rack comes to rest showing a new set of tiles (or the same tiles rearranged)."""

    player: int
    wall: float
    tiles: str              # left to right
    event: int              # the event it follows (-1: the opening draw)
    what: str               # start | leave | draw | exchange | back (phony's tiles back) | rearranged


@dataclass(frozen=True)
class BoardShot:
    index: int
    wall: float
    t: float                # the board camera's clock
    board: tuple[str, ...]
    hands: bool
    shown: int              # events whose tiles the board shows


@dataclass(frozen=True)
class RackShot:
    player: int
    index: int
    wall: float
    t: float                # this rack camera's own clock
    tiles: str              # left to right
    hand: float             # share of the tiles under a hand (0: none)
    nudge: tuple[int, int]  # where the rack sits, pixels off its first place
    settled: bool           # no hand, and the rack as it rests


@dataclass
class GameVideo:
    game: RackGame
    events: int                             # of game.events the video covers
    board: list[BoardShot]
    racks: tuple[list[RackShot], ...]
    presses: list[Press]
    settles: list[Settle]
    fps: tuple[float, ...]                  # board, rack 0, rack 1
    starts: tuple[float, ...]               # wall time of each camera's first frame
    end: float = 0.0
    spans: dict = field(default_factory=dict)   # event -> (wall start, wall end) of its turn


class _Track:
    """A piecewise-constant function of wall time."""

    def __init__(self, value) -> None:
        self.times, self.values = [0.0], [value]

    def at(self, wall: float, value) -> None:
        if wall <= self.times[-1]:
            self.values[-1] = value
        else:
            self.times.append(wall)
            self.values.append(value)

    def value(self, wall: float):
        i = int(np.searchsorted(self.times, wall, side="right")) - 1
        return self.values[max(i, 0)]


def _boards(game: RackGame, upto: int) -> list[tuple[str, ...]]:
    """The board after each of the first `upto` events (index 0: empty)."""
    from tilecam.scoring import DISTRIBUTIONS, Game, get_profile
    g = Game(get_profile("naspa-csw"), DISTRIBUTIONS["en"])
    out = [tuple(g.state.board.rows())]
    for e in game.events[:upto]:
        g.append(e)
        out.append(tuple(g.state.board.rows()))
    return out


def _take(order: str, tiles: str) -> str:
    """`order` less `tiles` (a multiset), the rest keeping their places."""
    left = list(tiles)
    out = []
    for ch in order:
        if ch in left:
            left.remove(ch)
        else:
            out.append(ch)
    return "".join(out)


def game_video(game: RackGame, turns: int = 12, seed: int = 0, board_fps: float = 4.0,
               rack_fps: tuple[float, float] = (3.0, 3.5), rack_starts: tuple[float, float] = (0.31, 0.77),
               rack_clocks: tuple[float, float] = (0.0, 1000.0)) -> GameVideo:
    """The plan of a video of the game's first `turns` turns (plays, exchanges and passes; the
    events between them come along). `rack_clocks`: each rack camera's clock at its first frame."""
    rng = np.random.default_rng([seed, 300])
    turn_events = [t.event for t in game.turns if t.kind in ("play", "exchange", "pass")]
    upto = turn_events[turns - 1] + 1 if len(turn_events) >= turns else len(game.events)
    # a withdrawal or a challenge bonus right after the last turn belongs to it
    while upto < len(game.events) and game.turns[upto].kind in ("withdrawn",):
        upto += 1
    boards = _boards(game, upto)
    board = _Track((boards[0], False, 0))
    racks = [_Track(("", 0.0, (0, 0))) for _ in (0, 1)]
    order = ["", ""]
    nudges = [(0, 0), (0, 0)]
    presses: list[Press] = []
    settles: list[Settle] = []
    spans: dict[int, tuple[float, float]] = {}

    def rack(p: int, wall: float, tiles: str, hand: float = 0.0) -> None:
        racks[p].at(wall, (tiles, hand, nudges[p]))

    def settle(p: int, wall: float, tiles: str, event: int, what: str) -> None:
        rack(p, wall, tiles)
        order[p] = tiles
        settles.append(Settle(p, wall, tiles, event, what))

    def shuffled(tiles: str) -> str:
        lst = list(tiles)
        rng.shuffle(lst)
        return "".join(lst)

    # the opening draw: both players put seven tiles on their racks
    w = 0.4
    for p in (0, 1):
        start = shuffled(game.start[p])
        rack(p, w + 0.3 * p, start[:3], 0.6)
        rack(p, w + 0.3 * p + REACH_S / 2, start, 0.5)
        settle(p, w + 0.3 * p + REACH_S, start, -1, "start")
    w += REACH_S + REST_S + 0.3
    for i in range(upto):
        t: RackTurn = game.turns[i]
        p = t.player
        t0 = w
        if t.kind == "other":
            continue
        if t.kind == "withdrawn":
            # the challenge: the phony's tiles come off the board and back onto the rack
            board.at(w, (boards[i], True, i))
            board.at(w + PLACE_S / 2, (boards[i + 1], True, i + 1))
            board.at(w + PLACE_S, (boards[i + 1], False, i + 1))
            back = order[p] + "".join(ch for ch in shuffled(_take(t.rack, order[p])))
            rack(p, w + PLACE_S, back, 0.5)
            settle(p, w + PLACE_S + REACH_S, back, i, "back")
            w += PLACE_S + REACH_S + REST_S
            spans[i] = (t0, w)
            continue
        # between turns the rack sits a little elsewhere
        if rng.random() < 0.5:
            nudges[p] = tuple(int(v) for v in rng.integers(-5, 6, 2))
            rack(p, w, order[p])
        if t.kind == "pass":
            if rng.random() < 0.35:   # fiddling with the rack: the same tiles, another order
                rack(p, w, order[p], 0.6)
                new = shuffled(order[p])
                settle(p, w + REACH_S, new, i, "rearranged")
                w += REACH_S
            presses.append(Press(w + 0.6, p, i))
            w += 0.6 + GAP_S + REST_S / 2
            spans[i] = (t0, w)
            continue
        # tiles off the rack: the hand over the rack, the leave at rest
        leave = _take(order[p], t.out)
        rack(p, w, order[p], float(rng.uniform(0.3, 0.6)))
        rack(p, w + REACH_S / 2, leave, float(rng.uniform(0.2, 0.5)))
        settle(p, w + REACH_S, leave, i, "leave")
        w += REACH_S
        if t.kind == "play":
            w += 0.3
            board.at(w, (boards[i], True, i))
            board.at(w + PLACE_S / 2, (boards[i + 1], True, i + 1))
            board.at(w + PLACE_S, (boards[i + 1], False, i + 1))
            w += PLACE_S + PRESS_AFTER_S
            presses.append(Press(w, p, i))
            w += 0.4
            if t.phony:   # nothing drawn: the challenge comes first
                w += REST_S
                spans[i] = (t0, w)
                continue
        else:
            w += REST_S   # the exchanged tiles go into the bag (the leave at rest meanwhile)
            early = rng.random() < 0.4
            if early:     # the press before the new tiles are on the rack
                presses.append(Press(w, p, i))
        # the draw: new tiles onto the rack, after the leave or all rearranged
        drawn = shuffled(t.drawn)
        new = leave + drawn
        if rng.random() < 0.3:
            new = shuffled(new)
        half = leave + drawn[:max(len(drawn) // 2, 1)] if drawn else leave
        rack(p, w, half, float(rng.uniform(0.3, 0.6)))
        rack(p, w + REACH_S / 2, new, float(rng.uniform(0.2, 0.5)))
        settle(p, w + REACH_S, new, i, "exchange" if t.kind == "exchange" else "draw")
        w += REACH_S + REST_S
        if t.kind == "exchange" and not early:
            presses.append(Press(w, p, i))
            w += 0.4
        w += GAP_S
        spans[i] = (t0, w)
    end = w + REST_S
    board_shots = [BoardShot(k, k / board_fps, k / board_fps, *board.value(k / board_fps))
                   for k in range(int(end * board_fps) + 1)]
    rack_shots: list[list[RackShot]] = []
    for p in (0, 1):
        shots = []
        n = int((end - rack_starts[p]) * rack_fps[p]) + 1
        for k in range(n):
            wall = rack_starts[p] + k / rack_fps[p]
            tiles, hand, nudge = racks[p].value(wall)
            last = [s for s in settles if s.player == p and s.wall <= wall]
            at_rest = hand == 0.0 and bool(last) and last[-1].tiles == tiles
            shots.append(RackShot(p, k, wall, rack_clocks[p] + k / rack_fps[p], tiles, hand, nudge, at_rest))
        rack_shots.append(shots)
    return GameVideo(game, upto, board_shots, tuple(rack_shots), presses, settles,
                     (board_fps, *rack_fps), (0.0, *rack_starts), end, spans)


def render_board_frame(shot: BoardShot, seed: int, still_cfg, **kw) -> np.ndarray:
    """The board camera's frame of `shot` (`still_cfg`: the SceneConfig of the board at rest; hands
    over it when the shot has them)."""
    from .scene import render_scene
    cfg = still_cfg.model_copy(update={"hands": "always" if shot.hands else "never"})
    return render_scene(list(shot.board), seed, cfg, shot.index, **kw).image


def render_rack_frame(shot: RackShot, seed: int, look: dict):
    """The rack camera's frame of `shot`: models.synth.rack.render_rack, moved by the shot's nudge.
    Returns (image, RackScene)."""
    import cv2

    from .rack import render_rack
    scene = render_rack(shot.tiles, seed, look, hand=shot.hand, frame=shot.index)
    img = scene.image
    dx, dy = shot.nudge
    if dx or dy:
        m = np.float32([[1, 0, dx], [0, 1, dy]])
        img = cv2.warpAffine(img, m, (img.shape[1], img.shape[0]), borderMode=cv2.BORDER_REPLICATE)
    return img, scene
