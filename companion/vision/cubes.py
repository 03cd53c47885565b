"""Counting cubes of one colour in a label image, touching clusters included.

A blob of one colour holds ``round(area / footprint)`` cubes, where the footprint is what one cube
covers at that place of the image (it shrinks towards the far edge of the board). The count is
checked against an independent seed count: the blob eroded to its cube cores, where the seams
between touching cubes open up. When the two disagree, or the area is far from a whole number of
cubes (a stacked, tilted or half-hidden cube), the blob's confidence drops and it is flagged.
A blob that straddles a border is split into its cubes (k-means on its pixels) and each cube goes
to the area holding its centre.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import cv2
import numpy as np
import numpy.typing as npt

from companion.vision.config import DEFAULT_CONFIG, VisionConfig

U8Image = npt.NDArray[Any]
F32Image = npt.NDArray[Any]
I32Image = npt.NDArray[Any]

_KMEANS = (cv2.TERM_CRITERIA_EPS + cv2.TERM_CRITERIA_MAX_ITER, 20, 0.2)


@dataclass(frozen=True)
class Blob:
    """A connected patch of one colour and the cubes read from it."""

    cubes: int
    estimate: float  # area / footprint, before rounding
    seeds: int
    centres: tuple[tuple[float, float], ...]
    bbox: tuple[int, int, int, int]  # x, y, w, h in working pixels

    @property
    def residual(self) -> float:
        return abs(self.estimate - self.cubes)

    @property
    def confidence(self) -> float:
        """1.0 for a clean whole number of cubes that the seeds agree with; lower otherwise."""
        c = max(0.0, 1.0 - 2.0 * self.residual)
        if self.seeds > self.cubes:
            c *= 0.5  # more separate cores than the area allows: cubes smaller than expected
        elif self.seeds < self.cubes:
            c *= 0.9  # touching cubes often show no seam; a mild doubt only
        return c

    def __repr__(self) -> str:
        return f"<Blob {self.cubes} cubes (est {self.estimate:.2f}, seeds {self.seeds})>"


def clean(mask: U8Image) -> U8Image:
    """Drop one-pixel specks and fill pinholes (print texture, sensor noise)."""
    k = np.ones((3, 3), np.uint8)
    out: U8Image = cv2.morphologyEx(mask, cv2.MORPH_OPEN, k)
    out = cv2.morphologyEx(out, cv2.MORPH_CLOSE, k)
    return out


def seed_count(component: U8Image, cube_side: float) -> int:
    """Cube cores in one blob: pixels deeper than a third of a side, as separate patches."""
    if not component.any():
        return 0
    dist = cv2.distanceTransform(component, cv2.DIST_L2, 3)
    cores = (dist >= cube_side * 0.3).astype(np.uint8)
    n, _ = cv2.connectedComponents(cores, connectivity=4)
    return max(1, n - 1)


def find_blobs(
    mask: U8Image,
    footprint: F32Image | float,
    cube_side: F32Image | float,
    config: VisionConfig = DEFAULT_CONFIG,
    *,
    split: npt.NDArray[Any] | None = None,
) -> list[Blob]:
    """Blobs of a binary mask (0/255 or 0/1) with their cube counts.

    ``footprint``/``cube_side`` give a cube's pixel area and side, either as one number or as a
    per-pixel map (perspective). ``split`` marks pixels where a blob must be split into cube
    centres (near a border); elsewhere a blob's centre stands for all its cubes.
    """
    n, labels, stats, centroids = cv2.connectedComponentsWithStats(mask, connectivity=8)
    blobs: list[Blob] = []
    for i in range(1, n):
        x, y, w, h, area = (int(v) for v in stats[i])
        cx, cy = float(centroids[i][0]), float(centroids[i][1])
        ix, iy = min(int(cx), mask.shape[1] - 1), min(int(cy), mask.shape[0] - 1)
        fp = float(footprint[iy, ix]) if isinstance(footprint, np.ndarray) else float(footprint)
        side = float(cube_side[iy, ix]) if isinstance(cube_side, np.ndarray) else float(cube_side)
        estimate = area / fp
        if estimate < config.min_blob_cubes:
            continue
        cubes = max(1, round(estimate))
        comp = (labels[y : y + h, x : x + w] == i).astype(np.uint8)
        seeds = seed_count(np.pad(comp, 1), side)
        centres: tuple[tuple[float, float], ...] = ((cx, cy),) * cubes
        if cubes > 1 and (split is None or split[y : y + h, x : x + w][comp > 0].any()):
            centres = _split(comp, cubes, x, y)
        blobs.append(Blob(cubes, estimate, seeds, centres, (x, y, w, h)))
    return blobs


def _split(comp: U8Image, k: int, x0: int, y0: int) -> tuple[tuple[float, float], ...]:
    ys, xs = np.nonzero(comp)
    pts = np.stack([xs, ys], axis=1).astype(np.float32)
    if pts.shape[0] < k:
        c = pts.mean(axis=0)
        return ((float(c[0]) + x0, float(c[1]) + y0),) * k
    cv2.setRNGSeed(7)  # the same frame always splits the same way
    labels = np.zeros((pts.shape[0], 1), np.int32)
    _, _, centres = cv2.kmeans(pts, k, labels, _KMEANS, 2, cv2.KMEANS_PP_CENTERS)
    return tuple((float(c[0]) + x0, float(c[1]) + y0) for c in centres)


def remove_disc(mask: U8Image, centre: tuple[float, float], radius: float) -> None:
    """Erase a found big piece from a mask so its pixels are not counted as cubes."""
    cv2.circle(mask, (round(centre[0]), round(centre[1])), max(1, round(radius)), 0, -1)
