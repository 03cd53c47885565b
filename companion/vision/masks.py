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
    # The background reached from the corner is cleared: what is left is enclosed, the holes.
    holes = cv2.inRange(mask, 0, 0)
    cv2.floodFill(holes, None, (0, 0), 0)
    out: Image = mask.copy()
    if not cv2.countNonZero(holes):
        return out  # (most masks: no hole at all; OpenCV's count is a fraction of a search)
    ys, xs = nonzero(holes)
    if ys.size:
        _, labels = cv2.connectedComponents(holes, connectivity=4)
        label = labels[ys, xs]
        small = np.bincount(label) <= most
        small[0] = False
        keep = small[label]
        out[ys[keep], xs[keep]] = 1
    return out


def nonzero(mask: Image) -> tuple[npt.NDArray[Any], npt.NDArray[Any]]:
    """``np.nonzero`` of a 2-D mask (rows, columns), through the flat indices: NumPy's 2-D
    nonzero costs about as much per pixel looked at as twenty flat ones."""
    flat = np.flatnonzero(mask if mask.dtype == bool else mask != 0)
    ys, xs = np.divmod(flat, mask.shape[1])
    return ys, xs


def components(mask: Image, connectivity: int = 8) -> tuple[int, Image, Image, Image]:
    """``cv2.connectedComponentsWithStats`` for the components (labels 1..n-1): the same
    labels, stats and centroids, worked out from the mask's pixels only (OpenCV's stats pass
    costs ten times its labelling on a big, mostly empty mask). Row 0 (the background) holds
    only its area."""
    n, labels = cv2.connectedComponents(mask, connectivity=connectivity)
    stats = np.zeros((n, 5), np.int32)
    centroids = np.zeros((n, 2), np.float64)
    ys, xs = nonzero(mask)
    stats[0, cv2.CC_STAT_AREA] = mask.size - ys.size
    if n < 2:
        return n, labels, stats, centroids
    label = labels[ys, xs]
    area = np.bincount(label, minlength=n)
    x0 = np.full(n, mask.shape[1], np.int64)
    y0 = np.full(n, mask.shape[0], np.int64)
    x1 = np.full(n, -1, np.int64)
    y1 = np.full(n, -1, np.int64)
    np.minimum.at(x0, label, xs)
    np.minimum.at(y0, label, ys)
    np.maximum.at(x1, label, xs)
    np.maximum.at(y1, label, ys)
    part = np.s_[1:]
    stats[part, cv2.CC_STAT_LEFT] = x0[part]
    stats[part, cv2.CC_STAT_TOP] = y0[part]
    stats[part, cv2.CC_STAT_WIDTH] = (x1 - x0 + 1)[part]
    stats[part, cv2.CC_STAT_HEIGHT] = (y1 - y0 + 1)[part]
    stats[part, cv2.CC_STAT_AREA] = area[part]
    # (Sums of whole pixel coordinates are exact in float64, as OpenCV's integer sums.)
    centroids[part, 0] = np.bincount(label, weights=xs, minlength=n)[part] / area[part]
    centroids[part, 1] = np.bincount(label, weights=ys, minlength=n)[part] / area[part]
    return n, labels, stats, centroids


def opened_by(mask: Image, kernel: Image) -> Image:
    """``mask`` opened by ``kernel``: the parts of it the kernel fits in, where they lie.

    Not cv2.morphologyEx's opening: that dilates with the same kernel and anchor it erodes
    with, so with an even kernel (its anchor off the middle) what it keeps lies a pixel down
    and right of where it was. The dilation here is by the kernel turned half round about the
    anchor (for a square or disc, the same kernel with the anchor reflected)."""
    rows, cols = kernel.shape
    eroded = cv2.erode(mask, kernel)
    out: Image = cv2.dilate(
        eroded,
        np.ascontiguousarray(kernel[::-1, ::-1]),
        anchor=(cols - 1 - cols // 2, rows - 1 - rows // 2),
    )
    return out


def disc(radius: int) -> Image:
    """OpenCV's elliptic structuring element of that radius (2 radius + 1 across)."""
    out: Image = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (2 * radius + 1, 2 * radius + 1))
    return out


def dilate_ellipse(mask: Image, size: int) -> Image:
    """``cv2.dilate`` of a mask by OpenCV's ``size`` x ``size`` MORPH_ELLIPSE (odd size): the
    same pixels, as the union of dilations by the ellipse's few stacked rectangles (a
    rectangle's is separable: a wide ellipse's own costs about twice as much)."""
    kernel = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (size, size))
    centre = size // 2
    widths = kernel.sum(axis=1).astype(int)
    boxes = []
    cover = np.zeros_like(kernel)
    for width in sorted(set(widths.tolist()) - {0}):
        rows = np.flatnonzero(widths >= width)
        top, height = int(rows[0]), int(rows[-1] - rows[0] + 1)
        cover[top : top + height, centre - width // 2 : centre + width // 2 + 1] = 1
        boxes.append((np.ones((height, width), np.uint8), (width // 2, centre - top)))
    if not np.array_equal(cover, kernel):  # (the rectangles are not the ellipse: its own)
        out: Image = cv2.dilate(mask, kernel)
        return out
    out = np.zeros_like(mask)
    for box, anchor in boxes:
        out |= cv2.dilate(mask, box, anchor=anchor)
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
