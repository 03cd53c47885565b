"""The hand check: is a hand or arm over the board? Then nothing in the frame is counted.

A hand is skin-coloured (or, over the areas, of no colour the model knows: a sleeve, a glove)
and big: many cube footprints. And it belongs to an arm that reaches in from outside the
board: the blob must touch the board's outline or the frame's border. A region's warm print in
warm light can look like skin and is as big as a hand, but it lies within the board.
"""

from __future__ import annotations

from typing import Any

import cv2
import numpy as np
import numpy.typing as npt

from companion.vision.colour import BACKGROUND, UNKNOWN
from companion.vision.config import DEFAULT_CONFIG, VisionConfig

Image = npt.NDArray[Any]


def white_cast(paper: Image) -> tuple[float, float]:
    """The light's colour cast (Lab a, b offsets) from the Lab pixels (N x 3) of the printed
    markers' white paper (the markers with their margins): their brighter part (the lightest
    30 %), by the median."""
    if paper.shape[0] < 16:
        return 0.0, 0.0
    light = paper[:, 0]
    bright = paper[light >= _percentile(np.bincount(light, minlength=256), 70.0)]
    a = np.bincount(bright[:, 1], minlength=256)
    b = np.bincount(bright[:, 2], minlength=256)
    return _percentile(a, 50.0) - 128.0, _percentile(b, 50.0) - 128.0


def _percentile(hist: Image, q: float) -> float:
    """``np.percentile`` (linear) of the values a histogram of 8-bit values counts: the same
    number, from 256 counts instead of a sort."""
    n = int(hist.sum())
    at = (n - 1) * (np.float64(q) / 100)
    below = np.floor(at)
    gamma = float(at - below)
    ends = np.cumsum(hist)
    a = float(np.searchsorted(ends, below, side="right"))
    b = float(np.searchsorted(ends, min(below + 1, n - 1), side="right"))
    # numpy's interpolation, term for term (so the result is the same to the last bit)
    return a + (b - a) * gamma if gamma < 0.5 else b - (b - a) * (1 - gamma)


def _run(inside: Image) -> tuple[int, int]:
    """First and last true index of a boolean run over 0..255 ((1, 0): none)."""
    where = np.flatnonzero(inside)
    return (int(where[0]), int(where[-1])) if where.size else (1, 0)


def skin_mask(
    lab: Image, cast: tuple[float, float] = (0.0, 0.0), config: VisionConfig = DEFAULT_CONFIG
) -> Image:
    """Warm, mid-light, moderately saturated pixels (OpenCV 8-bit Lab), as under neutral light:
    ``cast`` (see :func:`white_cast`) is taken off first."""
    # Each channel's test is an interval of its 256 values: found once per call, then the
    # image is one range check (no float copy of the frame).
    values = np.arange(256, dtype=np.float32)
    lo_a, hi_a = config.skin_a
    lo_b, hi_b = config.skin_b
    a0, a1 = _run(((values - cast[0]) > lo_a) & ((values - cast[0]) < hi_a))
    b0, b1 = _run(((values - cast[1]) > lo_b) & ((values - cast[1]) < hi_b))
    l0, l1 = _run(np.arange(256) > config.skin_l)
    inside = cv2.inRange(np.ascontiguousarray(lab), (l0, a0, b0), (l1, a1, b1))
    out: Image = inside > 0
    return out


def hand_check(
    labels: Image,
    lab: Image,
    hand_zone: Image,
    area_zone: Image,
    outside: Image,
    typical_footprint: float,
    config: VisionConfig,
    cast: tuple[float, float] = (0.0, 0.0),
) -> str | None:
    """Why this frame shows a hand or arm over the board, or None.

    ``labels``/``lab`` and the zones are at half the working image's resolution (a hand is big:
    every other pixel of every other row is plenty). ``hand_zone``: where a hand matters (the
    board but its markers and the tower); ``area_zone``: the areas; ``outside``: off the board.
    ``cast``: the light's colour cast, from the markers' paper (:func:`white_cast`; warm light
    makes the whole board look like skin).
    """
    # Skin as under neutral light; or skin as the camera sees it where the colour model does
    # not take it for the board (a cast misjudged by glare on a marker).
    skin = skin_mask(lab, cast, config) | (skin_mask(lab, config=config) & (labels != BACKGROUND))
    unknown = labels == UNKNOWN
    # Over the areas anything of no known colour is suspect; over bare mat or the board's
    # frame (scoreboards, print, the tower's shadow) only skin is.
    strange = (unknown & area_zone) | (skin & hand_zone)
    kernel = np.ones((2, 2), np.uint8)
    blobs = cv2.morphologyEx(strange.astype(np.uint8), cv2.MORPH_OPEN, kernel)
    limit = config.hand_min_cubes * typical_footprint / 4
    if cv2.countNonZero(blobs) < limit:
        return None  # not enough of it for one big blob (most frames: no need to look closer)
    n, parts = cv2.connectedComponents(blobs, connectivity=8)
    at = np.flatnonzero(blobs)
    part = parts.ravel()[at]
    area = np.bincount(part, minlength=n)
    big = [i for i in range(1, n) if area[i] >= limit]
    if not big:
        return None
    # One blob must be that big by itself (scattered odd pixels joined by a grey mat are no
    # hand), and reach off the board. What joins a blob to the world outside the board: skin
    # or anything unknown on the board's frame (a sleeve), skin off the board (the forearm).
    reach = strange | (unknown & hand_zone) | (skin & outside)
    reach = cv2.bitwise_or(cv2.morphologyEx(reach.astype(np.uint8), cv2.MORPH_OPEN, kernel), blobs)
    _, comp = cv2.connectedComponents(reach, connectivity=8)
    border = np.zeros_like(outside)
    border[0, :] = border[-1, :] = border[:, 0] = border[:, -1] = True
    edge = cv2.dilate((outside | border).astype(np.uint8), np.ones((3, 3), np.uint8)) > 0
    joined = np.flatnonzero(reach)
    entering = np.unique(comp.ravel()[joined[edge.ravel()[joined]]])
    for i in big:
        if np.isin(comp.ravel()[at[part == i]], entering).any():
            return f"a hand or arm over the board (blob of {area[i]} px)"
    return None
