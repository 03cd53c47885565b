"""A top's bright centres (cubes.top_peaks): each cube's top is lightest at its middle, so the
cubes under one merged top show a peak each where its cells (cubes.top_shape) miss some."""

from __future__ import annotations

import math

import numpy as np
import pytest

from companion.vision.config import DEFAULT_CONFIG
from companion.vision.cubes import top_peaks, top_shape

SIDE = 10.0
H = math.sqrt(0.5)


def painted(centres: list[tuple[float, float]], turn: float = 45.0) -> tuple[np.ndarray, ...]:
    """A merged top of cubes at ``centres`` (in sides), each turned ``turn`` degrees, touching
    where they meet: its pixels in its box and their lightness, each cube's lightest at its
    middle and ~30 L units darker at its corners (as blur leaves a rendered top)."""
    a = math.radians(turn)
    c, s = math.cos(a), math.sin(a)
    size = int(6 * SIDE)
    yy, xx = np.mgrid[0:size, 0:size].astype(np.float32)
    part = np.zeros((size, size), np.uint8)
    shade = np.zeros((size, size), np.float32)
    for x, y in centres:
        x, y = (x + 1.5) * SIDE, (y + 1.5) * SIDE
        u, v = (xx - x) * c + (yy - y) * s, -(xx - x) * s + (yy - y) * c
        inside = (np.abs(u) <= SIDE / 2 - 0.5) & (np.abs(v) <= SIDE / 2 - 0.5)
        part[inside] = 1
        dome = 90.0 - 30.0 * (u * u + v * v) / (SIDE * SIDE)
        shade[inside] = np.maximum(shade[inside], dome[inside])
    ys, xs = np.nonzero(part)
    box = (slice(ys.min(), ys.max() + 1), slice(xs.min(), xs.max() + 1))
    return np.ascontiguousarray(part[box]), np.ascontiguousarray(shade[box])


@pytest.mark.parametrize(
    ("centres", "cubes"),
    [
        ([(0.0, 0.0)], 1),
        ([(0.0, 0.0), (2 * H, 0.0)], 2),  # a pair along a diagonal
        ([(0.0, 0.0), (2 * H, 0.0), (H, H)], 3),  # an L of three
        ([(0.0, 0.0), (2 * H, 0.0), (H, H), (2 * H, 2 * H)], 4),
    ],
)
def test_a_tops_peaks_are_its_cubes(centres: list[tuple[float, float]], cubes: int) -> None:
    part, shade = painted(centres)
    assert top_peaks(part, shade, SIDE, DEFAULT_CONFIG) == cubes


def test_four_cubes_at_a_turn_whose_cells_miss_two_show_four_peaks() -> None:
    # Four cubes pushed together at a turn, one between the other three (a Y): the cell grid
    # of their rectangle holds two of them at its cells' centres (as bench seeds 5 and 10's
    # blocks read three cells of four); each still has its lightest middle.
    part, shade = painted([(0.0, 0.0), (2 * H, 0.0), (H, H), (H, 3 * H)])
    assert top_shape(part, SIDE, DEFAULT_CONFIG)[2] == 2
    assert top_peaks(part, shade, SIDE, DEFAULT_CONFIG) == 4


def test_a_flat_or_noisy_lone_top_is_one_peak() -> None:
    part, shade = painted([(0.0, 0.0)], turn=20.0)
    # A top of one lightness (glare's clipped white): one plateau.
    flat = np.where(part > 0, 250.0, 0.0).astype(np.float32)
    assert top_peaks(part, flat, SIDE, DEFAULT_CONFIG) == 1
    # Sensor noise (a few L units) on a cube's domed top: smoothed over a third of a side, it
    # leaves one peak.
    for seed in range(5):
        noise = np.random.default_rng(seed).normal(0.0, 3.0, shade.shape).astype(np.float32)
        assert top_peaks(part, shade + noise * part, SIDE, DEFAULT_CONFIG) == 1
