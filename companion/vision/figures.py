"""The pawns and grandes: the king and Charlemagne by the thickest, roundest blob of their
colour, a grande by the thickest cube top of its colour that is a grande's size.

Black pieces under a lamp's glare are mid-grey, out of the colour model's reach for black: the
king and the black grande are also looked for as hueless pixels far darker than the board's
print round them (:func:`dark_pieces`)."""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from functools import cached_property
from typing import Any, NamedTuple

import cv2
import numpy as np
import numpy.typing as npt

from companion.vision.calibration import EL_GRANDE_COLOURS, Calibration
from companion.vision.colour import BACKGROUND, ColourModel
from companion.vision.config import VisionConfig
from companion.vision.cubes import Patch, Top, clean, measure_planes
from companion.vision.geometry import Geometry
from companion.vision.hand import white_cast
from companion.vision.layout import Layout
from companion.vision.local_print import GREY, local_print_cells, percentile_u8, quantile_of
from companion.vision.masks import components, disc, fill_small_holes, opened_by
from companion.vision.mosaic import Mosaic, cut
from companion.vision.standing import top_of

Image = npt.NDArray[Any]
FloatArray = npt.NDArray[Any]


@dataclass(frozen=True)
class Figure:
    name: str
    colour: str
    diameter: float  # mm across, seen from above
    round_: bool
    height: float  # mm
    # The places it may stand in (empty: anywhere): El Grande's king and grandes stand only in
    # regions, Charlemagne only on territories. Blurred blocks of cubes in a court or a
    # reserve are as like a grande's top or a pawn's foot, and are never one.
    stands_in: frozenset[str] = frozenset()


# Whether a figure seen at a working-image point (a grande's top, a pawn's foot) stands where
# it may (Figure.stands_in); the reader knows where a point stands, the search does not.
Stands = Callable[[Figure, float, float], bool]


class Found(NamedTuple):
    """A pawn found: its foot, its pixels (a mask whose top-left corner is at ``corner``,
    in the mask's coordinates) and how like a pawn it is (see :func:`find_figure`)."""

    foot: tuple[float, float]
    corner: tuple[int, int]
    pixels: Image
    score: float


def figures_of(layout: Layout) -> tuple[Figure, ...]:
    p = layout.pieces
    if layout.game == "el-grande":
        regions = frozenset(a.id for a in layout.areas_of_kind("region"))
        out = []
        if "king" in p:
            k = p["king"]
            out.append(
                Figure("king", "black", float(k["diameter"]), True, float(k["height"]), regions)
            )
        if "grande" in p:
            side = float(p["grande"])
            for colour in EL_GRANDE_COLOURS:
                out.append(Figure(f"grande:{colour}", colour, side, False, side, regions))
        return tuple(out)
    if "charlemagne" in p:
        c = p["charlemagne"]
        territories = frozenset(t.id for t in layout.tiles)
        size = float(c["diameter"]), True, float(c["height"])
        return (Figure("charlemagne", "yellow", *size, territories),)
    return ()


_GREY_BYTES = np.round(GREY).astype(np.uint8)


def dark_pieces(lab: Image, labels: Image, geo: Geometry, config: VisionConfig) -> Image:
    """Pixels that may be a black piece's: hueless (once the light's cast, seen on the
    markers' paper, is off) and far darker than the board's print round them.

    Exposure, a gradient or an arm's shadow scale the print and the piece alike, so the ratio
    of their grey values holds; a lamp's glare lifts a black piece towards mid-grey but the
    print with it. A piece's shadow is as dark as half the print, but of its hue. The grey
    values are compared everywhere, the hues only where a pixel is that dark.
    """
    board = (geo.board > 0) & ~geo.ignore
    cast, paper = marker_light(np.take(lab.reshape(-1, 3), geo.white, axis=0))
    return _dark(
        lab,
        board & (labels == BACKGROUND),
        board,
        cast,
        paper,
        round(config.dark_piece_window * geo.mm_px),
        max(2, round(config.dark_piece_width * math.sqrt(geo.typical_footprint))),
        config,
    )


class MarkerLight(NamedTuple):
    """The light as the markers' white paper shows it: its colour cast (Lab a, b offsets,
    :func:`hand.white_cast`) and the paper's grey value (the 85th percentile)."""

    cast: FloatArray  # float32 (a, b)
    paper: float


def marker_light(markers: Image, cast: tuple[float, float] | None = None) -> MarkerLight:
    """:class:`MarkerLight` from the Lab pixels (N x 3) of the markers' paper (and their
    :func:`hand.white_cast`, if the caller has it)."""
    ab = np.array(white_cast(markers) if cast is None else cast, np.float32)
    # (From the counts: np.percentile's number to the last bit without its sort.)
    paper = (
        percentile_u8(np.bincount(markers[:, 0], minlength=256), 85.0, GREY)
        if markers.size
        else 255.0
    )
    return MarkerLight(ab, paper)


def dark_within(
    image: Image,
    labels: Image,
    geo: Geometry,
    box: tuple[int, int, int, int],
    config: VisionConfig,
    light: MarkerLight | None = None,
    need: tuple[int, int, int, int] | None = None,
) -> Image:
    """:func:`dark_pieces` of a box (x, y, w, h) of the working image (BGR ``image``, its
    ``labels``) over all of the board that is read, converted to Lab there only; the light's
    cast and paper from the markers (``light``, if the caller has it already). The print is
    looked at half its window beyond the box too, so a pixel at the box's edge is judged as
    in the whole image. With ``need`` (a box of the working image), only the pixels there
    are asked for: the others may be left 0 (the per-pixel tests run only round it)."""
    window = round(config.dark_piece_window * geo.mm_px)
    x, y, w, h = box
    x0, y0 = max(0, x - window // 2), max(0, y - window // 2)
    x1 = min(image.shape[1], x + w + window // 2)
    y1 = min(image.shape[0], y + h + window // 2)
    near = np.s_[y0:y1, x0:x1]
    lab = cv2.cvtColor(np.ascontiguousarray(image[near]), cv2.COLOR_BGR2Lab)
    if light is None:
        # (As one row: see colour.lab_of_packed.)
        light = marker_light(
            cv2.cvtColor(image.reshape(1, -1, 3)[:, geo.white], cv2.COLOR_BGR2Lab)[0]
        )
    # (Anywhere the board is read, not only over its areas: a cube at a region's edge shows
    # over the sea or the border beside it.)
    board = ~geo.ignore[near]
    side = max(2, round(config.dark_piece_width * math.sqrt(geo.typical_footprint)))
    part = None
    if need is not None:
        # A pixel's answer depends on the pixels within two openings by the piece's side.
        nx, ny, nw, nh = need
        grow = 2 * side + 2
        part = (
            max(0, ny - grow - y0),
            min(y1 - y0, ny + nh + grow - y0),
            max(0, nx - grow - x0),
            min(x1 - x0, nx + nw + grow - x0),
        )
    dark = _dark(
        lab,
        board & (labels[near] == BACKGROUND),
        board,
        light.cast,
        light.paper,
        window,
        side,
        config,
        part,
    )
    out: Image = dark[y - y0 : y - y0 + h, x - x0 : x - x0 + w]
    return out


def _dark(
    lab: Image,
    print_: Image,
    board: Image,
    cast: FloatArray,
    paper: float,
    window: int,
    side: int,
    config: VisionConfig,
    part: tuple[int, int, int, int] | None = None,
) -> Image:
    """:func:`dark_pieces` on an image (0/255): ``print_`` where the board's print may be,
    the light's ``cast`` and the ``paper``'s grey value from the markers, the print's
    ``window`` and a piece's least ``side`` in pixels. With ``part`` (rows y0:y1, columns
    x0:x1), the print is worked out as over the whole image but the pixels are judged there
    only (0 elsewhere; right beyond two openings from the part's edge)."""
    cells, step = local_print_cells(lab, print_, window)
    h, w = lab.shape[:2]
    ch, cw = cells.shape[:2]
    # Each cell's value over its own pixels (those past the last whole cell take the edge's).
    print_l = cv2.resize(
        np.ascontiguousarray(cells[..., 0]), (cw * step, ch * step), interpolation=cv2.INTER_LINEAR
    )
    print_l = cv2.copyMakeBorder(print_l, 0, h - ch * step, 0, w - cw * step, cv2.BORDER_REPLICATE)
    if part is not None:
        py0, py1, px0, px1 = part
        whole = np.zeros((h, w), np.uint8)
        if py1 > py0 and px1 > px0:
            at = np.s_[py0:py1, px0:px1]
            whole[at] = _dark_pixels(
                lab[at], print_l[at], board[at], cells, step, (px0, py0), cast, paper, side, config
            )
        return whole
    return _dark_pixels(lab, print_l, board, cells, step, (0, 0), cast, paper, side, config)


def _dark_pixels(
    lab: Image,
    print_l: Image,
    board: Image,
    cells: Image,
    step: int,
    origin: tuple[int, int],
    cast: FloatArray,
    paper: float,
    side: int,
    config: VisionConfig,
) -> Image:
    """:func:`_dark`'s tests on its pixels (``lab``, ``print_l`` and ``board`` a window of
    its image whose corner is at ``origin`` there; ``cells`` the print's of the whole)."""
    ch, cw = cells.shape[:2]
    # Grey values as bytes through a lookup table (the whole frame is compared: kept cheap).
    grey = cv2.LUT(np.ascontiguousarray(lab[..., 0]), _GREY_BYTES)
    bound = cv2.convertScaleAbs(cv2.LUT(print_l, _GREY_BYTES), alpha=config.dark_piece_ratio)
    # A black piece is thick; the print's borders, names and the mat's grain are thin (and
    # would fill the mosaic of the pieces' surroundings with lines): opened away, before and
    # after the hues are judged.
    square = np.ones((side, side), np.uint8)
    dark = cv2.compare(grey, bound, cv2.CMP_LE)
    dark[~board] = 0
    dark = opened_by(dark, square)
    found = cv2.findNonZero(dark)
    if found is None:
        return dark
    xs, ys = found.reshape(-1, 2).T
    grey_at = GREY[lab[ys, xs, 0]]
    print_grey = np.maximum(GREY[print_l[ys, xs]], 1.0)
    ratio = grey_at / print_grey
    seen = np.clip(grey_at / paper, 0, 1)[:, None]
    ab = lab[ys, xs, 1:].astype(np.float32) - 128.0 - cast * seen
    cell = cells[
        np.minimum((ys + origin[1]) // step, ch - 1), np.minimum((xs + origin[0]) // step, cw - 1)
    ]
    print_seen = np.clip(print_grey / paper, 0, 1)[:, None]
    print_ab = cell[:, 1:].astype(np.float32) - 128.0 - cast * print_seen
    print_chroma = np.maximum(1.0, np.hypot(print_ab[:, 0], print_ab[:, 1]))
    along = (ab * print_ab).sum(axis=-1) / print_chroma
    # Far darker than a shadow gets, a pixel is black whatever hue the print round it has
    # (near a border, the next region's or the sea's).
    keep = (np.hypot(ab[:, 0], ab[:, 1]) <= config.dark_piece_chroma) & (
        (along <= config.dark_piece_print_hue * print_chroma) | (ratio <= config.black_piece_ratio)
    )
    dark[ys[~keep], xs[~keep]] = 0
    # A pixel whose hue or chroma noise put off is no gap in a piece: such holes, filled where
    # the pixels were dark enough, would otherwise leave no square of the piece's side whole.
    hole = np.ones((config.dark_piece_hole, config.dark_piece_hole), np.uint8)
    before = dark.copy()
    before[ys, xs] = 255
    dark = cv2.bitwise_and(cv2.morphologyEx(dark, cv2.MORPH_CLOSE, hole), before)
    out: Image = opened_by(dark, square)
    return out


class DarkSearch:
    """The black pieces looked for among the colour model's black and the dark hueless pixels
    (:func:`dark_pieces`) of the whole working image: a Lab conversion and a look at every
    pixel, so made only when first asked for. Then, as for the cubes, on a mosaic of their
    surroundings (mosaic.py)."""

    def __init__(
        self,
        image: Image,
        packed: Image,
        labels: Image,
        black: int,
        colours: int,
        margin: int,
        geo: Geometry,
        config: VisionConfig,
    ) -> None:
        self.image = image
        self.packed = packed
        self.labels = labels
        self.black = black
        self.colours = colours
        self.margin = margin
        self.geo = geo
        self.config = config
        self._taken: list[Image] = []  # flat indices of pieces found elsewhere

    @cached_property
    def lab(self) -> Image:
        out: Image = cv2.cvtColor(self.image, cv2.COLOR_BGR2Lab)
        return out

    @cached_property
    def pieces(self) -> Mosaic:
        dark = dark_pieces(self.lab, self.labels, self.geo, self.config) > 0
        labels = np.where(self.labels == self.black, self.black, 0).astype(np.uint8)
        labels[dark] = self.black
        return cut(labels, self.packed, self.colours, self.margin)

    @cached_property
    def mask(self) -> Image:
        """The black and dark pixels, in the mosaic (0/255)."""
        found = self.pieces.labels == self.black
        out: Image = clean(found.view(np.uint8) * np.uint8(255))
        for flat in self._taken:
            out[np.isin(self.pieces.index, flat)] = 0
        return out

    def exclude(self, corner: tuple[int, int], pixels: Image, pieces: Mosaic) -> None:
        """Leave out a piece found in the cubes' mosaic (``pixels`` there, from ``corner``)."""
        x, y = corner
        h, w = pixels.shape
        grown = cv2.dilate(pixels, np.ones((3, 3), np.uint8)) > 0
        flat = pieces.index[y : y + h, x : x + w][grown]
        flat = flat[flat >= 0]
        if "mask" in self.__dict__:
            self.mask[np.isin(self.pieces.index, flat)] = 0
        else:
            self._taken.append(flat)

    def pawn(
        self, fig: Figure, calibration: Calibration, layout: Layout, stands: Stands | None = None
    ) -> Found | None:
        """The pawn here (in this search's mosaic; see find_figure's ``stands``)."""
        ball = fig.height - self.config.pawn_head * fig.diameter
        to_work = self.pieces.to_work

        def head(foot: tuple[float, float]) -> tuple[float, float]:
            wx, wy = to_work(*foot)
            hx, hy = top_of(calibration, self.geo, (wx, wy), ball, self.config)
            return foot[0] + hx - wx, foot[1] + hy - wy

        return find_figure(self.mask, fig, self.geo, layout, self.config, head, to_work, stands)

    def take(self, found: Found, pieces: Mosaic) -> tuple[tuple[int, int], Image] | None:
        """Take a pawn found here out of this search, and give its pixels in the cubes'
        mosaic (their corner and a mask there), if it shows there at all."""
        x, y = found.corner
        h, w = found.pixels.shape
        grown = cv2.dilate(found.pixels, np.ones((3, 3), np.uint8)) > 0
        self.mask[y : y + h, x : x + w][grown] = 0
        flat = self.pieces.index[y : y + h, x : x + w][grown]
        hit = np.isin(pieces.index, flat[flat >= 0])
        if not hit.any():
            return None
        bx, by, bw, bh = cv2.boundingRect(hit.view(np.uint8))
        return (bx, by), hit[by : by + bh, bx : bx + bw].view(np.uint8)

    def grande(
        self,
        fig: Figure,
        layout: Layout,
        fast: tuple[float, float, float] | None,
        stands: Stands | None = None,
    ) -> tuple[float, float, float] | None:
        """The black grande's top here (working-image coordinates), if more like one than
        ``fast`` (the best top among the counted patches; see find_big_top's ``stands``)."""
        lightness = np.ascontiguousarray(self.pieces.gather(self.lab[..., 0]))
        patches = _measure_closed(
            [self.mask], [fig], self.geo, layout, self.config, lightness, self.pieces, fig.colour
        )[0]
        top = find_big_top(patches, fig, self.geo, layout, self.config, stands)
        if top is None or (fast is not None and fast[2] >= top[2]):
            return fast
        return top


class PawnMeasures(NamedTuple):
    """A candidate pawn's foot (working image) and its measures (see :func:`find_figure`):
    how well its blob fills the pawn's outline, its inscribed radius over the pawn's, the
    spread of its outline (as measured, before VisionConfig.figure_spread_cap), and how like
    the pawn it is."""

    x: float
    y: float
    fit: float
    thick: float
    spread: float
    like: float


def find_figure(
    mask: Image,
    fig: Figure,
    geo: Geometry,
    layout: Layout,
    config: VisionConfig,
    head: Callable[[tuple[float, float]], tuple[float, float]] | None = None,
    to_work: Callable[[float, float], tuple[float, float]] | None = None,
    stands: Stands | None = None,
    measures: list[PawnMeasures] | None = None,
) -> Found | None:
    """Where a pawn's foot stands and its pixels (in the mask's coordinates; ``to_work`` maps
    them into the working image, whose geometry sizes things, when the mask is a mosaic's).
    With ``stands``, only feet where the pawn may stand. Each candidate scored is appended to
    ``measures`` (for tools: benchmarks.fit_big_pieces).

    Holes are filled first (a pawn's glint). Each blob is opened by a disc no cube can hold,
    so cubes touching the pawn and its head fall away; each part left that is thick enough
    is a candidate foot. The pawn is the candidate most like a pawn: its blob near the foot
    fills the pawn's outline (the foot's disc, and the head where the camera sees it:
    ``head`` gives that working-image point for a foot), the foot is thick (blurred clusters
    of cubes and a grande are nearly as thick) and round (their outlines are squares and
    hexagons, whose edge lies farther from the middle at the corners). The pixels returned
    are the blob's within the pawn's outline.
    """
    mask = mask.view(np.uint8) if mask.dtype == bool else mask
    if not cv2.countNonZero(mask):
        return None
    cube = float(layout.pieces["cube"])
    foot = fig.diameter / 2 * geo.mm_px
    # (0/1 bytes by OpenCV's threshold: one pass, not NumPy's comparison and conversion.)
    ones = cv2.threshold(mask, 0, 1, cv2.THRESH_BINARY)[1]
    filled = fill_small_holes(ones, config.figure_hole * math.pi * foot**2)
    _, blobs, stats, _ = components(filled, connectivity=8)
    r = max(1, round(config.figure_open * foot))
    kernel = disc(r)
    candidates = []
    # Only blobs of about a pawn's foot or more (a cube's are far smaller), each in its box.
    for i in np.flatnonzero(stats[:, cv2.CC_STAT_AREA] >= config.figure_area * math.pi * foot**2):
        if i == 0:
            continue
        x, y, w, h = (int(v) for v in stats[i, :4])
        opened = cv2.morphologyEx(
            _pad(blobs[y : y + h, x : x + w] == i, r + 1), cv2.MORPH_OPEN, kernel
        )
        k, parts, part_stats, _ = components(opened, connectivity=8)
        for j in range(1, k):
            px, py, pw, ph = (int(v) for v in part_stats[j, :4])
            part = _pad(parts[py : py + ph, px : px + pw] == j, 1)
            candidates.append((part, x + px - r - 1, y + py - r - 1))
    best: tuple[float, float, float, tuple[int, int, Image]] | None = None
    for part, x, y in candidates:
        dist = cv2.distanceTransform(part, cv2.DIST_L2, 3)
        _, peak, _, loc = cv2.minMaxLoc(dist)
        fx, fy = float(loc[0] + x - 1), float(loc[1] + y - 1)
        # Sizes where the candidate stands (the board is seen smaller far away).
        wx, wy = to_work(fx, fy) if to_work is not None else (fx, fy)
        mm_px = float(geo.side[int(wy), int(wx)]) / cube
        radius = fig.diameter / 2 * mm_px
        cube_half = cube / 2 * mm_px
        # Between a cube's and the figure's inscribed radius (both lose a pixel or so to the
        # dark edge every piece shows); no pawn's foot is much thicker than its own.
        threshold = (
            cube_half - config.edge_px + config.big_piece_radius_share * (radius - cube_half)
        )
        if not threshold <= peak <= config.figure_max_thickness * radius:
            continue
        if stands is not None and not stands(fig, wx, wy):
            continue
        hx, hy = head((fx, fy)) if head is not None else (fx, fy)
        outline, whole, (ox, oy) = _pawn_outline(
            (fx, fy),
            (hx, hy),
            radius,
            config.pawn_head * fig.diameter * mm_px,
            filled.shape,
            config.pawn_lean_slack,
        )
        blob = blobs[oy : oy + outline.shape[0], ox : ox + outline.shape[1]]
        own = (blob == blobs[int(fy), int(fx)]) & (
            filled[oy : oy + outline.shape[0], ox : ox + outline.shape[1]] > 0
        )
        near = cv2.dilate(outline, disc(max(1, round(config.figure_near * radius)))) > 0
        inside = own & (outline > 0)
        fit = float(inside.sum()) / max(1.0, float(((own & near) | (outline > 0)).sum()))
        spread = _spread(part, loc, peak)
        # (Beyond a cap, a foot's outline strays because a cube touches it, not because it is
        # a box's: see VisionConfig.figure_spread_cap.)
        like = fit + peak / radius - config.figure_roundness * min(spread, config.figure_spread_cap)
        if measures is not None:
            measures.append(PawnMeasures(wx, wy, fit, peak / radius, spread, like))
        if best is None or like > best[0]:
            # Its pixels: the blob's within the outline (the head may lean farther) and its
            # blurred edge round it.
            edge = disc(max(1, round(config.edge_px)) + 1)
            pixels = own & (cv2.dilate(whole, edge) > 0)
            best = (like, fx, fy, (ox, oy, pixels.astype(np.uint8)))
    if best is None:
        return None
    like, fx, fy, (ox, oy, pixels) = best
    return Found((fx, fy), (ox, oy), pixels, like)


def _pad(mask: Image, n: int) -> Image:
    """A bool mask as 0/1 bytes with ``n`` zero pixels round it (``np.pad``'s answer, at a
    tenth of its cost on the small masks here)."""
    out: Image = cv2.copyMakeBorder(mask.view(np.uint8), n, n, n, n, cv2.BORDER_CONSTANT, value=0)
    return out


def _unit_ring(points: int) -> Image:
    """Points evenly round the unit circle (x, y), the first at angle 0."""
    t = np.linspace(0.0, 2 * math.pi, points, endpoint=False)
    out: Image = np.stack([np.cos(t), np.sin(t)], axis=1)
    out.flags.writeable = False
    return out


_RING = _unit_ring(24)  # (made once: NumPy's linspace costs more than the outline's own work)


def _pawn_outline(
    foot: tuple[float, float],
    head: tuple[float, float],
    radius: float,
    head_radius: float,
    shape: tuple[int, ...],
    slack: float,
) -> tuple[Image, Image, tuple[int, int]]:
    """The pawn's outline as the camera sees it (the hull of its foot's disc and its head's
    ball), the same with the head leaning ``slack`` times as far (the camera's focal length
    may be a guess), both as masks over a window of the working image, and its corner."""
    ring = _RING
    base, top = np.array(foot), np.array(head)
    foot_ring = base + radius * ring
    ball = top + head_radius * ring
    far = base + (top - base) * slack + head_radius * ring
    points = np.vstack([foot_ring, ball, far])
    grow = radius * 0.5 + 2
    x0 = max(0, math.floor(points[:, 0].min() - grow))
    y0 = max(0, math.floor(points[:, 1].min() - grow))
    x1 = min(shape[1], math.ceil(points[:, 0].max() + grow))
    y1 = min(shape[0], math.ceil(points[:, 1].max() + grow))
    masks = []
    for parts in ((foot_ring, ball), (foot_ring, ball, far)):
        out = np.zeros((max(1, y1 - y0), max(1, x1 - x0)), np.uint8)
        hull = cv2.convexHull((np.vstack(parts) - (x0, y0)).astype(np.float32))
        cv2.fillConvexPoly(out, np.round(hull).astype(np.int32), 1)
        masks.append(out)
    return masks[0], masks[1], (x0, y0)


def _spread(part: Image, centre: Sequence[int], peak: float) -> float:
    """How far the outline strays from a circle round ``centre``: the spread (from the 10th
    to the 75th percentile) of its distance from there, over the inscribed radius. About 0.1
    for a disc, 0.2-0.4 for a square or a box seen aslant."""
    contours, _ = cv2.findContours(part, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_NONE)
    outline = max(contours, key=cv2.contourArea).reshape(-1, 2).astype(np.float32)
    d = np.hypot(outline[:, 0] - centre[0], outline[:, 1] - centre[1])
    # (np.percentile's numbers, from one partition each: NumPy's checks cost more on a few
    # hundred points.)
    return float(quantile_of(d, 0.75) - quantile_of(d, 0.1)) / max(peak, 1.0)


class BigTop(NamedTuple):
    """One top measured as a grande's (see :func:`big_tops`): where it shows, its inscribed
    radius over the big-piece threshold where it lies, its area over a grande top's, how like
    a grande's top it is, and why it is none (empty: it may be one)."""

    patch: int
    top: int
    x: float
    y: float
    thick: float
    size: float
    like: float
    refused: str


def _cells_each_way(top: Top, side: float, config: VisionConfig) -> tuple[float, float]:
    """The cube cells a top's enclosing rectangle spans along and across, unrounded (a cell
    as long and as wide as cubes.top_shape lays them)."""
    return (
        top.length / (config.top_length_sides * side),
        top.width / (config.top_width_sides * side),
    )


def big_tops(
    patches: Sequence[Patch],
    fig: Figure,
    layout: Layout,
    config: VisionConfig,
    stands: Stands | None = None,
    keep_refused: bool = True,
) -> list[BigTop]:
    """Every top of the patches measured as a box figure's (grande's) top (see
    :func:`find_big_top`); those that are none say why (``refused``), or with
    ``keep_refused`` False are left out (the read's own search: no measures kept for the many
    thin tops)."""
    cube = float(layout.pieces["cube"])
    # A top's counted pixels are about top_factor of the modelled square, a grande's too.
    expected = (fig.diameter / cube) ** 2 * config.top_factor
    # Cube-sized cells a grande's top spans each way (16 mm on 10 mm cubes: two).
    span = math.ceil(fig.diameter / cube)
    out = []
    for i, patch in enumerate(patches):
        # Between a cube's and a grande's inscribed radius where the patch lies (the board's
        # far corner is seen a fifth smaller than its middle: a grande there is as thin as
        # a grande's threshold at the middle would make it no grande).
        cube_half = patch.side / 2
        half = fig.diameter / cube * cube_half
        threshold = cube_half - config.edge_px + config.big_piece_radius_share * (half - cube_half)
        for j, top in enumerate(patch.tops):
            thick = top.thick / threshold
            if thick < config.grande_thickness and not keep_refused:
                continue
            size = max(top.area / patch.footprint, 1e-3) / expected
            like = thick - config.grande_size_weight * abs(math.log(size))
            # A grande's top spans at most ``span`` cube cells each way of its enclosing
            # rectangle (laid out as cubes.top_shape does): a longer or wider top is a row or
            # block of cubes whose seams blur erased, or dark table inside the outline ...
            along_cells, across_cells = _cells_each_way(top, patch.side, config)
            along, across = max(1, round(along_cells)), max(1, round(across_cells))
            refused = ""
            if thick < config.grande_thickness:
                refused = "thin"
            elif thick > config.grande_max_thickness:
                refused = "thick"  # (a block of cubes: see VisionConfig.grande_max_thickness)
            elif (along > span or across > span) and not (
                # (A cell longer, but covering no more cube cells than a grande's top does:
                # the top lengthened by its own lit side, which a row of cubes is not.)
                along == span + 1 and across <= span and top.cells <= span
            ):
                refused = "long"
            # ... and a top as wide as a grande both ways covers all its cells, where an L of
            # three cubes leaves one empty. (One cell of two may be empty: a grande's top
            # lengthened by its own shadow, or by blur across the seam to a cube beside it;
            # and two of four: a grande's top seen aslant, too wide for one cell, too narrow
            # to cover two.)
            elif along == across == span > 1 and top.cells == span * span - 1:
                refused = "L"
            # ... and a top no longer than a grande's but far longer than wide is a pair of
            # cubes blurred into one bar (see VisionConfig.grande_max_cells_ratio).
            elif (
                fig.colour != "black"
                and along <= span
                and max(along_cells, across_cells)
                >= config.grande_max_cells_ratio * max(1e-3, min(along_cells, across_cells))
            ):
                refused = "pair"
            elif stands is not None and not stands(fig, top.x, top.y):
                refused = "place"
            if refused and not keep_refused:
                continue
            out.append(BigTop(i, j, top.x, top.y, thick, size, like, refused))
    return out


def find_big_top(
    patches: Sequence[Patch],
    fig: Figure,
    geo: Geometry,
    layout: Layout,
    config: VisionConfig,
    stands: Stands | None = None,
) -> tuple[float, float, float] | None:
    """A box figure (grande): of the bright tops of its colour thick enough, the thickest of
    about a grande top's size: where it shows, and how like a grande's top it is. With
    ``stands``, only tops where the figure may stand.

    Tops, not whole blobs: the seams between touching cubes keep each cube's top thin, so a
    block of cubes is no grande; where blur erased the seams, their merged top is as thick
    but bigger.
    """
    best = max(
        (
            t
            for t in big_tops(patches, fig, layout, config, stands, keep_refused=False)
            if not t.refused
        ),
        key=lambda t: t.like,
        default=None,
    )
    return None if best is None else (best.x, best.y, best.like)


def take_merged_grande(
    patches: list[Patch], fig: Figure, layout: Layout, config: VisionConfig, stands: Stands
) -> tuple[float, float, float] | None:
    """A player's grande found nowhere else (it is always on the board): the likest top of
    its colour refused only for its shape (a row or an L of cells longer than a grande's top)
    where it may stand, taken as the grande merged with the cubes beside it (blur erased the
    seams between them): where it shows and how like a grande's top it is, or None.

    The grande covers ``span`` x ``span`` of that top's cube cells (as :func:`big_tops` lays
    them out): the cells beyond are the cubes', left to count, the top's area in proportion
    and its rectangle less the grande's cells."""
    shaped = [
        t
        for t in big_tops(patches, fig, layout, config)
        if t.refused in ("long", "L") and stands(fig, t.x, t.y)
    ]
    if not shaped:
        return None
    best = max(shaped, key=lambda t: t.like)
    span = math.ceil(fig.diameter / float(layout.pieces["cube"]))
    patch = patches[best.patch]
    top = patch.tops[best.top]
    left = top.cells - span * span
    if left <= 0:
        _take(patches, best.patch, best.top, config)
    else:
        share = left / top.cells
        # (Its rectangle loses the grande's cells along the way it is longer than the grande;
        # its long side stays its length.)
        along, across = (max(1, round(n)) for n in _cells_each_way(top, patch.side, config))
        length, width = top.length, top.width
        if along > span:
            length *= (along - span) / along
        else:
            width *= max(1, across - span) / across
        rest = top._replace(
            cells=left,
            area=top.area * share,
            length=max(length, width),
            width=min(length, width),
            staggered=0,
            probe=0,
        )
        tops = (*patch.tops[: best.top], rest, *patch.tops[best.top + 1 :])
        patches[best.patch] = replace(
            patch, tops=tops, area=max(0.0, patch.area - top.area * (1 - share))
        )
    return best.x, best.y, best.like


def find_grandes(
    counted: Mapping[str, list[Patch]],
    seen: Mapping[str, Image],
    grandes: Sequence[Figure],
    geo: Geometry,
    layout: Layout,
    config: VisionConfig,
    lightness: Image,
    pieces: Mosaic | None = None,
    black: str | None = None,
    sure: float | None = None,
    stands: Stands | None = None,
) -> dict[str, tuple[float, float, float]]:
    """Where each grande's top shows in the working image and how like one it is (see
    :func:`find_big_top`); each top found is taken out of the ``counted`` patches of its
    colour.

    With ``sure``, a grande whose best top among the counted patches is at least that like
    one is taken there. The others are looked for on ``seen`` (their colour's pixels; the
    ``black`` one's with the dark ones; on the mosaic's ``pieces`` when given): sensor noise
    speckles a top at the colour model's reach (a few pixels of it fall out), and a top's
    thickness is very sensitive to that, so the pixels are closed over the speckles and
    small holes first. A black top's lightness band is narrow against the noise: its
    lightness is judged over 3x3 pixels (not a coloured one's: the thin dark seams between
    touching cubes would go). The colours are measured together, as planes of one image.
    """
    out: dict[str, tuple[float, float, float]] = {}
    present = [g for g in grandes if g.colour in seen and g.colour in counted]
    if sure is not None:
        for g in present:
            top = find_big_top(counted[g.colour], g, geo, layout, config, stands)
            if top is not None and top[2] >= sure:
                out[g.name] = top
        present = [g for g in present if g.name not in out]
    if present:
        wider = _measure_closed(
            [seen[g.colour] for g in present],
            present,
            geo,
            layout,
            config,
            lightness,
            pieces,
            black,
        )
        for g, patches in zip(present, wider, strict=True):
            top = find_big_top(patches, g, geo, layout, config, stands)
            if top is not None:
                out[g.name] = top
    for g in grandes:
        if g.name in out:
            take_top_at(counted[g.colour], out[g.name][:2], g.diameter / 2 * geo.mm_px, config)
    return out


def find_faded_grandes(
    missing: Sequence[Figure],
    bare: ColourModel,
    pieces: Mosaic,
    counted: Mapping[str, list[Patch]],
    geo: Geometry,
    layout: Layout,
    config: VisionConfig,
    lightness: Image,
    stands: Stands | None = None,
) -> dict[str, tuple[float, float, float]]:
    """Grandes not found among their colour's pixels (see :func:`find_grandes`), looked for
    among the pixels the ``bare`` model (the colour model without its board colours) gives
    their colour, on the mosaic of the ``pieces``.

    Under a lamp's glare a grande's top may fade to the board's own colours: pale yellow
    as the beige print, a dark red top's glared half as the table's reddish brown. Those
    pixels stay the board's for counting (the same colours are the dark seams between
    touching cubes, which part them), but a grande's top is looked for without them:
    it is thick and square, as no print patch or seam is."""
    labels = bare.classify_packed(pieces.packed())
    seen = {g.colour: colour_mask(labels, bare.label(g.colour), pieces) for g in missing}
    return find_grandes(
        counted, seen, missing, geo, layout, config, lightness, pieces, stands=stands
    )


def faded_pawn_mask(faded: ColourModel, pieces: Mosaic, colour: str) -> Image:
    """The pixels of a pawn's colour on the mosaic of the ``pieces`` as the ``faded`` model
    (the colour model without its board colours, a piece's chroma allowed to fade further)
    gives them: for a pawn not found among its colour's pixels. A lamp's glare washes
    Charlemagne's lit side and head out to half of yellow's chroma, too pale for yellow and
    too saturated for the board (no colour at all): what is left of it in yellow is a cube's
    size. Only the pawn is looked for there; the cubes are counted on the colour model's."""
    labels = faded.classify_packed(pieces.packed())
    return colour_mask(labels, faded.label(colour), pieces)


def colour_mask(labels: Image, code: int, pieces: Mosaic) -> Image:
    """One colour's pixels of the mosaic's labels, cleaned as the colours' masks are."""
    mask = np.where(labels == code, np.uint8(255), np.uint8(0))
    out: Image = clean(mask) & pieces.inside
    return out


def _measure_closed(
    masks: Sequence[Image],
    grandes: Sequence[Figure],
    geo: Geometry,
    layout: Layout,
    config: VisionConfig,
    lightness: Image,
    pieces: Mosaic | None,
    black: str | None,
) -> list[list[Patch]]:
    """The blobs of each mask (one per grande) that could hold a grande's top, closed over
    speckles and small holes, measured."""
    # Every colour's pixels closed at once, as planes of one image, each with its first and
    # last rows empty (as measure_planes wants them): no blob or hole crosses to the next.
    # (Planes filled in place and cleared with OpenCV's min: NumPy's pad, tile and boolean
    # assignment cost more than the closing itself.)
    stack = _planes(masks)
    close = cv2.morphologyEx(stack, cv2.MORPH_CLOSE, np.ones((3, 3), np.uint8))
    closed = cv2.threshold(close, 0, 1, cv2.THRESH_BINARY)[1]  # 0/1
    # Nothing beyond the mosaic's cut-outs (they lie a pixel apart): 0/1 kept under 255 only.
    inside = _planes([pieces.inside] * len(masks)) if pieces is not None else None
    if inside is not None:
        cv2.min(closed, inside, dst=closed)
    side = grandes[0].diameter * geo.mm_px
    closed = fill_small_holes(closed, config.figure_hole * side * side)
    if inside is not None:
        cv2.min(closed, inside, dst=closed)
    # Only blobs big enough to hold a grande's top, and somewhere thick enough (a top is no
    # thicker than its blob), are measured: most blobs are single cubes, and measuring is the
    # cost.
    cube = float(layout.pieces["cube"])
    cube_half = cube / 2 * geo.mm_px
    half = grandes[0].diameter / 2 * geo.mm_px
    least = config.grande_thickness * (
        cube_half - config.edge_px + config.big_piece_radius_share * (half - cube_half)
    )
    n, labelled = cv2.connectedComponents(closed, connectivity=8)
    blobs: Image = np.asarray(labelled)
    # (Only the blobs' areas are wanted: counted at the mask's pixels, without the boxes and
    # centroids of all of components' statistics.)
    at: npt.NDArray[np.intp] = np.flatnonzero(closed)
    area = np.bincount(blobs.ravel()[at], minlength=n)
    nominal = (grandes[0].diameter / cube) ** 2 * config.top_factor * geo.typical_footprint
    keep = area >= config.grande_least_area * nominal
    keep[0] = False
    out: list[list[Patch]] = [[] for _ in masks]
    if not keep.any():
        return out  # (no blob big enough for a grande's top: nothing to measure)
    thick = np.zeros(n, bool)
    thick[blobs[cv2.distanceTransform(closed, cv2.DIST_L2, 3) >= least]] = True
    keep &= thick
    if not keep.any():
        return out
    closed = np.take(keep.view(np.uint8), blobs)
    height = closed.shape[0] // len(masks)
    index = _planes([pieces.index if pieces is not None else _raster(lightness.shape)])
    width = pieces.width if pieces is not None else lightness.shape[1]
    for dark in (False, True):
        batch = [k for k, g in enumerate(grandes) if (g.colour == black) == dark]
        if not batch:
            continue
        light = cv2.medianBlur(lightness, 3) if dark else lightness
        planes = np.vstack([closed[k * height : (k + 1) * height] for k in batch])
        per_plane = measure_planes(
            planes,
            len(batch),
            geo.footprint,
            geo.side,
            _planes([light]),
            index=index,
            width=width,
            # A coloured grande's top with its small holes filled before its thickness is
            # measured, as a black top's (VisionConfig.black_top_hole): sensor noise pricks
            # holes in its band of lightness (hard seeds 201, 301: the blue grande's own top,
            # of a grande's size, measured 0.80 / 0.74 of the big-piece thickness, refused as
            # thin and counted as two cubes); a seam between cubes runs to the rim, no hole.
            # Not the black one's: its lightness is smoothed over 3x3 already, and a black
            # block's dark seams are holes of its band (hard seeds 400-599 with them filled:
            # a black block taken for the grande in 517, 580 and 588, a black count worse in
            # 599; the coloured grandes' changes alone were all gains).
            dark_planes=() if dark else tuple(range(len(batch))),
            config=config,
        )
        for k, patches in zip(batch, per_plane, strict=True):
            out[k] = patches
    return out


def _planes(images: Sequence[Image]) -> Image:
    """The images (of one size and type) stacked, each with an empty (0) row above and below."""
    h, w = images[0].shape[:2]
    out: Image = np.zeros((len(images), h + 2, w), images[0].dtype)
    for k, image in enumerate(images):
        out[k, 1:-1] = image
    return out.reshape(len(images) * (h + 2), w)


def _raster(shape: tuple[int, ...]) -> Image:
    """Each pixel's flat index in an image of that shape (it is its own working image)."""
    out: Image = np.arange(shape[0] * shape[1], dtype=np.intp).reshape(shape[:2])
    return out


def take_top_at(
    patches: list[Patch], at: tuple[float, float], reach: float, config: VisionConfig
) -> None:
    """Take the top nearest ``at`` (within ``reach`` px) out of its patch: a figure found on
    another mask (the black grande on the dark pixels too) is not counted as cubes."""
    near: tuple[float, int, int] | None = None
    for i, patch in enumerate(patches):
        for j, top in enumerate(patch.tops):
            d = math.hypot(top.x - at[0], top.y - at[1])
            if d <= reach and (near is None or d < near[0]):
                near = (d, i, j)
    if near is not None:
        _take(patches, near[1], near[2], config)


def _take(patches: list[Patch], i: int, j: int, config: VisionConfig) -> None:
    """Take top ``j`` out of patch ``i``, and with it the patch's thin tops (the lit slivers of
    its sides: left alone they would count as a cube) and the tops close to it thinner than a
    cube's (a sliver of the figure's top or side that the blur split off)."""
    patch = patches[i]
    least = config.min_top_thickness * patch.side
    taken = patch.tops[j]
    reach = config.figure_sliver_reach * patch.side
    sliver = config.figure_sliver_thickness * patch.side
    rest = tuple(
        t
        for k, t in enumerate(patch.tops)
        if k != j
        and t.thick >= least
        and not (t.thick < sliver and math.hypot(t.x - taken.x, t.y - taken.y) < reach)
    )
    area = sum(t.area for t in patch.tops) - sum(t.area for t in rest)
    share = area / max(1.0, sum(t.area for t in patch.tops))
    patches[i] = replace(patch, tops=rest, area=max(0.0, patch.area * (1 - share)))
