"""A cube put on another cube (issue #4): from overhead one top shows where two cubes stand.

Off the point under the camera (the nadir) a cube's top is seen off its foot, away from the
nadir, by the parallax of its height: between the top and the foot, towards the nadir, its
sides show as a band that long. A stack of two shows its top twice as far off its foot, so its
side band is about twice as long. Where the parallax of one cube is too short to measure
(near the nadir) nothing is said.

A prototype, off unless ``VisionConfig.stack_flag``: on hard renders it finds few stacks (most
touch other pieces, or stand near the nadir, and a cube's dark sides are only partly unknown
pixels); the figures are at ``VisionConfig.stack_flag``.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import cv2
import numpy as np
import numpy.typing as npt

from companion.vision.colour import BACKGROUND, UNKNOWN
from companion.vision.config import VisionConfig
from companion.vision.cubes import Labelled, Patch

FloatArray = npt.NDArray[Any]
U8Image = npt.NDArray[np.uint8]


@dataclass(frozen=True)
class Band:
    """One lone cube's top and its side band: its pixels from the top towards the nadir."""

    colour: str
    top: tuple[float, float]  # working-image point: the top's thickest point
    parallax: float  # how far one cube's foot shows off its top, in cube sides there
    ratio: float  # the band's length over that parallax (1: one cube, 2: two; 0: not told)


def band_ratio(
    patch: Patch, top: tuple[float, float], foot: tuple[float, float], labels: U8Image, code: int
) -> float | None:
    """The patch's side band over one cube's parallax (``foot``: where the foot of one cube
    whose top shows at ``top`` shows; ``labels``: the mosaic's labels, ``code`` the patch's
    colour's): about 1 for one cube, 2 for two stacked. None: not told (the patch's pixels
    are not where the labels are, or its band runs into another piece).

    A cube's sides are darker than its colour: most are UNKNOWN, not its colour's, so the
    band is the patch and the unknown pixels joined to it, kept to a strip as wide
    as the patch (a neighbour beside it is not its band) and to three parallaxes beyond it. A
    square top is as long along any direction as it is wide across it, whatever its turn, and
    blur widens both alike: the sides lengthen the strip towards the nadir only. So the band
    is the strip's length towards the foot less its width across: no top's centre to find
    (a working pixel off there is a third of a parallax) and no turn to know."""
    if not isinstance(patch.pixels, Labelled):
        return None
    dx, dy = foot[0] - top[0], foot[1] - top[1]
    length = float(np.hypot(dx, dy))
    if length <= 0:
        return None
    ux, uy = dx / length, dy / length
    # The patch's box in the mosaic: the colours' masks are stacked planes of its height.
    y0, y1, x0, x1 = patch.pixels.box
    y0, y1 = y0 % labels.shape[0], y1 % labels.shape[0]
    grow = math.ceil(3 * length) + 3
    wy0, wx0 = max(0, y0 - grow), max(0, x0 - grow)
    wy1, wx1 = min(labels.shape[0], y1 + grow + 1), min(labels.shape[1], x1 + grow + 1)
    window = labels[wy0:wy1, wx0:wx1]
    own = np.zeros(window.shape, bool)
    own[y0 - wy0 : y1 - wy0 + 1, x0 - wx0 : x1 - wx0 + 1] = patch.comp > 0
    if not own.any():
        return None
    ys, xs = np.mgrid[0 : window.shape[0], 0 : window.shape[1]]
    along = xs * ux + ys * uy
    across = ys * ux - xs * uy
    lo, hi = across[own].min() - 2, across[own].max() + 2  # (blur's halo either side)
    # (From the top's far edge towards the nadir only: no side shows away from the nadir,
    # so what is dark there, a shadow, is no band.)
    strip = ((window == UNKNOWN) | own) & (across >= lo) & (across <= hi)
    strip &= (along >= along[own].min() - 2) & (along <= along[own].max() + 3 * length)
    _, parts = cv2.connectedComponents(strip.view(np.uint8), connectivity=4)
    mine = np.unique(parts[own])
    joined = np.isin(parts, mine[mine > 0])
    # A band that runs into another piece's colour (a neighbour, a black cube) is no measure
    # of this cube's height: not told. (Its own colour's pixels about it are its halo: a
    # neighbour of its colour touching it would have made one patch of two tops.)
    rim = cv2.dilate(joined.view(np.uint8), np.ones((3, 3), np.uint8)) > 0
    near = window[rim]
    if ((near != BACKGROUND) & (near != UNKNOWN) & (near != code)).any():
        return None
    band = float(np.ptp(along[joined]) - np.ptp(across[joined]))
    return band / length


def single_tops(patches: Sequence[Patch], singles: Sequence[tuple[float, float]]) -> list[Patch]:
    """The patches counted as one cube from one whole top: those whose centroid is one of
    ``singles`` (a one-cube blob's centre is its patch's centroid) and that hold one top."""
    wanted = set(singles)
    return [p for p in patches if p.centroid in wanted and len(p.tops) == 1]


def bands(
    candidates: Sequence[tuple[str, Patch]],
    feet: Callable[[FloatArray], FloatArray],
    labels: U8Image,
    codes: Mapping[str, int],
) -> list[Band]:
    """Each candidate's band (``feet``: working-image feet of one cube whose tops show at the
    given points, N x 2 in and out; ``codes``: each colour's label). A candidate whose band
    cannot be measured has ratio 0."""
    if not candidates:
        return []
    tops = np.array([(p.tops[0].x, p.tops[0].y) for _, p in candidates], np.float64)
    at = feet(tops)
    out = []
    for (colour, patch), top, foot in zip(candidates, tops, at, strict=True):
        t, f = (float(top[0]), float(top[1])), (float(foot[0]), float(foot[1]))
        parallax = float(np.hypot(f[0] - t[0], f[1] - t[1])) / patch.side
        ratio = band_ratio(patch, t, f, labels, codes[colour]) if parallax > 0 else None
        out.append(Band(colour, t, parallax, 0.0 if ratio is None else ratio))
    return out


def probable_stack(band: Band, config: VisionConfig) -> bool:
    """Whether the band is clearly longer than one cube's, where one cube's parallax is long
    enough to tell."""
    return band.parallax >= config.stack_min_parallax and band.ratio >= config.stack_band_ratio
