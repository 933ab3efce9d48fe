"""api/station/exposure.py: the cameras are handed back to automatic exposure once, on the frame
the game becomes over, and again only after the next game is attached."""
from __future__ import annotations

from tilecam.api.station.exposure import ExposureLock, hand_back


class Named:
    """The sources the lock asks for at the end, and how often it asked."""

    def __init__(self) -> None:
        self.asked = 0

    def __call__(self):
        self.asked += 1
        return [object(), None]  # a camera that is no Pi camera, and a rack camera not there


def test_the_cameras_are_handed_back_once_when_the_game_is_over():
    sources = Named()
    lock = ExposureLock(sources)
    assert [lock.follow(over) for over in (False, False, True, True, True)] == [False, False, True, False, False]
    assert sources.asked == 1  # asked at the end, not before: a rack camera may have come back
    lock.new_game()  # the next game may be over at its first frame (a director's close followed)
    assert lock.follow(True) and sources.asked == 2


def test_only_pi_cameras_are_handed_back():
    assert hand_back([object(), None]) == 0
