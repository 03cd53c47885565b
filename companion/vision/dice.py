"""The dice in the Carolus Magnus tray: the symbol on each white die's top face (a round colour
spot or a gold crown), or why a die could not be read.

Read in the frame itself, not the binned working image: a die is only 11-20 px across in a
1080p frame, its symbol 7-12 px. The tray is found where it really is (dice_tray.py); a die is
what rises well above the tray's own level there; its top face's symbol is the colour patch at
its heart (the sides in view carry symbols too, at its rim); the symbol's colour is judged
against that die's own white (die_faces.py), which sees the same light.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

import cv2
import numpy as np
import numpy.typing as npt

from companion.vision.config import VisionConfig
from companion.vision.dice_tray import NoTray, Tray, TrayZones, find_tray, tray_zones
from companion.vision.die_faces import CAROLUS_FACES, face_of
from companion.vision.geometry import Geometry
from companion.vision.layout import Layout
from companion.vision.local_print import (
    high_quantile_of,
    median_columns,
    median_rows,
    quantile_of,
)
from companion.vision.masks import components, nonzero, opened_by

Image = npt.NDArray[Any]

__all__ = ["CAROLUS_FACES", "Dice", "dice_in", "die_pixels", "read_dice"]


@dataclass(frozen=True)
class Dice:
    """The top faces read, top to bottom in the image, and what was seen but not read."""

    faces: tuple[str, ...] = ()
    unread: dict[str, str] = field(default_factory=dict)


@dataclass(frozen=True)
class _Die:
    y: float  # crop pixels, for the order and the message
    x: float
    face: str | None
    why: str = ""


def read_dice(frame: Image, geo: Geometry, layout: Layout, config: VisionConfig) -> Dice:
    """The top face of every die in the tray. A die whose face cannot be told is named in
    ``unread`` (``die 2``: the second from the top) with where it lies and why, not guessed."""
    return dice_in(find_tray(frame, geo, layout, config), config)


def dice_in(tray: Tray | NoTray | None, config: VisionConfig) -> Dice:
    """The dice in a tray found (:func:`read_dice`)."""
    if tray is None:
        return Dice()
    if isinstance(tray, NoTray):
        return Dice(unread={"dice": tray.why})
    dice = _find_dice(tray.crop, tray.mask, tray.side, config, tray.zones)
    dice.sort(key=lambda d: (d.y, d.x))
    unread = {}
    for n, d in enumerate(dice, 1):
        if d.face is None:
            u, v = d.x + tray.origin[0], d.y + tray.origin[1]
            unread[f"die {n}"] = f"a die in the tray at image ({u:.0f}, {v:.0f}): {d.why}"
    return Dice(tuple(d.face for d in dice if d.face is not None), unread)


def _find_dice(
    crop: Image, tray: Image, side: float, config: VisionConfig, zones: TrayZones | None = None
) -> list[_Die]:
    inner, search = zones if zones is not None else tray_zones(tray, side, config)
    bgr = crop.astype(np.float32)
    # Sensor noise is several grey levels on a symbol only ~10 px wide: smooth a little.
    sigma = config.die_smooth * side
    if sigma > 0.3:
        bgr = np.asarray(cv2.GaussianBlur(bgr, (0, 0), sigma), np.float32)
    # (The mean of B, G and R as NumPy's mean over the last axis adds them, at a twentieth of
    # its cost.)
    grey = (bgr[..., 0] + bgr[..., 1] + bgr[..., 2]) / 3
    box = _search_box(search, side, config)
    body = _die_pixels_in(bgr, grey, tray, (inner, search), box, side, config)
    # From here on only the search box: blobs and dice in its pixels, placed back in the crop.
    x0, y0, x1, y1 = box
    bgr, grey = bgr[y0:y1, x0:x1], grey[y0:y1, x0:x1]
    n, labels, stats, _ = components(body.view(np.uint8), connectivity=8)
    out: list[_Die] = []
    for i in range(1, n):
        x, y, w, h, area = (int(v) for v in stats[i])
        if area < config.die_min_area * side * side:
            continue
        comp = labels[y : y + h, x : x + w] == i
        for d in _read_blob(
            bgr[y : y + h, x : x + w], grey[y : y + h, x : x + w], comp, side, config
        ):
            out.append(_Die(d.y + (y + y0), d.x + (x + x0), d.face, d.why))
    return out


def die_pixels(
    bgr: Image,
    grey: Image,
    tray: Image,
    side: float,
    config: VisionConfig,
    zones: TrayZones | None = None,
) -> Image:
    """Where the dice are in a (smoothed) crop round the tray (``tray``: its surface, and
    ``zones`` made of it if known): True on each die's top, the lit sides in view and its
    symbols."""
    zones = zones if zones is not None else tray_zones(tray, side, config)
    x0, y0, x1, y1 = box = _search_box(zones[1], side, config)
    out = np.zeros(tray.shape, bool)
    out[y0:y1, x0:x1] = _die_pixels_in(bgr, grey, tray, zones, box, side, config)
    return out


def _thin(side: float, config: VisionConfig) -> int:
    """The width (pixels) of the disc that opens thin print away from the die pixels."""
    return max(2, round(config.die_min_width * side))


def _search_box(search: Image, side: float, config: VisionConfig) -> tuple[int, int, int, int]:
    """The box (x0, y0, x1, y1) of the crop that die pixels are worked out in: the search
    zone's, with room round it for the thin print's opening (which sees no die pixel outside
    the zone) and a pixel more, so that the holes enclosed there are the crop's (the box's
    edge is all outside the zone, joined to the crop's edge)."""
    x, y, w, h = cv2.boundingRect(search.view(np.uint8))
    pad = _thin(side, config) + 1
    rows, cols = search.shape
    return max(0, x - pad), max(0, y - pad), min(cols, x + w + pad), min(rows, y + h + pad)


def _opened_in(image: Image, box: Image, where: tuple[int, int, int, int]) -> Image:
    """The grey opening of ``image`` by the (odd) square ``box`` inside the box ``where`` (x0,
    y0, x1, y1) only: the same values as cv2's opening of the whole image there, its dilation
    made over ``where`` and the square's reach round it, not the whole image."""
    x0, y0, x1, y1 = where
    r = box.shape[0] // 2
    rows, cols = image.shape
    # (What the dilation sees of the erosion: cut at the image's edge as the whole one is.)
    ex0, ey0, ex1, ey1 = max(0, x0 - r), max(0, y0 - r), min(cols, x1 + r), min(rows, y1 + r)
    eroded = cv2.erode(image, box)[ey0:ey1, ex0:ex1]
    opened: Image = cv2.dilate(eroded, box)[y0 - ey0 : y1 - ey0, x0 - ex0 : x1 - ex0]
    return opened


def _die_pixels_in(
    bgr: Image,
    grey: Image,
    tray: Image,
    zones: TrayZones,
    where: tuple[int, int, int, int],
    side: float,
    config: VisionConfig,
) -> Image:
    """:func:`die_pixels` inside the search box ``where`` (x0, y0, x1, y1) of the crop."""
    inner, search = zones
    # The level of the tray under each die (a lamp's glare or a cast shadow makes it uneven):
    # the grey with everything brighter and smaller than a couple of dice taken off; and that
    # of whatever lies round each pixel, the lighter board beside the tray included.
    k = max(3, round(config.die_background * side)) | 1
    box = np.ones((k, k), np.uint8)
    level = grey[inner][:, None]
    # (The tray's grey over a crop filled with its median: cv2.copyTo, as np.where's values.)
    own = np.full_like(grey, float(median_columns(level)[0]) if level.size else math.nan)
    cv2.copyTo(grey, tray.view(np.uint8), own)
    x0, y0, x1, y1 = where
    window = (slice(y0, y1), slice(x0, x1))
    inner, search, grey_in = inner[window], search[window], grey[window]
    rise = grey_in - _opened_in(own, box, where)
    local = grey_in - _opened_in(grey, box, where)
    top = float(high_quantile_of(rise[search], 0.999))
    if top < config.die_min_rise:
        return np.zeros(search.shape, bool)
    lab8 = cv2.cvtColor(np.clip(bgr[window], 0, 255).astype(np.uint8), cv2.COLOR_BGR2Lab)
    ref = _tray_ab(lab8, inner)
    # (The 8-bit a and b less the float32 reference: float32, as of the whole Lab made float.
    # Its square against the bound's: each difference is a whole or half level, so the sum of
    # squares is exact in float32 and the test is np.hypot's to the last bit, without a root.)
    da, db = lab8[..., 1] - ref[0], lab8[..., 2] - ref[1]
    spot = da * da + db * db >= np.float32(config.die_spot_chroma) ** 2
    # A die: well above the tray's level (its lit top and sides) and above the board's where
    # it stands out over the tray's edge, or its saturated spot (a blue spot can be as dark as
    # the tray).
    lit = (rise >= config.die_body_share * top) & (local >= config.die_board_share * top)
    body = (lit | spot) & search
    # A die's symbol may be as dark as the tray: the white round it encloses it.
    body = _fill_small_holes(body, config.die_hole * side * side)
    # A die is a whole die side across; thin bright lines (the tray's printed outline) are not.
    thin = _thin(side, config)
    disc = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (thin, thin))
    opened: Image = opened_by(body.astype(np.uint8), disc)
    return opened > 0


def _tray_ab(lab8: Image, inner: Image) -> Image:
    """The tray's own colour, the median a and b (float32) of an 8-bit Lab image under
    ``inner``: counted by OpenCV under the mask (the same counts as ``np.bincount`` of the
    pixels gathered, without gathering them; lightness is not needed)."""
    mask = inner.view(np.uint8)
    counts = [cv2.calcHist([lab8], [c], mask, [256], [0, 256]).reshape(-1) for c in (1, 2)]
    ab: Image = median_rows(np.stack(counts).astype(np.int64)).astype(np.float32)
    return ab


def _fill_small_holes(mask: Image, largest: float) -> Image:
    """The mask with its enclosed holes up to ``largest`` pixels filled (a die's symbol inside
    its white, not the tray inside its printed outline)."""
    # A hole is enclosed: none of its pixels on the crop's edge. What is not mask is flooded
    # from a ring round the crop (joined to every part of it that reaches the edge); what the
    # flood leaves is enclosed, a few small patches labelled alone. (Labelling everything not
    # mask and counting each label's pixels cost five times as much.)
    outside = cv2.copyMakeBorder((~mask).view(np.uint8), 1, 1, 1, 1, cv2.BORDER_CONSTANT, value=1)
    cv2.floodFill(outside, None, (0, 0), 0)  # 4-connected, as the holes are
    enclosed = outside[1:-1, 1:-1]
    if not cv2.countNonZero(enclosed):
        return mask
    _, labels, stats, _ = cv2.connectedComponentsWithStats(enclosed, connectivity=4)
    small = stats[:, cv2.CC_STAT_AREA] <= largest
    small[0] = False  # (label 0: not enclosed)
    filled: Image = mask | small[labels]
    return filled


def _read_blob(
    bgr: Image, grey: Image, comp: Image, side: float, config: VisionConfig
) -> list[_Die]:
    """The dice of one blob of die pixels (dice close together touch in the image)."""
    white = _white(bgr, grey, comp, config)
    ratio = bgr / np.maximum(white, 1.0)
    # How far a pixel's hue is from the die's white, whatever its lightness (a shaded side is
    # darker, not coloured).
    # (The channels' mean and the norm summed by hand: the same numbers as NumPy's mean and
    # np.linalg.norm over the last axis, whose reductions along a 3-long axis cost far more.)
    mean = (ratio[..., 0] + ratio[..., 1] + ratio[..., 2]) / 3
    off = ratio / np.maximum(mean, 1e-3)[..., None] - 1
    b, g, r = off[..., 0], off[..., 1], off[..., 2]
    chromatic = np.sqrt(b * b + g * g + r * r)
    low, high = config.die_symbol_area
    symbols = [s for s in _symbols(chromatic, comp, side, config) if low <= s.area <= high]
    n = max(1, round(float(comp.sum()) / (config.die_image_area * side * side)))
    dice: list[_Die] = []
    for part, depth, (px, py) in _split(comp, n, side):
        if float(depth.max()) < config.die_min_depth * side or (
            _elongation(part) > config.die_max_elongation
        ):
            continue  # no die: too thin or long (print on the tray, a bright strip of board)
        # The top face's symbol lies at the die's heart, about half a die from its edges; a
        # side's lies at its rim.
        mine = [s for s in symbols if part[round(s.centre[1]), round(s.centre[0])]]
        top = max(mine, key=lambda s: depth[round(s.centre[1]), round(s.centre[0])], default=None)
        if top is None or depth[round(top.centre[1]), round(top.centre[0])] < (
            config.die_top_depth * side
        ):
            dice.append(_Die(py, px, None, "no symbol found on its top face"))
            continue
        face, why = face_of(_symbol_colour(bgr, grey, part, top, chromatic, side, config), config)
        dice.append(_Die(top.centre[1], top.centre[0], face, why))
    return dice


def _split(comp: Image, n: int, side: float) -> list[tuple[Image, Image, tuple[float, float]]]:
    """``n`` dice in one blob: each die's heart (the point deepest inside the blob, the
    others' a die apart) and the pixels nearer it than any other heart, with their
    :func:`_depth`."""
    depth = _depth(comp)
    ys, xs = nonzero(comp)
    hearts: list[tuple[float, float]] = []
    for k in np.argsort(-depth[ys, xs], kind="stable"):
        p = (float(xs[k]), float(ys[k]))
        if all(math.dist(p, q) >= 0.8 * side for q in hearts):
            hearts.append(p)
            if len(hearts) == n:
                break
    if len(hearts) == 1:
        return [(comp, depth, hearts[0])]
    h, w = comp.shape
    gy, gx = np.mgrid[0:h, 0:w]
    nearest = np.stack([np.hypot(gx - x, gy - y) for x, y in hearts]).argmin(axis=0)
    parts = [comp & (nearest == i) for i in range(len(hearts))]
    return [(part, _depth(part), heart) for part, heart in zip(parts, hearts, strict=True)]


def _depth(mask: Image) -> Image:
    """Each pixel's distance to the nearest pixel outside the mask (the crop's edge counts)."""
    # (OpenCV's border: NumPy's pad costs as much as the transform on a die's few pixels.)
    padded = cv2.copyMakeBorder(mask.view(np.uint8), 1, 1, 1, 1, cv2.BORDER_CONSTANT, value=0)
    depth: Image = cv2.distanceTransform(padded, cv2.DIST_L2, 5)[1:-1, 1:-1]
    return depth


def _elongation(mask: Image) -> float:
    """Long over short axis of a blob (its pixels' spread)."""
    ys, xs = nonzero(mask)
    if xs.size < 3:
        return 1.0
    # A pixel is a unit square: its own spread (1/12) keeps a one-pixel line finite.
    # (NumPy's np.cov step for step, without its checks: half its ~15 µs.)
    spread = np.vstack([xs, ys]).astype(np.float64)
    spread -= spread.mean(axis=1)[:, None]
    cov = np.dot(spread, spread.T)
    cov *= np.true_divide(1, xs.size - 1)
    cov += np.eye(2) / 12.0
    lo, hi = np.linalg.eigvalsh(cov)
    return float(np.sqrt(hi / max(lo, 1e-9)))


@dataclass(frozen=True)
class _Symbol:
    """A patch of colour on a die: the symbol of its top face, or of a side in view."""

    blob: Image
    centre: tuple[float, float]  # x, y
    area: float  # die sides squared


def _symbols(chromatic: Image, comp: Image, side: float, config: VisionConfig) -> list[_Symbol]:
    """Each colour patch of a blob of die pixels, from its most coloured pixel out to where
    the colour has fallen to half (blur spreads a symbol's colour over the white round it;
    half way is its drawn edge)."""
    taken = np.zeros_like(comp)
    out = []
    for cy, cx in _peaks(np.where(comp, chromatic, 0.0), config.die_symbol_chromatic):
        if taken[cy, cx]:
            continue
        level = (chromatic >= config.die_symbol_level * chromatic[cy, cx]) & comp
        _, labels = cv2.connectedComponents(level.astype(np.uint8), connectivity=8)
        blob = labels == labels[cy, cx]
        taken |= blob
        ys, xs = nonzero(blob)
        # (Sums of whole numbers over the count: NumPy's mean to the last bit, at less cost.)
        centre = (float(xs.sum()) / xs.size, float(ys.sum()) / ys.size)
        out.append(_Symbol(blob, centre, xs.size / side**2))
    return out


def _peaks(values: Image, least: float) -> list[tuple[int, int]]:
    """Local maxima of at least ``least``, highest first, as (row, column)."""
    top = cv2.dilate(values.astype(np.float32), np.ones((3, 3), np.uint8))
    ys, xs = nonzero((values >= top) & (values >= least))
    order = np.argsort(-values[ys, xs], kind="stable")
    return [(int(ys[k]), int(xs[k])) for k in order]


def _white(bgr: Image, grey: Image, mask: Image, config: VisionConfig) -> Image:
    """A die's white: the median colour of the brightest share of its pixels (its lit top)."""
    bright = mask & (grey >= quantile_of(grey[mask], 1.0 - config.die_white_share))
    white: Image = median_columns(_rows(bgr, bright))
    return white


def _rows(image: Image, mask: Image) -> Image:
    """``image[mask]`` (the pixels of an H x W x C image under a 2-D bool mask, N x C), through
    np.take: NumPy's boolean indexing of whole pixels costs several times as much."""
    out: Image = np.take(image.reshape(-1, image.shape[-1]), np.flatnonzero(mask), axis=0)
    return out


def _symbol_colour(
    bgr: Image,
    grey: Image,
    part: Image,
    symbol: _Symbol,
    chromatic: Image,
    side: float,
    config: VisionConfig,
) -> list[float]:
    """A symbol's colour as B, G, R ratios to the die's white round it: the median of its
    most coloured pixels near its centre (its edge is blended with the white)."""
    h, w = part.shape
    ys, xs = np.ogrid[0:h, 0:w]
    dist = np.hypot(xs - symbol.centre[0], ys - symbol.centre[1])
    near = part & (dist < config.die_white_radius * side) & ~symbol.blob
    white = _white(bgr, grey, near if near.any() else part, config)
    core = symbol.blob & (dist < config.die_core_radius * side)
    if not core.any():
        core = symbol.blob
    sel = core & (chromatic >= quantile_of(chromatic[core], 1.0 - config.die_core_share))
    return [float(v) for v in median_columns(_rows(bgr, sel)) / np.maximum(white, 1.0)]
