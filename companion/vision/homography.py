"""Markers and the board-to-image homography.

The homography maps board millimetres (the layout's frame) to image pixels. It is estimated once
per session from the four corner markers (all 16 marker corners, RANSAC) and only re-estimated
when the markers seem to have moved. Outlines are projected into the image; frames are never
warped. Lens distortion: when a camera matrix is given, detected marker corners are undistorted
before the fit and projected outlines are distorted back, so a wide-angle lens still lines up.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import cv2
import numpy as np
import numpy.typing as npt

from companion.vision.errors import VisionError

FloatArray = npt.NDArray[Any]
Image = npt.NDArray[Any]

# ArUco corner order: top-left, top-right, bottom-right, bottom-left of the printed marker.
_UNIT_CORNERS = np.array([[-0.5, -0.5], [0.5, -0.5], [0.5, 0.5], [-0.5, 0.5]], dtype=np.float64)


class MarkersNotFound(VisionError, LookupError):
    """Board markers missing from a frame; ``missing`` names their ids."""

    def __init__(self, missing: Sequence[int], found: Sequence[int]) -> None:
        self.missing = tuple(missing)
        self.found = tuple(found)
        ids = ", ".join(str(i) for i in self.missing)
        seen = ", ".join(str(i) for i in self.found) or "none"
        super().__init__(
            f"board markers not found: id {ids} (markers seen: {seen}); make sure all four "
            "corner markers are in view, unobstructed and lit, then try again"
        )


@dataclass(frozen=True)
class Lens:
    """Camera matrix and distortion coefficients (OpenCV convention)."""

    matrix: tuple[tuple[float, ...], ...]
    distortion: tuple[float, ...]

    @classmethod
    def from_json(cls, data: object, source: str = "lens") -> Lens:
        """``{"matrix": [[fx, 0, cx], [0, fy, cy], [0, 0, 1]], "distortion": [k1, k2, ...]}``,
        as OpenCV's camera calibration gives them."""
        try:
            assert isinstance(data, dict)
            matrix = tuple(tuple(float(v) for v in row) for row in data["matrix"])
            distortion = tuple(float(v) for v in data["distortion"])
            if len(matrix) != 3 or any(len(r) != 3 for r in matrix) or len(distortion) < 4:
                raise ValueError
        except (AssertionError, KeyError, TypeError, ValueError):
            raise VisionError(
                f"{source}: a lens is {{'matrix': 3x3, 'distortion': [k1, k2, p1, p2, k3]}} "
                "as OpenCV's camera calibration writes them"
            ) from None
        return cls(matrix, distortion)

    def arrays(self) -> tuple[FloatArray, FloatArray]:
        return np.array(self.matrix, dtype=np.float64), np.array(self.distortion, np.float64)

    def scaled(self, sx: float, sy: float) -> Lens:
        """The same lens for the same view of the sensor sampled at another resolution (the
        image ``sx`` times as wide, ``sy`` times as tall): focal lengths and principal point
        in pixels scale, pixel centres at half-integers; the distortion coefficients act on
        normalised coordinates and stay."""
        (fx, s, cx), (_, fy, cy), last = self.matrix
        return Lens(
            (
                (fx * sx, s * sx, (cx + 0.5) * sx - 0.5),
                (0.0, fy * sy, (cy + 0.5) * sy - 0.5),
                tuple(last),
            ),
            self.distortion,
        )


# The least marker perimeter OpenCV looks for, a share of the image's longer side (its default).
_PERIMETER = 0.03
# How much the second (and third) look sharpens (unsharp masking's amount): a marker blurred
# as much as the hard set's strongest blur at 24 px or less shows its cells only at 1.5 (hard
# Carolus seeds 0-40: 5 tile markers in view missed at 0.8, each found at 1.5, no other id).
_SHARPEN = (0.8, 1.5)


def _detector(
    dictionary: int = cv2.aruco.DICT_4X4_50, perimeter: float = _PERIMETER
) -> cv2.aruco.ArucoDetector:
    params = cv2.aruco.DetectorParameters()
    params.minMarkerPerimeterRate = perimeter
    # Sub-pixel corners make the homography good to a fraction of a millimetre.
    params.cornerRefinementMethod = cv2.aruco.CORNER_REFINE_SUBPIX
    return cv2.aruco.ArucoDetector(cv2.aruco.getPredefinedDictionary(dictionary), params)


def detect_markers(image: Image, want: Iterable[int] = ()) -> dict[int, FloatArray]:
    """Every DICT_4X4_50 marker in the image: id -> 4x2 corner pixels (first one if repeated).

    If any id of ``want`` is missing, a second look is taken at a sharpened, doubled copy: a
    small marker under a soft lens or at the far edge of the table often shows up then. The
    least perimeter is a share of the image's side, so the doubled copy halves it: else a
    marker too small for the first look is too small for the second (hard Carolus seed 16: a
    court card's 26 mm marker 14 px wide at the table's far corner, its perimeter 56 px
    against the 58 of a 1920 px frame's 0.03). One still missing then gets a third look,
    sharpened more (see _SHARPEN).
    """
    grey = cv2.cvtColor(image, cv2.COLOR_BGR2GRAY) if image.ndim == 3 else image
    found = _detect(grey, 1.0)
    soft = None
    for amount in _SHARPEN:
        if all(i in found for i in want):
            break
        soft = cv2.GaussianBlur(grey, (0, 0), 2.0) if soft is None else soft
        sharp = cv2.addWeighted(grey, 1.0 + amount, soft, -amount, 0)
        big = cv2.resize(sharp, None, fx=2.0, fy=2.0, interpolation=cv2.INTER_CUBIC)
        for i, c in _detect(big, 0.5, perimeter=_PERIMETER / 2).items():
            found.setdefault(i, c)
    return found


def _detect(grey: Image, scale: float, perimeter: float = _PERIMETER) -> dict[int, FloatArray]:
    corners, ids, _rejected = _detector(perimeter=perimeter).detectMarkers(grey)
    found: dict[int, FloatArray] = {}
    if ids is None:
        return found
    for c, i in zip(corners, ids.ravel(), strict=True):
        found.setdefault(int(i), np.asarray(c, dtype=np.float64).reshape(4, 2) * scale)
    return found


def marker_corners_board(
    center: Sequence[float], size: float, angle_deg: float = 0.0
) -> FloatArray:
    """Board coordinates of a marker's four corners (ArUco order), rotated by angle_deg."""
    a = np.deg2rad(angle_deg)
    rot = np.array([[np.cos(a), -np.sin(a)], [np.sin(a), np.cos(a)]])
    corners: FloatArray = (_UNIT_CORNERS * size) @ rot.T + np.asarray(center, np.float64)
    return corners


def undistort(points: FloatArray, lens: Lens | None) -> FloatArray:
    if lens is None:
        return points
    k, d = lens.arrays()
    # More iterations than OpenCV's default: a wide lens's corners need them.
    crit = (cv2.TERM_CRITERIA_COUNT | cv2.TERM_CRITERIA_EPS, 50, 1e-7)
    out = cv2.undistortPoints(points.reshape(-1, 1, 2), k, d, None, None, k, crit)
    result: FloatArray = out.reshape(-1, 2)
    return result


def distort(points: FloatArray, lens: Lens | None) -> FloatArray:
    """Inverse of :func:`undistort`: ideal pixel positions to where the lens shows them."""
    if lens is None:
        return points
    k, d = lens.arrays()
    norm = cv2.undistortPoints(points.reshape(-1, 1, 2), k, np.zeros(5), P=None)
    pts3 = cv2.convertPointsToHomogeneous(norm).reshape(-1, 3)
    out, _ = cv2.projectPoints(pts3, np.zeros(3), np.zeros(3), k, d)
    result: FloatArray = out.reshape(-1, 2)
    return result


def fit_homography(
    detected: Mapping[int, FloatArray],
    board_markers: Mapping[int, FloatArray],
    lens: Lens | None = None,
    min_markers: int = 3,
) -> FloatArray:
    """Board-mm -> image-px homography from the corners of the board markers.

    ``board_markers`` gives each marker's corners in board mm. Three markers (12 corners) fix
    the board well, so one may be hidden (a cup, a sleeve); with fewer,
    :class:`MarkersNotFound` names the missing ids.
    """
    missing = sorted(i for i in board_markers if i not in detected)
    if len(board_markers) - len(missing) < min(min_markers, len(board_markers)):
        raise MarkersNotFound(missing, sorted(detected))
    seen = sorted(i for i in board_markers if i in detected)
    src = np.concatenate([board_markers[i] for i in seen])
    dst = np.concatenate([undistort(detected[i], lens) for i in seen])
    h, inliers = cv2.findHomography(src, dst, cv2.RANSAC, 3.0)
    # RANSAC leaves out a marker that moved or was misread (its corners all off); under a
    # distorting lens no homography fits every corner to 3 px, and it keeps about two of
    # each marker's. But with three markers it may keep one marker and a corner of another,
    # which puts the rest of the board hundreds of pixels off (hard Carolus seed 33). Unless
    # three markers keep two corners or more, all the corners are fitted by least squares.
    if h is None or _markers_kept(inliers) < min(3, len(seen)):
        h, _ = cv2.findHomography(src, dst, 0)
    if h is None:
        raise MarkersNotFound([], sorted(detected))
    result: FloatArray = h / h[2, 2]
    return result


def _markers_kept(inliers: FloatArray | None) -> int:
    """How many markers (four corners each, in order) kept two corners or more."""
    if inliers is None:
        return 0
    per_marker = np.asarray(inliers).reshape(-1, 4).sum(axis=1)
    return int((per_marker >= 2).sum())


def project(
    h: FloatArray, points: Iterable[Sequence[float]], lens: Lens | None = None
) -> FloatArray:
    """Board mm -> image pixels."""
    pts = np.asarray(list(points), dtype=np.float64).reshape(-1, 1, 2)
    out = cv2.perspectiveTransform(pts, h).reshape(-1, 2)
    return distort(out, lens)


# Under a lens model an outline's straight edges show bent: projected corner to corner they
# would cut off the bulge (a barrel lens bows the board's edges outward by tens of pixels).
# Edges are split into pieces this long (board mm) first; a piece's own bend is < 0.1 px.
OUTLINE_STEP_MM = 10.0


def project_outline(
    h: FloatArray, points: Iterable[Sequence[float]], lens: Lens | None = None
) -> FloatArray:
    """A closed outline (board mm) as the camera shows it: :func:`project` of its corners, and
    under a lens model of points along its edges too, so filled it covers what it should."""
    corners = np.asarray(list(points), dtype=np.float64).reshape(-1, 2)
    if lens is None or len(corners) < 2:
        return project(h, corners, lens)
    dense = []
    for a, b in zip(corners, np.roll(corners, -1, axis=0), strict=True):
        n = max(1, int(np.ceil(np.linalg.norm(b - a) / OUTLINE_STEP_MM)))
        t = np.arange(n, dtype=np.float64)[:, None] / n
        dense.append(a + (b - a) * t)
    return project(h, np.concatenate(dense), lens)


def unproject(
    h: FloatArray, points: Iterable[Sequence[float]], lens: Lens | None = None
) -> FloatArray:
    """Image pixels -> board mm (``points``: an N x 2 array, or any iterable of (x, y))."""
    # (An array as it is: copied through a Python list it cost more than the transform.)
    given = points if isinstance(points, np.ndarray) else list(points)
    pts = np.asarray(given, dtype=np.float64).reshape(-1, 2)
    if not len(pts):
        return pts  # (OpenCV's undistortPoints gives None for no points)
    pts = undistort(pts, lens)
    out = cv2.perspectiveTransform(pts.reshape(-1, 1, 2), np.linalg.inv(h))
    result: FloatArray = out.reshape(-1, 2)
    return result


def local_scale(h: FloatArray, point: Sequence[float], lens: Lens | None = None) -> float:
    """Image pixels per board millimetre at a board point (sqrt of the Jacobian's determinant),
    the lens's own magnification there included when it is known."""
    x, y = float(point[0]), float(point[1])
    p = project(h, [(x, y), (x + 1.0, y), (x, y + 1.0)], lens)
    jx, jy = p[1] - p[0], p[2] - p[0]
    return float(np.sqrt(abs(jx[0] * jy[1] - jx[1] * jy[0])))


def reprojection_error(
    h: FloatArray, detected: Mapping[int, FloatArray], board_markers: Mapping[int, FloatArray]
) -> float:
    """Largest distance (px) between detected and projected marker corners."""
    worst = 0.0
    for i, corners in board_markers.items():
        if i in detected:
            d = np.linalg.norm(project(h, corners) - detected[i], axis=1).max()
            worst = max(worst, float(d))
    return worst
