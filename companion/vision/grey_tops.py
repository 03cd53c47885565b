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

Looked for over the board's areas (regions, courts), not only round other pieces: a cluster of
black cubes under glare may stand alone in a region, no other piece and not one black pixel
within a few sides of it (seed 512: six in granada). Shadows lie beside the pieces that cast
them; the two tests above tell them from tops wherever they lie.

The full test (Lab, medians, the brightest print within a few sides) is run only in windows
round the few places a first look finds: every other pixel of every other row, its luma
against the brightest print luma round it with some slack, hueless enough, no other piece's
colour, a block of them as thick as the plateau's disc (most frames: none, and no Lab).
"""

from __future__ import annotations

import math
from functools import lru_cache
from typing import Any

import cv2
import numpy as np
import numpy.typing as npt

from companion.vision.colour import BACKGROUND, UNKNOWN
from companion.vision.config import VisionConfig
from companion.vision.geometry import Geometry
from companion.vision.local_print import GREY
from companion.vision.masks import components, disc, pack_boxes

Image = npt.NDArray[Any]
Box = tuple[int, int, int, int]  # x0, y0, x1, y1 (working image, x1 and y1 excluded)

_GREY_BYTES = np.round(GREY).astype(np.uint8)


def _ramp_lightness() -> Image:
    """OpenCV's 8-bit Lab lightness of each grey (B = G = R = 0..255)."""
    ramp = np.repeat(np.arange(256, dtype=np.uint8)[:, None, None], 3, axis=2)
    out: Image = cv2.cvtColor(ramp, cv2.COLOR_BGR2Lab)[:, 0, 0]
    return out


_RAMP_L = _ramp_lightness()


def grey_tops(
    packed: Image, labels: Image, black: int, colours: int, geo: Geometry, config: VisionConfig
) -> Image:
    """Flat indices (working image) of the pixels of black cube tops grey under glare: hueless,
    at most ``config.grey_top_ratio`` of the print's grey value round them and a top's
    inscribed radius thick. ``labels`` (the working image's) are only read."""
    side = math.sqrt(geo.typical_footprint)
    reach = max(3, round(config.grey_top_reach * side))
    radius = max(1, round(config.grey_top_thickness * side))
    ring = max(2, round(config.grey_top_ring * side))
    places = _places(packed, labels, black, colours, geo, config, reach, radius)
    if not places:
        return np.zeros(0, np.intp)
    h, w = labels.shape
    # Every look the full test takes round a plateau (the brightest print within the reach, the
    # ring, the medians' windows) stays inside a window this much wider than its place.
    look = max(reach, ring) + 3
    # (A plateau may reach a disc's width past the candidates round its block.)
    margin = look + 2 * radius
    windows = [
        (max(0, x0 - margin), max(0, y0 - margin), min(w, x1 + margin), min(h, y1 + margin))
        for x0, y0, x1, y1 in places
    ]
    out = _judge(packed, labels, black, geo, config, windows, look, reach, radius, ring, side)
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


def _judge(
    packed: Image,
    labels: Image,
    black: int,
    geo: Geometry,
    config: VisionConfig,
    windows: list[Box],
    look: int,
    reach: int,
    radius: int,
    ring: int,
    side: float,
) -> Image:
    """The full test in windows of the working image, packed side by side into one image:
    flat indices of the grey tops' pixels whose plateau lies at least ``look`` inside its
    window (or at the working image's edge, beyond which lies nothing: a margin of empty
    pixels there)."""
    h, w = labels.shape
    pads = [
        (look * (x0 == 0), look * (y0 == 0), look * (x1 == w), look * (y1 == h))
        for x0, y0, x1, y1 in windows
    ]
    sizes = np.array(
        [
            (x1 - x0 + p[0] + p[2], y1 - y0 + p[1] + p[3])
            for (x0, y0, x1, y1), p in zip(windows, pads, strict=True)
        ]
    )
    xs, ys, (width, height) = pack_boxes(sizes[:, 0], sizes[:, 1])
    # (The packed pixels' four bytes copied as one: OpenCV's Lab of BGRA is of its BGR.)
    bgra = np.zeros((height, width), np.uint32)
    own = np.zeros((height, width), np.uint8)
    inside = np.zeros((height, width), np.uint8)
    interior = np.zeros((height, width), np.uint8)
    for (x0, y0, x1, y1), p, ox, oy in zip(windows, pads, xs.tolist(), ys.tolist(), strict=True):
        at = np.s_[oy + p[1] : oy + p[1] + y1 - y0, ox + p[0] : ox + p[0] + x1 - x0]
        bgra[at] = packed[y0:y1, x0:x1]
        own[at] = labels[y0:y1, x0:x1]
        inside[at] = geo.readable[y0:y1, x0:x1]
        interior[
            oy + (look if y0 else 0) : oy + _interior_end(y1 - y0 + p[1] + p[3], y1 == h, look),
            ox + (look if x0 else 0) : ox + _interior_end(x1 - x0 + p[0] + p[2], x1 == w, look),
        ] = 1
    lab = cv2.cvtColor(bgra.view(np.uint8).reshape(height, width, 4), cv2.COLOR_BGR2Lab)
    lightness = np.ascontiguousarray(lab[..., 0])
    # (A grey far from every colour the model knows is UNKNOWN: after the hand check, a
    # candidate as any.)
    loose = cv2.bitwise_and(cv2.LUT(own, _loose_labels(black)), inside)
    # The print round each pixel: the brightest of the print's lightness (noise smoothed away
    # first) within the reach; a piece's pixels are no print.
    smooth = cv2.medianBlur(lightness, 5)
    print_ = cv2.bitwise_and(loose, cv2.inRange(own, BACKGROUND, BACKGROUND))
    window = np.ones((2 * reach + 1, 2 * reach + 1), np.uint8)
    brightest = cv2.dilate(cv2.bitwise_and(smooth, print_), window)
    # (A top's pixels less their noise: a 3x3 median, the plateau's edges kept.)
    bound = cv2.LUT(brightest, _lightness_below(config.grey_top_ratio))
    dark = cv2.bitwise_and(cv2.compare(cv2.medianBlur(lightness, 3), bound, cv2.CMP_LE), loose)
    found = cv2.findNonZero(dark)
    if found is None:
        return np.zeros(0, np.intp)
    dx, dy = found.reshape(-1, 2).T
    ab = lab[dy, dx]
    grey = ~_hueless(config.dark_piece_chroma)[ab[:, 1], ab[:, 2]]
    dark[dy[grey], dx[grey]] = 0
    opened = cv2.morphologyEx(dark, cv2.MORPH_OPEN, disc(radius))
    n, parts, stats, _ = components(opened, connectivity=8)
    if n < 2:
        return np.zeros(0, np.intp)
    area = stats[:, cv2.CC_STAT_AREA]
    # A black cube the colour model sees as black is left as it is (its grey rim would join
    # its seams to its neighbours'): only plateaus mostly grey are taken.
    black_share = np.bincount(parts[own == black], minlength=n) / np.maximum(area, 1)
    keep = (area >= config.grey_top_area * geo.typical_footprint) & (
        black_share <= config.grey_top_black_share
    )
    # Only plateaus whose surroundings their window holds (another window, or none, has the
    # rest: those the first look found are well inside theirs).
    keep &= np.bincount(parts[interior > 0], minlength=n) == area
    keep[0] = False
    for i in np.flatnonzero(keep).tolist():
        keep[i] = _a_top(i, parts, stats[i], smooth, print_ > 0, ring, side, config)
    if not keep.any():
        return np.zeros(0, np.intp)
    found_at = []
    for i in np.flatnonzero(keep).tolist():
        x, y, bw, bh = (int(v) for v in stats[i, :4])
        box = np.s_[y : y + bh, x : x + bw]
        py, px = np.nonzero(parts[box] == i)
        # (Its window: the one whose packed box holds its box's corner; a plateau lies in its
        # window's interior, so in one window's box.)
        j = int(np.argmax((xs <= x) & (x < xs + sizes[:, 0]) & (ys <= y) & (y < ys + sizes[:, 1])))
        x0, y0 = windows[j][0] - xs[j] - pads[j][0], windows[j][1] - ys[j] - pads[j][1]
        found_at.append((py + y + y0) * w + (px + x + x0))
    out: Image = np.concatenate(found_at)
    # (Windows may overlap: a plateau in two is found in both.)
    return np.unique(out)


def _interior_end(length: int, at_edge: bool, look: int) -> int:
    """Where a window's interior ends along one axis (from its start in the packed image)."""
    return length if at_edge else length - look


@lru_cache(maxsize=4)
def _loose_labels(black: int) -> Image:
    """255 for the labels a grey top's pixels may have (board, black, unknown), else 0."""
    out = np.zeros(256, np.uint8)
    out[[BACKGROUND, black, UNKNOWN]] = 255
    return out


@lru_cache(maxsize=4)
def _lightness_below(ratio: float) -> Image:
    """For each print lightness (0..255), the most a pixel's may be for its grey value to be at
    most ``ratio`` of the print's: the same float32 product and comparison, as a LUT."""
    levels = _GREY_BYTES.astype(np.float32)
    out: Image = (np.searchsorted(levels, levels * ratio, side="right") - 1).astype(np.uint8)
    return out


@lru_cache(maxsize=4)
def _hueless(chroma: float) -> Image:
    """Whether each Lab (a, b) pair is within ``chroma`` of grey (256 x 256; float32, as the
    figures' test)."""
    ab = np.arange(256, dtype=np.float32) - 128
    out: Image = np.hypot(ab[:, None], ab[None, :]) <= chroma
    return out


def _places(
    packed: Image,
    labels: Image,
    black: int,
    colours: int,
    geo: Geometry,
    config: VisionConfig,
    reach: int,
    radius: int,
) -> list[Box]:
    """Where a grey top may be (boxes, working image), from a cheap first look at every other
    pixel of every other row: luma (no Lab) at most ``grey_top_first_ratio`` of the brightest
    print's luma within the reach (as greys), channels no further apart than a hueless
    colour's can be, no other piece's colour; a block of such pixels as thick as the plateau's
    disc, not mostly the colour model's black (a seen black cube is left as it is; a print
    line is thinner)."""
    h, w = labels.shape
    size = (w // 2, h // 2)
    sample = np.s_[: 2 * size[1] : 2, : 2 * size[0] : 2]
    sub = np.ascontiguousarray(packed[sample])
    bgra = sub.view(np.uint8).reshape(size[1], size[0], 4)
    luma = cv2.cvtColor(bgra, cv2.COLOR_BGRA2GRAY)
    own = np.ascontiguousarray(labels[sample])
    k = 2 * ((reach + 1) // 2) + 1
    square = np.ones((k, k), np.uint8)
    print_ = cv2.bitwise_and(luma, cv2.inRange(own, BACKGROUND, BACKGROUND))
    bound = cv2.LUT(cv2.dilate(print_, square), _darkest_below(config.grey_top_first_ratio))
    may = cv2.compare(luma, bound, cv2.CMP_LE)
    # Only in the areas, which are readable (the board's edge against the table and the
    # print's line ends beyond the regions are as dark and hueless: 55 places against 12 on
    # the five-player speed frame over the whole readable board).
    may[~geo.area_zone[: size[1], : size[0]]] = 0
    # (Not another piece's colour.)
    others = cv2.bitwise_and(
        cv2.inRange(own, 1, colours), cv2.bitwise_not(cv2.inRange(own, black, black))
    )
    cv2.subtract(may, others, dst=may)
    # (Hueless enough, looked at on the few candidates left.)
    found = cv2.findNonZero(may)
    if found is None:
        return []
    xs, ys = found.reshape(-1, 2).T
    bgr = sub[ys, xs]
    b, g, r = bgr & 255, (bgr >> 8) & 255, bgr >> 16
    spread = np.maximum(np.maximum(b, g), r) - np.minimum(np.minimum(b, g), r)
    far = spread > config.grey_top_spread
    may[ys[far], xs[far]] = 0
    side = _core_side(radius)
    core = cv2.erode(may, np.ones((side, side), np.uint8)) if side > 1 else may
    if not cv2.countNonZero(core):
        return []
    # The place: the candidates round each block, as far as a top reaches past it.
    grow = 2 * side + 1
    near = cv2.bitwise_and(cv2.dilate(core, np.ones((grow, grow), np.uint8)), may)
    n, parts = cv2.connectedComponents(near, connectivity=8)
    xs, ys = cv2.findNonZero(near).reshape(-1, 2).T
    part = parts[ys, xs]
    # (Each part's box and area from its pixels sorted by part.)
    order = np.argsort(part, kind="stable")
    part, xs, ys = part[order], xs[order], ys[order]
    starts = np.flatnonzero(np.diff(part, prepend=-1))
    area = np.zeros(n, np.int64)
    area[part[starts]] = np.diff(np.append(starts, part.size))
    box = np.zeros((n, 4), np.int64)
    box[part[starts]] = np.stack(
        [
            np.minimum.reduceat(xs, starts),
            np.minimum.reduceat(ys, starts),
            np.maximum.reduceat(xs, starts) + 1,
            np.maximum.reduceat(ys, starts) + 1,
        ],
        axis=1,
    )
    # (The core lies within the candidates round it: its pixels are among them.)
    in_core = core[ys, xs] > 0
    seen_black = own[ys, xs] == black
    chosen = np.zeros(n, bool)
    chosen[part[in_core]] = True
    # (A place smaller than a plateau holds none.)
    chosen &= area * 4 >= config.grey_top_area * geo.typical_footprint
    # (Mostly the colour model's black: a black cube seen as one, left as it is.)
    chosen &= np.bincount(part[seen_black], minlength=n) <= (
        config.grey_top_first_black_share * area
    )
    # (Its core mostly the model's black: a black cube seen as one, in its dark rim.)
    at_core = part[in_core]
    chosen &= np.bincount(at_core[seen_black[in_core]], minlength=n) <= (
        config.grey_top_first_core_black_share * np.bincount(at_core, minlength=n)
    )
    chosen[0] = False
    boxes = box[chosen] * 2
    return [(int(a), int(b), int(c), int(d)) for a, b, c, d in boxes.tolist()]


@lru_cache(maxsize=4)
def _darkest_below(ratio: float) -> Image:
    """For each print luma (0..255), the most a pixel's luma may be to be at most ``ratio`` of
    the print's grey value, both taken as greys (a LUT)."""
    levels = _GREY_BYTES[_RAMP_L].astype(np.float32)
    out: Image = (np.searchsorted(levels, levels * ratio, side="right") - 1).astype(np.uint8)
    return out


@lru_cache(maxsize=8)
def _core_side(radius: int) -> int:
    """The side of the square a first look's block must hold: whole cells of the plateau's
    disc's biggest square, each way (worked out once per radius, not each read)."""
    return (_inscribed_square(disc(radius)) - 1) // 2


def _inscribed_square(kernel: Image) -> int:
    """The side of the biggest square of ones in a structuring element."""
    size = 1
    while size < min(kernel.shape) and (
        cv2.erode(kernel, np.ones((size + 1, size + 1), np.uint8), borderValue=0).any()
    ):
        size += 1
    return size


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
    around = (cv2.dilate(mine, disc(ring)) > 0) & (mine == 0) & print_[box]
    if not around.any():
        return False
    light = lightness[box]
    top = float(GREY[int(np.median(light[mine > 0]))])
    board = float(GREY[int(np.percentile(light[around], config.grey_top_ring_percentile))])
    return top <= config.grey_top_ring_ratio * board
