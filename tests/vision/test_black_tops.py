"""El Grande's black tops on the mended speck opening (session 8): a black cube joined to a
print line, a lone cube's ragged band."""

from __future__ import annotations

from dataclasses import replace

import numpy as np

from companion.vision.config import DEFAULT_CONFIG, VisionConfig
from companion.vision.cubes import Patch, Top, count_patches, measure_planes

SIDE = 12.0  # px, a cube's side where the painted cube stands
FOOTPRINT = 110.0  # px, its top's area


def _cube_and_line(config: VisionConfig, above: int = 0) -> int:
    """Cubes read from one black patch: a 14 px cube (a dark top inside brighter bevels)
    joined to a print line 3 px thick and 100 long, darker still, whose pixels outnumber the
    top's (as held-out seed 12's cube at a region's border). ``above``: empty colour planes
    stacked before the black one (a read measures all colours as planes of one image)."""
    mask = np.zeros((30, 130), np.uint8)
    light = np.full(mask.shape, 200, np.uint8)
    mask[8:22, 8:22] = 255
    light[8:22, 8:22] = 60  # bevels and rims
    light[10:20, 10:20] = 30  # the top
    mask[14:17, 22:122] = 255
    light[14:17, 22:122] = 12  # the line
    black = np.vstack([np.zeros((1, 130), np.uint8), mask, np.zeros((1, 130), np.uint8)])
    stack = np.vstack([np.zeros_like(black)] * above + [black])
    lightness = np.vstack([light[:1], light, light[:1]])
    patches = measure_planes(
        stack, above + 1, FOOTPRINT, SIDE, lightness, raw=stack, dark_planes=(above,), config=config
    )[above]
    return sum(b.cubes for b in count_patches(patches, 1.0, config, black=True))


def test_a_black_cubes_top_is_read_from_its_thick_pixels_not_a_line_joined_to_it() -> None:
    assert _cube_and_line(DEFAULT_CONFIG) == 1
    # (From the whole patch's lightness, the line's: no top, and the line's area 2 cubes.)
    assert _cube_and_line(replace(DEFAULT_CONFIG, black_mode_depth=0.0)) == 2
    # The black plane below others: its pixels' depths taken from its own plane.
    assert _cube_and_line(DEFAULT_CONFIG, above=2) == 1
    assert _cube_and_line(replace(DEFAULT_CONFIG, black_mode_depth=0.0), above=2) == 2


def test_a_lone_black_cubes_ragged_band_reads_one_cube() -> None:
    """As measured on hard rendered El Grande tables (seed 133 court_4, mended opening): a
    lone black cube's band, frayed and taking in its rims, fills under half its rectangle
    (1.55 x 1.45 sides) and covers 1.75 cube tops: one cube at black_ragged_top_cubes, two at
    the other colours' merged_top_cubes."""
    unit = 0.62 * SIDE * SIDE  # (factor 0.62, as on that table)
    comp = np.zeros((20, 20), np.uint8)
    comp[1:19, 1:19] = 1
    band = Top(1.75 * unit, 0.42 * SIDE, 10.0, 10.0, 1.55 * SIDE, 1.45 * SIDE, 1)
    assert band.area < DEFAULT_CONFIG.top_min_fill * band.length * band.width  # (ragged)
    patch = Patch(1.83 * unit, (10.0, 10.0), (0, 0, 20, 20), SIDE * SIDE, SIDE, comp, (band,))

    def read(config: VisionConfig) -> int:
        return sum(b.cubes for b in count_patches([patch], 0.62, config, black=True))

    assert read(DEFAULT_CONFIG) == 1
    merged = DEFAULT_CONFIG.merged_top_cubes
    assert read(replace(DEFAULT_CONFIG, black_ragged_top_cubes=merged)) == 2
