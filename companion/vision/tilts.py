"""A cube that leans (issue #4): from overhead its top is foreshortened along the lean.

A cube standing flat shows a square top, one cube side a side, on the plane a cube's height above
the board; a cube leaning by an angle shows a rectangle shorter by the angle's cosine along the
lean (15-35°: 0.97-0.82 of a side), and beside it, in the same hue, the side it tips away from,
lit otherwise. So for a cube counted alone from one whole top, its top's pixels (its patch's
pixels within the top's band of lightness, joined to its thickest part) are mapped to board mm
on that plane, and their spread along their two axes read as a rectangle's sides: a top of about
a cube's side one way and clearly shorter the other is flagged. Black tops are not judged (their
band of lightness takes in their lit edges: most of the false flags where they were).

A prototype, off unless ``VisionConfig.tilt_flag``: on hard renders the top's sides are measured
to about a millimetre (8-16 working pixels a side, blurred), as much as a lean shortens them; the
figures are at ``VisionConfig.tilt_flag``.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import cv2
import numpy as np
import numpy.typing as npt

from companion.vision.config import VisionConfig
from companion.vision.cubes import Labelled, Patch

FloatArray = npt.NDArray[Any]
# A cube top's pixels: within this share of its lightness (as cubes.measure's top_share).
TOP_BAND = 0.15


@dataclass(frozen=True)
class TopShape:
    """One lone cube's top, measured on the plane of a cube's top, in board mm."""

    colour: str
    top: tuple[float, float]  # working-image point: the top's thickest point (its Top's)
    # Its pixels' spread along their two axes as a rectangle's sides (a uniform rectangle's
    # second moment along a side of length a is a²/12), mm, longer and shorter (0: not
    # measured).
    major: float
    minor: float


def top_pixels(patch: Patch, lightness: FloatArray) -> tuple[FloatArray, FloatArray] | None:
    """The mosaic points (x, y) of the patch's top: its own pixels whose lightness is within
    TOP_BAND of that at its deepest part, 4-connected to it (``lightness``: the mosaic's Lab L).
    None: the patch's pixels are not where a label map holds them, or there is no top."""
    if not isinstance(patch.pixels, Labelled):
        return None
    own = patch.comp > 0
    if not own.any():
        return None
    y0, y1, x0, x1 = patch.pixels.box
    row = y0 % lightness.shape[0]  # (the colours' masks are stacked planes of its height)
    light = lightness[row : row + (y1 - y0) + 1, x0 : x1 + 1].astype(np.float32)
    if light.shape != own.shape:
        return None
    depth = cv2.distanceTransform(np.pad(own, 1).view(np.uint8), cv2.DIST_L2, 3)[1:-1, 1:-1]
    deep = own & (depth >= depth.max() - 0.5)
    level = float(np.median(light[deep]))
    top = own & (np.abs(light - level) <= max(TOP_BAND * level, 4.0))
    _, parts = cv2.connectedComponents(top.view(np.uint8), connectivity=4)
    seed = np.unravel_index(int(np.argmax(np.where(deep & top, depth, -1))), own.shape)
    label = parts[seed]
    if label == 0:
        return None
    ys, xs = np.nonzero(parts == label)
    return xs.astype(np.float64) + x0, ys.astype(np.float64) + row


def shapes(
    candidates: Sequence[tuple[str, Patch]],
    lightness: FloatArray,
    to_work: Callable[[FloatArray, FloatArray], tuple[FloatArray, FloatArray]],
    to_board: Callable[[FloatArray], FloatArray],
) -> list[TopShape]:
    """Each candidate's top on the plane of a cube's top (``lightness``: the mosaic's Lab L;
    ``to_work``: mosaic pixels (xs, ys) to the working image's; ``to_board``: working-image
    points, N x 2, to board mm on that plane). A top not measured has sides 0."""
    out = []
    for colour, patch in candidates:
        t = patch.tops[0]
        found = top_pixels(patch, lightness)
        if found is None or len(found[0]) < 3:
            out.append(TopShape(colour, (t.x, t.y), 0.0, 0.0))
            continue
        wx, wy = to_work(*found)
        board = to_board(np.column_stack([wx, wy]))
        low, high = np.linalg.eigvalsh(np.cov(board.T))
        # (Each pixel a little square on the board: its own spread, a²/12, added.)
        mid = np.array([wx.mean(), wy.mean()])
        q = to_board(mid + np.array([(0.0, 0.0), (1.0, 0.0), (0.0, 1.0)]))
        (ax, ay), (bx, by) = q[1] - q[0], q[2] - q[0]
        pixel = abs(float(ax * by - ay * bx)) / 12
        major = math.sqrt(12 * (max(float(high), 0.0) + pixel))
        minor = math.sqrt(12 * (max(float(low), 0.0) + pixel))
        out.append(TopShape(colour, (t.x, t.y), major, minor))
    return out


def probable_tilt(shape: TopShape, cube_mm: float, config: VisionConfig) -> bool:
    """Whether the top is about a cube's side one way and clearly shorter the other."""
    if shape.major <= 0 or shape.colour == "black":
        return False
    lo, hi = config.tilt_major
    whole = lo * cube_mm <= shape.major <= hi * cube_mm
    return whole and shape.minor <= config.tilt_minor_ratio * shape.major
