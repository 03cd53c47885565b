"""The camera: its matrix from the board homography, and the lens's radial term from the markers.

A wide lens bends the board: no homography fits all the markers' corners, and points between
the corner markers are off by tens of pixels. The corner markers themselves tell the lens's
bend: each marker's four corners give its own scale and turn where it lies, and with the right
radial term the undistorted corners of all of them fit one homography to a fraction of a pixel.
So when no lens model is given, calibration estimates the radial term from them.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import cv2
import numpy as np
import numpy.typing as npt

from companion.vision import homography as hg
from companion.vision.config import DEFAULT_CONFIG, VisionConfig

FloatArray = npt.NDArray[Any]


def camera_matrix(
    h: FloatArray, image_size: tuple[int, int], config: VisionConfig = DEFAULT_CONFIG
) -> FloatArray:
    """The camera matrix that makes the homography a rotation and a shift: principal point at
    the image centre, square pixels, the focal length from the two conditions on the
    homography's first two columns (least squares).

    A camera looking nearly straight down leaves the focal length undetermined (both
    conditions vanish); then the camera is taken to hang ``config.camera_height`` mm over the
    board, which with the board's scale in the image gives the focal length. The same when
    the estimate is far from that (a slight tilt and noise in the marker corners).
    """
    w, h_img = image_size
    cx, cy = w / 2.0, h_img / 2.0
    shift = np.array([[1.0, 0.0, -cx], [0.0, 1.0, -cy], [0.0, 0.0, 1.0]])
    m = shift @ h
    # Pixels per mm on the board where the camera looks: the focal length over the height.
    centre = np.linalg.solve(h, np.array([cx, cy, 1.0]))
    assumed = config.camera_height * hg.local_scale(
        h, (centre[0] / centre[2], centre[1] / centre[2])
    )
    a1, a2 = m[:, 0], m[:, 1]
    # f^2 * c = d for each condition: orthogonal columns, columns of equal length.
    c = np.array([a1[2] * a2[2], a1[2] ** 2 - a2[2] ** 2])
    d = np.array(
        [-(a1[0] * a2[0] + a1[1] * a2[1]), a2[0] ** 2 + a2[1] ** 2 - a1[0] ** 2 - a1[1] ** 2]
    )
    f = assumed
    norm = float(c @ c)
    if norm > 0:
        f2 = float(c @ d) / norm
        low, high = config.focal_range
        if f2 > 0 and low * assumed <= np.sqrt(f2) <= high * assumed:
            f = float(np.sqrt(f2))
    return np.array([[f, 0.0, cx], [0.0, f, cy], [0.0, 0.0, 1.0]])


def lens_misfit(
    k1: float,
    k: FloatArray,
    detected: Mapping[int, FloatArray],
    board_markers: Mapping[int, FloatArray],
) -> float:
    """RMS pixels by which the board markers' corners, undistorted with radial term ``k1``,
    miss one homography (least squares)."""
    lens = _radial(k, k1)
    seen = [i for i in board_markers if i in detected]
    src = np.concatenate([board_markers[i] for i in seen])
    dst = np.concatenate([hg.undistort(detected[i], lens) for i in seen])
    h, _ = cv2.findHomography(src, dst, 0)
    if h is None:
        return float("inf")
    fitted = cv2.perspectiveTransform(src.reshape(-1, 1, 2), h).reshape(-1, 2)
    return float(np.sqrt(np.mean((fitted - dst) ** 2) * 2.0))


def estimate_lens(
    detected: Mapping[int, FloatArray],
    board_markers: Mapping[int, FloatArray],
    image_size: tuple[int, int],
    config: VisionConfig = DEFAULT_CONFIG,
) -> hg.Lens | None:
    """A lens model (camera matrix, radial term k1) that the markers fit best, or None when a
    radial term explains too little of their misfit (a lens that hardly bends, or markers too
    few: three board markers are needed).

    Only k1 is estimated, over ``config.lens_k1_range`` (a grid, then golden sections): the
    markers cannot tell k2 from it. k1 acts on coordinates normalised by the focal length, so
    it is found with the camera matrix of the plain homography and then rescaled to the
    focal length of the undistorted one (the same bend in pixels).
    """
    seen = [i for i in board_markers if i in detected]
    if len(seen) < 3:
        return None
    h0 = hg.fit_homography(detected, board_markers)
    k = camera_matrix(h0, image_size, config)

    def misfit(k1: float) -> float:
        return lens_misfit(k1, k, detected, board_markers)

    low, high = config.lens_k1_range
    grid = np.linspace(low, high, config.lens_k1_steps)
    costs = [misfit(float(v)) for v in grid]
    best = int(np.argmin(costs))
    a = float(grid[max(best - 1, 0)])
    b = float(grid[min(best + 1, len(grid) - 1)])
    # Golden sections: each step keeps one of its two inner points and its misfit.
    ratio = (np.sqrt(5.0) - 1.0) / 2.0
    c, d = b - ratio * (b - a), a + ratio * (b - a)
    fc, fd = misfit(c), misfit(d)
    while b - a > 1e-4:
        if fc < fd:
            b, d, fd = d, c, fc
            c = b - ratio * (b - a)
            fc = misfit(c)
        else:
            a, c, fc = c, d, fd
            d = a + ratio * (b - a)
            fd = misfit(d)
    k1 = (a + b) / 2.0
    if misfit(k1) > config.lens_gain * misfit(0.0):
        return None
    # The focal length the undistorted homography gives (standing.py's camera pose), and k1 for
    # it: distortion depends on k1 / f^2 only.
    h1 = hg.fit_homography(detected, board_markers, _radial(k, k1))
    k_new = camera_matrix(h1, image_size, config)
    return _radial(k_new, k1 * (k_new[0, 0] / k[0, 0]) ** 2)


def _radial(k: FloatArray, k1: float) -> hg.Lens:
    """A lens model of camera matrix ``k`` and radial term ``k1`` alone."""
    return hg.Lens(tuple(tuple(float(v) for v in r) for r in k), (k1, 0.0, 0.0, 0.0, 0.0))
