"""Black cubes grey under a lamp's glare.

Glare blends the picture towards white: a black cube's top under it reads Lab L 75-95 where
the calibration saw ~36, out of the colour model's reach for black (seed 6: five black cubes
at the edge of a dense cluster with not one black pixel). The pieces' own shadows are as
hueless and nearly as dark, so darkness alone finds as many shadows as cubes. What tells them
apart is where the darkness lies and how dark it gets against the print beside it:

- a shadow darkens the print by a share (the lamp's light is taken away, the glare added on
  top stays), so it is never darker than that share of the print beside it; a black cube's top
  is darker still, since its own colour, not the print's, is under the glare;
- the shadow's darkest part is a soft band along the piece that casts it; a top is a plateau
  a cube top wide, so the dark pixels are opened by a disc of a top's inscribed radius.

Looked for only round the pieces (the mosaic of mosaic.py with a margin of a few cube sides):
a grey black cube stands in a cluster or beside other pieces, or shows some black pixels at
its rim.
"""

from __future__ import annotations

import math
from typing import Any

import cv2
import numpy as np
import numpy.typing as npt

from companion.vision.colour import BACKGROUND, UNKNOWN
from companion.vision.config import VisionConfig
from companion.vision.geometry import Geometry
from companion.vision.local_print import GREY
from companion.vision.masks import components
from companion.vision.mosaic import cut

Image = npt.NDArray[Any]

_GREY_BYTES = np.round(GREY).astype(np.uint8)


def grey_tops(
    packed: Image, labels: Image, black: int, colours: int, geo: Geometry, config: VisionConfig
) -> Image:
    """Flat indices (working image) of the pixels of black cube tops grey under glare: hueless,
    at most ``config.grey_top_ratio`` of the print's grey value round them and a top's
    inscribed radius thick. ``labels`` (the working image's) are only read."""
    side = math.sqrt(geo.typical_footprint)
    reach = max(3, round(config.grey_top_reach * side))
    near = cut(labels, packed, colours, reach)
    inside = near.inside > 0
    lab = cv2.cvtColor(np.ascontiguousarray(near.image[..., :3]), cv2.COLOR_BGR2Lab)
    lightness = np.ascontiguousarray(lab[..., 0])
    chroma = np.hypot(lab[..., 1].astype(np.float32) - 128, lab[..., 2].astype(np.float32) - 128)
    ignored = near.gather(geo.ignore).astype(bool) & inside
    own = near.labels
    # (A grey far from every colour the model knows is UNKNOWN: after the hand check, a
    # candidate as any.)
    loose = ((own == BACKGROUND) | (own == black) | (own == UNKNOWN)) & inside & ~ignored
    # The print round each pixel: the brightest of the print's lightness (noise smoothed away
    # first) within the reach; a piece's pixels are no print.
    smooth = cv2.medianBlur(lightness, 5)
    print_l = np.where(loose & (own == BACKGROUND), smooth, 0).astype(np.uint8)
    window = np.ones((2 * reach + 1, 2 * reach + 1), np.uint8)
    brightest = cv2.dilate(print_l, window)
    # (A top's pixels less their noise: a 3x3 median, the plateau's edges kept.)
    grey = cv2.LUT(cv2.medianBlur(lightness, 3), _GREY_BYTES).astype(np.float32)
    bound = cv2.LUT(brightest, _GREY_BYTES).astype(np.float32) * config.grey_top_ratio
    dark = loose & (chroma <= config.dark_piece_chroma) & (grey <= bound)
    radius = max(1, round(config.grey_top_thickness * side))
    disc = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (2 * radius + 1, 2 * radius + 1))
    opened = cv2.morphologyEx(dark.view(np.uint8), cv2.MORPH_OPEN, disc)
    n, parts, stats, _ = components(opened, connectivity=8)
    area = stats[:, cv2.CC_STAT_AREA]
    # A black cube the colour model sees as black is left as it is (its grey rim would join
    # its seams to its neighbours'): only plateaus mostly grey are taken.
    black_share = np.bincount(parts[own == black], minlength=n) / np.maximum(area, 1)
    keep = (area >= config.grey_top_area * geo.typical_footprint) & (
        black_share <= config.grey_top_black_share
    )
    keep[0] = False
    ring = max(2, round(config.grey_top_ring * side))
    for i in np.flatnonzero(keep).tolist():
        keep[i] = _a_top(
            i, parts, stats[i], smooth, loose & (own == BACKGROUND), ring, side, config
        )
    found = keep[parts] & (opened > 0)
    out: Image = near.index[found]
    out = out[out >= 0]
    zone = geo.shadow_zone
    if zone is not None and out.size:
        # The Castillo tower's shadow is darker than a cube's and spreads over pale print
        # beside white court cards: grey there is no black cube's (shadows.py judges black
        # there by darkness alone).
        x, y, w, h = geo.shadow_box
        wy, wx = np.divmod(out, geo.size[0])
        inner = (wx >= x) & (wx < x + w) & (wy >= y) & (wy < y + h)
        shaded = np.zeros(out.size, bool)
        shaded[inner] = zone[wy[inner] - y, wx[inner] - x]
        out = out[~shaded]
    return out


def _a_top(
    i: int,
    parts: Image,
    stats: Image,
    lightness: Image,
    print_: Image,
    ring: int,
    side: float,
    config: VisionConfig,
) -> bool:
    """Whether grey plateau ``i`` of ``parts`` is a black cube's top (or a few cubes'): darker
    than the print in a ring round it by a black piece's share (dark print, the sea under
    glare, is no darker than the print round it), and no thicker than a row of cubes (a
    black grande's top, grey under glare, is the figures' business)."""
    x, y, w, h = (int(v) for v in stats[:4])
    x0, y0 = max(0, x - ring), max(0, y - ring)
    box = np.s_[y0 : y + h + ring, x0 : x + w + ring]
    mine = (parts[box] == i).view(np.uint8)
    depth = cv2.distanceTransform(np.pad(mine, 1), cv2.DIST_L2, 3)
    if float(depth.max()) > config.grey_top_max_thickness * side:
        return False
    disc = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (2 * ring + 1, 2 * ring + 1))
    around = (cv2.dilate(mine, disc) > 0) & (mine == 0) & print_[box]
    if not around.any():
        return False
    light = lightness[box]
    top = float(GREY[int(np.median(light[mine > 0]))])
    board = float(GREY[int(np.percentile(light[around], config.grey_top_ring_percentile))])
    return top <= config.grey_top_ring_ratio * board
