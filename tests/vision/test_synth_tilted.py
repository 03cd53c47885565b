"""Tilted cubes on the synthetic table (issue #4): a leaning cube is drawn leaning (its top
foreshortened along the lean, lit otherwise), its truth says so, and renders without tilts are
the renders they always were."""

from __future__ import annotations

import math
from dataclasses import replace

import cv2
import numpy as np
import pytest

from companion.vision.errors import RenderError
from companion.vision.synth import EASY, HARD, Conditions, render
from companion.vision.synth.camera import Camera
from companion.vision.synth.pieces import _box_points, draw_pieces, draw_shadows
from companion.vision.synth.scene import Piece
from tests.vision.test_synth_stacked import CUBE, position, tilted_camera


def top_outline(camera: Camera, piece: Piece) -> tuple[float, float]:
    """The drawn top's outline, its image side lengths along the lean and across it."""
    pts = camera.project(_box_points(piece)[4:])
    # Corners 0-1 and 3-2 run along the box's local x (the lean), 1-2 and 0-3 across it.
    along = (math.dist(pts[0], pts[1]) + math.dist(pts[3], pts[2])) / 2
    across = (math.dist(pts[1], pts[2]) + math.dist(pts[0], pts[3])) / 2
    return along, across


def test_a_leaning_cube_keeps_one_edge_on_the_board_and_its_sides_square() -> None:
    cube = Piece("cube", "blue", "a", 100.0, 50.0, 30.0, CUBE, CUBE, lean=25.0)
    pts = _box_points(cube)
    flat = _box_points(replace(cube, lean=0.0))
    # Its +x bottom edge (corners 1 and 2) stays where it stood; the -x one rises.
    assert np.allclose(pts[[1, 2]], flat[[1, 2]])
    assert pts[0, 2] == pytest.approx(-CUBE * math.sin(math.radians(25)))
    # Still a cube: every edge one side long.
    for i, j in ((0, 1), (1, 2), (0, 4), (5, 6), (4, 7)):
        assert np.linalg.norm(pts[i] - pts[j]) == pytest.approx(CUBE)
    # The top tips over towards its angle (30°): its middle moves that way.
    shift = pts[4:].mean(axis=0)[:2] - flat[4:].mean(axis=0)[:2]
    assert math.degrees(math.atan2(shift[1], shift[0])) == pytest.approx(30.0, abs=0.01)


def test_a_leaning_cube_renders_with_its_top_foreshortened_and_a_side_lit_otherwise() -> None:
    camera = tilted_camera()
    # Under the camera (the nadir): seen straight down there, a flat top is square and a
    # leaning one is shortened by the cosine of its lean alone.
    x, y = (float(v) for v in camera.centre[:2])
    flat = Piece("cube", "blue", "a", x, y, 0.0, CUBE, CUBE)
    leaning = replace(flat, lean=30.0)
    f_along, f_across = top_outline(camera, flat)
    l_along, l_across = top_outline(camera, leaning)
    assert f_along == pytest.approx(f_across, rel=0.05)
    # Along the lean the top is shorter by about cos(lean); across it the same.
    assert l_along / l_across == pytest.approx(math.cos(math.radians(30)), abs=0.05)
    assert l_across == pytest.approx(f_across, rel=0.05)
    # Drawn: the pixels differ, and the top's shade is not the flat top's (its normal leans).
    imgs = []
    for piece in (flat, leaning):
        img = np.full((camera.height, camera.width, 3), 255, np.uint8)
        (top,) = draw_pieces(img, [piece], camera)
        imgs.append((img, top))
    (a, ta), (b, tb) = imgs
    assert not np.array_equal(a, b)
    assert tuple(a[round(ta[1]), round(ta[0])]) != tuple(b[round(tb[1]), round(tb[0])])
    # ... and its shadow falls otherwise.
    shadows = []
    for piece in (flat, leaning):
        img = np.full((camera.height, camera.width, 3), 200, np.uint8)
        draw_shadows(img, [piece], camera, 0.5)
        shadows.append(img[..., 0] < 190)
    assert shadows[1].any() and (shadows[0] != shadows[1]).any()


def test_tilted_cubes_in_a_render_are_in_the_truth_and_counted_where_they_stand() -> None:
    pos = position("el_grande_round3.json")
    cond = HARD.with_size(1280, 720)
    _, plain = render(pos, seed=8, conditions=cond)
    image, truth = render(pos, seed=8, conditions=replace(cond, tilted=1.0))
    tilted = [c for c in truth["cubes"] if c.get("tilted")]
    assert tilted, "tilted=1 leaned no cube"
    assert not any("tilted" in c for c in plain["cubes"])
    assert all(c["tilted"] is True for c in tilted)
    # A tilted cube is still a cube of its area: the counts are the position's.
    assert truth["counts"] == plain["counts"]
    assert len(truth["cubes"]) == len(plain["cubes"])
    # Its top is painted: the image has a cube's colour there, not the board's.
    for c in tilted:
        u, v = (round(t) for t in c["image"])
        b, g, r = (int(t) for t in image[v, u])
        assert max(b, g, r) - min(b, g, r) > 40 or max(b, g, r) < 90, (c, (b, g, r))


def test_no_tilts_by_default_and_tilting_changes_the_picture() -> None:
    pos = position("el_grande_round3.json")
    small = EASY.with_size(640, 360)
    assert EASY.tilted == HARD.tilted == 0.0
    a, ta = render(pos, seed=4, conditions=small)
    assert not any(c.get("tilted") for c in ta["cubes"])
    b, tb = render(pos, seed=4, conditions=replace(small, tilted=0.5))
    assert any(c.get("tilted") for c in tb["cubes"])
    assert not np.array_equal(a, b)


def test_tilted_is_a_probability() -> None:
    with pytest.raises(RenderError, match=r"conditions\.tilted 1\.5: a probability"):
        Conditions(tilted=1.5)
    with pytest.raises(RenderError, match=r"conditions\.tilted -0\.1"):
        Conditions(tilted=-0.1)


def test_a_leaning_cube_shows_its_top_and_a_side_in_its_own_hue() -> None:
    """From above the top and the side it tips away from show, in the cube's hue (lit
    otherwise), not a hue of their own."""
    camera = tilted_camera()
    img = np.full((camera.height, camera.width, 3), 255, np.uint8)
    draw_pieces(img, [Piece("cube", "red", "a", 300.0, 200.0, 0.0, CUBE, CUBE, lean=30.0)], camera)
    drawn = (img < 250).any(axis=2)
    hsv = cv2.cvtColor(img, cv2.COLOR_BGR2HSV)
    hues = hsv[..., 0][drawn & (hsv[..., 1] > 100)]
    assert hues.size > 0
    assert ((hues < 10) | (hues > 170)).mean() > 0.9
