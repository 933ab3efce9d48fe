"""Reading racks (vision.rack, vision.rackfind) on rendered rack stills: the tiles in order,
blanks, a hand's slots unseen, no rack where there is none, and the watch settling on still racks."""
from __future__ import annotations

import numpy as np
import pytest

from tilecam.api.settings import load_settings
from tilecam.models.synth import render_rack
from tilecam.vision import build_rack_reader
from tilecam.vision.errors import RackNotFound
from tilecam.vision.rack import RULES, RackReader, RackWatch
from tilecam.vision.rackfind import RackFix, Slot, find_rack

# a plain look the finder must manage: ivory tiles on a black rack, seen from the front
LOOK = dict(rack="black_plastic", view="front", distance="near", tile_style="ivory", light="even", table="wood",
            camera="sharp", value_place="subscript", blank_print="plain", weight="regular", spacing="even")


@pytest.fixture(scope="module")
def reader() -> RackReader:
    return build_rack_reader(load_settings(None), "en")


def centre_in(box, t) -> bool:
    x, y, w, h = box
    cx, cy = t.box[0] + t.box[2] / 2, t.box[1] + t.box[3] / 2
    return x <= cx <= x + w and y <= cy <= y + h


@pytest.mark.parametrize("seed", [5, 9])
@pytest.mark.parametrize("tiles", ["QUALMS?", "RETINAS", "BACKS"])
def test_a_rack_reads_left_to_right(reader, tiles, seed):
    scene = render_rack(tiles, seed, LOOK)
    view = reader.read(scene.image)
    assert view.found and view.ms > 0
    assert [t.letter for t in view.tiles] == scene.tiles
    for t, box in zip(view.tiles, scene.boxes):
        assert centre_in(box, t) and 0 < t.certainty <= 1


def test_the_finder_puts_each_slot_on_its_tile():
    scene = render_rack("AEIN?ST", 5, LOOK)
    fix = find_rack(scene.image)
    assert fix is not None and len(fix.slots) == 7 and all(s.seen for s in fix.slots)
    xs = [s.quad.mean(axis=0)[0] for s in fix.slots]
    assert xs == sorted(xs)
    for s, (x, y, w, h) in zip(fix.slots, scene.boxes):
        cx, cy = s.quad.mean(axis=0)
        assert x <= cx <= x + w and y <= cy <= y + h


@pytest.mark.parametrize("seed", [2, 5, 9])
def test_a_slot_under_a_hand_is_never_given_a_letter(reader, seed):
    scene = render_rack("RETINAS", seed, LOOK, hand=0.3)
    assert any(scene.occluded)
    view = reader.read(scene.image)
    for box, hidden in zip(scene.boxes, scene.occluded):
        if hidden:
            assert not any(t.letter is not None and centre_in(box, t) for t in view.tiles)
    assert sum(t.letter is not None for t in view.tiles) <= sum(not o for o in scene.occluded)


def test_a_frame_without_a_rack_says_so_and_an_empty_rack_is_a_rack(reader):
    view = reader.read(render_rack("", 3, LOOK).image)   # issue 38: was "no rack"
    assert view.found and view.empty and view.tiles == () and view.text == ""
    table = np.full((360, 640, 3), 128, np.uint8)
    assert not reader.read(table).found and not reader.read(table).empty
    with pytest.raises(RackNotFound):
        reader.read_found(table)


def test_the_watch_settles_on_an_empty_rack_then_on_the_tiles_put_on_it(reader):
    """An empty rack seen frame after frame (no slots to compare) settles as empty, not an error."""
    watch = RackWatch(reader, settle_s=0.5)
    got = [v for v in (watch.feed(img, t) for img, t in frames("", 5, 0, 4)) if v is not None]
    assert len(got) == 1 and got[0].empty
    got = [v for v in (watch.feed(img, t) for img, t in frames("QUALMS?", 5, 4, 5)) if v is not None]
    assert len(got) == 1 and got[0].text == "QUALMS?"


def test_every_rule_reads_the_true_quads(reader):
    """The three reading rules on the true tile quads: probabilities over the blank and letters."""
    scene = render_rack("JOVE?XZ", 9, LOOK)
    fix = RackFix(tuple(Slot(q, True) for q in scene.quads), np.zeros(3, np.float32), 1.0)
    raw = reader.raw(scene.image, fix)
    for rule in RULES:
        p = reader.combine(raw, rule)
        assert p.shape == (7, len(reader.alphabet)) and np.allclose(p.sum(axis=1), 1, atol=1e-3)
    got = [reader.alphabet[j] for j in reader.combine(raw, "recogniser").argmax(axis=1)]
    assert got == scene.tiles


def frames(tiles, seed, start, n, step=0.25, hand=0.0):
    for i in range(n):
        yield render_rack(tiles, seed, LOOK, frame=start + i, hand=hand).image, (start + i) * step


def test_the_watch_settles_once_and_again_when_the_rack_changes(reader):
    watch = RackWatch(reader, settle_s=0.5)
    got = [watch.feed(img, t) for img, t in frames("QUALMS?", 5, 0, 4)]
    assert got[:2] == [None, None]          # not still long enough yet
    settled = [v for v in got if v is not None]
    assert len(settled) == 1 and settled[0].text == "QUALMS?"
    # still the same rack: nothing new; a hand over it: nothing new either (never a letter for it)
    assert all(watch.feed(img, t) is None for img, t in frames("QUALMS?", 5, 4, 2))
    assert all(watch.feed(img, t) is None for img, t in frames("QUALMS?", 5, 6, 2, hand=0.3))
    assert all(watch.feed(img, t) is None for img, t in frames("QUALMS?", 5, 8, 3))
    # the player drew: another rack, settled after it has been still for settle_s
    # (the first frame after the last settled read may go unread: reread_s)
    after = [watch.feed(img, t) for img, t in frames("RETINAS", 5, 11, 7)]
    settled = [v for v in after if v is not None]
    assert len(settled) == 1 and settled[0].text == "RETINAS"
    assert after[0] is None


def test_the_watch_fuses_only_the_frames_that_saw_a_slot(reader):
    """A slot hidden in some frames is read from the frames that saw it."""
    watch = RackWatch(reader, settle_s=0.0)
    scene = render_rack("RETINAS", 5, LOOK)
    first = watch.feed(scene.image, 0.0)
    assert first is not None and first.text == "RETINAS"
    assert all(t.letter is not None for t in first.tiles)


def test_a_rack_reader_on_the_table_reads_with_what_the_table_learnt(reader):
    """Built on the table's reader, the rack reader takes the table's current tile reader at each
    read: a tile check's enrolment (with_tileset) or the recogniser's refit (calibrated_on) reads
    the racks too."""
    from types import SimpleNamespace

    table = SimpleNamespace(tile_reader=reader.tile_reader)
    rack = build_rack_reader(load_settings(None), "en", table=table)
    assert rack.tile_reader is reader.tile_reader
    learnt = reader.tile_reader.with_tileset(None)
    table.tile_reader = learnt
    assert rack.tile_reader is learnt
    scene = render_rack("RETINAS", 5, LOOK)
    assert rack.read(scene.image).text == "RETINAS"


def test_a_settled_rack_is_read_again_only_every_reread_s(reader):
    """A steady rack camera must not read every frame: once settled, a read per reread_s."""
    calls = []
    find = reader.find

    def counting(image):
        calls.append(1)
        return find(image)
    reader.find = counting
    try:
        watch = RackWatch(reader, settle_s=0.0)
        got = [watch.feed(img, t) for img, t in frames("QUALMS?", 5, 0, 9, step=0.125)]
        assert got[0] is not None and got[0].text == "QUALMS?"
        assert len(calls) == 3  # t = 0 (settled), 0.5 and 1.0 of 9 frames over 1 s
        # a new rack is seen at the next read at the latest
        after = [watch.feed(img, t) for img, t in frames("RETINAS", 5, 9, 6, step=0.125)]
        assert [v.text for v in after if v is not None] == ["RETINAS"]
    finally:
        reader.find = find


def test_a_rack_tile_carries_the_readers_runner_ups_best_first():
    """Scoring tries them when a rack's letters break the set's counts (a blank read as a second X)."""
    import numpy as np

    from tilecam.vision.rack import _tile
    tile = _tile(("?", "A", "K", "X"), np.array([0.06, 0.0001, 0.01, 0.93]), (0, 0, 1, 1))
    assert (tile.letter, tile.certainty) == ("X", 0.93) and tile.alts == (("?", 0.06), ("K", 0.01))
