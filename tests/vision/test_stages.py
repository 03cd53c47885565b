"""Stage functions on small images drawn here: colours, cube counting, the still gate."""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import replace

import cv2
import numpy as np
import pytest

from companion.vision.colour import (
    BACKGROUND,
    NOMINAL_BGR,
    UNKNOWN,
    ColourModel,
    bgr_to_lab,
    nominal_model,
    pack_bgr,
)
from companion.vision.config import DEFAULT_CONFIG
from companion.vision.cubes import (
    Patch,
    Top,
    count_patches,
    find_blobs,
    measure,
    measure_planes,
    top_cubes,
    top_shape,
)
from companion.vision.still import StillGate, median_frame

SIDE = 10


def lab_of(bgr: tuple[int, int, int]) -> np.ndarray:
    return cv2.cvtColor(np.array([[bgr]], np.uint8), cv2.COLOR_BGR2Lab)


def test_each_nominal_colour_is_classified_as_itself() -> None:
    model = nominal_model(list(NOMINAL_BGR), background=(bgr_to_lab((200, 215, 222)),))
    for name, bgr in NOMINAL_BGR.items():
        assert model.classify_one(tuple(float(v) for v in lab_of(bgr)[0, 0])) == name


def test_shaded_colour_still_classified_but_far_colour_rejected() -> None:
    model = nominal_model(["red", "blue"], background=(bgr_to_lab((200, 215, 222)),))
    shaded_red = tuple(int(v * 0.8) for v in NOMINAL_BGR["red"])
    assert model.name_of(int(model.classify(lab_of(shaded_red))[0, 0])) == "red"
    # Bright green is neither red, blue nor the board: unknown, never a guess.
    assert int(model.classify(lab_of((0, 255, 0)))[0, 0]) == UNKNOWN
    assert int(model.classify(lab_of((200, 215, 222)))[0, 0]) == BACKGROUND


def test_a_bgr_frame_is_labelled_as_its_lab_conversion() -> None:
    model = nominal_model(["red", "blue", "black"], background=(bgr_to_lab((200, 215, 222)),))
    rng = np.random.default_rng(5)
    frame = rng.integers(0, 256, (40, 50, 3), dtype=np.uint8)
    frame[:10] = NOMINAL_BGR["red"]  # some colours seen again and again
    want = model.classify(cv2.cvtColor(frame, cv2.COLOR_BGR2Lab))
    assert set(np.unique(want).tolist()) >= {BACKGROUND, 1, UNKNOWN}
    first = model.classify_bgr(frame)  # colours first seen: converted and cached
    again = model.classify_bgr(frame[5:, 3:])  # from the cache, on a view of the frame
    assert np.array_equal(first, want)
    assert np.array_equal(again, want[5:, 3:])


def test_model_json_round_trip_and_bad_values() -> None:
    model = nominal_model(["red", "pink"])
    again = ColourModel.from_json(model.to_json())
    assert again.pieces == model.pieces
    bad = model.to_json()
    bad["pieces"]["red"] = [[1, 2]]
    with pytest.raises(ValueError, match="not an 8-bit Lab triple"):
        ColourModel.from_json(bad)


def draw_cubes(cells: list[tuple[int, int]], size: tuple[int, int] = (80, 60)) -> np.ndarray:
    mask = np.zeros((size[1], size[0]), np.uint8)
    for cx, cy in cells:
        mask[cy * SIDE + 5 : cy * SIDE + 5 + SIDE, cx * SIDE + 5 : cx * SIDE + 5 + SIDE] = 255
    return mask


@pytest.mark.parametrize(
    "cells",
    [
        [(0, 0)],
        [(0, 0), (1, 0)],
        [(0, 0), (1, 0), (2, 0), (0, 1)],
        [(0, 0), (1, 0), (0, 1), (1, 1), (2, 1), (3, 3)],
        [(x, y) for x in range(4) for y in range(3)],
    ],
)
def test_touching_cubes_counted_by_area(cells: list[tuple[int, int]]) -> None:
    blobs = find_blobs(draw_cubes(cells), SIDE * SIDE, SIDE)
    assert sum(b.cubes for b in blobs) == len(cells)
    assert all(b.residual < 0.1 for b in blobs)


def merged_tops(cells: list[tuple[int, int]], angle: float, seed: int) -> tuple[np.ndarray, ...]:
    """Cubes whose seams blur erased: one bright top over all the cells (turned by ``angle``
    degrees), a darker rim of sides round it, blurred and noisy; (mask, lightness)."""
    big = 4  # drawn 4x larger, then shrunk: smooth edges at any angle
    side = 12
    top = np.zeros((120 * big, 120 * big), np.uint8)
    for cx, cy in cells:
        x, y = (30 + cx * side) * big, (30 + cy * side) * big
        top[y : y + side * big, x : x + side * big] = 1
    turn = cv2.getRotationMatrix2D((60 * big, 60 * big), angle, 1.0)
    top = cv2.warpAffine(top, turn, top.shape[::-1], flags=cv2.INTER_NEAREST)
    top = cv2.resize(top.astype(np.float32), (120, 120), interpolation=cv2.INTER_AREA)
    body = cv2.dilate((top > 0.5).astype(np.uint8), np.ones((3, 3), np.uint8))
    light = 60.0 * body + 130.0 * top
    light = cv2.GaussianBlur(light.astype(np.float32), (0, 0), 1.2)
    light += np.random.default_rng(seed).normal(0, 4, light.shape)
    lightness = np.clip(light, 0, 255).astype(np.uint8)
    mask = (cv2.GaussianBlur(body.astype(np.float32), (0, 0), 1.2) > 0.4).astype(np.uint8) * 255
    return mask, lightness


@pytest.mark.parametrize(
    "cells",
    [
        [(0, 0)],
        [(0, 0), (1, 0)],
        [(0, 0), (1, 0), (2, 0)],
        [(0, 0), (1, 0), (2, 0), (3, 0)],
        [(0, 0), (1, 0), (0, 1)],
        [(0, 0), (1, 0), (0, 1), (1, 1)],
        [(0, 0), (1, 0), (2, 0), (0, 1), (1, 1), (2, 1)],
    ],
)
@pytest.mark.parametrize("angle", [0.0, 25.0, 45.0])
def test_a_top_of_cubes_whose_seams_blur_erased_is_counted_by_its_shape(
    cells: list[tuple[int, int]], angle: float
) -> None:
    """Its area alone misleads (blur eats the edges, the rim joins in); its enclosing
    rectangle keeps the layout: a row, a block, an L."""
    mask, lightness = merged_tops(cells, angle, seed=len(cells))
    patches = measure(mask, 144.0, 12.0, lightness)
    assert len(patches) == 1 and len(patches[0].tops) == 1
    (blob,) = count_patches(patches, 1.0)
    assert blob.cubes == len(cells)


@pytest.mark.parametrize(
    "cells", [[(0, 0), (1, 0)], [(0, 0), (1, 0), (0, 1)], [(0, 0), (1, 0), (2, 0), (0, 1)]]
)
def test_a_glint_in_each_cubes_top_leaves_the_merged_top_counted_by_its_shape(
    cells: list[tuple[int, int]],
) -> None:
    # As seen on hard rendered Carolus tables (seed 7: two red cubes, a row and a pair at a
    # slant, each cube's top with a hole in its middle where glare lifted it out of the top's
    # lightness band): the cell test judges each cell at its middle, right on the hole.
    mask, lightness = merged_tops(cells, 0.0, seed=len(cells))
    for cx, cy in cells:
        centre = (30 + cx * 12 + 6, 30 + cy * 12 + 6)
        cv2.circle(lightness, centre, 2, 255, -1)
    patches = measure(mask, 144.0, 12.0, lightness)
    assert len(patches) == 1 and len(patches[0].tops) == 1
    (blob,) = count_patches(patches, 1.0)
    assert blob.cubes == len(cells)


def lit_top(length: float, width: float, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """One bright top ``length`` x ``width`` cube sides (a side 12 px), a darker rim of sides
    round it, blurred and noisy; (mask, lightness)."""
    top = np.zeros((60, 60), np.float32)
    x0, y0 = 30 - round(6 * length), 30 - round(6 * width)
    top[y0 : y0 + round(12 * width), x0 : x0 + round(12 * length)] = 1.0
    body = cv2.dilate((top > 0.5).astype(np.uint8), np.ones((3, 3), np.uint8))
    light = cv2.GaussianBlur(60.0 * body + 130.0 * top, (0, 0), 1.2)
    light += np.random.default_rng(seed).normal(0, 4, light.shape)
    mask = (cv2.GaussianBlur(body.astype(np.float32), (0, 0), 1.2) > 0.4).astype(np.uint8) * 255
    return mask, np.clip(light, 0, 255).astype(np.uint8)


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_a_long_narrow_top_is_two_cubes_and_a_long_wide_one_one(seed: int) -> None:
    # As measured on hard rendered Carolus tables (seeds 100-159: pairs read as one top
    # 1.45-1.7 sides long and 0.7-0.9 wide; lone tops as long, 1.25 wide, the median): too
    # short for two cells of the top's rectangle either way. (Drawn
    # 1.75 sides long, the top reads 1.58: blur takes its ends out of the top's band.)
    mask, lightness = lit_top(1.75, 0.9, seed)
    patches = measure(mask, 144.0, 12.0, lightness)
    assert len(patches) == 1 and len(patches[0].tops) == 1
    assert [b.cubes for b in count_patches(patches, 1.0)] == [2]
    mask, lightness = lit_top(1.75, 1.4, seed)
    assert [b.cubes for b in count_patches(measure(mask, 144.0, 12.0, lightness), 1.0)] == [1]


def test_a_big_top_whose_cells_miss_its_middle_still_counts_by_its_area() -> None:
    # As measured on a hard rendered Carolus table (seed 12, two green cubes pushed together
    # at a slant): 3.4 cube tops of area, its rectangle 2.5 x 1.8 sides, and the cell test
    # found a single cell covered (the cells' centres fell on the gap of the bent shape).
    side, unit = 10.4, 0.7 * 10.4**2
    top = Top(3.44 * unit, 4.0, 0.0, 0.0, 2.52 * side, 1.77 * side, cells=1)
    assert top_cubes(top, unit, DEFAULT_CONFIG) == 2
    # A lone top, even a large one, stays one cube; a top the cells say is three stays three.
    assert top_cubes(Top(1.5 * unit, 4.0, 0.0, 0.0, side, side, cells=1), unit, DEFAULT_CONFIG) == 1
    row = Top(2.6 * unit, 4.0, 0.0, 0.0, 3.0 * side, 0.9 * side, cells=3)
    assert top_cubes(row, unit, DEFAULT_CONFIG) == 3


@pytest.mark.parametrize("angle", [0.0, 30.0])
def test_a_lone_top_blurred_long_is_one_cube_and_a_short_row_two(angle: float) -> None:
    # As measured on hard rendered Carolus tables (seed 0 t06, a lone red cube's top 1.58 x
    # 1.24 sides, its lit rim joined in): blur adds a fixed halo to a top's length, not a
    # share of it, so a top that long is still one cube; two in a row are ~2.1 sides long.
    side = 10.0

    def drawn(length: float, width: float) -> np.ndarray:
        part = np.zeros((60, 60), np.uint8)
        box = ((30.0, 30.0), (length * side, width * side), angle)
        cv2.fillPoly(part, [np.round(cv2.boxPoints(box)).astype(np.int32)], 1)
        return part

    assert top_shape(drawn(1.45, 1.15), side, DEFAULT_CONFIG)[2] == 1
    assert top_shape(drawn(2.0, 0.95), side, DEFAULT_CONFIG)[2] == 2
    assert top_shape(drawn(3.1, 0.95), side, DEFAULT_CONFIG)[2] == 3


@pytest.mark.parametrize("angle", [0.0, 30.0])
def test_a_brick_of_four_read_one_cell_across_is_four_cubes(angle: float) -> None:
    # As measured on a hard rendered Carolus table (held-out seed 38 t03, blue): two rows of
    # two, one a cube along from the other, one top 1.66 sides wide, so one cell across with
    # its centres between the rows; its area 4.4 tops.
    side = 10.0
    a = math.radians(angle)
    u, v = np.array([math.cos(a), math.sin(a)]), np.array([-math.sin(a), math.cos(a)])

    def rows(starts: tuple[float, float], length: float, width: float) -> np.ndarray:
        part = np.zeros((80, 80), np.uint8)
        for along, across in zip(starts, (-width, 0.0), strict=True):
            corners = [
                np.array([40.0, 40.0]) + side * ((along - 1.5 + du) * u + (across + dv) * v)
                for du, dv in ((0, 0), (length, 0), (length, width), (0, width))
            ]
            cv2.fillPoly(part, [np.round(np.array(corners)).astype(np.int32)], 1)
        return part

    length, width, cells, staggered = top_shape(rows((0.0, 1.0), 2.0, 0.8), side, DEFAULT_CONFIG)
    assert round(width / side / DEFAULT_CONFIG.top_width_sides) == 1 and cells < 4
    assert staggered == 4
    unit = 0.7 * side**2
    brick = Top(4.4 * unit, 4.0, 0.0, 0.0, length, width, cells, staggered=staggered)
    assert top_cubes(brick, unit, DEFAULT_CONFIG) == 4
    # Its area must say as much: a top of three cubes' area stays as its one cell across says.
    small = Top(3.4 * unit, 4.0, 0.0, 0.0, length, width, cells, staggered=staggered)
    assert top_cubes(small, unit, DEFAULT_CONFIG) < 4
    # A row of three blurred as wide covers both cells across all along: not judged so.
    assert top_shape(rows((0.0, 0.0), 3.0, 0.8), side, DEFAULT_CONFIG)[2:] == (3, 0)


@pytest.mark.parametrize(
    ("area", "width", "fill", "cubes"),
    [
        (3.74, 1.76, 0.55, 3),  # an L of three: two cubes across, half its rectangle bare
        (2.87, 1.77, 0.57, 3),  # El Grande's: fewer cube tops, filling more (hard seed 4)
        (3.74, 1.76, 0.70, 2),  # as wide, but filling its rectangle as a pair's top does
        (2.60, 1.20, 0.52, 2),  # a pair, as ragged but one cube across
        (1.90, 1.76, 0.52, 2),  # too small for three cubes' tops
    ],
)
def test_an_l_of_three_at_a_slant_is_three_cubes(
    area: float, width: float, fill: float, cubes: int
) -> None:
    # As measured on a hard rendered Carolus table (seed 6 t06, blue: three cubes in an L at a
    # slant, one top 2.48 x 1.76 sides, 3.74 cube tops, filling 0.55 of its rectangle): the
    # rectangle lies along the L's diagonal and two of its cells' centres found the top.
    side, length = 10.0, 2.48
    unit = fill * length * width * side**2 / area
    top = Top(area * unit, 4.0, 0.0, 0.0, length * side, width * side, cells=2)
    assert top_cubes(top, unit, DEFAULT_CONFIG, side=side) == cubes
    # Without the cube's side there, the cells' count stands.
    assert top_cubes(top, unit, DEFAULT_CONFIG) == 2


@pytest.mark.parametrize(
    ("length", "width", "cubes"),
    [
        (1.74, 1.41, 1),  # a lone far top blurred as wide as long (1.23 times as long)
        (1.89, 1.58, 1),  # another, 1.20 times
        (2.04, 1.04, 2),  # a pair's top, twice as long as wide
        (1.99, 1.53, 2),  # a pair blurred wide, still 1.30 times as long
    ],
)
def test_a_top_of_two_cells_as_wide_as_long_is_one_cube(
    length: float, width: float, cubes: int
) -> None:
    # As measured on hard rendered Carolus tables (seeds 100-159, tops whose two cells'
    # centres both found the top: lone ones 1.19-1.43 times as long as wide, pairs from 1.30).
    side = 10.0
    unit = 0.7 * side**2
    area = 0.62 * length * width * side**2
    top = Top(area, 4.0, 0.0, 0.0, length * side, width * side, cells=2)
    assert top_cubes(top, unit, DEFAULT_CONFIG, side=side) == cubes
    # A ragged top (half its rectangle bare) counts by its area, not so.
    ragged = top._replace(area=0.45 * length * width * side**2)
    assert top_cubes(ragged, unit, DEFAULT_CONFIG, side=side) == round(
        ragged.area / unit / DEFAULT_CONFIG.merged_top_cubes
    )


def test_a_ragged_top_of_a_light_colour_counts_more_area_a_cube() -> None:
    # As measured on a hard rendered Carolus table (seed 101 t08, yellow: three cubes read as
    # one ragged top, 2.74 x 1.85 sides, 3.87 cube tops, filling 0.49 of its rectangle).
    side, length, width, area, fill = 8.4, 2.74, 1.85, 3.87, 0.49
    unit = fill * length * width * side**2 / area
    top = Top(area * unit, 4.0, 0.0, 0.0, length * side, width * side, cells=3)
    assert top_cubes(top, unit, DEFAULT_CONFIG, side=side) == 4  # red or blue: 1.1 tops a cube
    light = DEFAULT_CONFIG.light_ragged_top_cubes
    assert top_cubes(top, unit, DEFAULT_CONFIG, side=side, ragged=light) == 3
    # count_patches passes it on for the colour it is given.
    comp = np.ones((24, 16), np.uint8)
    patch = Patch(top.area, (8.0, 12.0), (0, 0, 16, 24), unit, side, comp, (top,))
    assert [b.cubes for b in count_patches([patch], 1.0)] == [4]
    assert [b.cubes for b in count_patches([patch], 1.0, ragged=light)] == [3]


def test_half_hidden_cube_lowers_confidence() -> None:
    mask = draw_cubes([(0, 0), (1, 0)])
    mask[:, 5 + SIDE + SIDE // 2 :] = 0  # the second cube half covered
    (blob,) = find_blobs(mask, SIDE * SIDE, SIDE)
    assert blob.residual > 0.4
    assert blob.confidence < 0.3


def test_cluster_on_a_border_is_split_into_cube_centres() -> None:
    mask = draw_cubes([(0, 0), (1, 0), (2, 0), (3, 0)])
    split = np.ones(mask.shape, bool)
    (blob,) = find_blobs(mask, SIDE * SIDE, SIDE, split=split)
    xs = sorted(round(c[0]) for c in blob.centres)
    assert xs == [10, 20, 30, 40]  # the four cube centres, left to right


def test_specks_are_not_cubes() -> None:
    mask = np.zeros((40, 40), np.uint8)
    mask[10:12, 10:12] = 255
    assert find_blobs(mask, SIDE * SIDE, SIDE) == []


def test_a_faint_far_cube_is_a_cube_but_a_black_speck_as_big_is_not() -> None:
    # As measured on hard rendered Carolus tables (seeds 100-159): a dim pink or blue cube far
    # off shows only a sliver of its top in its colour, 0.2-0.3 of a cube top; black specks
    # that big are bits of the board's print as often.
    sliver = np.zeros((40, 40), np.uint8)
    sliver[15:20, 15:20] = 255  # 25 px of a 100 px cube top
    patches = measure(sliver, SIDE * SIDE, SIDE)
    assert [b.cubes for b in count_patches(patches, 1.0)] == [1]
    assert count_patches(patches, 1.0, black=True) == []


def test_a_thin_black_line_is_no_cube_but_a_thin_piece_of_a_top_is() -> None:
    """Black is the colour of the board's print lines and of other pieces' shaded sides:
    a patch with no whole top, thin and longer than a cube, is a line; as thin but short, it
    is what glare left black of a cube's top."""
    line = np.zeros((40, 60), np.uint8)
    cv2.line(line, (10, 20), (10 + 3 * SIDE, 24), 255, 2)
    fragment = np.zeros((40, 60), np.uint8)
    fragment[15:19, 20:26] = 255
    bit = np.zeros((40, 60), np.uint8)  # a bit of print just under a side long: a line too
    bit[15:18, 20:30] = 255
    for mask, cubes in ((line, 0), (fragment, 1), (bit, 0)):
        patches = measure(mask, SIDE * SIDE * 0.4, SIDE)
        assert sum(b.cubes for b in count_patches(patches, 1.0)) >= 1  # (without the rule)
        assert sum(b.cubes for b in count_patches(patches, 1.0, black=True)) == cubes


def test_a_dark_line_whose_top_is_as_thick_as_a_black_tops_is_no_row_of_cubes() -> None:
    """A black top is whole from a lesser thickness than a coloured one's (noise frays its
    narrow lightness band), but only as wide as a cube's top: a dark print line is not."""
    comp = np.zeros((12, 60), np.uint8)
    comp[4:8, 2:58] = 1
    line = Top(200.0, 2.0, 30.0, 6.0, 56.0, 4.0, 5)
    patch = Patch(200.0, (30.0, 6.0), (0, 0, 60, 12), 80.0, SIDE, comp, (line,))
    assert sum(b.cubes for b in count_patches([patch], 1.0)) >= 1  # (as a coloured patch)
    assert count_patches([patch], 1.0, black=True) == []


def test_noise_pricked_holes_in_a_black_top_are_filled_its_seams_kept() -> None:
    """A black top's band of lightness is a few noise steps wide: noise pricks holes in it
    that thin it below a whole top's thickness. Filled, a pair of touching black cubes shows
    its two tops (the seam between them, running to the rim, stays open)."""
    mask = np.zeros((40, 60), np.uint8)
    mask[10:24, 10:38] = 255  # two 14 px cubes side by side
    light = np.full(mask.shape, 60, np.uint8)  # sides, rims and the seam: brighter
    light[12:22, 12:23] = 30
    light[12:22, 25:36] = 30
    light[13:22:3, 13:36:3] = 60  # isolated noise pixels, out of the top's band
    stack = np.vstack([np.zeros((1, 60), np.uint8), mask, np.zeros((1, 60), np.uint8)])
    lightness = np.vstack([light[:1], light, light[:1]])
    plain, filled = (
        measure_planes(stack, 1, 110.0, 12.0, lightness, raw=stack, dark_planes=dark)[0]
        for dark in ((), (0,))
    )
    assert [len(p.tops) for p in plain] == [2] and [len(p.tops) for p in filled] == [2]
    thin = DEFAULT_CONFIG.min_top_thickness * 12.0
    assert all(t.thick < thin for t in plain[0].tops)  # (without the filling)
    assert all(t.thick >= thin for t in filled[0].tops)
    assert sum(b.cubes for b in count_patches(filled, 1.0, black=True)) == 2


@pytest.mark.parametrize(("thick", "cubes"), [(2.8, 2), (2.1, 1)])
def test_a_far_black_tops_narrow_square_is_a_cube_a_ragged_fragment_is_not(
    thick: float, cubes: int
) -> None:
    """As measured on hard rendered El Grande tables (seeds 104-120): a far, blurred black
    cube's top is too small to have its shape measured, its width (the root of its area)
    0.55-0.6 sides, under a whole black top's, but solid (inscribed radius about half its
    width); a fragment a seam or blur cut off a neighbour's top is as small and ragged."""
    unit = 0.6 * SIDE * SIDE  # (factor 0.6, as on those tables)
    comp = np.zeros((12, 24), np.uint8)
    comp[1:11, 1:17] = 1  # (a lone cube's patch)
    whole = Top(0.9 * unit, 3.5, 6.0, 6.0, 8.0, 8.0, 1)
    small = Top(0.55 * unit, thick, 17.0, 6.0, 5.74, 5.74, 1)
    patch = Patch(1.5 * unit, (12.0, 6.0), (0, 0, 24, 12), SIDE * SIDE, SIDE, comp, (whole, small))
    assert small.width < DEFAULT_CONFIG.black_top_width * SIDE
    assert sum(b.cubes for b in count_patches([patch], 0.6, black=True)) == cubes


def cube_table() -> tuple[np.ndarray, np.ndarray]:
    """Labels (1, 2: two colours) and lightness of a few cubes: each a lit top inside a dimmer
    rim; two touching, a colour beside another, one near the image's edge."""
    labels = np.zeros((70, 130), np.uint8)
    light = np.full(labels.shape, 90, np.uint8)
    for x, y, label in [
        (12, 10, 1),
        (22, 10, 1),
        (60, 14, 2),
        (70, 14, 1),
        (40, 44, 2),
        (3, 50, 1),
    ]:
        labels[y : y + SIDE, x : x + SIDE] = label
        light[y : y + SIDE, x : x + SIDE] = 150
        light[y + 2 : y + SIDE - 2, x + 2 : x + SIDE - 2] = 210
    return labels, light


def test_packed_boxes_keep_a_pixel_apart() -> None:
    from companion.vision.masks import pack_boxes

    rng = np.random.default_rng(2)
    for n in [1, 2, 7, 40]:
        w, h = rng.integers(1, 30, n), rng.integers(1, 50, n)
        xs, ys, (width, height) = pack_boxes(w, h)
        canvas = np.zeros((height, width), np.int32)
        for x, y, bw, bh in zip(xs, ys, w, h, strict=True):
            # each box grown by a pixel to the right and down: the gap must stay empty
            assert x >= 1 and y >= 1 and x + bw < width and y + bh < height
            canvas[y : y + bh + 1, x : x + bw + 1] += 1
        assert canvas.max() == 1
        assert canvas.size < 4 * ((w + 1) * (h + 1)).sum() + 60 * 30  # not wasteful


def test_components_give_what_opencv_gives_with_its_stats() -> None:
    from companion.vision.masks import components, nonzero

    rng = np.random.default_rng(5)
    for trial in range(60):
        h, w = (int(v) for v in rng.integers(1, 90, 2))
        mask = (rng.random((h, w)) < rng.uniform(0.02, 0.9)).astype(np.uint8)
        if trial % 2:
            mask = cv2.dilate(mask, np.ones((3, 3), np.uint8)) * np.uint8(255)
        assert all((a == b).all() for a, b in zip(nonzero(mask), np.nonzero(mask), strict=True))
        for connectivity in (4, 8):
            n, labels, stats, centroids = cv2.connectedComponentsWithStats(
                mask, connectivity=connectivity
            )
            m, ours, our_stats, our_centroids = components(mask, connectivity)
            assert m == n and (ours == labels).all()
            assert (our_stats[1:] == stats[1:]).all()
            assert our_stats[0, cv2.CC_STAT_AREA] == stats[0, cv2.CC_STAT_AREA]
            assert (our_centroids[1:] == centroids[1:]).all()


def test_the_median_of_8_bit_values_from_their_counts_is_numpys() -> None:
    from companion.vision.local_print import median_u8

    rng = np.random.default_rng(6)
    for n in (1, 2, 3, 4, 17, 1000, 1001):
        values = rng.integers(0, 256, (n, 3), dtype=np.uint8)
        values[:, 1] //= 64  # few distinct values: ties across the middle
        assert (median_u8(values) == np.median(values, axis=0)).all()


def test_percentiles_and_medians_from_8_bit_counts_are_numpys() -> None:
    from companion.vision.local_print import GREY, median_rows, percentile_u8

    rng = np.random.default_rng(7)
    for n in (1, 2, 3, 4, 20, 21, 101, 400, 1001):  # (n - 1) * q whole and not
        for low in (0, 30, 200):
            values = rng.integers(low, 256, n).astype(np.uint8)
            counts = np.bincount(values, minlength=256)
            for q in (5, 50, 60, 85):
                assert percentile_u8(counts, q) == np.percentile(values, q)
                assert percentile_u8(counts, q, GREY) == np.percentile(GREY[values], q)
            assert median_rows(counts[None], GREY)[0] == np.median(GREY[values])


def test_percentiles_and_medians_of_count_rows_are_numpys() -> None:
    from companion.vision.local_print import GREY, median_rows, percentile_rows

    rng = np.random.default_rng(8)
    rows = []
    for n in (1, 2, 3, 4, 20, 21, 101, 400, 1001):  # (n - 1) * q whole and not
        for low in (0, 30, 200):
            rows.append(rng.integers(low, 256, n).astype(np.uint8))
    counts = np.array([np.bincount(v, minlength=256) for v in rows])
    for q in (5, 50, 60, 85):
        plain, grey = percentile_rows(counts, q), percentile_rows(counts, q, GREY)
        for k, values in enumerate(rows):
            assert plain[k] == np.percentile(values, q)
            assert grey[k] == np.percentile(GREY[values], q)
    middle, grey_middle = median_rows(counts), median_rows(counts, GREY)
    for k, values in enumerate(rows):
        assert middle[k] == np.median(values)
        assert grey_middle[k] == np.median(GREY[values])


def test_quantiles_and_column_medians_of_floats_are_numpys() -> None:
    from companion.vision.local_print import median_columns, quantile_of

    rng = np.random.default_rng(9)
    for n in (1, 2, 3, 4, 20, 21, 101, 400, 1001):  # (n - 1) * q whole and not
        for dtype in (np.float32, np.float64):
            values = (rng.random((n, 3)) * 300).astype(dtype)
            values[:, 1] = np.round(values[:, 1] / 50)  # few distinct values: ties
            middle = median_columns(values)
            assert middle.dtype == dtype
            assert np.array_equal(middle, np.median(values, axis=0))
            for q in (0.0, 0.1, 0.4, 0.5, 0.75, 0.85, 0.999, 1.0):
                for column in values.T:
                    got = quantile_of(column, q)
                    assert got == np.quantile(column, q) and type(got) is dtype


def test_a_high_quantile_from_the_values_above_a_sampled_bound_is_numpys() -> None:
    """``high_quantile_of`` (the dice's 0.999 quantile of the rise) partitions only the values
    at or above a bound from a sample: the same number as np.quantile, ties, few values above
    the bound and too few values to sample included."""
    from companion.vision.local_print import high_quantile_of

    rng = np.random.default_rng(12)
    for n in (1, 5, 127, 128, 129, 1000, 5003, 20000):
        for dtype in (np.float32, np.float64):
            spread = (rng.normal(size=n) * 40).astype(dtype)
            few = np.round(spread / 30)  # a handful of distinct values: ties at the bound
            top_heavy = np.where(rng.random(n) < 0.02, dtype(500), spread)  # many at the top
            for values in (spread, few, top_heavy, np.sort(spread)):
                for q in (0.5, 0.99, 0.999, 0.9999, 1.0):
                    got = high_quantile_of(values, q)
                    assert got == np.quantile(values, q) and type(got) is dtype


@pytest.mark.parametrize("size", [3, 5, 9, 17, 23, 33, 45, 61])
def test_an_ellipse_dilation_by_rectangles_is_opencvs(size: int) -> None:
    from companion.vision.masks import dilate_ellipse

    rng = np.random.default_rng(size)
    mask = (rng.random((90, 120)) > 0.995).astype(np.uint8)
    cv2.fillConvexPoly(mask, np.array([[30, 20], [100, 15], [95, 70], [25, 80]]), 1)
    mask[0, 60] = mask[89, 5] = mask[45, 119] = 1  # at the edges too
    kernel = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (size, size))
    assert np.array_equal(dilate_ellipse(mask, size), cv2.dilate(mask, kernel))


def test_only_small_enclosed_holes_are_filled() -> None:
    from companion.vision.masks import fill_small_holes

    mask = np.zeros((40, 60), np.uint8)
    mask[5:15, 5:15] = 1
    mask[8:10, 8:10] = 0  # a small hole: filled
    mask[20:38, 20:38] = 1
    mask[23:35, 23:35] = 0  # a big one (an outline round it): kept
    filled = fill_small_holes(mask, 9)
    assert filled[8:10, 8:10].all() and not filled[23:35, 23:35].any()
    assert (filled[mask > 0] == 1).all() and filled.sum() == mask.sum() + 4


def test_touching_cubes_show_a_top_each() -> None:
    from companion.vision.cubes import measure

    labels, light = cube_table()
    mask = np.where(labels == 1, 255, 0).astype(np.uint8)
    patches = measure(mask, SIDE * SIDE, SIDE, light)
    assert [p.bbox for p in patches] == [(12, 10, 20, 10), (70, 14, 10, 10), (3, 50, 10, 10)]
    pair = patches[0]
    assert pair.area == 2 * 36  # the two 6 x 6 tops count, not their rims
    # Each top by itself: 6 px across, deepest first at its middle (raster order).
    assert [(a, round(t, 2), x, y) for a, t, x, y, *_ in pair.tops] == [
        (36.0, 2.87, 16.0, 14.0),
        (36.0, 2.87, 26.0, 14.0),
    ]


def test_a_piece_inside_another_groups_hole_is_in_the_mosaic() -> None:
    # A region's printed border read as a piece colour (black, in a frame where the border is
    # as dark as black's sample) rings the pieces standing inside it: they are a group of
    # their own, inside the ring's hole, and must be cut out too (hard seed 462 lost 21 of its
    # 80 cubes, the king and three grandes that way).
    from companion.vision.mosaic import cut

    labels = np.zeros((120, 160), np.uint8)
    labels[10:100, 20:140] = 2
    labels[12:98, 22:138] = 0  # the ring: a border two pixels wide
    labels[50:58, 76:84] = 1  # a cube in the middle, far from the ring
    labels[30:34, 40:44] = 2  # and a speck of the ring's colour
    pieces = cut(labels, np.zeros(labels.shape, np.uint32), 2, margin=3)
    assert np.array_equal(np.sort(pieces.labels[pieces.labels > 0]), np.sort(labels[labels > 0]))
    inside = pieces.index[pieces.labels == 1]
    assert sorted(inside.tolist()) == sorted(np.flatnonzero(labels == 1).tolist())


def test_the_mosaic_of_the_pieces_reads_as_the_whole_image() -> None:
    from companion.vision.cubes import clean, measure_planes
    from companion.vision.mosaic import Mosaic, cut
    from companion.vision.pipeline import _groups

    labels, light = cube_table()
    labels[40:44, 100:104] = 2  # a speck
    packed = np.zeros(labels.shape, np.uint32)
    pieces = cut(labels, packed, 2, margin=3)
    assert pieces.labels.size < labels.size
    assert np.array_equal(np.sort(pieces.labels[pieces.labels > 0]), np.sort(labels[labels > 0]))
    h, w = labels.shape
    index = np.arange(h * w, dtype=np.int32).reshape(h, w)
    whole = Mosaic(labels, packed, index, w, np.full(labels.shape, 255, np.uint8))
    read = []
    for view, lightness in ((whole, light), (pieces, pieces.gather(light))):
        masks = {c: clean(np.where(view.labels == c, 255, 0).astype(np.uint8)) for c in (1, 2)}
        groups = _groups({str(c): m for c, m in masks.items()}, ("1", "2"), view)
        stack = np.concatenate([masks[1], masks[2]])  # both colours at once
        read.append(
            [
                (p.area, p.bbox, p.centroid, p.comp.tolist(), p.tops)
                for plane in measure_planes(
                    stack,
                    2,
                    SIDE * SIDE,
                    SIDE,
                    lightness,
                    raw=stack,
                    index=view.index,
                    width=w,
                    groups=groups,
                )
                for p in plane
            ]
        )
    assert len(read[0]) == 6  # five cubes and the speck
    assert read[1] == read[0]
    # No pieces: an empty mosaic, nothing measured.
    empty = cut(np.zeros_like(labels), packed, 2, margin=3)
    assert not empty.labels.any()
    none = {"1": np.zeros_like(empty.labels)}
    assert measure_planes(none["1"], 1, SIDE * SIDE, SIDE, groups=_groups(none, ("1",), empty)) == [
        []
    ]
    # Back in the working image: a point of the mosaic maps to where it came from.
    y, x = np.argwhere(pieces.labels == 2)[0]
    wx, wy = pieces.to_work(float(x) + 0.5, float(y))
    assert labels[int(wy), int(wx)] == 2 and wx % 1 == 0.5


def frame(value: int, box: tuple[int, int] | None = None) -> np.ndarray:
    img = np.full((90, 160, 3), value, np.uint8)
    if box is not None:
        x, y = box
        img[y : y + 30, x : x + 30] = 255 - value
    return img


def test_still_gate_hands_over_frames_once_per_still_period() -> None:
    gate = StillGate()
    states = [gate.push(frame(100)) for _ in range(5)]
    ready = [s for s in states if s.ready]
    assert len(ready) == 1 and len(ready[0].ready or ()) == 3
    moving = gate.push(frame(100, (20, 20)))
    assert moving.moving and moving.ready is None
    states = [gate.push(frame(100, (60, 40))) for _ in range(4)]
    assert states[0].moving  # the box jumped again
    assert [s.ready is not None for s in states] == [False, False, True, False]


def test_median_of_three_frames_drops_a_one_frame_flash() -> None:
    a, b = frame(100), frame(100)
    flash = frame(100, (10, 10))
    assert np.array_equal(median_frame([a, flash, b]), a)
    four = median_frame([a, b, flash, frame(100)])
    assert np.array_equal(four, a)


def test_lens_distort_undistort_round_trip() -> None:
    from companion.vision.homography import Lens, distort, undistort

    lens = Lens.from_json(
        {"matrix": [[600, 0, 640], [0, 600, 360], [0, 0, 1]], "distortion": [-0.2, 0.04, 0, 0, 0]}
    )
    ideal = np.array([[100.0, 80.0], [640.0, 360.0], [1200.0, 650.0]])
    seen = distort(ideal, lens)
    # Barrel distortion pulls far points towards the centre; the centre stays put.
    assert np.linalg.norm(seen[0] - (640, 360)) < np.linalg.norm(ideal[0] - (640, 360))
    assert np.allclose(seen[1], ideal[1], atol=1e-6)
    assert np.allclose(undistort(seen, lens), ideal, atol=0.05)


def test_bad_lens_is_a_clear_error() -> None:
    from companion.vision.errors import VisionError
    from companion.vision.homography import Lens

    with pytest.raises(VisionError, match="a lens is"):
        Lens.from_json({"matrix": [[1, 0], [0, 1]], "distortion": []})


def test_a_grey_within_reach_of_a_dull_colour_is_not_that_colour() -> None:
    # A dim blue as a dark room shows it, and a grey mat at the same distance from it.
    model = ColourModel({"blue": ((70.0, 134.0, 100.0),)}, background=())
    assert model.classify_one((70.0, 134.0, 100.0)) == "blue"
    assert model.classify_one((70.0, 132.0, 108.0)) == "blue"  # duller, still blue
    assert model.classify_one((80.0, 127.0, 126.0)) is None  # grey: far less saturated


def test_darker_than_the_darkest_hueless_colour_is_that_colour() -> None:
    # A dim set-up's black as a calibration sampled it (hard El Grande seed 320: lightness
    # 90), and that frame's black cube tops at 30: too far below it by the plain distance.
    refs = {"blue": ((108.0, 134.0, 86.5),), "black": ((90.0, 130.0, 128.0),)}
    model = ColourModel(refs, background=((162.0, 129.0, 114.0), (207.0, 136.0, 143.0)))
    assert model.classify_one((30.0, 130.0, 128.0)) == "black"
    assert model.classify_one((90.0, 130.0, 128.0)) == "black"
    # Hue still counts: a dark blue is blue, a dark pixel with a colour's hue no black.
    assert model.classify_one((30.0, 136.0, 100.0)) != "black"
    # Lighter than black, the plain distance as before (a grey within reach, a lighter none).
    assert model.classify_one((120.0, 130.0, 128.0)) == "black"
    assert model.classify_one((150.0, 130.0, 128.0)) is None
    # When something the model knows is darker than black (a board's dark print), black's
    # reach goes both ways as before.
    dark_print = ColourModel(refs, background=((70.0, 128.0, 128.0),))
    assert dark_print.classify_one((30.0, 130.0, 128.0)) is None


def test_a_colour_given_its_own_chroma_share_takes_duller_pixels() -> None:
    # Carolus blue as a calibration sampled it (chroma ~54), and its cube in dim light with
    # the same hue at chroma ~31 (hard bench seed 1 t13): under 0.6 of blue's chroma.
    blue = (70.0, 138.0, 75.0)
    dim = (70.0, 134.0, 97.0)
    strict = ColourModel({"blue": (blue,)}, background=())
    lenient = replace(strict, chroma_shares=(("blue", 0.5),))
    assert strict.classify_one(dim) is None
    assert lenient.classify_one(dim) == "blue"
    assert lenient.classify_one((80.0, 127.0, 126.0)) is None  # a grey stays no piece
    # A model already more lenient than the colour's own share stays so.
    faded = replace(strict, min_chroma_share=0.3, chroma_shares=(("blue", 0.5),))
    assert faded.classify_one((70.0, 132.0, 108.0)) == "blue"  # chroma ~20: 0.37 of blue's


def test_the_configured_model_takes_glared_blue_in_either_game() -> None:
    # El Grande blue as its calibration sampled it (hard seed 103, chroma ~54), and a top of
    # it under a lamp's glare, the hue kept at chroma ~31; the model a Reader of either game
    # classifies with (with_config) takes it, a grey still not.
    blue = (85.0, 144.0, 77.0)
    model = ColourModel({"blue": (blue,), "yellow": ((160.0, 123.0, 182.0),)}).with_config(
        DEFAULT_CONFIG
    )
    assert model.classify_one((89.0, 133.0, 97.0)) == "blue"
    assert replace(model, chroma_shares=()).classify_one((89.0, 133.0, 97.0)) is None
    assert model.classify_one((95.0, 129.0, 124.0)) is None


def test_shade_and_fading_change_a_pieces_lightness_and_chroma_not_its_hue() -> None:
    # Red and pink as a calibration sampled them, and the board (hard rendered Carolus cases).
    refs = {"red": ((78.0, 174.0, 158.0),), "pink": ((148.0, 164.0, 123.0),)}
    model = ColourModel(refs, background=((134.0, 127.0, 127.0), (105.0, 125.0, 127.0)))
    # A pink cube in shade is as dark as red; by the plain distance it was red.
    assert model.classify_one((83.0, 163.0, 117.0)) == "pink"
    # A red cube blurred into the grey board far from the camera: half its chroma, red's hue.
    assert model.classify_one((97.0, 154.0, 139.0)) == "red"
    # Both still themselves; the board and a grey shadow are no piece.
    assert model.classify_one((78.0, 174.0, 158.0)) == "red"
    assert model.classify_one((148.0, 164.0, 123.0)) == "pink"
    assert model.classify_one((134.0, 127.0, 127.0)) is None
    assert model.classify_one((90.0, 131.0, 130.0)) is None


def _zones(shape: tuple[int, int]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Half-resolution zones of a board filling the middle of a working image."""
    h, w = shape[0] // 2, shape[1] // 2
    outside = np.ones((h, w), bool)
    outside[5:-5, 5:-5] = False
    return ~outside, ~outside, outside


def _hand_checker(
    lab: np.ndarray, zones: tuple[np.ndarray, np.ndarray, np.ndarray]
) -> Callable[[], str | None]:
    """The hand check of a Lab image (painted on by the test afterwards) under neutral light,
    every pixel labelled board."""
    from companion.vision.config import VisionConfig
    from companion.vision.hand import hand_check, skin_mask

    cfg = VisionConfig()
    labels = np.zeros(lab.shape[:2], np.uint8)
    half = np.s_[::2, ::2]  # the check looks at every other pixel of every other row

    def check() -> str | None:
        warm = skin_mask(lab[half], config=cfg)  # neutral light: no cast
        return hand_check(labels[half], (warm, warm), *zones, 9.0, cfg)

    return check


def test_hand_must_reach_in_from_off_the_board() -> None:
    skin = lab_of((95, 135, 190))[0, 0]
    lab = np.empty((120, 160, 3), np.uint8)
    lab[:] = lab_of((200, 215, 222))[0, 0]
    check = _hand_checker(lab, _zones(lab.shape[:2]))

    # A big skin-coloured patch inside the board (warm print in warm light): no hand.
    lab[40:80, 50:110] = skin
    assert check() is None
    # The same patch with an arm to the frame's edge: a hand.
    lab[55:65, 100:160] = skin
    why = check()
    assert why is not None and "hand" in why


def test_a_small_hand_over_the_board_with_its_forearm_over_the_table_is_a_hand() -> None:
    skin = lab_of((95, 135, 190))[0, 0]
    board = lab_of((200, 215, 222))[0, 0]
    lab = np.empty((120, 160, 3), np.uint8)
    lab[:] = board
    # The table is the left half (as seen at half resolution): the board the right.
    outside = np.zeros((60, 80), bool)
    outside[:, :40] = True
    check = _hand_checker(lab, (~outside, ~outside, outside))

    # A hand of 8 footprints over the board at its edge (20 make a hand by themselves), and a
    # stub of a forearm over the table: no hand.
    lab[40:52, 80:92] = skin
    lab[42:50, 70:80] = skin
    assert check() is None
    # The forearm reaching in from the frame's edge over the table: a hand.
    lab[42:50, 0:80] = skin
    why = check()
    assert why is not None and "arm" in why
    # An arm over the table beside a board with no hand over it: no hand.
    lab[40:52, 80:92] = board
    assert check() is None


def test_a_skin_coloured_table_is_no_forearm() -> None:
    from companion.vision.colour import pack_bgr
    from companion.vision.config import VisionConfig
    from companion.vision.hand import SkinColours, hand_check

    cfg = VisionConfig()
    pine = (95, 135, 190)  # a wooden table as skin-coloured as an arm
    pine_lab = tuple(float(v) for v in lab_of(pine)[0, 0])
    frame = np.empty((120, 160, 3), np.uint8)
    frame[:] = (200, 215, 222)  # the board, the right half
    frame[:, :80] = pine  # the table, the left half
    frame[40:52, 80:92] = pine  # a skin-coloured patch of print at the board's edge
    labels = np.zeros((120, 160), np.uint8)
    half = np.s_[::2, ::2]
    outside = np.zeros((60, 80), bool)
    outside[:, :40] = True
    hand_zone = area_zone = ~outside

    def check(table: tuple[tuple[float, float, float], ...]) -> str | None:
        skin = SkinColours(cfg, board=(), table=table).masks(pack_bgr(frame[half]), (0.0, 0.0))
        return hand_check(labels[half], skin, hand_zone, area_zone, outside, 9.0, cfg)

    # Not knowing the table's colour, the patch joined to the table reads as a hand reaching
    # in; the calibration's table colour is no forearm.
    assert check(()) is not None
    assert check((pine_lab,)) is None


def test_warm_light_is_taken_off_skin_by_the_markers_white() -> None:
    from companion.vision.hand import skin_mask, white_cast

    # Beige print under warm light falls in the skin box; the markers' paper shows the cast.
    print_warm = np.array([[[150, 141, 150]]], np.uint8)
    paper = np.zeros((8, 8, 3), np.uint8)
    paper[:] = (230, 138, 138)
    cast = white_cast(paper.reshape(-1, 3))
    assert cast == (10.0, 10.0)
    assert skin_mask(print_warm)[0, 0]
    assert not skin_mask(print_warm, cast)[0, 0]


@pytest.mark.parametrize("cast", [(0.0, 0.0), (9.5, -4.0)])
def test_skin_colours_are_the_skin_of_their_lab(cast: tuple[float, float]) -> None:
    from companion.vision.colour import pack_bgr
    from companion.vision.hand import SkinColours, board_print, near_print, skin_mask

    rng = np.random.default_rng(3)
    bgr = rng.integers(0, 256, (60, 80, 3), dtype=np.uint8)
    bgr[:20] = rng.integers((60, 100, 150), (140, 170, 240), (20, 80, 3))  # many skin tones
    lab = cv2.cvtColor(bgr, cv2.COLOR_BGR2Lab)
    board = (tuple(float(v) for v in lab[3, 5]),)  # one of them is the board's own colour
    skin = SkinColours(board=board)
    print_ = board_print(lab, board)
    assert print_[3, 5]
    for _ in range(2):  # colours first seen, then from the cache
        under_cast, neutral, off_print, _ = skin.masks(pack_bgr(bgr), cast, 230.0)
        assert np.array_equal(under_cast, skin_mask(lab, cast, paper=230.0) & ~print_)
        assert np.array_equal(neutral, skin_mask(lab))
        assert np.array_equal(off_print, skin_mask(lab) & ~near_print(lab, board, 22.0))
        assert under_cast.any() and off_print.any() and (neutral & ~off_print).any()
    warmer = (cast[0] + 6.0, cast[1] + 3.0)  # another cast: the box moves, the cache restarts
    want = skin_mask(lab, warmer, paper=200.0) & ~print_
    assert np.array_equal(skin.masks(pack_bgr(bgr), warmer, 200.0)[0], want)


def test_a_dark_skin_shows_less_of_the_cast_than_the_paper() -> None:
    from companion.vision.hand import skin_mask

    # Hard seed 19's pinkish light: the markers' paper (lightness 220) shows a cast of
    # (+11, -7); an arm in the shade (lightness 100) shows about half of it. Taking the
    # paper's whole cast off took the arm out of skin, and the frame was read.
    arm = np.array([[[100, 128 + 13, 128 + 20]]], np.uint8)
    cast = (11.0, -7.0)
    assert not skin_mask(arm, cast)[0, 0]
    assert skin_mask(arm, cast, paper=220.0)[0, 0]
    # At the paper's own lightness the whole cast comes off: a warm-lit beige is no skin.
    beige = np.array([[[220, 128 + 15, 128 + 12]]], np.uint8)
    assert skin_mask(beige, (0.0, 0.0))[0, 0]
    assert not skin_mask(beige, cast, paper=220.0)[0, 0]


def test_white_cast_percentiles_are_numpys() -> None:
    from companion.vision.local_print import percentile_u8 as _percentile

    rng = np.random.default_rng(1)
    for n in [1, 2, 3, 10, 11, 31, 100, 301, 1001]:  # (n - 1) * 0.7 whole and not
        values = rng.integers(int(rng.integers(0, 200)), 256, n).astype(np.uint8)
        hist = np.bincount(values, minlength=256)
        assert _percentile(hist, 70.0) == np.percentile(values, 70)
        assert _percentile(hist, 50.0) == np.median(values)


@pytest.mark.parametrize("cast", [(0.0, 0.0), (10.0, 10.0), (-3.5, 7.5), (40.0, -40.0)])
def test_skin_is_the_box_of_its_definition(cast: tuple[float, float]) -> None:
    from companion.vision.config import VisionConfig
    from companion.vision.hand import skin_mask

    cfg = VisionConfig()
    lab = np.stack(np.meshgrid(np.arange(256), np.arange(256), indexing="ij"), axis=-1)
    lab = np.concatenate([np.full((256, 256, 1), 60), lab], axis=-1).astype(np.uint8)
    lab[::2, :, 0] = 55  # half of them too dark
    a = lab[..., 1].astype(np.float64) - cast[0]
    b = lab[..., 2].astype(np.float64) - cast[1]
    want = (
        (a > cfg.skin_a[0]) & (a < cfg.skin_a[1]) & (b > cfg.skin_b[0]) & (b < cfg.skin_b[1])
    ) & (lab[..., 0] > cfg.skin_l)
    assert want.any()
    assert np.array_equal(skin_mask(lab, cast, cfg), want)


def test_a_cubes_blurred_edge_is_no_cube_of_another_colour() -> None:
    from companion.vision.fringe import drop_fringes

    mat = bgr_to_lab((150, 140, 130))
    model = nominal_model(["red", "pink"], background=(mat,))
    red = lab_of(NOMINAL_BGR["red"])[0, 0]
    lab = np.empty((20, 40, 3), np.uint8)
    lab[:] = np.array(mat, np.uint8)
    lab[5:15, 5:15] = red
    # Its edge: half red, half mat, labelled pink by the nearest colour.
    edge = ((np.array(red, np.float32) + np.array(mat, np.float32)) / 2).astype(np.uint8)
    lab[5:15, 15] = edge
    # A real pink cube further off.
    lab[5:15, 25:35] = lab_of(NOMINAL_BGR["pink"])[0, 0]
    labels = model.classify(lab)
    labels[5:15, 15] = model.label("pink")
    drop_fringes(labels, lab, model, ["red", "pink"], reach=2)
    assert (labels[5:15, 15] == BACKGROUND).all()
    assert (labels[5:15, 25:35] == model.label("pink")).all()
    assert (labels[5:15, 5:15] == model.label("red")).all()


def test_the_table_bent_inside_the_outline_is_no_print() -> None:
    from companion.vision.calibration import print_colours

    lab = np.full((200, 300, 3), (100, 134, 155), np.uint8)  # the table all round
    lab[30:170, 40:260] = (200, 128, 150)  # the board's beige frame, to its edge
    lab[60:140, 100:200] = (150, 140, 150)  # a peach region
    lab[30:170, 40:46] = lab[30:170, 254:260] = (100, 134, 155)  # the table inside the outline
    outline = np.zeros((200, 300), np.uint8)
    outline[30:170, 40:260] = 255
    mask = outline.copy()
    mask[40:60, 50:70] = 0  # a marker
    beige, peach, table = (200.0, 128.0, 150.0), (150.0, 140.0, 150.0), (100.0, 134.0, 155.0)
    assert print_colours(lab, mask, outline, [beige, peach, table], 15) == (beige, peach)
    # Only the board in view, no table round it: every colour is the board's.
    lab[:] = (200, 128, 150)
    assert print_colours(lab, mask, outline, [beige], 15) == (beige,)


@pytest.mark.parametrize(("right", "cubes"), [(36, 2), (29, 1)])
def test_a_black_tops_length_counts_when_its_darker_middles_leave_its_cells(
    right: int, cubes: int
) -> None:
    """A black top is its darkest face inside bright bevels: the lightness band round the
    commonest value, which blurred rims set, can leave its darker middle out (too large a hole
    to be noise, and no hole when it reaches the top's rim). Two touching cubes whose seam
    blur erased then show one notched top whose cells test finds no cell, but whose length
    (no blur halo to take off) is two cubes'; a lone top and its lit side, 1.4 sides long,
    stays one cube."""
    side = 12.0
    mask = np.zeros((40, 60), np.uint8)
    mask[11:23, 11 : right + 1] = 255
    light = np.full(mask.shape, 60, np.uint8)  # bevels and sides: brighter
    light[12:22, 12:right] = 30  # the tops, merged
    for x in range(12, right - 6, 14):
        light[12:20, x + 2 : x + 8] = 12  # each top's darker middle, open to its rim
    stack = np.vstack([np.zeros((1, 60), np.uint8), mask, np.zeros((1, 60), np.uint8)])
    lightness = np.vstack([light[:1], light, light[:1]])
    (patches,) = measure_planes(stack, 1, side * side, side, lightness, raw=stack, dark_planes=(0,))
    (top,) = patches[0].tops
    assert top.cells == 1  # (the cells test alone)
    assert sum(b.cubes for b in count_patches(patches, 0.75, black=True)) == cubes


def test_a_black_tops_darker_middle_ringed_whole_by_its_top_is_filled() -> None:
    """The band round a black cluster's commonest lightness (its blurred rims') can leave a
    top's darker middle out, far larger than a noise hole: ringed whole by the top, it is
    filled as one (a shadow lies outside the piece and is never ringed), and each of two
    touching cubes shows a whole top again."""
    mask = np.zeros((40, 60), np.uint8)
    mask[10:26, 10:42] = 255  # two 16 px cubes side by side
    light = np.full(mask.shape, 60, np.uint8)  # rims and the seam: brighter
    light[11:25, 11:25] = 30
    light[11:25, 27:41] = 30
    light[14:22, 14:22] = 12  # each top's darker middle, out of the band
    light[14:22, 30:38] = 12
    stack = np.vstack([np.zeros((1, 60), np.uint8), mask, np.zeros((1, 60), np.uint8)])
    lightness = np.vstack([light[:1], light, light[:1]])
    footprint, side = 150.0, 12.0
    noise_only = replace(DEFAULT_CONFIG, black_top_hole=0.1)
    rings, filled = (
        measure_planes(stack, 1, footprint, side, lightness, raw=stack, dark_planes=(0,), config=c)[
            0
        ]
        for c in (noise_only, DEFAULT_CONFIG)
    )
    thin = DEFAULT_CONFIG.min_top_thickness * side
    assert all(t.thick < thin for t in rings[0].tops)  # (holes of noise's size only)
    assert [len(p.tops) for p in filled] == [2]
    assert all(t.thick >= thin for t in filled[0].tops)
    assert sum(b.cubes for b in count_patches(filled, 0.7, black=True)) == 2


def _black_patch(comp: np.ndarray, area: float, *tops: Top) -> Patch:
    h, w = comp.shape
    return Patch(area, (w / 2, h / 2), (0, 0, w, h), SIDE * SIDE, SIDE, comp, tops)


def test_a_frayed_black_pairs_narrow_top_counts_by_its_length_a_wider_one_by_its_area() -> None:
    """As measured on hard rendered El Grande tables (seeds 100-159): noise frays a black
    pair's band of lightness into a ring or a comb filling 0.34-0.47 of its rectangle, so its
    area says one cube; but its rectangle, 1.66-2.25 sides long and 1.0-1.26 wide, is a row's.
    A ragged top as wide as a block is not a row; beside another whole top in its patch, a long
    ragged top may be a cube and its neighbour's rim."""
    ring = np.zeros((12, 23), np.uint8)  # the frayed band: a thin ring, no pair by its extent
    ring[1:11, 1:22] = 1
    ring[3:9, 3:20] = 0
    unit = 0.6 * SIDE * SIDE
    pair = Top(0.4 * 21 * 10.5, 2.5, 11.0, 6.0, 21.0, 10.5, 1)
    block = Top(0.4 * 21 * 10.5, 2.5, 11.0, 6.0, 21.0, 16.0, 1)
    lone = Top(0.9 * unit, 3.5, 4.0, 6.0, 8.0, 8.0, 1)
    assert pair.area / unit < 1.1 * 1.5  # (by its area: one cube)
    for tops, cubes in (((pair,), 2), ((block,), 1), ((pair, lone), 2)):
        patch = _black_patch(ring, 1.6 * unit, *tops)
        assert sum(b.cubes for b in count_patches([patch], 0.6, black=True)) == cubes, tops


def test_faint_patches_are_kept_as_by_opening_the_whole_mask() -> None:
    """keep_faint opens only the boxes that can hold a square: the same labels as opening the
    whole faint mask (even squares and patches at the image's edge too)."""
    from companion.vision.colour import FAINT, keep_faint, opened_by

    def whole(labels: np.ndarray, pieces: int, width: int) -> None:
        faint = cv2.inRange(labels, FAINT + 1, FAINT + pieces)
        kept = opened_by(faint, np.ones((width, width), np.uint8))
        labels[(faint > 0) & (kept == 0)] = UNKNOWN
        labels[kept > 0] &= FAINT - 1

    rng = np.random.default_rng(7)
    values = np.array([0, 1, 2, 3, UNKNOWN, FAINT | 1, FAINT | 2, FAINT | 3], np.uint8)
    kept_some = 0
    for _ in range(400):
        h, w = (int(v) for v in rng.integers(1, 40, 2))
        labels = rng.choice(values, size=(h, w), p=[0.1, 0.1, 0.05, 0.05, 0.1, 0.2, 0.2, 0.2])
        for _ in range(int(rng.integers(0, 5))):  # patches, some running off the image
            y, x = int(rng.integers(0, h)), int(rng.integers(0, w))
            labels[y : y + int(rng.integers(1, 9)), x : x + int(rng.integers(1, 9))] = FAINT | 2
        pieces, width = int(rng.integers(1, 4)), int(rng.integers(1, 7))
        want, got = labels.copy(), labels.copy()
        whole(want, pieces, width)
        keep_faint(got, pieces, width)
        assert np.array_equal(got, want), (pieces, width, labels)
        kept_some += int(((labels > FAINT) & (got < FAINT)).any())
    assert kept_some > 50  # (patches kept as well as halos dropped)


def test_a_faint_patch_is_kept_where_it_lies_whatever_the_square() -> None:
    """A faint square as wide as the opening's, odd or even, is kept whole and in place (an
    opening that dilates with its erosion's anchor shifts it a pixel with an even square)."""
    from companion.vision.colour import FAINT, keep_faint

    for width in (2, 3, 4, 5, 6):
        labels = np.full((20, 20), UNKNOWN, np.uint8)
        labels[6 : 6 + width, 7 : 7 + width] = FAINT | 2
        labels[15, 2:18] = FAINT | 1  # a halo one pixel thick
        want = np.full((20, 20), UNKNOWN, np.uint8)
        want[6 : 6 + width, 7 : 7 + width] = 2
        keep_faint(labels, 3, width)
        assert np.array_equal(labels, want), width


def test_a_glared_cubes_whole_top_is_its_colour_but_a_vivid_cubes_halo_is_not() -> None:
    from companion.vision.colour import FAINT, keep_faint

    # Carolus pink as a calibration sampled it (chroma ~54) and its cube under glare, pink's
    # hue at chroma ~29 (hard seed 141 t09, t11): under 0.6 of pink's chroma.
    pink = (168.0, 181.0, 118.0)
    glared = (180, 157, 122)
    mat = (101.0, 127.0, 127.0)
    model = ColourModel({"pink": (pink,)}, background=(mat,), faint_chroma=25.0)
    code = model.label("pink")
    lab = np.empty((20, 40, 3), np.uint8)
    lab[:] = np.array(mat, np.uint8)
    lab[4:12, 4:12] = glared  # a whole top, eight pixels a side
    lab[4:12, 20:28] = np.array(pink, np.uint8)  # a vivid top ...
    lab[3, 19:29] = lab[12, 19:29] = lab[4:12, 19] = lab[4:12, 28] = glared  # ... and its halo
    assert (model.classify(lab)[4:12, 4:12] == UNKNOWN).all()  # not the colour by itself
    labels = model.classify(lab, faint=True)
    assert (labels[4:12, 4:12] == FAINT | code).all()
    keep_faint(labels, len(model.names), 3)
    assert (labels[4:12, 4:12] == code).all()
    assert (labels[4:12, 20:28] == code).all()
    assert (labels[3, 19:29] == UNKNOWN).all() and (labels[4:12, 19] == UNKNOWN).all()
    # Duller still (chroma ~20, within pink's reach): no piece, faint or not.
    assert model.classify(np.array([[[168, 147, 123]]], np.uint8), faint=True)[0, 0] == UNKNOWN
    # The same pixels from BGR: faint only when asked for.
    bgr = cv2.cvtColor(lab, cv2.COLOR_Lab2BGR)
    assert (model.classify_bgr(bgr)[4:12, 4:12] == UNKNOWN).all()
    faint = model.classify_packed(pack_bgr(bgr), faint=True)
    assert (faint[4:12, 4:12] == FAINT | code).all()


def test_a_big_cluster_of_print_near_a_piece_colour_is_the_boards() -> None:
    """calibration.board_colours: a colour holding 10 % of the board is print even 24 from a
    piece's blue (a dark frame's sea); a small patch at the blue itself (a cube) is no board
    colour, and neither is dark print near black however much of it there is."""
    from companion.vision.calibration import board_colours
    from companion.vision.colour import lab_distance

    lab = np.full((200, 200, 3), (180, 128, 140), np.uint8)  # beige print
    lab[:20] = (127, 127, 110)  # the sea: 10 %
    lab[20:40] = (40, 130, 130)  # dark print lines: 10 %, near black
    lab[100:103, 100:103] = (87, 133, 98)  # a blue cube's few pixels
    pieces = {"blue": ((87.0, 133.0, 98.0),), "black": ((35.0, 128.0, 128.0),)}
    mask = np.full((200, 200), 255, np.uint8)
    refs = board_colours(lab, mask, pieces, piece_distance=30.4)

    def near(colour: tuple[float, float, float]) -> bool:
        return any(lab_distance(ref, colour) < 5 for ref in refs)

    assert near((127, 127, 110)) and near((180, 128, 140))
    assert not near((40, 130, 130)) and not near((87, 133, 98))
    assert not any(
        lab_distance(ref, (127, 127, 110)) < 5
        for ref in board_colours(lab, mask, pieces, piece_distance=30.4, print_share=0.2)
    )
