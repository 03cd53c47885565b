"""Stacked cubes on the synthetic table (issue #4): a cube put on another is drawn a cube higher,
its truth says so, and renders without stacks are the renders they always were."""

from __future__ import annotations

import json
import math
from dataclasses import replace
from pathlib import Path
from typing import Any

import cv2
import numpy as np
import pytest

from companion.vision.errors import RenderError
from companion.vision.synth import EASY, HARD, Conditions, render
from companion.vision.synth.camera import Camera, make_camera
from companion.vision.synth.pieces import draw_pieces, draw_shadows
from companion.vision.synth.scene import Piece

DATA = Path(__file__).parent.parent / "data" / "vision"
CUBE = 10.0


def position(name: str) -> dict[str, Any]:
    return json.loads((DATA / "positions" / name).read_text())


def tilted_camera() -> Camera:
    """A camera 15° off vertical over the middle of a 600 x 400 mm table: a cube's sides show."""
    cond = replace(EASY, tilt=(15.0, 15.0), roll=(0.0, 0.0), k1=(0.0, 0.0), k2=(0.0, 0.0))
    return make_camera((0.0, 0.0, 600.0, 400.0), (300.0, 200.0), cond, np.random.default_rng(3))


def nadir_px(camera: Camera) -> np.ndarray:
    c = camera.centre
    return camera.project(np.array([[c[0], c[1], 0.0]]))[0]


def drawn(camera: Camera, pieces: list[Piece]) -> tuple[np.ndarray, list[tuple[float, float]]]:
    """The pieces painted on a white table: which pixels are not white, and the tops."""
    img = np.full((camera.height, camera.width, 3), 255, np.uint8)
    tops = draw_pieces(img, pieces, camera)
    return (img < 250).any(axis=2), tops


def test_a_stacked_cube_is_drawn_a_cube_higher() -> None:
    camera = tilted_camera()
    nadir = nadir_px(camera)
    # A board point well off the nadir, so the parallax of one cube is several pixels.
    x, y = 480.0, 330.0
    single = Piece("cube", "blue", "a", x, y, 0.0, CUBE, CUBE)
    upper = replace(single, angle=7.0, lift=CUBE)
    one, (top_one,) = drawn(camera, [single])
    two, (_, top_two) = drawn(camera, [single, upper])
    parallax = float(
        np.linalg.norm(
            np.diff(camera.project(np.array([[x, y, -CUBE], [x, y, -2 * CUBE]])), axis=0)
        )
    )
    assert parallax > 4  # (else the test would prove nothing)
    # The upper cube's top shows one cube's parallax farther from the nadir than a lone cube's.
    d_one = math.dist(top_one, nadir)
    d_two = math.dist(top_two, nadir)
    assert d_two - d_one == pytest.approx(parallax, abs=0.5)
    # ... and the pixels drawn reach that much farther out too: the stack is a taller box.
    ys, xs = np.nonzero(one)
    reach_one = np.hypot(xs - nadir[0], ys - nadir[1]).max()
    ys, xs = np.nonzero(two)
    reach_two = np.hypot(xs - nadir[0], ys - nadir[1]).max()
    assert reach_two - reach_one > 0.7 * parallax
    # The lower cube is not drawn over its upper one: the upper top's middle is the top's shade.
    assert two[round(top_two[1]), round(top_two[0])]


def test_a_stacked_cube_casts_its_shadow_farther() -> None:
    camera = tilted_camera()
    single = Piece("cube", "blue", "a", 300.0, 200.0, 0.0, CUBE, CUBE)
    shadows = []
    for lift in (0.0, CUBE):
        img = np.full((camera.height, camera.width, 3), 200, np.uint8)
        draw_shadows(img, [replace(single, lift=lift)], camera, 0.5)
        shadows.append(img[..., 0] < 190)
    low, high = shadows
    assert low.any() and high.any()
    # The lifted box's shadow starts away from its foot: it is not the unlifted one's.
    assert (high & ~low).sum() > 0.3 * high.sum()


def test_stacked_cubes_in_a_render_are_in_the_truth_and_counted_where_they_stand() -> None:
    pos = position("el_grande_round3.json")
    cond = HARD.with_size(1280, 720)
    _, plain = render(pos, seed=8, conditions=cond)
    image, truth = render(pos, seed=8, conditions=replace(cond, stacked=1.0))
    stacked = [c for c in truth["cubes"] if c.get("stacked")]
    assert stacked, "stacked=1 put no cube on another"
    assert not any("stacked" in c for c in plain["cubes"])
    # A stacked cube is still a cube of its area: the counts are the position's.
    assert truth["counts"] == plain["counts"]
    assert len(truth["cubes"]) == len(plain["cubes"])
    # Each stacked cube lies on a cube of its colour and area (within a mm or so).
    for c in stacked:
        below = [
            o
            for o in truth["cubes"]
            if not o.get("stacked") and o["colour"] == c["colour"] and o["area"] == c["area"]
        ]
        assert min(math.dist(o["board"], c["board"]) for o in below) < 1.6
    # Its top shows where a point two cubes above its board point does, through the truth's
    # camera: farther from the nadir than a lone cube's top at that point would.
    cam = truth["camera"]
    rvec, tvec = np.array(cam["rvec"]), np.array(cam["tvec"])
    k, dist = np.array(cam["matrix"]), np.array(cam["dist"])
    r, _ = cv2.Rodrigues(rvec)
    centre = -r.T @ tvec
    nadir, _ = cv2.projectPoints(np.array([[centre[0], centre[1], 0.0]]), rvec, tvec, k, dist)
    for c in stacked:
        x, y = c["board"]
        pts = np.array([[x, y, -CUBE], [x, y, -2 * CUBE]])
        (lone, lifted), _ = cv2.projectPoints(pts, rvec, tvec, k, dist)
        assert math.dist(c["image"], lifted.ravel()) < 0.05
        assert math.dist(c["image"], nadir.ravel()) > math.dist(lone.ravel(), nadir.ravel())
        # The image has the cube's colour there, not the board's: the top was painted.
        u, v = (round(t) for t in c["image"])
        b, g, rr = (int(t) for t in image[v, u])
        assert max(b, g, rr) - min(b, g, rr) > 40 or max(b, g, rr) < 90, (c, (b, g, rr))


def test_no_stacks_by_default_and_stacking_moves_things() -> None:
    """Both presets stack nothing (no cube lifted); stacking changes the picture."""
    pos = position("el_grande_round3.json")
    small = EASY.with_size(640, 360)
    assert EASY.stacked == HARD.stacked == 0.0
    a, ta = render(pos, seed=4, conditions=small)
    assert not any(c.get("stacked") for c in ta["cubes"])
    c, tc = render(pos, seed=4, conditions=replace(small, stacked=0.5))
    assert any(c.get("stacked") for c in tc["cubes"])
    assert not np.array_equal(a, c)


def test_stacked_is_a_probability() -> None:
    with pytest.raises(RenderError, match=r"conditions\.stacked 1\.5: a probability"):
        Conditions(stacked=1.5)
    with pytest.raises(RenderError, match=r"conditions\.stacked -0\.1"):
        Conditions(stacked=-0.1)
