"""The Pi cameras' exposure across games (docs/pi.md, "Exposure and white balance lock"): a Pi camera
settles and locks exposure and white balance when it opens (capture/picam.py), so that an arm over
the board does not change the board's grey levels mid-game. When the game being recorded is over,
the board camera and the rack cameras go back to automatic; the next game's source locks them
again when it opens.

    hand_back(sources)        exposure and white balance back to automatic on the Pi cameras behind them
    ExposureLock(sources)     follows the game frame by frame: hands them back once, when it is over
"""
from __future__ import annotations

from typing import Callable, Iterable

__all__ = ["ExposureLock", "hand_back"]


def hand_back(sources: Iterable) -> int:
    """Exposure and white balance back to automatic on every Pi camera behind `sources` (as
    open_source wraps them; other cameras, and None for a rack camera not there, are left as they
    are). Returns how many were handed back."""
    from tilecam.capture.picam import picamera_of

    n = 0
    for source in sources:
        camera = picamera_of(source)
        if camera is not None:
            camera.unlock()
            n += 1
    return n


class ExposureLock:
    """The exposure of the cameras `sources()` names (asked at the end: a rack camera may have come
    back since), followed frame by frame through `follow(over)`: the frame the game becomes over
    (by the rules at a commit, or a director's close the recorder followed), they are handed back,
    once; `new_game()` when the station attaches the next game."""

    def __init__(self, sources: Callable[[], Iterable]) -> None:
        self.sources = sources
        self.over = False   # the game being recorded was over at the last frame

    def follow(self, over: bool) -> bool:
        """The game's state after a frame; whether this frame ended it (and the cameras were handed back)."""
        ended = over and not self.over
        if ended:
            hand_back(self.sources())
        self.over = over
        return ended

    def new_game(self) -> None:
        self.over = False
