"""Clusters of cubes pushed together at different turns (El Grande's courts): their tops
merged by blur, counted from the shape and the area grown back by the band blur ate."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from companion.vision.cubes import count_patches, grown_cubes, measure

SIDE = 12.0
FOOTPRINT = SIDE * SIDE

# (x, y, turn in degrees) of each cube's top, pixels: clusters grown cube by cube, each next
# to one already there at its own turn, as the renderer pushes cubes together.
SIX = [(80, 80, 13), (80.4, 94.1, 9), (92.3, 95.8, 8), (93.3, 107.8, 16), (94.2, 79.2, 8),
       (106.6, 77.9, 17)]  # fmt: skip
SEVEN = [(80, 80, 67), (93.3, 78.4, 15), (92.2, 65.3, 6), (105.1, 80, 7), (106.3, 93.3, 14),
         (93.3, 91.1, 12), (105, 106.9, 17)]  # fmt: skip


def cluster(cubes: list[tuple[float, float, float]], band: float) -> tuple[np.ndarray, np.ndarray]:
    """(mask, lightness) of cubes' tops with a darker rim of sides round them, blur having
    eaten a band ``band`` pixels wide round the tops (the seams between them gone)."""
    big = 4  # drawn 4x larger, then shrunk: smooth edges at any turn
    tops = np.zeros((160 * big, 160 * big), np.uint8)
    for x, y, turn in cubes:
        box = ((x * big, y * big), (SIDE * big, SIDE * big), turn)
        cv2.fillPoly(tops, [np.round(cv2.boxPoints(box)).astype(np.int32)], 1)
    small = cv2.resize(tops.astype(np.float32), (160, 160), interpolation=cv2.INTER_AREA) > 0.5
    body = cv2.dilate(small.astype(np.uint8), np.ones((3, 3), np.uint8))
    seen = cv2.distanceTransform(small.astype(np.uint8), cv2.DIST_L2, 3) > band
    light = 60.0 * body + 130.0 * seen
    return body * np.uint8(255), np.clip(light, 0, 255).astype(np.uint8)


def unit_of(band: float) -> float:
    """A lone cube's top area as the frame shows it (what footprint_factor measures)."""
    mask, light = cluster([(80, 80, 10)], band)
    (patch,) = measure(mask, FOOTPRINT, SIDE, light)
    return patch.tops[0].area


@pytest.mark.parametrize("cubes", [SIX, SEVEN])
def test_a_blurred_cluster_counts_its_cubes(cubes: list[tuple[float, float, float]]) -> None:
    # Blur eats a band 2 px wide round every top: a lone top keeps under half the model's
    # square, a merged top of several cubes much more of its own. Over the lone top's area
    # these clusters read a cube short or over (6 -> 5: a bent top whose cells miss; 7 -> 8:
    # a ragged one counted by area).
    band = 2.0
    unit = unit_of(band)
    mask, light = cluster(cubes, band)
    patches = measure(mask, FOOTPRINT, SIDE, light)
    blobs = count_patches(patches, unit / FOOTPRINT, clusters=True)
    assert sum(b.cubes for b in blobs) == len(cubes)


@pytest.mark.parametrize("band", [1.0, 2.0])
def test_a_merged_top_grown_back_reads_its_cubes(band: float) -> None:
    # Four cubes in a block at 45 degrees, their seams gone: over a lone top's area it reads
    # 5.0 (a 1 px band) and 6.7 (2 px); grown back by the band, 4.2 and 4.3.
    d = SIDE / 2**0.5
    block = [(80, 80, 45), (80 + d, 80 + d, 45), (80 + d, 80 - d, 45), (80 + 2 * d, 80, 45)]
    unit = unit_of(band)
    (patch,) = measure(*cluster(block, band)[:1], FOOTPRINT, SIDE, cluster(block, band)[1])
    assert patch.tops[0].outline == 0.0  # (measured when asked: cubes.PackedTops)
    (top,) = patch.measured().tops
    assert top.outline > 4 * SIDE
    assert round(top.area / unit) > 4
    assert round(grown_cubes(top, unit, FOOTPRINT)) == 4


def test_a_lone_top_grown_back_is_one_model_top() -> None:
    for band in (0.5, 1.0, 2.0):
        mask, light = cluster([(80, 80, 30)], band)
        (patch,) = measure(mask, FOOTPRINT, SIDE, light)
        (blob,) = count_patches([patch], unit_of(band) / FOOTPRINT, clusters=True)
        assert blob.cubes == 1
