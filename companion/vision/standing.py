"""Where a standing piece's foot is, from where its top shows in the image.

A tall piece's top is seen off its foot, away from the point under the camera: a grande near
a region's border may show its top over the next region. The board homography is the camera's
view of the board's plane; with the camera matrix (the lens model's, or a focal length worked
out from the homography itself) it gives the camera's pose, and so the view of any plane
parallel to the board: the tops of all pieces of one height.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import numpy as np
import numpy.typing as npt

from companion.vision import homography as hg
from companion.vision.calibration import Calibration
from companion.vision.camera_model import camera_matrix
from companion.vision.config import DEFAULT_CONFIG, VisionConfig

if TYPE_CHECKING:  # (geometry.py uses the camera's pose for the Castillo tower's image)
    from companion.vision.geometry import Geometry

FloatArray = npt.NDArray[Any]


def raised_homography(h: FloatArray, k: FloatArray, height: float) -> FloatArray:
    """Board mm -> image pixels of the plane ``height`` mm above the board."""
    m = np.linalg.inv(k) @ h
    scale = (np.linalg.norm(m[:, 0]) + np.linalg.norm(m[:, 1])) / 2.0
    r1 = m[:, 0] / np.linalg.norm(m[:, 0])
    r2 = m[:, 1] / np.linalg.norm(m[:, 1])
    r3 = np.cross(r1, r2)
    t = m[:, 2] / scale
    # Board z points into the table; the camera is above it: its centre -R^T t has z < 0.
    if float(r3 @ t) < 0:
        r3 = -r3
    out = h.copy()
    out[:, 2] = h[:, 2] - height * scale * (k @ r3)
    return out


# The last few calibrations' cameras: a read asks for its camera several times a frame (each
# grande's foot, the cubes' feet, each pawn candidate's head), and it changes only with the
# calibration; so do its raised views (one per height asked for, read-only). The entries hold
# their calibration and config, so an id is never taken for another object's.
_CAMERAS: dict[
    tuple[int, int],
    tuple[Calibration, VisionConfig, tuple[Any, Any, Any], dict[float, FloatArray]],
] = {}


def _entry(
    calibration: Calibration, config: VisionConfig
) -> tuple[tuple[Any, Any, Any], dict[float, FloatArray]]:
    key = (id(calibration), id(config))
    hit = _CAMERAS.get(key)
    if hit is not None and hit[0] is calibration and hit[1] is config:
        return hit[2], hit[3]
    lens = calibration.lens
    made: tuple[Any, Any, Any]
    if lens is not None:
        made = (calibration.h, lens, np.array(lens.matrix, dtype=np.float64))
    else:
        made = (calibration.h, lens, camera_matrix(calibration.h, calibration.image_size, config))
    if len(_CAMERAS) >= 8:
        _CAMERAS.pop(next(iter(_CAMERAS)))
    _CAMERAS[key] = (calibration, config, made, {})
    return made, _CAMERAS[key][3]


def _camera(calibration: Calibration, config: VisionConfig) -> tuple[Any, Any, Any]:
    """Homography, lens and camera matrix (the lens's, else one estimated from the homography)."""
    return _entry(calibration, config)[0]


def _raised(calibration: Calibration, config: VisionConfig, height: float) -> FloatArray:
    """:func:`raised_homography` of the calibration's camera (kept, read-only)."""
    (h, _, k), raised = _entry(calibration, config)
    out = raised.get(height)
    if out is None:
        if len(raised) >= 16:
            raised.pop(next(iter(raised)))
        out = raised_homography(h, k, height)
        out.flags.writeable = False
        raised[height] = out
    return out


def raised_view(
    calibration: Calibration, height: float, config: VisionConfig = DEFAULT_CONFIG
) -> tuple[FloatArray, Any]:
    """Board mm -> image pixels of the plane ``height`` mm above the board (read-only), and
    the lens."""
    return _raised(calibration, config, height), calibration.lens


def foot_of(
    calibration: Calibration,
    geo: Geometry,
    top: Sequence[float],
    height: float,
    config: VisionConfig = DEFAULT_CONFIG,
) -> tuple[float, float]:
    """The working-image point of the foot of a piece ``height`` mm tall whose top's middle
    shows at working-image point ``top``."""
    foot = feet_of(calibration, geo, np.array([top], np.float64), height, config)[0]
    return (float(foot[0]), float(foot[1]))


def feet_of(
    calibration: Calibration,
    geo: Geometry,
    tops: FloatArray,
    height: float,
    config: VisionConfig = DEFAULT_CONFIG,
) -> FloatArray:
    """:func:`foot_of` of many working-image points at once (N x 2 in, N x 2 out)."""
    if not len(tops):
        return np.zeros((0, 2), np.float64)
    h, lens, _ = _camera(calibration, config)
    origin = np.array(geo.crop[:2], np.float64)
    seen = np.asarray(tops, np.float64) / geo.scale + origin
    board = hg.unproject(_raised(calibration, config, height), seen, lens)
    feet: FloatArray = (hg.project(h, board, lens) - origin) * geo.scale
    return feet


def top_of(
    calibration: Calibration,
    geo: Geometry,
    foot: Sequence[float],
    height: float,
    config: VisionConfig = DEFAULT_CONFIG,
) -> tuple[float, float]:
    """The working-image point where the point ``height`` mm above a foot shows (the foot at
    working-image point ``foot``)."""
    h, lens, _ = _camera(calibration, config)
    x0, y0 = geo.crop[:2]
    seen = np.array([[foot[0] / geo.scale + x0, foot[1] / geo.scale + y0]])
    board = hg.unproject(h, seen, lens)
    top = hg.project(_raised(calibration, config, height), board, lens)[0]
    return (float((top[0] - x0) * geo.scale), float((top[1] - y0) * geo.scale))
