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
