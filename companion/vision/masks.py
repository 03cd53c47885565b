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
    sizes: list[tuple[int, int]], stretches: tuple[float, ...] = (1.2, 2.0, 3.2)
) -> tuple[list[tuple[int, int]], tuple[int, int]]:
    """Places (x, y) of boxes (w, h) on shelves, tallest first, one pixel apart and from the
    edges, and the size of the whole. Of the shelf widths tried (``stretches`` times the
    square root of the boxes' area), the one that wastes least."""
    if not sizes:
        return [], (1, 1)
    order = sorted(range(len(sizes)), key=lambda i: -sizes[i][1])
    widest = max(bw for bw, _ in sizes) + 2
    area = sum((bw + 1) * (bh + 1) for bw, bh in sizes)
    best: tuple[int, list[tuple[int, int]], tuple[int, int]] | None = None
    for stretch in stretches:
        width = max(widest, int(stretch * area**0.5))
        places = [(0, 0)] * len(sizes)
        x, y, shelf = 1, 1, 0
        for i in order:
            bw, bh = sizes[i]
            if x + bw + 1 > width:
                x, y, shelf = 1, y + shelf + 1, 0
            places[i] = (x, y)
            x += bw + 1
            shelf = max(shelf, bh)
        size = (width, y + shelf + 1)
        if best is None or size[0] * size[1] < best[0]:
            best = (size[0] * size[1], places, size)
    assert best is not None
    return best[1], best[2]
