"""Issue 28's render factors: each option renders, is reproducible by seed, changes what it names
and nothing else, and can be held out of training whole (tests/models/test_dataset.py)."""
import numpy as np
import pytest

from tilecam.models.dataset import tile_mask
from tilecam.models.synth import RENDER_FACTORS, SceneConfig, available_fonts, render_topdown

# isolated tiles (so each tile's pixels are its own), a narrow I, a blank, a wide W
BOARD = ["." * 15] * 3 + ["...I...W...?..."] + ["." * 15] * 3 + ["...E...?...H..."] + ["." * 15] * 3 + \
        ["...Q...M...I..."] + ["." * 15] * 3
EMPTY = ["." * 15] * 15
LOOK = dict(design="standard", style="ivory", font="dejavu-sans", labels="none", square_px=40, value_prob=1.0)


def render(board=BOARD, seed=5, **kw):
    return render_topdown(board, seed, SceneConfig(**{**LOOK, **kw}))


def test_naming_every_first_option_is_the_old_render():
    """The first option of each factor is the look before the factors existed (seeded tests and
    videos that name no factor keep their pixels)."""
    firsts = {name: options[0] for name, options in RENDER_FACTORS.items()}
    for seed in (1, 2):
        old, named = render_topdown(BOARD, seed), render_topdown(BOARD, seed, SceneConfig(**firsts))
        assert np.array_equal(old.image, named.image)
        assert old.factors == firsts


@pytest.mark.parametrize("name,option", [(n, o) for n, opts in RENDER_FACTORS.items() for o in opts[1:]])
def test_every_option_renders_reproducibly_and_changes_the_image(name, option):
    a, b = render(**{name: option}), render(**{name: option})
    assert a.factors[name] == option
    assert np.array_equal(a.image, b.image)
    assert not np.array_equal(a.image, render().image), f"{name}={option} drew nothing"
    assert not np.array_equal(a.image, render(seed=6, **{name: option}).image)


def test_random_draws_every_option_of_a_factor():
    drawn = {render(EMPTY, seed, legend="random").factors["legend"] for seed in range(12)}
    assert drawn == set(RENDER_FACTORS["legend"])


@pytest.mark.parametrize("legend", ["coordinates", "text"])
def test_legend_prints_beside_the_grid_not_on_it(legend):
    plain, printed = render(EMPTY), render(EMPTY, legend=legend)
    g0, g1 = (int(v) for v in plain.corners[0]), (int(v) for v in plain.corners[2])
    (x0, y0), (x1, y1) = g0, g1
    diff = np.abs(plain.image.astype(int) - printed.image.astype(int)).sum(axis=2)
    assert diff[y0:y1, x0:x1].max() == 0
    assert (diff > 60).sum() > 200


def test_fold_seam_runs_down_the_middle():
    td = render(EMPTY, fold="middle", design="white")
    sq, m = td.square_px, int(td.corners[0][0])
    grey = td.image.astype(float).mean(axis=2)[m: m + 15 * sq]
    profile_x, profile_y = grey.mean(axis=0), grey.mean(axis=1)
    mid = m + int(7.5 * sq)
    seam_x = profile_x[mid - 3: mid + 4].min() < np.median(profile_x[m: m + 15 * sq]) - 25
    seam_y = profile_y[int(7.5 * sq) - 3: int(7.5 * sq) + 4].min() < np.median(profile_y) - 25
    assert seam_x or seam_y


def _tile_offsets(td, empty):
    """Each tile's centre offset from its square's centre, in squares."""
    mask = tile_mask(td.image, empty.image)
    sq, m = td.square_px, td.corners[0]
    out = []
    for r, c in zip(*np.nonzero(td.tile_rotations >= 0)):
        cy, cx = m[1] + (r + 0.5) * sq, m[0] + (c + 0.5) * sq
        ys, xs = np.nonzero(mask[int(cy - sq): int(cy + sq), int(cx - sq): int(cx + sq)])
        out.append(np.hypot(xs.mean() - sq, ys.mean() - sq) / sq)
    return np.array(out)


def test_loose_tiles_sit_up_to_a_third_of_a_square_off():
    kw = dict(tile_angle_deg=0, quarter_turn_prob=0)
    neat = _tile_offsets(render(**kw), render(EMPTY, **kw))
    loose = _tile_offsets(render(placement="loose", **kw), render(EMPTY, placement="loose", **kw))
    assert neat.max() < 0.1
    assert loose.max() > 0.15 and loose.max() < 0.5


def test_braille_cell_sits_in_a_top_corner_of_lettered_tiles_only():
    plain, dots = render(quarter_turn_prob=0), render(braille="dots", quarter_turn_prob=0)
    diff = np.abs(plain.image.astype(int) - dots.image.astype(int)).sum(axis=2) > 30
    sq, (x0, y0) = plain.square_px, (int(v) for v in plain.corners[0])
    for r, c, ch in [(3, 3, "I"), (3, 11, "?")]:
        cell = diff[y0 + r * sq: y0 + (r + 1) * sq, x0 + c * sq: x0 + (c + 1) * sq]
        if ch == "?":
            assert not cell.any()      # a blank carries no letter's cell
        else:
            ys, xs = np.nonzero(cell)
            assert len(ys) and ys.mean() < 0.45 * sq


@pytest.mark.parametrize("kind", ["face", "star", "logo"])
def test_printed_blanks_carry_ink_plain_ones_do_not(kind):
    plain, printed = render(blank_print="plain"), render(blank_print=kind)
    sq, (x0, y0) = plain.square_px, (int(v) for v in plain.corners[0])
    blank = (slice(y0 + 3 * sq, y0 + 4 * sq), slice(x0 + 11 * sq, x0 + 12 * sq))
    letter = (slice(y0 + 3 * sq, y0 + 4 * sq), slice(x0 + 3 * sq, x0 + 4 * sq))
    assert np.abs(plain.image[blank].astype(int) - printed.image[blank].astype(int)).max() > 60
    assert np.array_equal(plain.image[letter], printed.image[letter])


def test_new_looks_render_by_name():
    dark = render(design="light_grey", style="ebony")
    red = render(style="red_ink", font="texgyre-termes" if "texgyre-termes" in available_fonts() else "dejavu-serif")
    sq, (x0, y0) = dark.square_px, (int(v) for v in dark.corners[0])
    centre = (slice(y0 + 3 * sq + sq // 4, y0 + 4 * sq - sq // 4), slice(x0 + 7 * sq + sq // 4, x0 + 8 * sq - sq // 4))
    assert dark.image[centre].mean() < dark.image[y0 + 5 * sq: y0 + 6 * sq, x0 + 6 * sq: x0 + 7 * sq].mean() - 60
    b, g, r = (red.image[centre][..., i].astype(float) for i in range(3))
    assert ((r - g > 80) & (r - b > 80)).any()   # red letters on a light tile
