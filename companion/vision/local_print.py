"""The board's own print round each pixel, and lightness as the camera encodes it: the
references that big pieces (castles, the king, grandes) are judged against, since the light
over a table is never even (a gradient, a lamp's glare, the shadow of an arm)."""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import cv2
import numpy as np
import numpy.typing as npt

from companion.vision.colour import L_WEIGHT

Image = npt.NDArray[Any]
FloatArray = npt.NDArray[Any]


def _grey_values() -> FloatArray:
    """The grey value (0-255, as the camera encodes it) of each OpenCV 8-bit Lab lightness.

    Exposure scales grey values and a lamp's glare adds to them, so between two references
    (ink and paper) a grey value keeps its share; Lab lightness, a cube root, does not.
    """
    f = (np.arange(256, dtype=np.float64) / 2.55 + 16.0) / 116.0
    luminance = np.where(f > 6 / 29, f**3, 3 * (6 / 29) ** 2 * (f - 4 / 29))
    out: FloatArray = (255.0 * np.clip(luminance, 0.0, 1.0) ** (1 / 2.2)).astype(np.float32)
    return out


# GREY[L]: the grey value of OpenCV 8-bit Lab lightness L.
GREY = _grey_values()


@dataclass(frozen=True)
class PrintCells:
    """The print round each pixel, worked out on a grid of square cells (see
    :func:`print_cells`) and read between the cells' centres."""

    lab: Image  # rows x cols x 3, uint8: each cell's median print
    found: Image  # rows x cols, uint8 0/255: the cells most of whose pixels are print
    step: int  # image pixels a cell side

    def at(self, ys: Image, xs: Image) -> Image:
        """The print (N x 3, uint8) at pixels ``ys``, ``xs`` of the image the cells were made
        of: bilinear between the four nearest cells' centres (held flat beyond the outer
        ones), as a linear resize of the cells to the image would give, rounded."""
        rows, cols = self.lab.shape[:2]

        def split(at: Image, count: int) -> tuple[Image, Image, Image]:
            f = np.clip((at.astype(np.float32) + 0.5) / self.step - 0.5, 0.0, count - 1)
            low = np.minimum(f.astype(np.intp), max(0, count - 2))
            return low, np.minimum(low + 1, count - 1), (f - low)[:, None]

        y0, y1, wy = split(ys, rows)
        x0, x1, wx = split(xs, cols)
        flat = self.lab.reshape(-1, 3)

        def cell(y: Image, x: Image) -> Image:
            out: Image = np.take(flat, y * cols + x, axis=0).astype(np.float32)
            return out

        top = cell(y0, x0) * (1 - wx) + cell(y0, x1) * wx
        bottom = cell(y1, x0) * (1 - wx) + cell(y1, x1) * wx
        out: Image = np.rint(top * (1 - wy) + bottom * wy).astype(np.uint8)
        return out


def print_cells(lab: Image, print_: Image, window: int, cells: int) -> PrintCells:
    """The print round each pixel of ``lab`` (8-bit, 3 channels): the median over a window of
    ``cells`` x ``cells`` cells, each ``window`` / ``cells`` pixels a side and holding the
    mean of its print pixels (``print_``: uint8, 0/255), or, where most of a cell's pixels
    are not print, the median of the print cells. A piece on the print fills a cell or two
    of a window's many, as its pixels were a few of the median's many at every pixel."""
    h, w = lab.shape[:2]
    step = max(1, min(round(window / cells), h, w))
    size = (w // step, h // step)
    # Whole cells only (the pixels over at the right and bottom edges are read from the
    # outer cells): an area resize by a whole factor is OpenCV's fast one.
    whole = np.s_[: size[1] * step, : size[0] * step]
    share = cv2.resize(print_[whole], size, interpolation=cv2.INTER_AREA)
    found = share >= 128
    # (The print's mean in a cell: the mean of its pixels with the rest zeroed, over the
    # print's share of them.)
    masked = cv2.bitwise_and(lab[whole], lab[whole], mask=print_[whole])
    means = cv2.resize(masked, size, interpolation=cv2.INTER_AREA).astype(np.float32)
    means *= 255.0 / np.maximum(share, 1).astype(np.float32)[..., None]
    grid = np.rint(np.minimum(means, 255.0)).astype(np.uint8)
    if found.any():
        grid[~found] = median_u8(grid[found]).astype(np.uint8)
    k = max(3, cells | 1)
    # (OpenCV's median of a 3-channel image is each channel's, at less cost than three.)
    smooth: Image = cv2.medianBlur(grid, k)
    return PrintCells(smooth, found.view(np.uint8) * np.uint8(255), step)


def high_quantile_of(values: Image, q: float, step: int = 8) -> Any:
    """:func:`quantile_of` for ``q`` near 1 (a few values of many above it): the same number
    to the last bit, partitioning only the values at or above a bound from every ``step``-th
    value (a little below the quantile), all of it if fewer than the quantile needs are."""
    n = values.size
    below = max(0, math.floor((n - 1) * q))
    if n >= 16 * step and below + 1 < n:
        bound = quantile_of(values[::step], max(0.0, 1.0 - 2.0 * (1.0 - q) - 4.0 / n * step))
        high = values[values >= bound]
        # Every value left out is below every value kept: the kept ones' order from the top
        # is the whole's, if the two order statistics the quantile takes are among them.
        if high.size >= n - below:
            return _quantile_at(high, (n - 1) * q - (n - high.size))
    return quantile_of(values, q)


def _quantile_at(values: Image, at: float) -> Any:
    """Linear interpolation between the order statistics of ``values`` round ``at``."""
    n = values.size
    if at >= n - 1:
        return np.max(values)
    below = max(0, math.floor(at))
    gamma = at - below
    low, high = np.partition(values, (below, below + 1))[below : below + 2]
    diff = high - low
    # (NumPy's interpolation term for term: the weight a Python float, so the values' type.)
    return high - diff * (1 - gamma) if gamma >= 0.5 else low + diff * gamma


def median_u8(values: Image) -> FloatArray:
    """``np.median(values, axis=0)`` of 8-bit values (N x C, N > 0), from their counts: a
    tenth of the cost of sorting them."""
    counts = np.stack([np.bincount(values[:, c], minlength=256) for c in range(values.shape[1])])
    return median_rows(counts)


def percentile_u8(counts: Image, q: float, table: FloatArray | None = None) -> float:
    """``np.percentile`` (linear) of the 8-bit values ``counts`` counts (``np.bincount``,
    256 long, some counted), or with ``table`` (float32, non-decreasing, e.g. GREY) of
    ``table[value]``: the same number to the last bit, from the counts instead of a sort."""
    return float(percentile_rows(np.asarray(counts)[None], q, table)[0])


def _rank_rows(ends: Image, k: FloatArray) -> Image:
    """Per row, ``np.searchsorted(row, k, side="right")`` of a row of cumulative counts."""
    out: Image = (ends <= k[:, None]).sum(axis=1)
    return out


def percentile_rows(counts: Image, q: float, table: FloatArray | None = None) -> FloatArray:
    """``np.percentile`` (linear) of each row of ``counts`` (M x 256, each an ``np.bincount``
    of 8-bit values), or with ``table`` (float32, non-decreasing, e.g. GREY) of
    ``table[value]``: the same numbers to the last bit (float64 values, or float32 ones with
    a float32 ``table``), from the counts instead of a sort."""
    ends = np.cumsum(counts, axis=1)
    n = ends[:, -1]
    at = (n - 1) * (np.float64(q) / 100)
    below = np.floor(at)
    gamma = at - below
    low = _rank_rows(ends, below)
    high = _rank_rows(ends, np.minimum(below + 1, n - 1))
    rest = 1 - gamma
    if table is None:
        a, b = low.astype(np.float64), high.astype(np.float64)
        up, down = gamma, rest
    else:
        # (NumPy's interpolation term for term, in the values' own type.)
        a, b = table[low], table[high]
        up, down = gamma.astype(table.dtype), rest.astype(table.dtype)
    out: FloatArray = np.where(gamma < 0.5, a + (b - a) * up, b - (b - a) * down)
    return out


def median_rows(counts: Image, table: FloatArray | None = None) -> FloatArray:
    """``np.median`` of each row of ``counts`` (M x 256) of 8-bit values, or with ``table``
    (float32, non-decreasing) of ``table[value]``: the same numbers to the last bit."""
    ends = np.cumsum(counts, axis=1)
    n = ends[:, -1]
    low = _rank_rows(ends, (n - 1) // 2)
    high = _rank_rows(ends, n // 2)
    if table is None:
        both: FloatArray = (low + high) / 2
        return both
    # (NumPy's median of an even count is the float32 mean of the middle two.)
    mean = (table[low] + table[high]) / table.dtype.type(2)
    out: FloatArray = np.where(n % 2 == 0, mean, table[low])
    return out


def lab_distance(lab: Image, ref: Image) -> FloatArray:
    """Lab distance (lightness at half weight) per pixel."""
    d = lab.astype(np.float32) - ref.astype(np.float32)
    out: FloatArray = np.sqrt((L_WEIGHT * d[..., 0]) ** 2 + d[..., 1] ** 2 + d[..., 2] ** 2)
    return out


def local_print_cells(lab: Image, print_: Image, window: int) -> tuple[Image, int]:
    """The print round each pixel (the median over a window of about ``window`` px of the
    print's pixels, ``print_`` a mask), at the resolution it is worked out at, for a caller
    that needs it at a few pixels only: the median image (Lab) of cells about a ninth of the
    window a side, and that cell size in pixels. Each cell is averaged first and taken as
    print if most of its pixels are (the median over a window of cells then keeps a piece's
    pixels out); the others take the print cells' median. (The figures' dark search; the
    castles read theirs with :func:`print_cells`, whose cells hold their print pixels' mean.)"""
    h, w = lab.shape[:2]
    step = max(1, window // 9)
    size = (max(1, w // step), max(1, h // step))
    # Whole cells only (the few pixels over at the right and bottom edges are left out): an
    # area resize by a whole factor is OpenCV's fast one.
    whole = np.s_[: size[1] * step, : size[0] * step]
    cells = cv2.resize(lab[whole], size, interpolation=cv2.INTER_AREA)
    # (The share of print pixels in each cell, rounded: 1 where most of them are.)
    found = cv2.resize(print_[whole].view(np.uint8), size, interpolation=cv2.INTER_AREA) > 0
    if not found.any():
        return cells, step
    fill = median_u8(cells[found]).astype(np.uint8)
    cells = np.where(found[..., None], cells, fill).astype(np.uint8)
    k = max(3, (window // step) | 1)
    # (OpenCV's median of a 3-channel image is each channel's, at less cost than three.)
    out: Image = cv2.medianBlur(cells, k)
    return out, step


def quantile_of(values: Image, q: float) -> Any:
    """``np.quantile(values, q)`` (linear) of a 1-D array of finite floats, ``q`` a Python
    float: the same number to the last bit (in the values' own type), from one partition
    without NumPy's checks and copies, which cost several times as much on a few hundred
    values."""
    return _quantile_at(values, (values.size - 1) * q)


def median_columns(values: Image) -> Image:
    """``np.median(values, axis=0)`` of an N x C float array (N > 0, finite): the same numbers
    to the last bit, from one partition (NumPy's median costs several times as much on the
    few hundred pixels of a die)."""
    n = values.shape[0]
    half = n // 2
    if n % 2:
        out: Image = np.partition(values, half, axis=0)[half]
        return out
    middle = np.partition(values, (half - 1, half), axis=0)
    # (NumPy's median of an even count: the mean of the middle two, in the values' type.)
    out = (middle[half - 1] + middle[half]) / 2
    return out
