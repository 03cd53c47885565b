"""The stacked-cube measure (stacks.py): a cube's side band against one cube's parallax."""

from __future__ import annotations

import math
from dataclasses import replace

import cv2
import numpy as np
import pytest

from benchmarks.bench_vision import POSITIONS, calibrated
from companion.vision.colour import BACKGROUND, UNKNOWN
from companion.vision.config import DEFAULT_CONFIG, VisionConfig
from companion.vision.cubes import Labelled, Patch, Top
from companion.vision.layout import load_layout
from companion.vision.pipeline import Reader
from companion.vision.stacks import Band, band_ratio, probable_stack
from companion.vision.synth import HARD, render

BLUE, RED = 3, 4
SIDE = 12.0
CENTRE = (60.0, 60.0)


def square(turn: float, shift: tuple[float, float] = (0.0, 0.0)) -> np.ndarray:
    a = math.radians(turn)
    c, s, h = math.cos(a), math.sin(a), SIDE / 2
    return np.array(
        [
            (CENTRE[0] + shift[0] + c * dx - s * dy, CENTRE[1] + shift[1] + s * dx + c * dy)
            for dx, dy in ((-h, -h), (h, -h), (h, h), (-h, h))
        ]
    )


def cube(
    band: float, towards: float, turn: float, beyond: int = 0
) -> tuple[Patch, np.ndarray, tuple[float, float]]:
    """A blue top seen from above with its dark sides (UNKNOWN) showing ``band`` px towards
    ``towards`` (degrees), as the labels show them; ``beyond``: the radius of a red piece
    at the band's end. Returns the top's patch, the labels and the top's point."""
    labels = np.full((120, 120), BACKGROUND, np.uint8)
    ux, uy = math.cos(math.radians(towards)), math.sin(math.radians(towards))
    sides = np.zeros(labels.shape, np.uint8)
    for t in np.linspace(0, band, 40):
        pts = square(turn, (ux * t, uy * t))
        cv2.fillConvexPoly(sides, np.round(pts * 16).astype(np.int32), 1, shift=4)
    labels[sides > 0] = UNKNOWN
    top = np.zeros(labels.shape, np.uint8)
    cv2.fillConvexPoly(top, np.round(square(turn) * 16).astype(np.int32), 1, shift=4)
    labels[top > 0] = BLUE
    if beyond:
        reach = band + SIDE / 2 + beyond / 2
        far = CENTRE[0] + ux * reach, CENTRE[1] + uy * reach
        cv2.circle(labels, (round(far[0]), round(far[1])), beyond, RED, -1)
    ys, xs = np.nonzero(top)
    box = (int(ys.min()), int(ys.max()), int(xs.min()), int(xs.max()))
    patch = Patch(
        area=float(top.sum()),
        centroid=(float(xs.mean()), float(ys.mean())),
        bbox=(box[2], box[0], box[3] - box[2] + 1, box[1] - box[0] + 1),
        footprint=SIDE * SIDE,
        side=SIDE,
        pixels=Labelled(top.astype(np.int32), 1, box),
        tops=(Top(float(top.sum()), SIDE / 2, *CENTRE, SIDE, SIDE, 1),),
    )
    return patch, labels, CENTRE


@pytest.mark.parametrize("turn", [0.0, 20.0, 45.0])
@pytest.mark.parametrize("towards", [0.0, 120.0, 250.0])
def test_one_cube_measures_one_parallax_and_two_stacked_two(turn: float, towards: float) -> None:
    parallax = 5.0  # px: about 0.4 of a side, as off the nadir of a hard camera
    foot_at = (
        CENTRE[0] + parallax * math.cos(math.radians(towards)),
        CENTRE[1] + parallax * math.sin(math.radians(towards)),
    )
    one, labels, top = cube(parallax, towards, turn)
    ratio = band_ratio(one, top, foot_at, labels, BLUE)
    assert ratio == pytest.approx(1.0, abs=0.35)
    two, labels, top = cube(2 * parallax, towards, turn)
    stacked = band_ratio(two, top, foot_at, labels, BLUE)
    assert stacked == pytest.approx(2.0, abs=0.35)
    # The measure is along the nadir's direction: a band the other way is no band.
    away, labels, top = cube(2 * parallax, towards + 180.0, turn)
    other = band_ratio(away, top, foot_at, labels, BLUE)
    assert other is not None and other < 0.5


def test_a_band_that_runs_into_another_piece_is_not_told() -> None:
    patch, labels, top = cube(10.0, 0.0, 10.0, beyond=4)
    # (The red piece touches the band's end.)
    assert band_ratio(patch, top, (65.0, 60.0), labels, BLUE) is None
    patch, labels, top = cube(10.0, 0.0, 10.0)
    assert band_ratio(patch, top, (65.0, 60.0), labels, BLUE) is not None


def test_a_stack_is_flagged_only_where_the_parallax_tells() -> None:
    cfg = DEFAULT_CONFIG
    tall = Band("blue", (0.0, 0.0), parallax=cfg.stack_min_parallax + 0.1, ratio=2.0)
    assert probable_stack(tall, cfg)
    assert not probable_stack(replace(tall, ratio=1.0), cfg)
    # Near the nadir a ratio of 2 is two short bands, too short to tell one cube from two.
    assert not probable_stack(replace(tall, parallax=cfg.stack_min_parallax / 2), cfg)


def test_a_rendered_stack_is_flagged_where_it_stands_and_plain_frames_are_not() -> None:
    """Hard El Grande seed 119 with stacks: a yellow cube on another, well off the nadir
    (parallax 0.59 sides, band 1.87 parallaxes when fitted), is flagged in its region; the
    same table without stacks is not; and the flag is off unless asked for."""
    layout = load_layout("el-grande")
    setup, position = POSITIONS["el-grande"](119)
    calibration = calibrated(layout, setup, 119, HARD)
    on = replace(DEFAULT_CONFIG, stack_flag=True)

    def stack_flags(image: np.ndarray, config: VisionConfig) -> dict[str, list[str]]:
        with Reader(calibration, layout, config) as reader:
            obs = reader.read(image)
        return {
            place: [m for m in msgs if "stacked on another?" in m]
            for place, msgs in obs.flags.items()
            if any("stacked on another?" in m for m in msgs)
        }

    image, truth = render(position, layout, seed=119, conditions=replace(HARD, stacked=0.15))
    flagged = stack_flags(image, on)
    assert flagged, "the stacked yellow cube was not flagged"
    stacked = {(c["area"], c["colour"]) for c in truth["cubes"] if c.get("stacked")}
    for place, msgs in flagged.items():
        for msg in msgs:
            assert (place, msg.split(":")[0]) in stacked, (place, msg)
    assert any(m == "yellow: a cube stacked on another?" for ms in flagged.values() for m in ms)
    assert stack_flags(image, DEFAULT_CONFIG) == {}
    plain, _ = render(position, layout, seed=119, conditions=HARD)
    assert stack_flags(plain, on) == {}
