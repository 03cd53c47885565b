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
class PerLabel:
    """Reductions over pixels by their label (0 .. n-1): the pixels in any order, the values
    given in that order (no sort: ``ufunc.at`` and ``bincount``)."""

    label: npt.NDArray[Any]  # intp, of each pixel
    n: int

    @classmethod
    def of(cls, labels: npt.NDArray[Any], n: int) -> PerLabel:
        return cls(labels.astype(np.intp, copy=False), n)

    @property
    def count(self) -> npt.NDArray[Any]:
        out: npt.NDArray[Any] = np.bincount(self.label, minlength=self.n)
        return out

    def min(self, values: npt.NDArray[Any]) -> npt.NDArray[Any]:
        out = np.full(self.n, _highest(values.dtype), values.dtype)
        np.minimum.at(out, self.label, values)
        return out

    def max(self, values: npt.NDArray[Any]) -> npt.NDArray[Any]:
        out = np.full(self.n, _lowest(values.dtype), values.dtype)
        np.maximum.at(out, self.label, values)
        return out

    def sum(self, values: npt.NDArray[Any]) -> npt.NDArray[Any]:
        out: npt.NDArray[Any] = np.bincount(self.label, weights=values, minlength=self.n)
        return out


def _highest(dtype: np.dtype[Any]) -> Any:
    return np.inf if dtype.kind == "f" else np.iinfo(dtype).max


def _lowest(dtype: np.dtype[Any]) -> Any:
    return -np.inf if dtype.kind == "f" else np.iinfo(dtype).min


def block_order(x: npt.NDArray[Any], y: npt.NDArray[Any], width: int) -> npt.NDArray[Any]:
    """The 2x2 block of each pixel, numbered in raster order."""
    out: npt.NDArray[Any] = (y // 2) * (width // 2 + 1) + x // 2
    return out


def pack_boxes(
    width: npt.NDArray[Any], height: npt.NDArray[Any], stretches: tuple[float, ...] = (1.4, 2.2)
) -> tuple[npt.NDArray[Any], npt.NDArray[Any], tuple[int, int]]:
    """Places (x, y) of boxes of these sizes, tallest first on shelves, a pixel apart and from
    the edges; and the size of the whole (width, height). Of the shelf lengths tried
    (``stretches`` times the square root of the boxes' area), the one that wastes least."""
    if not width.size:
        return width, height, (1, 1)
    order = np.argsort(-height, kind="stable").tolist()
    wide, high = width.tolist(), height.tolist()
    side = float(np.sum((width + 1) * (height + 1))) ** 0.5
    best: tuple[int, list[int], list[int], tuple[int, int]] | None = None
    for stretch in stretches:
        length = max(int(stretch * side), max(wide) + 2)
        xs, ys = [0] * len(wide), [0] * len(wide)
        x, y, shelf = 1, 1, 0
        for i in order:
            if x + wide[i] + 1 > length:
                x, y, shelf = 1, y + shelf + 1, 0
            xs[i], ys[i] = x, y
            x += wide[i] + 1
            shelf = max(shelf, high[i])
        size = (length, y + shelf + 1)
        if best is None or size[0] * size[1] < best[0]:
            best = (size[0] * size[1], xs, ys, size)
    assert best is not None
    return np.array(best[1], np.intp), np.array(best[2], np.intp), best[3]
