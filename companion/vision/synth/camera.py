"""A pinhole camera with radial distortion over the board plane.

Board frame: x right, y down (as in layouts), z into the table, so the camera hangs at negative z
and a piece's top is at ``z = -height``. Camera frame is OpenCV's (x right, y down, z forward).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import cv2
import numpy as np
from numpy.typing import NDArray

from companion.vision.synth.conditions import Conditions

F64 = NDArray[np.float64]


@dataclass(frozen=True)
class Camera:
    """Intrinsics ``K``, distortion ``(k1, k2, 0, 0, 0)``, and board→camera pose."""

    K: F64
    dist: F64
    R: F64  # board → camera rotation
    t: F64  # board → camera translation (mm)
    width: int
    height: int

    @property
    def centre(self) -> F64:
        """Camera centre in board mm."""
        return np.asarray(-self.R.T @ self.t, dtype=np.float64)

    def project(self, points: F64) -> F64:
        """Board points (N×3 mm) to distorted image pixels (N×2)."""
        if len(points) == 0:
            return np.zeros((0, 2))
        rvec, _ = cv2.Rodrigues(self.R)
        img, _ = cv2.projectPoints(
            np.ascontiguousarray(points, dtype=np.float64).reshape(-1, 1, 3),
            rvec,
            self.t.reshape(3, 1),
            self.K,
            self.dist,
        )
        return np.asarray(img.reshape(-1, 2), dtype=np.float64)

    def depth(self, points: F64) -> F64:
        """Distance along the optical axis of board points (N×3)."""
        return np.asarray((points @ self.R.T + self.t)[:, 2], dtype=np.float64)

    def homography(self) -> F64:
        """Board plane (mm) → undistorted image pixels."""
        h = self.K @ np.column_stack([self.R[:, 0], self.R[:, 1], self.t])
        return np.asarray(h / h[2, 2], dtype=np.float64)

    def undistort_pixels(self, pixels: F64) -> F64:
        """Distorted pixels (N×2) → normalised undistorted coordinates (N×2)."""
        fx, fy, cx, cy = self.K[0, 0], self.K[1, 1], self.K[0, 2], self.K[1, 2]
        xd = (pixels[:, 0] - cx) / fx
        yd = (pixels[:, 1] - cy) / fy
        k1, k2 = float(self.dist[0]), float(self.dist[1])
        xu, yu = xd.copy(), yd.copy()
        # Fixed-point inversion of x_d = x_u (1 + k1 r² + k2 r⁴): converges for the mild lenses
        # the presets allow, and stays vectorised (cv2.undistortPoints stops after 5 steps).
        for _ in range(25):
            r2 = xu * xu + yu * yu
            scale = 1 + k1 * r2 + k2 * r2 * r2
            xu, yu = xd / scale, yd / scale
        return np.column_stack([xu, yu])

    def pixels_to_board(self, pixels: F64) -> F64:
        """Distorted pixels (N×2) → board plane points (N×2 mm)."""
        n = self.undistort_pixels(pixels)
        rays = np.column_stack([n, np.ones(len(n))]) @ self.R  # camera rays in board frame
        c = self.centre
        s = -c[2] / rays[:, 2]
        return np.column_stack([c[0] + s * rays[:, 0], c[1] + s * rays[:, 1]])

    def to_json(self) -> dict[str, object]:
        rvec, _ = cv2.Rodrigues(self.R)
        return {
            "matrix": self.K.round(4).tolist(),
            "dist": self.dist.round(6).tolist(),
            "rvec": rvec.reshape(3).round(6).tolist(),
            "tvec": self.t.round(4).tolist(),
            "image_size": [self.width, self.height],
        }


def _rot_z(a: float) -> F64:
    c, s = math.cos(a), math.sin(a)
    return np.array([[c, -s, 0.0], [s, c, 0.0], [0.0, 0.0, 1.0]])


def _rot_x(a: float) -> F64:
    c, s = math.cos(a), math.sin(a)
    return np.array([[1.0, 0.0, 0.0], [0.0, c, -s], [0.0, s, c]])


def make_camera(
    extent: tuple[float, float, float, float],
    target: tuple[float, float],
    conditions: Conditions,
    rng: np.random.Generator,
) -> Camera:
    """A random camera over ``target`` that frames the board-plane rectangle ``extent``."""
    tilt = math.radians(rng.uniform(*conditions.tilt))
    azimuth = rng.uniform(0, 2 * math.pi)
    roll = math.radians(rng.uniform(*conditions.roll))
    distance = rng.uniform(*conditions.distance)
    fill = rng.uniform(*conditions.fill)
    k1 = rng.uniform(*conditions.k1)
    k2 = rng.uniform(*conditions.k2)
    # Camera → board rotation: look straight down (camera axes = board axes), roll about the
    # optical axis, then tilt about a horizontal axis pointing at ``azimuth``.
    c2b = _rot_z(azimuth) @ _rot_x(tilt) @ _rot_z(-azimuth) @ _rot_z(roll)
    view = c2b @ np.array([0.0, 0.0, 1.0])
    centre = np.array([target[0], target[1], 0.0]) - distance * view
    R = c2b.T
    t = -R @ centre
    w, h = conditions.width, conditions.height
    # Choose the focal length so the extent's outline spans ``fill`` of the limiting image side
    # as the lens draws it: distortion acts on normalised coordinates, which do not depend on f.
    x0, y0, x1, y1 = extent
    t_ = np.linspace(0.0, 1.0, 9)
    xs = np.concatenate([x0 + (x1 - x0) * t_, np.full(9, x1), x1 - (x1 - x0) * t_, np.full(9, x0)])
    ys = np.concatenate([np.full(9, y0), y0 + (y1 - y0) * t_, np.full(9, y1), y1 - (y1 - y0) * t_])
    outline = np.column_stack([xs, ys, np.zeros(len(xs))])
    cam = outline @ R.T + t
    nx, ny = cam[:, 0] / cam[:, 2], cam[:, 1] / cam[:, 2]
    r2 = nx * nx + ny * ny
    radial = 1 + k1 * r2 + k2 * r2 * r2
    nx, ny = nx * radial, ny * radial
    f = fill * min(w / (2 * np.abs(nx).max()), h / (2 * np.abs(ny).max()))
    K = np.array([[f, 0, (w - 1) / 2], [0, f, (h - 1) / 2], [0, 0, 1]], dtype=np.float64)
    dist = np.array([k1, k2, 0.0, 0.0, 0.0])
    return Camera(K=K, dist=dist, R=R, t=t, width=w, height=h)
