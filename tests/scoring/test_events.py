"""scoring.events: who is an operator (by_operator), the one rule the service's confirmed moves and
the scorekeeper's learnt squares follow."""
from __future__ import annotations

from tilecam.scoring.board import Direction, Square
from tilecam.scoring.events import CAMERA, Correction, Pass, Play, Void, by_operator
from tilecam.scoring.placement import PlacedTile, Placement

PLAY = Play(0, Placement((PlacedTile(Square(7, 7), "A"), PlacedTile(Square(7, 8), "X")), Direction.ACROSS),
            ("AX",), None, 18, 18, 18)


def test_a_correction_by_anyone_but_the_camera_is_an_operators():
    assert by_operator(Correction(0, PLAY, by="desk"))
    assert not by_operator(Correction(0, PLAY, by=CAMERA))
    assert CAMERA == "camera"  # the name stored records carry: changing it would make old corrections people's


def test_a_station_naming_its_camera_otherwise_is_told_apart():
    assert not by_operator(Correction(0, PLAY, by="cam-3"), camera="cam-3")
    assert by_operator(Correction(0, PLAY, by=CAMERA), camera="cam-3")


def test_only_corrections_are_an_operators_word():
    assert not any(by_operator(e) for e in (PLAY, Pass(1, 0), Void(0, by="desk")))
