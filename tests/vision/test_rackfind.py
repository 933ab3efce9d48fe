"""vision/rackfind.py: where a rack's tiles are in a rack camera's frame, with no model. Each slot a
quad on its tile, left to right; a slot a hand hides is unseen; no rack, no fix. On rendered rack
frames (models.synth.render_rack: exact truth per tile) over racks, lights, spacings and tile counts
of the training looks; and the geometry and skin tests it is built on, on drawn images."""
from __future__ import annotations

import itertools

import cv2
import numpy as np
import pytest
from pydantic import ValidationError

from tilecam.models.synth import draw_look, render_rack
from tilecam.vision.rackfind import FindConfig, Slot, _clusters, _empty, find_rack, hand_mask, order_quad, skin_mask

LOOK = dict(view="front", distance="near", tile_style="ivory", light="even", table="wood", camera="sharp",
            value_place="subscript", blank_print="plain", weight="regular", spacing="even", rack="black_plastic")
SKIN = (130, 160, 210)        # BGR: a light skin tone
TABLE = (128, 128, 128)


def centre_in(quad, box) -> bool:
    x, y, w, h = box
    cx, cy = np.asarray(quad).mean(axis=0)
    return x <= cx <= x + w and y <= cy <= y + h


@pytest.mark.parametrize("quad", [[[10, 12], [52, 8], [56, 70], [12, 66]],     # a tile leaning a little
                                  [[32, 22], [83, 52], [68, 78], [17, 48]]])   # a wide face turned 30 degrees
def test_any_four_corners_are_ordered_tl_tr_br_bl(quad):
    quad = np.array(quad, np.float32)
    for perm in itertools.permutations(range(4)):
        assert np.array_equal(order_quad(quad[list(perm)]), quad)


def test_a_slot_box_holds_its_quad():
    slot = Slot(np.array([[10.2, 20.7], [40.0, 21.0], [39.5, 60.9], [10.9, 60.1]], np.float32), True)
    x, y, w, h = slot.box
    assert (x, y) == (10, 20) and x + w >= 40 and y + h >= 61


def test_skin_is_told_from_a_grey_table_and_a_blue_cloth():
    image = np.zeros((20, 60, 3), np.uint8)
    image[:, :20], image[:, 20:40], image[:, 40:] = SKIN, TABLE, (160, 90, 40)   # skin, table, blue cloth
    mask = skin_mask(image)
    assert mask[:, :20].all() and not mask[:, 20:].any()


def test_a_hand_reaches_in_from_the_frames_edge_and_a_skin_coloured_spot_inside_is_no_hand():
    image = np.full((200, 300, 3), TABLE, np.uint8)
    image[60:140, 0:60] = SKIN       # an arm from the left edge
    image[80:120, 180:220] = SKIN    # a spot in the middle (a tile's tint, a label)
    hand = hand_mask(image)
    assert hand[60:140, 5:55].all() and not hand[80:120, 180:220].any()
    assert not hand_mask(image, not_face=np.zeros((200, 300), bool)).any()   # all of it face: no hand


LOOKS = [
    ("RETINAS", {}),
    ("QUA", {}),                                                   # a short rack
    ("AEIN?ST", {"rack": "wood", "table": "dark"}),
    ("JOKERS", {"rack": "grey_plastic", "spacing": "uneven", "light": "warm"}),
    ("BACKS", {"rack": "coloured_plastic", "view": "high", "distance": "mid"}),
]
# found by this test (issue 37), left for the rack finder's own work: a sheet of paper the faces' colour
# behind the tiles, and the row is cut into six slots, two unseen, one read as an I at 0.82 (for review)
PAPER_BEHIND = pytest.mark.xfail(strict=True, reason="a white sheet behind the rack splits the row into 6 slots")


@pytest.mark.parametrize("tiles,look,seed", [
    pytest.param(tiles, look, seed, marks=PAPER_BEHIND if (tiles, seed) == ("BACKS", 11) else ())
    for tiles, look in LOOKS for seed in (3, 11)])
def test_each_slot_lies_on_its_tile_left_to_right(tiles, look, seed):
    scene = render_rack(tiles, seed, {**LOOK, **look})
    fix = find_rack(scene.image)
    assert fix is not None and len(fix.slots) == len(tiles) and all(s.seen for s in fix.slots)
    xs = [s.quad.mean(axis=0)[0] for s in fix.slots]
    assert xs == sorted(xs)
    assert all(centre_in(s.quad, box) for s, box in zip(fix.slots, scene.boxes))
    if len(tiles) > 1:
        true_pitch = np.median(np.diff([x + w / 2 for x, _, w, _ in scene.boxes]))
        assert abs(fix.pitch - true_pitch) < 0.15 * true_pitch


# issue 38, racks of fewer than 7 tiles (the looks draw_look gave these seeds in the training looks)
SHORT = [
    # five white tiles on a black rack: the rack's wall around them, their faces its "letters", was
    # taken for the row (one face, one letter) and its tiles dropped as lying inside it: no rack
    ("HANRI", 80010, dict(rack="black_plastic", view="front", distance="near", tile_style="white", font="inter",
                          light="warm", table="wood", spacing="even", camera="webcam", value_place="none",
                          blank_print="face", weight="regular")),
    # one dark tile on a rack of about its colour: the bare rack beside it was cut into six letterless
    # slots, all made unseen (a hand over tiles), so seven slots for one tile
    ("N", 80018, dict(rack="coloured_plastic", view="front", distance="mid", tile_style="coloured", font="inter",
                      light="dim", table="light", spacing="even", camera="sharp", value_place="corner",
                      blank_print="face", weight="regular")),
    # three wood tiles on a grey rack: a face kept on its own was counted again among the faces of
    # the region around it, and the row with a face twice gave no slots: no rack
    ("RID", 39003, dict(rack="grey_plastic", view="front", distance="near", tile_style="wood", font="dejavu-serif",
                        light="even", table="light", spacing="even", camera="webcam", value_place="none",
                        blank_print="heart", weight="regular")),
]


@pytest.mark.parametrize("tiles,seed,look", SHORT)
def test_a_rack_of_fewer_than_seven_tiles_has_a_slot_per_tile(tiles, seed, look):
    scene = render_rack(tiles, seed, look)
    fix = find_rack(scene.image)
    assert fix is not None and len(fix.slots) == len(tiles) and all(s.seen for s in fix.slots)
    assert all(centre_in(s.quad, box) for s, box in zip(fix.slots, scene.boxes))


@pytest.mark.parametrize("tiles,seed,angle", [("RETINAS", 3, 28), ("RETINAS", 11, -28), ("AEIN?ST", 11, -28)])
def test_a_camera_rolled_far_finds_the_row_along_its_slope(tiles, seed, angle):
    """Issue 38: the row was looked for within about 19 degrees of level (the render's own roll and
    perspective add to a camera's), so a rack camera turned 28 degrees lost its first or last tiles."""
    look = {**LOOK, **dict(LOOKS)[tiles]}
    scene = render_rack(tiles, seed, look)
    h, w = scene.image.shape[:2]
    m = cv2.getRotationMatrix2D((w / 2, h / 2), angle, 0.8)
    table = tuple(float(v) for v in np.median(scene.image.reshape(-1, 3), axis=0))
    image = cv2.warpAffine(scene.image, m, (w, h), borderMode=cv2.BORDER_CONSTANT, borderValue=table)
    quads = [cv2.transform(q.reshape(1, 4, 2), m)[0] for q in scene.quads]
    fix = find_rack(image)
    assert fix is not None and len(fix.slots) == len(tiles) and all(s.seen for s in fix.slots)
    for slot, quad in zip(fix.slots, quads):
        assert cv2.pointPolygonTest(quad.reshape(-1, 1, 2).astype(np.float32),
                                    tuple(map(float, slot.quad.mean(axis=0))), False) >= 0


@pytest.mark.parametrize("seed", [2, 5, 9])
def test_a_tile_under_a_hand_is_an_unseen_slot_or_no_slot(seed):
    scene = render_rack("RETINAS", seed, LOOK, hand=0.3)
    fix = find_rack(scene.image)
    assert fix is not None
    for box, hidden in zip(scene.boxes, scene.occluded):
        on = [s for s in fix.slots if centre_in(s.quad, box)]
        if hidden:
            assert not any(s.seen for s in on), box
        else:
            assert len(on) == 1 and on[0].seen


EMPTY_LOOKS = [
    (3, LOOK), (5, LOOK),
    # a rack k-means splits into shades (wall, ledge, lip) in clusters of their own: one strip only
    # as what is not the table
    (70011, dict(rack="grey_plastic", view="high", distance="mid", tile_style="wood", font="palatino", light="dim",
                 table="light", spacing="even", camera="webcam", value_place="beside", blank_print="heart",
                 weight="regular")),
    (70018, dict(rack="coloured_plastic", view="front", distance="near", tile_style="ebony", font="cabin",
                 light="dim", table="light", spacing="uneven", camera="webcam", value_place="none",
                 blank_print="face", weight="regular")),
]


@pytest.mark.parametrize("seed,look", EMPTY_LOOKS)
def test_an_empty_rack_is_a_rack_with_no_slots_and_no_rack_is_no_fix(seed, look):
    """Issue 38: an empty rack (the end of a game) was "no rack"; it is a rack with no tiles."""
    fix = find_rack(render_rack("", seed, look).image)
    assert fix is not None and fix.slots == ()
    assert find_rack(np.full((360, 640, 3), 128, np.uint8)) is None


@pytest.mark.parametrize("tiles,look", [(t, look) for t, look in LOOKS] + [("AE", LOOKS[2][1])])
def test_tiles_on_the_rack_are_never_taken_for_an_empty_rack(tiles, look):
    """Should the finder miss a row of tiles, the empty-rack test still sees them: touching tiles
    make a long strip of their own (seed 3, the first look: before the strip's own edges counted)."""
    for seed in (3, 11):
        image = render_rack(tiles, seed, {**LOOK, **look}).image
        assert _empty(_clusters(image, 10), cv2.cvtColor(image, cv2.COLOR_BGR2GRAY), FindConfig()) is None


@pytest.mark.parametrize("seed", [39014, 71005, 71010, 71021])
def test_an_empty_rack_in_a_dim_noisy_frame_is_an_empty_rack(seed):
    """Training looks (draw_look's) that were "no rack": dim webcam frames whose colour clusters
    split the rack's body into grain (39014 is bench_rack's train empty rack); the strip is looked
    for again in a blurred copy."""
    fix = find_rack(render_rack("", seed, draw_look(seed, "train")).image)
    assert fix is not None and fix.slots == ()


@pytest.mark.parametrize("seed,tile", [(72000, "E"), (72035, "H"), (72077, "C")])
def test_one_tile_left_on_the_rack_is_no_empty_rack(seed, tile):
    """One tile on the rack lifts few of the band's columns (under cfg.empty_edges, the 90th
    percentile): its peak (cfg.empty_peak) tells it; these three were read as empty racks."""
    fix = find_rack(render_rack(tile, seed, draw_look(seed, "train")).image)
    assert fix is None or fix.slots


def test_the_finders_settings_refuse_a_typo_and_are_fixed_once_made():
    with pytest.raises(ValidationError):
        FindConfig(colors=8)
    cfg = FindConfig()
    with pytest.raises(ValidationError):
        cfg.colours = 4
