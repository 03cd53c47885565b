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


def white_cast(lab: Image, white: Image) -> tuple[float, float]:
    """The light's colour cast (Lab a, b offsets) from the printed markers' white paper: the
    brighter part of the pixels under ``white`` (the markers with their margins)."""
    pixels = lab[white]
    if pixels.shape[0] < 16:
        return 0.0, 0.0
    light = pixels[:, 0]
    paper = pixels[light >= np.percentile(light, 70)]
    return float(np.median(paper[:, 1])) - 128.0, float(np.median(paper[:, 2])) - 128.0


def skin_mask(
    lab: Image, cast: tuple[float, float] = (0.0, 0.0), config: VisionConfig = DEFAULT_CONFIG
) -> Image:
    """Warm, mid-light, moderately saturated pixels (OpenCV 8-bit Lab), as under neutral light:
    ``cast`` (see :func:`white_cast`) is taken off first."""
    a = lab[..., 1].astype(np.float32) - cast[0]
    b = lab[..., 2].astype(np.float32) - cast[1]
    lo_a, hi_a = config.skin_a
    lo_b, hi_b = config.skin_b
    out: Image = (a > lo_a) & (a < hi_a) & (b > lo_b) & (b < hi_b) & (lab[..., 0] > config.skin_l)
    return out


def hand_check(
    labels: Image,
    lab: Image,
    hand_zone: Image,
    area_zone: Image,
    outside: Image,
    typical_footprint: float,
    config: VisionConfig,
    white: Image | None = None,
) -> str | None:
    """Why this frame shows a hand or arm over the board, or None.

    ``labels``/``lab`` are the working image's; the zones are at half its resolution (a hand is
    big: every other pixel of every other row is plenty). ``hand_zone``: where a hand matters
    (the board but its markers and the tower); ``area_zone``: the areas; ``outside``: off the
    board. ``white``: the markers' paper in the working image, to take the light's colour cast
    off (warm light makes the whole board look like skin).
    """
    cast = white_cast(lab, white) if white is not None else (0.0, 0.0)
    lab = lab[::2, ::2]
    labels = labels[::2, ::2]
    # Skin as under neutral light; or skin as the camera sees it where the colour model does
    # not take it for the board (a cast misjudged by glare on a marker).
    skin = skin_mask(lab, cast, config) | (skin_mask(lab, config=config) & (labels != BACKGROUND))
    unknown = labels == UNKNOWN
    # Over the areas anything of no known colour is suspect; over bare mat or the board's
    # frame (scoreboards, print, the tower's shadow) only skin is.
    strange = (unknown & area_zone) | (skin & hand_zone)
    # What joins a blob to the world outside the board: skin or anything unknown on the
    # board's frame (a sleeve), skin off the board (the forearm).
    reach = strange | (unknown & hand_zone) | (skin & outside)
    kernel = np.ones((2, 2), np.uint8)
    blobs = cv2.morphologyEx(strange.astype(np.uint8), cv2.MORPH_OPEN, kernel)
    n, parts, stats, _ = cv2.connectedComponentsWithStats(blobs, connectivity=8)
    limit = config.hand_min_cubes * typical_footprint / 4
    big = [i for i in range(1, n) if stats[i, cv2.CC_STAT_AREA] >= limit]
    if not big:
        return None
    # One blob must be that big by itself (scattered odd pixels joined by a grey mat are no
    # hand), and reach off the board.
    reach = cv2.bitwise_or(cv2.morphologyEx(reach.astype(np.uint8), cv2.MORPH_OPEN, kernel), blobs)
    _, comp = cv2.connectedComponents(reach, connectivity=8)
    border = np.zeros_like(outside)
    border[0, :] = border[-1, :] = border[:, 0] = border[:, -1] = True
    edge = cv2.dilate((outside | border).astype(np.uint8), np.ones((3, 3), np.uint8)) > 0
    entering = set(np.unique(comp[edge]).tolist()) - {0}
    for i in big:
        if set(np.unique(comp[parts == i]).tolist()) & entering:
            return f"a hand or arm over the board (blob of {stats[i, cv2.CC_STAT_AREA]} px)"
    return None
