"""The lens's radial term from the board markers (camera_model.py) and outlines under a lens."""

from __future__ import annotations

from typing import Any

import cv2
import numpy as np
import pytest

from companion.vision import homography as hg
from companion.vision.calibration import board_marker_corners
from companion.vision.camera_model import estimate_lens, lens_misfit
from companion.vision.layout import load_layout

SIZE = (1920, 1080)
K = np.array([[1000.0, 0.0, 960.0], [0.0, 1000.0, 540.0], [0.0, 0.0, 1.0]])


def _camera(layout: Any) -> tuple[np.ndarray, np.ndarray]:
    """A camera over the board's middle, a little tilted and turned (rvec, tvec)."""
    bw, bh = layout.board_size
    rot, _ = cv2.Rodrigues(np.array([0.12, -0.08, 0.03]))
    # The board's middle on the optical axis, at a distance where it fills most of the frame.
    distance = 1000.0 * bw / 1100.0
    tvec = np.array([0.0, 0.0, distance]) - rot @ np.array([bw / 2, bh / 2, 0.0])
    return cv2.Rodrigues(rot)[0].ravel(), tvec


def _seen(layout: Any, points: np.ndarray, k1: float, k2: float = 0.0) -> np.ndarray:
    rvec, tvec = _camera(layout)
    pts3 = np.c_[points, np.zeros(len(points))]
    out, _ = cv2.projectPoints(pts3, rvec, tvec, K, np.array([k1, k2, 0.0, 0.0, 0.0]))
    seen: np.ndarray = out.reshape(-1, 2)
    return seen


def _markers(layout: Any, k1: float, k2: float = 0.0) -> dict[int, np.ndarray]:
    return {i: _seen(layout, c, k1, k2) for i, c in board_marker_corners(layout).items()}


def _worst_off(
    layout: Any, lens: hg.Lens | None, detected: dict[int, np.ndarray], k1: float, k2: float = 0.0
) -> float:
    """How far (px) the fitted board is from where the camera shows it, worst over the board."""
    bw, bh = layout.board_size
    gx, gy = np.meshgrid(np.linspace(0, bw, 15), np.linspace(0, bh, 15))
    grid = np.c_[gx.ravel(), gy.ravel()]
    h = hg.fit_homography(detected, board_marker_corners(layout), lens)
    off = hg.project(h, grid, lens) - _seen(layout, grid, k1, k2)
    return float(np.linalg.norm(off, axis=1).max())


@pytest.mark.parametrize("game", ["el-grande", "carolus-magnus"])
@pytest.mark.parametrize("k1", [-0.22, -0.12, 0.08])
@pytest.mark.parametrize("k2", [0.0, 0.02])
def test_the_corner_markers_tell_the_lens_and_put_the_whole_board_in_place(
    game: str, k1: float, k2: float
) -> None:
    layout = load_layout(game)
    detected = _markers(layout, k1, k2)
    lens = estimate_lens(detected, board_marker_corners(layout), SIZE)
    assert lens is not None
    plain = _worst_off(layout, None, detected, k1, k2)
    fitted = _worst_off(layout, lens, detected, k1, k2)
    assert plain > 9.0  # (the bend a homography alone leaves between the corner markers)
    # k2 is not estimated: the board's corners, beyond the markers, keep a little of it.
    assert fitted < (0.5 if k2 == 0 else 6.0) and fitted < plain / 2


def test_one_hidden_corner_marker_still_tells_the_lens() -> None:
    layout = load_layout("carolus-magnus")
    detected = _markers(layout, -0.21)
    del detected[sorted(detected)[2]]
    lens = estimate_lens(detected, board_marker_corners(layout), SIZE)
    assert lens is not None
    assert _worst_off(layout, lens, detected, -0.21) < 3.0
    assert _worst_off(layout, None, detected, -0.21) > 25.0


def test_a_lens_that_hardly_bends_and_noise_give_no_lens_model() -> None:
    layout = load_layout("el-grande")
    rng = np.random.default_rng(5)
    detected = {i: c + rng.normal(0.0, 0.3, c.shape) for i, c in _markers(layout, 0.0).items()}
    assert estimate_lens(detected, board_marker_corners(layout), SIZE) is None


def test_two_markers_are_too_few_for_a_lens() -> None:
    layout = load_layout("el-grande")
    detected = _markers(layout, -0.2)
    for i in sorted(detected)[:2]:
        del detected[i]
    assert estimate_lens(detected, board_marker_corners(layout), SIZE) is None


def test_the_right_radial_term_fits_the_markers_best() -> None:
    layout = load_layout("el-grande")
    detected = _markers(layout, -0.15)
    board = board_marker_corners(layout)
    misfits = [lens_misfit(k1, K, detected, board) for k1 in (-0.25, -0.15, -0.05, 0.0)]
    assert misfits[1] < 0.05 and min(misfits[0], misfits[2], misfits[3]) > 10 * misfits[1]


def test_an_outline_under_a_lens_follows_its_bent_edges() -> None:
    # A straight board edge shows bowed under a barrel lens: filled corner to corner, its
    # middle would be cut off.
    layout = load_layout("el-grande")
    lens = hg.Lens(tuple(map(tuple, K)), (-0.22, 0.0, 0.0, 0.0, 0.0))
    h = hg.fit_homography(_markers(layout, 0.0), board_marker_corners(layout))
    bw, bh = layout.board_size
    outline = hg.project_outline(h, [(0, 0), (bw, 0), (bw, bh), (0, bh)], lens)
    middle = hg.project(h, [(bw / 2, bh)], lens)[0]
    assert np.linalg.norm(outline - middle, axis=1).min() < 1.0
    corners = hg.project(h, [(0, bh), (bw, bh)], lens)
    chord_y = (corners[0, 1] + corners[1, 1]) / 2
    assert middle[1] - chord_y > 5.0  # (the bulge the corners alone would miss)
    assert len(hg.project_outline(h, [(0, 0), (bw, 0), (bw, bh), (0, bh)])) == 4
