"""A lone cube measured in the full-resolution frame (cube_windows.py), on drawn cubes: a cube's
top, its sides towards the point under the camera, and what a stack or a lean changes."""

from __future__ import annotations

import math
from dataclasses import replace

import cv2
import numpy as np
import pytest

from companion.vision.config import DEFAULT_CONFIG
from companion.vision.cube_windows import Seen, View, classes, cut, measure

SIDE = 20.0  # px, and mm: the drawn board is the image (1 px = 1 mm)
BOARD = (175, 215, 230)  # BGR: beige print
TOP = (190, 70, 25)  # a blue cube's lit top
SIDES = (105, 40, 15)  # its sides, the same hue darker
CENTRE = (60.0, 60.0)
ZOOM = 8  # drawn this much finer, then binned: edges fall between pixels, as a camera's do


def quad(centre: tuple[float, float], along: float, across: float, turn: float) -> np.ndarray:
    """A rectangle ``along`` long in the direction ``turn`` (degrees), ``across`` wide."""
    a = math.radians(turn)
    c, s = math.cos(a), math.sin(a)
    return np.array(
        [
            (centre[0] + c * dx - s * dy, centre[1] + s * dx + c * dy)
            for dx, dy in (
                (-along / 2, -across / 2),
                (along / 2, -across / 2),
                (along / 2, across / 2),
                (-along / 2, across / 2),
            )
        ]
    )


def paint(
    top: np.ndarray, bodies: list[np.ndarray], size: int = 120, blur: float = 0.8
) -> np.ndarray:
    """The board with the cube's sides (each of ``bodies`` a polygon in the sides' colour)
    under its top, drawn fine, binned to pixels and blurred a little, as a lens does."""
    big = np.zeros((size * ZOOM, size * ZOOM, 3), np.uint8)
    big[:] = BOARD
    for body in bodies:
        hull = cv2.convexHull(np.round(body * ZOOM).astype(np.int32))
        cv2.fillConvexPoly(big, hull, SIDES)
    cv2.fillConvexPoly(big, np.round(top * ZOOM).astype(np.int32), TOP)
    small = cv2.resize(big, (size, size), interpolation=cv2.INTER_AREA)
    return cv2.GaussianBlur(small, (0, 0), blur)


def flat_cube(parallax: float, towards: float, turn: float, high: int = 1) -> np.ndarray:
    """A cube (``high`` 2: two stacked) seen from above off the nadir: its top shows at CENTRE,
    its sides reach ``high`` parallaxes towards ``towards`` (degrees), where its foot shows."""
    top = quad(CENTRE, SIDE, SIDE, turn)
    ux, uy = math.cos(math.radians(towards)), math.sin(math.radians(towards))
    foot = top + high * parallax * np.array([ux, uy])
    return paint(top, [np.vstack([top, foot])])


def leaning_cube(lean: float, turn: float) -> np.ndarray:
    """A cube leaning ``lean`` degrees towards ``turn`` seen straight from above: its top
    shorter by the lean's cosine that way, the side it tips away from showing behind it."""
    short = SIDE * math.cos(math.radians(lean))
    top = quad(CENTRE, short, SIDE, turn)
    a = math.radians(turn)
    behind = SIDE * math.sin(math.radians(lean))
    back = (
        CENTRE[0] - (short + behind) / 2 * math.cos(a),
        CENTRE[1] - (short + behind) / 2 * math.sin(a),
    )
    return paint(top, [quad(back, behind, SIDE, turn)])


def seen_of(image: np.ndarray, parallax: float, towards: float, lean: bool = True) -> Seen:
    ux, uy = math.cos(math.radians(towards)), math.sin(math.radians(towards))
    foot = (CENTRE[0] + parallax * ux, CENTRE[1] + parallax * uy)
    view = View("blue", (0.0, 0.0), CENTRE, foot, SIDE)
    board = lambda pts: np.asarray(pts, np.float64)  # noqa: E731
    (seen,) = measure([view], image, board, replace(DEFAULT_CONFIG, tilt_flag=lean))
    return seen


@pytest.mark.parametrize("turn", [0.0, 25.0, 45.0, 100.0])
def test_a_flat_top_measures_a_square_and_a_leaning_one_shorter_by_its_cosine(turn: float) -> None:
    flat = seen_of(flat_cube(6.0, turn + 70.0, turn), 6.0, turn + 70.0)
    # (The watershed's line round the top is no part of it: about a pixel less each side.)
    assert flat.major == pytest.approx(SIDE, rel=0.12)
    assert flat.minor / flat.major > 0.92
    for lean in (20.0, 35.0):
        # (The nadir beside it, so the side it shows is not towards the nadir.)
        leaning = seen_of(leaning_cube(lean, turn), 2.0, turn + 90.0)
        assert leaning.major == pytest.approx(flat.major, rel=0.08)
        # (Its edges drawn on pixels, at 45° too: some hundredths either way.)
        assert leaning.minor / leaning.major == pytest.approx(
            math.cos(math.radians(lean)), abs=0.07
        )


@pytest.mark.parametrize("towards", [0.0, 135.0, 250.0])
def test_one_cube_shows_one_parallax_of_sides_towards_the_nadir_and_a_stack_two(
    towards: float,
) -> None:
    parallax = 7.0  # px: 0.35 of a side, as off the nadir of a hard camera
    one = seen_of(flat_cube(parallax, towards, 10.0), parallax, towards)
    two = seen_of(flat_cube(parallax, towards, 10.0, high=2), parallax, towards)
    assert one.parallax == pytest.approx(parallax / SIDE)
    assert one.band == pytest.approx(1.0, abs=0.25)
    assert two.band == pytest.approx(2.0, abs=0.3)
    # A flat cube shows no side away from the nadir, nor much across it (a turned top swept
    # aslant reaches a little past itself on lines across its middle: a tenth of a side here).
    for cube in (one, two):
        assert cube.away < 0.05
        assert cube.across < 0.15


def test_without_a_lean_asked_for_only_the_shade_towards_the_nadir_is_measured() -> None:
    image = flat_cube(7.0, 30.0, 10.0, high=2)
    every, stack = seen_of(image, 7.0, 30.0), seen_of(image, 7.0, 30.0, lean=False)
    assert stack.told and stack.band == every.band and stack.away == every.away
    assert every.major > 0 and every.minor > 0
    assert stack.major == stack.minor == stack.across == 0


def test_a_leaning_cube_shows_a_side_where_a_flat_one_shows_none() -> None:
    leaning = seen_of(leaning_cube(30.0, 0.0), 3.0, 90.0)
    # Its side shows behind it (towards 180°), across the nadir's direction (90°).
    assert leaning.across == pytest.approx(SIDE * math.sin(math.radians(30.0)) / SIDE, abs=0.1)
    assert leaning.away < 0.1


def test_the_top_and_its_shade_are_classed_by_the_top_colour() -> None:
    image = flat_cube(6.0, 0.0, 0.0)
    found = classes(image, CENTRE, SIDE, DEFAULT_CONFIG)
    assert found is not None
    # The top about its drawn square, the shade the top and its sides, not the board.
    # (Less the watershed's line round each: about a pixel a side.)
    assert found.top.sum() == pytest.approx(SIDE * SIDE, rel=0.2)
    assert found.shade.sum() == pytest.approx(SIDE * (SIDE + 6.0), rel=0.2)
    assert not found.shade[:, :30].any() and not found.shade[:30].any()
    # A grey top (a black cube's) has no hue to class its sides by.
    grey = cv2.cvtColor(cv2.cvtColor(image, cv2.COLOR_BGR2GRAY), cv2.COLOR_GRAY2BGR)
    assert classes(grey, CENTRE, SIDE, DEFAULT_CONFIG) is None


def test_a_window_is_cut_round_its_points_and_clipped_to_the_frame() -> None:
    frame = np.arange(50 * 40 * 3, dtype=np.uint32).reshape(50, 40, 3).astype(np.uint8)
    window, origin = cut(frame, [(10.5, 20.0)], 5.0)
    assert origin == (5, 15) and window.shape[:2] == (11, 12)
    assert (window == frame[15:26, 5:17]).all()
    window, origin = cut(frame, [(2.0, 47.0)], 5.0)
    assert origin == (0, 42) and window.shape[:2] == (8, 8)
    # Round two points: the box holding both.
    window, origin = cut(frame, [(10.0, 20.0), (20.0, 12.0)], 2.0)
    assert origin == (8, 10) and window.shape[:2] == (13, 15)
