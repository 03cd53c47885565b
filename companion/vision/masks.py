"""Small operations on binary masks and labelled pixels shared by the stages."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import cv2
import numpy as np
import numpy.typing as npt

Image = npt.NDArray[Any]


def fill_holes(mask: Image) -> Image:
    """The mask with enclosed holes filled (a pawn's glint, a die's pips)."""
    h, w = mask.shape
    flood = np.zeros((h + 2, w + 2), np.uint8)
    outside = (mask == 0).astype(np.uint8)
    cv2.floodFill(outside, flood, (0, 0), 2)
    filled: Image = np.where(outside == 1, 1, mask).astype(np.uint8)
    return filled


def fill_small_holes(mask: Image, most: float) -> Image:
    """The mask with its enclosed holes of at most ``most`` pixels filled (a castle's top
    inside the square drawn on it, a pawn's glint), not the big ones a thin outline encloses
    (a marker's margin round its code, a region's printed border)."""
    holes = (fill_holes(mask) > 0) & (mask == 0)
    _, labels, stats, _ = cv2.connectedComponentsWithStats(holes.astype(np.uint8), connectivity=4)
    small = np.flatnonzero(stats[:, cv2.CC_STAT_AREA] <= most)
    out: Image = mask.copy()
    out[np.isin(labels, small[small > 0])] = 1
    return out


@dataclass(frozen=True)
class Runs:
    """Pixels grouped by label (0 .. n-1), raster order kept inside each: label i's pixels are
    ``order[start[i] : start[i] + count[i]]`` of the original list. Reductions per label."""

    order: npt.NDArray[Any]
    label: npt.NDArray[Any]  # of each pixel, in the grouped order
    start: npt.NDArray[Any]
    count: npt.NDArray[Any]

    @classmethod
    def of(cls, labels: npt.NDArray[Any], n: int | None = None) -> Runs:
        """``labels``: each pixel's, every one of 0 .. n-1 used (n: the largest + 1)."""
        order = np.argsort(labels, kind="stable")
        count = np.bincount(labels, minlength=n or 0)
        start = np.cumsum(count) - count
        return cls(order, labels[order], start, count)

    def min(self, values: npt.NDArray[Any]) -> npt.NDArray[Any]:
        out: npt.NDArray[Any] = np.minimum.reduceat(values, self.start)
        return out

    def max(self, values: npt.NDArray[Any]) -> npt.NDArray[Any]:
        out: npt.NDArray[Any] = np.maximum.reduceat(values, self.start)
        return out

    def sum(self, values: npt.NDArray[Any]) -> npt.NDArray[Any]:
        out: npt.NDArray[Any] = np.add.reduceat(values, self.start)
        return out


def block_order(x: npt.NDArray[Any], y: npt.NDArray[Any], width: int) -> npt.NDArray[Any]:
    """The 2x2 block of each pixel, numbered in raster order."""
    out: npt.NDArray[Any] = (y // 2) * (width // 2 + 1) + x // 2
    return out


def pack_boxes(
    width: npt.NDArray[Any], height: npt.NDArray[Any], stretch: float = 2.0
) -> tuple[npt.NDArray[Any], npt.NDArray[Any], tuple[int, int]]:
    """Places (x, y) of boxes of these sizes, tallest first on shelves about ``stretch`` times
    the square root of their area long, a pixel apart and from the edges; and the size of the
    whole (width, height)."""
    if not width.size:
        return width, height, (1, 1)
    order = np.argsort(-height, kind="stable")
    wide, high = width[order] + 1, height[order]
    shelf_length = max(int(stretch * float(np.sum(wide * (high + 1))) ** 0.5), int(wide.max()))
    start = np.cumsum(wide) - wide  # along one endless shelf, cut into lengths
    shelf = start // shelf_length
    first = np.flatnonzero(np.r_[True, shelf[1:] != shelf[:-1]])
    tall = np.maximum.reduceat(high, first) + 1
    top = np.cumsum(tall) - tall + 1
    x = np.empty_like(start)
    y = np.empty_like(start)
    x[order] = start - shelf * shelf_length + 1
    y[order] = top[np.cumsum(np.r_[True, shelf[1:] != shelf[:-1]]) - 1]
    # (a box may reach past its shelf's length: the whole is as much wider)
    return x, y, (shelf_length + int(wide.max()) + 1, int(top[-1] + tall[-1]))
