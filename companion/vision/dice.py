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
from dataclasses import dataclass, field, replace
from typing import Any

import cv2
import numpy as np
import numpy.typing as npt

from companion.vision.config import VisionConfig
from companion.vision.dice_tray import (
    KnownTray,
    NoTray,
    Tray,
    TrayZones,
    find_tray,
    tray_zones,
)
from companion.vision.die_faces import CAROLUS_FACES, face_of
from companion.vision.geometry import Geometry
from companion.vision.layout import Layout
from companion.vision.local_print import (
    high_quantile_of,
    median_columns,
    median_rows,
    quantile_of,
)
from companion.vision.masks import nonzero, opened_by

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


def dice_again(
    frame: Image, geo: Geometry, layout: Layout, config: VisionConfig, known: KnownTray | None
) -> tuple[Dice, KnownTray | None]:
    """:func:`read_dice` of a stream's frame, and where the tray is known to lie after it: the
    tray looked for only when it is not (or no longer) where it was found before."""
    tray = known.seen_in(frame, config) if known is not None else None
    if tray is not None:
        return dice_in(tray, config), known
    found = find_tray(frame, geo, layout, config)
    if isinstance(found, Tray):
        known = KnownTray.of(found, config)
        found = replace(found, zones=known.zones)
    return dice_in(found, config), known


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
    # (In place: one image of the crop's size fewer to make and fill.)
    sigma = config.die_smooth * side
    if sigma > 0.3:
        cv2.GaussianBlur(bgr, (0, 0), sigma, dst=bgr)
    # (The mean of B, G and R as NumPy's mean over the last axis adds them, at a twentieth of
    # its cost; summed in place, in the same order.)
    grey = bgr[..., 0] + bgr[..., 1]
    grey += bgr[..., 2]
    grey /= 3
    box = _search_box(search, side, config)
    body = _die_pixels_in(bgr, grey, tray, (inner, search), box, side, config)
    # From here on only the box of the die pixels: blobs and dice in it, placed back in the
    # crop. (Labelled there only: OpenCV's statistics pass costs in proportion to the pixels
    # it scans.)
    part = _part_box(body, 0)
    if part is None:
        return []
    py0, py1, px0, px1 = part
    x0, y0 = box[0] + px0, box[1] + py0
    bgr, grey = (
        bgr[y0 : box[1] + py1, x0 : box[0] + px1],
        grey[y0 : box[1] + py1, x0 : box[0] + px1],
    )
    n, labels, stats, _ = cv2.connectedComponentsWithStats(
        body[py0:py1, px0:px1].view(np.uint8), connectivity=8
    )
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
    # (What the dilation sees of the erosion: cut at the image's edge as the whole one is; and
    # what that part of the erosion sees of the image.)
    ex0, ey0, ex1, ey1 = max(0, x0 - r), max(0, y0 - r), min(cols, x1 + r), min(rows, y1 + r)
    ix0, iy0 = max(0, x0 - 2 * r), max(0, y0 - 2 * r)
    seen = image[iy0 : min(rows, y1 + 2 * r), ix0 : min(cols, x1 + 2 * r)]
    eroded = cv2.erode(seen, box)[ey0 - iy0 : ey1 - iy0, ex0 - ix0 : ex1 - ix0]
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
    # The levels, the colours and the tests on the search zone's own box (the search box less
    # the room round it for the thin print's opening: no die pixel lies there).
    x0, y0, w, h = cv2.boundingRect(search.view(np.uint8))
    x1, y1 = x0 + w, y0 + h
    window = (slice(y0, y1), slice(x0, x1))
    inner, search, grey_in = inner[window], search[window], grey[window]
    out = np.zeros((where[3] - where[1], where[2] - where[0]), bool)
    rise = grey_in - _opened_in(own, box, (x0, y0, x1, y1))
    top = float(high_quantile_of(rise[search], 0.999))
    if top < config.die_min_rise:
        return out
    # A die: well above the tray's level (its lit top and sides) and above the board's where
    # it stands out over the tray's edge, or its saturated spot (a blue spot can be as dark as
    # the tray). The board's level only where the tray's is risen above (the second opening
    # on the box of those pixels only).
    risen = (rise >= config.die_body_share * top) & search
    lit = np.zeros_like(risen)
    part = _part_box(risen, 0)
    if part is not None:
        py0, py1, px0, px1 = part
        sub = (x0 + px0, y0 + py0, x0 + px1, y0 + py1)
        local = grey_in[py0:py1, px0:px1] - _opened_in(grey, box, sub)
        lit[py0:py1, px0:px1] = risen[py0:py1, px0:px1] & (local >= config.die_board_share * top)
    # (The smoothed 8-bit crop is within 0 and 255 already, as a weighted mean with positive
    # weights: truncated to whole levels as np.clip's then astype's.)
    lab8 = cv2.cvtColor(bgr[window].astype(np.uint8), cv2.COLOR_BGR2Lab)
    ref = _tray_ab(lab8, inner)
    # (The 8-bit a and b less the float32 reference: float32, as of the whole Lab made float.
    # Its square against the bound's: each difference is a whole or half level, so the sum of
    # squares is exact in float32 and the test is np.hypot's to the last bit, without a root.)
    da, db = lab8[..., 1] - ref[0], lab8[..., 2] - ref[1]
    spot = da * da + db * db >= np.float32(config.die_spot_chroma) ** 2
    body = np.zeros_like(out)
    body[y0 - where[1] : y1 - where[1], x0 - where[0] : x1 - where[0]] = (lit | spot) & search
    # (The holes and the opening worked out on those pixels' box and the opening's reach round
    # it only, where all of them lie: the same holes, each enclosed within it, and the same
    # opening, nothing set outside.)
    thin = _thin(side, config)
    part = _part_box(body, thin)
    if part is None:
        return out
    y0, y1, x0, x1 = part
    # A die's symbol may be as dark as the tray: the white round it encloses it.
    filled = _fill_small_holes(body[y0:y1, x0:x1], config.die_hole * side * side)
    # A die is a whole die side across; thin bright lines (the tray's printed outline) are not.
    disc = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (thin, thin))
    out[y0:y1, x0:x1] = opened_by(filled.view(np.uint8), disc)
    return out


def _part_box(mask: Image, pad: int) -> tuple[int, int, int, int] | None:
    """The box (y0, y1, x0, x1) of a mask's pixels with ``pad`` pixels round it (within the
    mask), or None if the mask is empty."""
    x, y, w, h = cv2.boundingRect(mask.view(np.uint8))
    if not w:
        return None
    rows, cols = mask.shape
    return max(0, y - pad), min(rows, y + h + pad), max(0, x - pad), min(cols, x + w + pad)


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
    if n == 1:
        # (The first deepest pixel in raster order, as the stable sort below picks it: a
        # pixel outside the blob is 0 deep, one in it at least 1.)
        y, x = divmod(int(depth.argmax()), comp.shape[1])
        return [(comp, depth, (float(x), float(y)))]
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
    # (From OpenCV's moments of the pixels: whole-number sums, exact, in one call; the
    # covariance's eigenvalues in closed form. np.cov and eigvalsh cost ten times as much on a
    # die's few hundred pixels, and agree to ~1e-15.)
    m = cv2.moments(mask.view(np.uint8), binaryImage=True)
    n = int(m["m00"])
    if n < 3:
        return 1.0
    sx, sy = int(m["m10"]), int(m["m01"])
    scale = n * (n - 1)
    # A pixel is a unit square: its own spread (1/12) keeps a one-pixel line finite.
    xx = (n * int(m["m20"]) - sx * sx) / scale + 1 / 12
    yy = (n * int(m["m02"]) - sy * sy) / scale + 1 / 12
    xy = (n * int(m["m11"]) - sx * sy) / scale
    mid, half = (xx + yy) / 2, math.hypot((xx - yy) / 2, xy)
    return math.sqrt((mid + half) / max(mid - half, 1e-9))


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
    h, w = comp.shape
    for cy, cx in _peaks(np.where(comp, chromatic, 0.0), config.die_symbol_chromatic):
        if taken[cy, cx]:
            continue
        level = (chromatic >= config.die_symbol_level * chromatic[cy, cx]) & comp
        # The peak's 8-connected patch of the level: OpenCV's flood from the peak, marked in a
        # mask (labelling the whole level and picking the peak's label costs more).
        flood = np.zeros((h + 2, w + 2), np.uint8)
        cv2.floodFill(level.view(np.uint8), flood, (cx, cy), 1, 0, 0, _PATCH_FLOOD)
        blob = flood[1:-1, 1:-1].view(bool)
        taken |= blob
        # (Its moments are whole-number sums, exact: their ratios are NumPy's means.)
        m = cv2.moments(flood[1:-1, 1:-1], binaryImage=True)
        centre = (m["m10"] / m["m00"], m["m01"] / m["m00"])
        out.append(_Symbol(blob, centre, m["m00"] / side**2))
    return out


# (8-connected, the mask only filled, with 1s.)
_PATCH_FLOOD = 8 | cv2.FLOODFILL_MASK_ONLY | (1 << 8)


def _peaks(values: Image, least: float) -> list[tuple[int, int]]:
    """Local maxima of at least ``least``, highest first, as (row, column)."""
    top = cv2.dilate(values.astype(np.float32, copy=False), _SQUARE3)
    # (By flat index: the same pixels in the same order, with fewer and cheaper gathers.)
    flat = np.flatnonzero((values >= top) & (values >= least))
    flat = flat[np.argsort(-values.reshape(-1)[flat], kind="stable")]
    return list(zip(*(v.tolist() for v in np.divmod(flat, values.shape[1])), strict=True))


_SQUARE3 = np.ones((3, 3), np.uint8)


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
    # (np.ogrid's values, without its Python-level cost.)
    xs, ys = np.arange(w), np.arange(h)[:, None]
    dist = np.hypot(xs - symbol.centre[0], ys - symbol.centre[1])
    near = part & (dist < config.die_white_radius * side) & ~symbol.blob
    white = _white(bgr, grey, near if near.any() else part, config)
    core = symbol.blob & (dist < config.die_core_radius * side)
    if not core.any():
        core = symbol.blob
    sel = core & (chromatic >= quantile_of(chromatic[core], 1.0 - config.die_core_share))
    return [float(v) for v in median_columns(_rows(bgr, sel)) / np.maximum(white, 1.0)]
