"""Counting cubes of one colour in a label image, touching clusters included.

A blob of one colour holds ``round(area / footprint)`` cubes, where the footprint is what one cube
covers at that place of the image (it shrinks towards the far edge of the board). The count is
checked against an independent seed count: the blob eroded to its cube cores, where the seams
between touching cubes open up. When the two disagree, or the area is far from a whole number of
cubes (a stacked, tilted or half-hidden cube), the blob's confidence drops and it is flagged.
A blob that straddles a border is split into its cubes (k-means on its pixels) and each cube goes
to the area holding its centre.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field, replace
from typing import Any, NamedTuple

import cv2
import numpy as np
import numpy.typing as npt

from companion.vision.config import DEFAULT_CONFIG, VisionConfig
from companion.vision.masks import PerLabel, block_order, nonzero, opened_by, pack_boxes
from companion.vision.top_model import FEATURES, TopModel, features_many

U8Image = npt.NDArray[Any]
F32Image = npt.NDArray[Any]
I32Image = npt.NDArray[Any]

TOP_NOISE = 10.0  # Lab L units: what sensor noise moves a pixel
TOP_PEAK_SHARE = 0.45  # a lightness shared by this share of the commonest one is a face
DARK_TOP = 45  # Lab L below which a cube is black: its bevel edges, not its top, are bright
_KMEANS = (cv2.TERM_CRITERIA_EPS + cv2.TERM_CRITERIA_MAX_ITER, 20, 0.2)


class Shape(NamedTuple):
    """What a blob's tops looked like: what says how sure its count is (confidence.py), beside its
    area and seeds. Areas are in cube tops here (the colour's factor applied)."""

    whole: int = 0  # whole tops (cubes' or several cubes'; see whole_tops)
    tops: int = 0  # tops of any size (a lit sliver of a side is one too)
    area: float = 0.0  # the whole tops' area together
    big_area: float = 0.0  # the biggest whole top's
    big_cells: int = 0  # the cells of its rectangle it covers (top_shape)
    big_fill: float = 0.0  # its area over its rectangle's
    big_aspect: float = 0.0  # its rectangle's length over its width
    factor: float = 1.0  # the colour's cube top over the model square (lone tops' blur)


@dataclass(frozen=True)
class Blob:
    """A connected patch of one colour and the cubes read from it."""

    cubes: int
    estimate: float  # area / footprint, before rounding
    seeds: int
    centres: tuple[tuple[float, float], ...]
    bbox: tuple[int, int, int, int]  # x, y, w, h in working pixels
    shape: Shape = field(default_factory=Shape)

    @property
    def residual(self) -> float:
        """How far the area is from a whole number of cubes (0 .. 0.5)."""
        return abs(self.estimate - round(self.estimate))

    @property
    def confidence(self) -> float:
        """1.0 for a clean whole number of cubes that the seeds agree with; lower otherwise."""
        c = max(0.0, 1.0 - 2.0 * self.residual)
        if self.seeds > round(self.estimate):
            c *= 0.6  # more separate tops than the area says: a pair hiding its sides
        elif self.seeds < self.cubes:
            c *= 0.9  # touching cubes often show no seam; a mild doubt only
        return c

    def __repr__(self) -> str:
        return f"<Blob {self.cubes} cubes (est {self.estimate:.2f}, seeds {self.seeds})>"


_SPECK = np.ones((2, 2), np.uint8)


def clean(mask: U8Image) -> U8Image:
    """Drop one-pixel specks (print texture, sensor noise). No closing: the dark seam between
    two touching cubes is worth keeping."""
    # (opened_by, not cv2's opening: that keeps what it keeps a pixel down and right.)
    out: U8Image = opened_by(mask, _SPECK)
    return out


class Top(NamedTuple):
    """One bright top inside a patch: a cube's, or several cubes' whose seams blur erased."""

    area: float  # pixels
    thick: float  # inscribed radius, pixels
    x: float  # the thickest point
    y: float
    length: float  # its smallest enclosing rectangle's long and short sides, pixels
    width: float
    cells: int  # cube-sized cells of that rectangle the top covers (see top_shape)
    outline: float = 0.0  # its outline's length, pixels (0: not measured, a lone cube's top)
    staggered: int = 0  # cells covered on two across, when judged so (see top_shape)
    peaks: int = 0  # its bright centres (see top_peaks; 0: not measured)
    # Its number among the tops of its PackedTops (0: none): those whose bright centres or
    # outline are measured only when asked, where they would change the top's reading.
    probe: int = 0


@dataclass(frozen=True)
class PackedTops:
    """The tops of one measure_planes call packed (with their lightness when their bright
    centres are wanted), so that a top's bright centres (top_peaks) and outline
    (outline_length) are measured only when asked. Carolus's top model reads the peaks only
    where they would change its count, ~2 % of a read's tops (hard seeds 100-129: 56 of
    3121), and counting them all cost ~3 ms of a 720p read; El Grande's clusters read the
    outline only of tops of two cubes' area or more. A top's ``probe`` is its number here."""

    parts: I32Image  # the tops' labels, packed (see _tops)
    shade: F32Image | None  # their pixels' lightness there (None: no peaks wanted)
    outlines: bool  # whether their outlines are wanted
    boxes: npt.NDArray[Any]  # rows y0, y1, x0, x1 (inclusive) by probe - 1
    sides: npt.NDArray[Any]  # a cube's side at each, pixels
    config: VisionConfig

    def _part(self, top: Top) -> tuple[U8Image, tuple[slice, slice]]:
        y0, y1, x0, x1 = self.boxes[top.probe - 1].tolist()
        box = (slice(y0, y1 + 1), slice(x0, x1 + 1))
        return (self.parts[box] == top.probe).view(np.uint8), box

    def peaks(self, top: Top) -> int:
        """The top's bright centres: as measured (or set: 1 for a top too small to have its
        shape measured, 0 for a black one) if it was, else counted now."""
        if top.peaks or not top.probe or self.shade is None:
            return top.peaks
        part, box = self._part(top)
        return top_peaks(part, self.shade[box], float(self.sides[top.probe - 1]), self.config)

    def outline(self, top: Top) -> float:
        """The top's outline's length: as measured if it was (0: a top too small to have its
        shape measured, or black), else measured now."""
        if top.outline or not top.probe or not self.outlines:
            return top.outline
        return outline_length(self._part(top)[0])


@dataclass(frozen=True)
class Labelled:
    """Where a component's pixels are: its label in a label map and its box there (rows y0,
    y1, columns x0, x1, inclusive)."""

    labels: I32Image
    label: int
    box: tuple[int, int, int, int]

    def pixels(self) -> U8Image:
        y0, y1, x0, x1 = self.box
        return (self.labels[y0 : y1 + 1, x0 : x1 + 1] == self.label).view(np.uint8)


@dataclass(frozen=True)
class Patch:
    """One connected component of a colour mask, measured (before any counting)."""

    area: float  # pixels that count: the cube tops when lightness is known, else all
    centroid: tuple[float, float]
    bbox: tuple[int, int, int, int]
    footprint: float  # one cube top's pixel area at the centroid
    side: float
    # The component's own pixels inside bbox, or where they are (see ``comp``).
    pixels: U8Image | Labelled
    tops: tuple[Top, ...] = ()
    packed: PackedTops | None = None  # what measures its tops' peaks and outlines when asked

    @functools.cached_property
    def comp(self) -> U8Image:
        """The component's own pixels inside bbox. (Made when asked: few patches' are, and
        a read measures ~80.)"""
        pixels = self.pixels
        return pixels if isinstance(pixels, np.ndarray) else pixels.pixels()

    def measured(self) -> Patch:
        """The patch with every top's bright centres and outline measured (what a fit of the
        top model reads: every top's measures, not only those its count turns on)."""
        packed = self.packed
        if packed is None:
            return self
        tops = tuple(
            t._replace(peaks=packed.peaks(t), outline=packed.outline(t), probe=0) for t in self.tops
        )
        # (Its own pixels too: nothing of the read's label map kept with it.)
        return replace(self, pixels=self.comp, tops=tops, packed=None)


def measure(
    mask: U8Image,
    footprint: F32Image | float,
    cube_side: F32Image | float,
    lightness: U8Image | None = None,
    top_share: float = 0.85,
    raw: U8Image | None = None,
    config: VisionConfig = DEFAULT_CONFIG,
) -> list[Patch]:
    """The components of a mask (8-connected), measured. With ``lightness`` (Lab L), only the
    tops count: the pixels within ``top_share`` of the blob's bright end. A cube's sides show or
    hide depending on where it stands and on its neighbours, but n touching cubes always show n
    tops."""
    return measure_planes(mask, 1, footprint, cube_side, lightness, top_share, raw, config=config)[
        0
    ]


def measure_planes(
    masks: U8Image,
    planes: int,
    footprint: F32Image | float,
    cube_side: F32Image | float,
    lightness: U8Image | None = None,
    top_share: float = 0.85,
    raw: U8Image | None = None,
    *,
    index: I32Image | None = None,
    width: int = 0,
    groups: tuple[I32Image, npt.NDArray[Any], npt.NDArray[Any]] | None = None,
    dark_planes: tuple[int, ...] = (),
    outlines: bool = True,
    peaks: bool = False,
    config: VisionConfig = DEFAULT_CONFIG,
) -> list[list[Patch]]:
    """:func:`measure` of several masks of one image at once (a colour each, stacked: ``masks``
    and ``raw`` are ``planes`` times the image's height; their first and last rows empty).

    ``index``: where each pixel of the image lies in the working image (flat index y *
    ``width`` + x; the packed pieces of mosaic.py), whose maps ``footprint`` and ``cube_side``
    are and whose coordinates the patches get. ``groups``: a group label per pixel, each
    label's rank and box origin (x, y); patches come group by group, as when each group is
    measured alone. ``outlines``: whether the tops not black get their outline's length (only
    count_patches' clusters use it: Carolus's read goes without); ``peaks``: whether the tops
    not black get their bright centres counted (see top_peaks: Carolus's top model reads
    them, El Grande's rules do not). ``dark_planes``: the planes
    of black pieces, whose tops' small holes are filled (see VisionConfig.black_top_hole) and
    whose tops' lightness is read from their pixels deep inside the mask (black_mode_depth,
    with ``raw``); the grande search gives the coloured grandes' planes too
    (figures._measure_closed: their tops' holes filled).
    """
    h, w = masks.shape[0] // planes, masks.shape[1]
    out: list[list[Patch]] = [[] for _ in range(planes)]
    n, comp_map = cv2.connectedComponents(masks, connectivity=8)
    if n < 2:
        return out
    points = cv2.findNonZero(masks).reshape(-1, 2)  # (x, y), raster order
    at = points[:, 1].astype(np.intp) * w + points[:, 0]
    comps = PerLabel.of(comp_map.ravel()[at] - 1, n - 1)
    # (One division each: NumPy's divmod gives quotient and remainder in one pass.)
    plane, local = np.divmod(at, h * w)
    py, px = np.divmod(at, w)  # in the stack
    where = local if index is None else index.ravel()[local]
    wide = w if index is None else width
    wy, wx = where // wide, where % wide
    position = np.arange(at.size)
    first, last = comps.min(position), comps.max(position)  # each one's first and last pixel
    left, right = comps.min(px), comps.max(px)
    count = comps.count
    cx = comps.sum(wx.astype(np.float64)) / count
    cy = comps.sum(wy.astype(np.float64)) / count
    fp, side = _at_centroids(footprint, cx, cy), _at_centroids(cube_side, cx, cy)
    shift_x, shift_y = (wx - px)[first], (wy - py)[first]
    counted = count.astype(np.float64)
    tops: list[list[Top]] = [[] for _ in range(n - 1)]
    packed_tops = None
    if lightness is not None:
        light = np.ascontiguousarray(lightness).ravel()[local]
        own = raw.ravel()[at] > 0 if raw is not None else np.ones(at.size, bool)
        # How deep inside its black mask each pixel of a dark plane lies (pixels): a black
        # top's lightness is read from its thick parts (see VisionConfig.black_mode_depth).
        # (Gathered plane by plane at the dark planes' own pixels: no map of the whole stack.)
        depth = None
        if raw is not None and dark_planes:
            depth = np.zeros(at.size, np.float32)
            for d in dark_planes:
                mine = np.flatnonzero(plane == d)
                inside = cv2.distanceTransform(raw[d * h : (d + 1) * h], cv2.DIST_L2, 3)
                depth[mine] = inside.ravel()[local[mine]]
        boxes = (left, py[first], right - left + 1, py[last] - py[first] + 1)
        dark = np.isin(plane[first], dark_planes)
        counted, tops, packed_tops = _tops(
            comps,
            at,
            (py, px),
            boxes,
            light,
            own,
            top_share,
            fp,
            side,
            config,
            dark,
            outlines,
            (shift_x, shift_y),
            depth,
            peaks,
        )
    # The order OpenCV finds components in (2x2 blocks in raster order), inside each group's
    # box when grouped: later stages take the first of equals.
    if groups is None:
        order = np.lexsort((comps.min(block_order(wx, wy, wide)), plane[first]))
    else:
        group_map, rank, origin = groups
        g = group_map.ravel()[local]
        inner = comps.min(block_order(wx - origin[g, 0], wy - origin[g, 1], wide))
        order = np.lexsort((inner, rank[g[first]], plane[first]))
    # (Python lists: one conversion each, not a NumPy scalar per component and value.)
    top_y, bottom_y, on_plane = py[first].tolist(), py[last].tolist(), plane[first].tolist()
    lefts, rights, dxs, dys = left.tolist(), right.tolist(), shift_x.tolist(), shift_y.tolist()
    xs, ys, areas, fps, sides = (
        cx.tolist(),
        cy.tolist(),
        counted.tolist(),
        fp.tolist(),
        side.tolist(),
    )
    for i in order.tolist():
        y0, y1, x0, x1 = top_y[i], bottom_y[i], lefts[i], rights[i]
        part = Labelled(comp_map, i + 1, (y0, y1, x0, x1))
        dx, dy = dxs[i], dys[i]
        box = (x0 + dx, y0 + dy, x1 - x0 + 1, y1 - y0 + 1)
        its = tuple(tops[i])
        patch = Patch(
            float(areas[i]), (xs[i], ys[i]), box, fps[i], sides[i], part, its, packed_tops
        )
        out[on_plane[i]].append(patch)
    return out


def _at_centroids(values: F32Image | float, cx: npt.NDArray[Any], cy: npt.NDArray[Any]) -> Any:
    """A per-pixel map's value at each centroid pixel (or the one value)."""
    if not isinstance(values, np.ndarray):
        return np.full(cx.shape, float(values))
    ix = np.minimum(cx.astype(np.int64), values.shape[1] - 1)
    iy = np.minimum(cy.astype(np.int64), values.shape[0] - 1)
    return values[iy, ix].astype(np.float64)


def _tops(
    comps: PerLabel,
    at: npt.NDArray[Any],
    yx: tuple[npt.NDArray[Any], npt.NDArray[Any]],
    box: tuple[npt.NDArray[Any], ...],
    light: npt.NDArray[Any],
    own: npt.NDArray[Any],
    top_share: float,
    fp: npt.NDArray[Any],
    side: npt.NDArray[Any],
    config: VisionConfig,
    dark: npt.NDArray[Any] | None = None,
    outlines: bool = True,
    shift: tuple[npt.NDArray[Any], npt.NDArray[Any]] | None = None,
    depth: npt.NDArray[Any] | None = None,
    peaks: bool = False,
) -> tuple[npt.NDArray[Any], list[list[Top]], PackedTops | None]:
    """Counted (top) pixels of each component and its bright tops (in the mask's own
    coordinates), each top a 4-connected patch of the top pixels. The pixels (``at``, raster
    order) with their lightness and whether each is the mask's (``own``); ``box``: each
    component's box (x, y, w, h); ``fp``/``side``: each component's cube top area and side;
    ``dark``: whether each component is black (its tops' small holes filled); ``shift``: each
    component's offset (x, y) from the mask to the image its tops' points are given in;
    ``outlines``/``peaks``: whether the tops not black get their outline's length and their
    bright centres when asked (the PackedTops returned)."""
    m = comps.n
    comp = comps.label
    mine = comp[own]  # (gathered once: the histogram and the valued test both need it)
    hist = np.bincount(mine * 64 + (light[own] >> 2), minlength=m * 64)
    if depth is not None and dark is not None:
        # A black patch's top lightness from its pixels a thin print line has none of (a
        # line joined to a black cube is most of the patch's pixels, and its lightness is
        # not the top's); the whole patch's where none lies that deep (a lone line).
        deep = own & dark[comp] & (depth >= config.black_mode_depth * side[comp])
        inner = np.bincount(comp[deep] * 64 + (light[deep] >> 2), minlength=m * 64)
        has = np.bincount(comp[deep], minlength=m) > 0
        hist = np.where(np.repeat(has, 64), inner, hist)
    mode = _top_lightness(hist.reshape(m, 64).astype(np.float32))
    band = np.maximum(mode * (1 - top_share), TOP_NOISE)
    top = own & (np.abs(light.astype(np.int16) - mode[comp]) <= band[comp])
    valued = np.bincount(mine, minlength=m) > 0
    counted = np.where(valued, np.bincount(comp[top], minlength=m), comps.count)
    tops: list[list[Top]] = [[] for _ in range(m)]
    chosen = np.flatnonzero(top)
    if not chosen.size:
        return counted.astype(np.float64), tops, None
    # The tops are looked at in their components' boxes, packed a pixel apart: a top's patch
    # and depth depend only on its own component's pixels (no other component touches it).
    bx, by, bw, bh = box
    ox, oy, size = pack_boxes(bw, bh)
    owner_of = comp[chosen]
    qy = oy[owner_of] + yx[0][chosen] - by[owner_of] + 1  # (+1: a border for the transform)
    qx = ox[owner_of] + yx[1][chosen] - bx[owner_of] + 1
    packed = np.zeros((size[1] + 2, size[0] + 2), np.uint8)
    packed[qy, qx] = 1
    shade = None
    if peaks:
        # (The top pixels' lightness where they lie packed: a top's peaks are read from it.)
        shade = np.zeros(packed.shape, np.float32)
        shade[qy, qx] = light[chosen]
    if dark is not None and dark.any():
        _fill_holes(packed, qy, qx, owner_of, dark, fp, config.black_top_hole)
    k, parts = cv2.connectedComponents(packed, connectivity=4)
    patches = PerLabel.of(parts[qy, qx] - 1, k - 1)
    position = np.arange(chosen.size)  # raster order
    first = patches.min(position)
    owner = owner_of[first]
    # Smaller than this: a glint or a sliver, no need to measure its thickness.
    sizes = patches.count
    kept = np.flatnonzero(sizes >= 0.3 * fp[owner])
    if not kept.size:
        return counted.astype(np.float64), tops, None
    depth = cv2.distanceTransform(packed, cv2.DIST_L2, 3)[qy, qx]
    best = patches.max(depth)
    deep = depth == best[patches.label]
    # Each top's first deepest pixel (as cv2.minMaxLoc finds it).
    deepest = PerLabel(patches.label[deep], patches.n).min(position[deep])
    ty, tx = yx[0][chosen[deepest]], yx[1][chosen[deepest]]
    # Each top's pixels, top by top, and their box (one stable sort and a reduction per
    # bound for all tops, not a scan of all top pixels and four reductions per top).
    by_top = np.argsort(patches.label, kind="stable")
    starts = np.cumsum(sizes) - sizes
    ys_by, xs_by = qy[by_top], qx[by_top]
    points = np.stack((xs_by, ys_by), axis=1).astype(np.int32)  # each top's pixels in a run
    begins = starts.tolist()
    ends = (starts + sizes).tolist()
    y_lo, y_hi = np.minimum.reduceat(ys_by, starts), np.maximum.reduceat(ys_by, starts)
    x_lo, x_hi = np.minimum.reduceat(xs_by, starts), np.maximum.reduceat(xs_by, starts)
    # (Python lists: one conversion each, not a NumPy scalar per top and value.)
    counts, owners, deepest_x, deepest_y = sizes.tolist(), owner.tolist(), tx.tolist(), ty.tolist()
    depths, fps, sides = best.tolist(), fp.tolist(), side.tolist()
    # (Each top made where it lies in the image at once: not made again, moved, per patch.)
    dxs, dys = (shift[0].tolist(), shift[1].tolist()) if shift is not None else ([0] * m, [0] * m)
    for j in kept[np.argsort(first[kept], kind="stable")].tolist():  # raster order, as OpenCV
        area, o = float(counts[j]), owners[j]
        length = width = math.sqrt(area)
        cells, outline, staggered = 1, 0.0, 0
        dark_top = dark is not None and bool(dark[o])
        bright = 1 if shade is not None and not dark_top else 0
        probe = 0
        # A top as big as a cube's or more may be several cubes': its shape says how many.
        if area >= config.top_shape_from * fps[o]:
            shape = None
            if not dark_top:
                # Most tops are one cube's: their rectangle, from their pixels as they lie
                # packed, says so. (Not a black top's: its filled holes are not among them.)
                rect = cv2.minAreaRect(points[begins[j] : ends[j]])
                length, width, along, across = _rect_cells(rect, sides[o], config)
                if along * across == 1:
                    shape = (length, width, 1, 0)
            if shape is None:
                # Its pixels in its box: the packed image's labels give them (a black top's
                # with its filled holes; each box lies apart, so no other top's pixel is in it).
                y0, x0 = int(y_lo[j]), int(x_lo[j])
                part = (parts[y0 : int(y_hi[j]) + 1, x0 : int(x_hi[j]) + 1] == j + 1).view(np.uint8)
                shape = top_shape(part, sides[o], config)
            length, width, cells, staggered = shape
            if (outlines or bright) and not dark_top:
                bright, probe = 0, j + 1  # (measured when asked: see PackedTops)
        x, y = float(deepest_x[j]) + dxs[o], float(deepest_y[j]) + dys[o]
        tops[o].append(
            Top(area, depths[j], x, y, length, width, cells, outline, staggered, bright, probe)
        )
    packed_tops = None
    if shade is not None or outlines:
        boxes = np.stack([y_lo, y_hi, x_lo, x_hi], axis=1)
        packed_tops = PackedTops(parts, shade, outlines, boxes, side[owner], config)
    return counted.astype(np.float64), tops, packed_tops


def _fill_holes(
    packed: U8Image,
    qy: npt.NDArray[Any],
    qx: npt.NDArray[Any],
    owner: npt.NDArray[Any],
    dark: npt.NDArray[Any],
    fp: npt.NDArray[Any],
    share: float,
) -> None:
    """Fill the holes of the black components' tops in ``packed`` (their top pixels at
    ``qy``/``qx``, of components ``owner``) up to ``share`` of a cube top: sensor noise is a
    large part of a black top's narrow band of lightness and pricks holes in it, thinning it
    and emptying its cells; a seam between two tops runs to the top's rim, no hole."""
    mine = dark[owner]
    tops = np.zeros_like(packed)
    tops[qy[mine], qx[mine]] = 1
    # (Only the holes' areas are wanted: counted from their pixels, not OpenCV's statistics
    # pass over the whole packed image.)
    n, holes = cv2.connectedComponents(1 - tops, connectivity=4)
    # (The packed boxes lie a pixel apart within a frame of empty pixels: all that is not a
    # hole is one background, the first component.)
    # (Owners' numbers, made float32 for the dilation: exact below 2**24.)
    who = np.zeros(packed.shape, np.float32)
    who[qy[mine], qx[mine]] = owner[mine] + 1
    near = cv2.dilate(who, np.ones((3, 3), np.uint8))
    hole = holes > 0
    hole &= holes != holes[0, 0]
    hy, hx = nonzero(hole)
    if not hy.size:
        return
    label = holes[hy, hx].astype(np.intp)
    of = np.zeros(n, np.intp)
    np.maximum.at(of, label, near[hy, hx].astype(np.intp))
    area = np.bincount(label, minlength=n)
    small = (of > 0) & (area <= share * fp[np.maximum(of - 1, 0)])
    fill = small[label]
    packed[hy[fill], hx[fill]] = 1


def _holes_filled(part: U8Image) -> U8Image:
    """A top with the holes it encloses filled: a glint or a dip of noise in a cube's top
    leaves it out of the top's lightness band right where top_shape judges a cell (its middle);
    a seam between two cubes runs out to the top's edge and stays open."""
    outside = _framed(part)
    cv2.floodFill(outside, None, (0, 0), 2, flags=8)
    filled: U8Image = (outside[1:-1, 1:-1] != 2).view(np.uint8)
    return filled


def _framed(part: U8Image) -> U8Image:
    """A patch with an empty pixel all round (OpenCV's border: NumPy's pad costs twice the
    flood fill or contour that needs it)."""
    framed: U8Image = cv2.copyMakeBorder(part, 1, 1, 1, 1, cv2.BORDER_CONSTANT, value=0)
    return framed


def _top_lightness(hist: npt.NDArray[Any]) -> npt.NDArray[Any]:
    """The lightness of the cube tops in each blob (a row of ``hist``: its lightness histogram
    in 64 bins): the brightest of its common lightnesses.

    Tops face the lamp: of the faces a blob shows in strength, they are the brightest. Far from
    the camera's axis a side can show as much as the top, so the commonest lightness alone
    would pick the side. Thin bright edges (a black cube's) are too few to count as a face.
    """
    smooth = 2 * hist
    smooth[:, 1:] += hist[:, :-1]
    smooth[:, :-1] += hist[:, 1:]
    common = smooth.argmax(axis=1)
    strong = smooth >= TOP_PEAK_SHARE * smooth.max(axis=1, keepdims=True)
    before = np.zeros_like(smooth)
    before[:, 1:] = smooth[:, :-1]
    after = np.zeros_like(smooth)
    after[:, :-1] = smooth[:, 1:]
    peaks = strong & (smooth >= before) & (smooth >= after)
    brightest = smooth.shape[1] - 1 - np.argmax(peaks[:, ::-1], axis=1)
    # A black cube: its top is its commonest, darkest face.
    out: npt.NDArray[Any] = np.where(4 * common < DARK_TOP, 4.0 * common, 4.0 * brightest) + 2.0
    return out


def footprint_factor(
    patches: list[Patch],
    prior: float = 1.0,
    spread: float = 1.5,
    config: VisionConfig = DEFAULT_CONFIG,
) -> float:
    """How much area one cube of this colour really covers here, relative to the model.

    Edges, bevels and the colour model's reach make each colour differ a little. The smallest
    patches are nearly always single cubes: their median sets the factor, kept within
    ``spread`` of the prior (the calibration's value) so a frame of only pairs cannot halve
    every count.
    """
    # Thick tops are whole cube tops (seams part touching cubes); without tops, whole blobs.
    ratios = sorted(
        t.area / p.footprint
        for p in patches
        for t in p.tops
        if t.thick >= config.min_top_thickness * p.side
        and t.area / p.footprint >= config.min_blob_cubes * prior
    ) or sorted(
        p.area / p.footprint
        for p in patches
        if p.area / p.footprint >= config.min_blob_cubes * prior
    )
    if not ratios:
        return prior
    low = ratios[0] if len(ratios) < 3 else ratios[1]  # one odd speck may be smaller
    singles = [r for r in ratios if r <= 1.4 * low]
    factor = float(np.median(singles))
    return min(max(factor, prior / spread), prior * spread)


def seed_count(component: U8Image, cube_side: float) -> int:
    """Cube cores in one blob: pixels deeper than a third of a side, as separate patches."""
    if not component.any():
        return 0
    dist = cv2.distanceTransform(component, cv2.DIST_L2, 3)
    cores = (dist >= cube_side * 0.3).astype(np.uint8)
    n, _ = cv2.connectedComponents(cores, connectivity=4)
    return max(1, n - 1)


class ColourPatches(NamedTuple):
    """One colour's patches to count (see count_patches for what each field means)."""

    patches: list[Patch]
    factor: float = 1.0
    black: bool = False
    ragged: float | None = None


def count_patches(
    patches: list[Patch],
    factor: float = 1.0,
    config: VisionConfig = DEFAULT_CONFIG,
    *,
    split: npt.NDArray[Any] | None = None,
    black: bool = False,
    clusters: bool = False,
    ragged: float | None = None,
    model: TopModel | None = None,
) -> list[Blob]:
    """Cubes in each patch: area over (footprint x factor), rounded; checked by seeds.

    ``split`` marks pixels where a blob must be split into cube centres (near a border);
    elsewhere a blob's centre stands for all its cubes.

    ``black``: the patches are black, the colour of the board's dark print lines and of other
    pieces' shaded sides. A patch with no whole top that is thin and longer than a cube is
    such a line and holds no cube; a whole black top is as wide as a cube's top (a line's
    "top" may be as thick, but is narrower). See VisionConfig.min_patch_thickness and
    black_top_width.

    ``clusters``: cubes lie pushed together at their own turns (El Grande's regions and
    courts), so a merged top's cells and its area grown back by the band blur ate are
    weighed together (see top_cubes; not black tops).

    ``ragged``: cube tops each cube of a ragged top reads in this colour (see top_cubes).

    ``model``: a fitted model of the cubes under a top (top_model.py) that counts the tops
    not black in place of top_cubes' rules (Carolus's read: see Reader).
    """
    colour = ColourPatches(patches, factor, black, ragged)
    return count_colours([colour], config, split=split, clusters=clusters, model=model)[0]


def count_colours(
    colours: Sequence[ColourPatches],
    config: VisionConfig = DEFAULT_CONFIG,
    *,
    split: npt.NDArray[Any] | None = None,
    clusters: bool = False,
    model: TopModel | None = None,
) -> list[list[Blob]]:
    """:func:`count_patches` of several colours' patches, the model's tops of all of them
    counted at once (a read's colours cost one matrix product, not one each)."""
    kept = [_kept(c, config) for c in colours]
    # The fitted model counts all the tops not black at once (one matrix product).
    modelled = None
    if model is not None:
        rows = [
            (t, unit, p.side, p.packed, config.merged_top_cubes if c.ragged is None else c.ragged)
            for c, ks in zip(colours, kept, strict=True)
            if not c.black
            for p, unit, _, whole in ks
            for t in whole
        ]
        modelled = iter(_modelled(model, rows))
    out = []
    for c, ks in zip(colours, kept, strict=True):
        counts = modelled if not c.black else None
        out.append(_blobs(c, ks, counts, config, split, clusters))
    return out


_Kept = tuple[Patch, float, float, list[Top]]  # a patch, its cube top's area, cubes, whole tops


def _kept(colour: ColourPatches, config: VisionConfig) -> list[_Kept]:
    """A colour's patches that may be cubes (see count_patches), with their whole tops."""
    # (Black specks are bits of the board's print as often as far cubes.)
    black = colour.black
    least_cubes = config.black_min_cubes if black else config.min_counted_cubes
    kept: list[_Kept] = []
    for p in colour.patches:
        unit = p.footprint * colour.factor
        estimate = p.area / unit
        if estimate < least_cubes or estimate > config.max_blob_cubes:
            continue  # a speck; or a patch of print or cloth no pile of cubes could make
        # The dark seams keep touching cubes' tops apart: each whole top is a seed, and a
        # top that is more than one (seams lost to blur) counts by its shape. Lit slivers
        # of sides are no tops (too thin). The blob's area (estimate) is the cross-check.
        kept.append((p, unit, estimate, whole_tops(p, unit, black, config) if p.tops else []))
    return kept


def _blobs(
    colour: ColourPatches,
    kept: list[_Kept],
    modelled: Iterator[int] | None,
    config: VisionConfig,
    split: npt.NDArray[Any] | None,
    clusters: bool,
) -> list[Blob]:
    """A colour's kept patches counted (``modelled``: the model's count of each whole top, in
    order, if it counts them)."""
    black, ragged = colour.black, colour.ragged
    blobs: list[Blob] = []
    for p, unit, estimate, whole in kept:
        cubes = max(1, round(estimate - 0.25))  # see the tops below: the bar for two is high
        x, y, w, h = p.bbox
        if p.tops:
            seeds = len(whole)
            if whole and modelled is not None:
                cubes = sum(next(modelled) for _ in whole)
            elif whole:
                alone = len(whole) == 1
                cubes = sum(
                    _top_count(t, unit, p, config, black, clusters, ragged, alone) for t in whole
                )
        else:
            seeds = seed_count(np.pad(p.comp, 1), p.side)
        thin = config.min_patch_thickness * p.side
        if black and not whole and _line(p.comp, thin, config.line_length * p.side):
            continue
        centres: tuple[tuple[float, float], ...] = (p.centroid,) * cubes
        if cubes > 1 and (split is None or split[y : y + h, x : x + w][p.comp > 0].any()):
            centres = _split(p.comp, cubes, x, y)
        blobs.append(Blob(cubes, estimate, seeds, centres, p.bbox, _shape(p, unit, whole, colour)))
    return blobs


def _shape(p: Patch, unit: float, whole: list[Top], colour: ColourPatches) -> Shape:
    """The blob's Shape: its tops as the count saw them."""
    if not whole:
        return Shape(tops=len(p.tops), factor=colour.factor)
    big = max(whole, key=lambda t: t.area)
    return Shape(
        whole=len(whole),
        tops=len(p.tops),
        area=sum(t.area for t in whole) / unit,
        big_area=big.area / unit,
        big_cells=big.cells,
        big_fill=big.area / max(1.0, big.length * big.width),
        big_aspect=big.length / max(1.0, big.width),
        factor=colour.factor,
    )


_TopRow = tuple[Top, float, float, PackedTops | None, float]  # a top, unit, side, packed, ragged


def _modelled(model: TopModel, tops_of: list[_TopRow]) -> list[int]:
    """The model's count of each top (with its cube top's area and side here, its packed
    tops and its colour's ragged share: see top_cubes). A top whose bright centres are not
    counted yet is scored as if they were not more than its cells and as if they were: only
    where the two counts differ are they counted (see PackedTops), and the top scored with
    them."""
    if not tops_of:
        return []
    tops, units, sides, packed, ragged = (list(column) for column in zip(*tops_of, strict=True))
    rows = features_many(tops, units, sides, ragged=np.asarray(ragged, np.float64))
    out = model.predict_many(rows)
    unknown = [i for i, t in enumerate(tops) if t.probe and not t.peaks]
    if not unknown:
        return out
    over = rows[unknown]
    over[:, FEATURES.index("peaks_over")] = 1.0
    for i, count in zip(unknown, model.predict_many(over), strict=True):
        where = packed[i]
        if count != out[i] and where is not None:
            top = tops[i]._replace(peaks=where.peaks(tops[i]))
            out[i] = model.predict_many(
                features_many([top], [units[i]], [sides[i]], ragged=ragged[i])
            )[0]
    return out


def whole_tops(p: Patch, unit: float, black: bool, config: VisionConfig) -> list[Top]:
    """A patch's tops that are whole cube tops (or several cubes'): big and thick enough (lit
    slivers of sides are too thin), black ones as wide as a cube's (see count_patches)."""
    least_width = config.black_top_width if black else 0.0
    return [
        t
        for t in p.tops
        if t.area / unit >= config.min_top_cubes
        and t.thick >= config.min_top_thickness * p.side
        and (t.width >= least_width * p.side or _small_solid(t, p.footprint, config))
    ]


def _top_count(
    t: Top,
    unit: float,
    p: Patch,
    config: VisionConfig,
    black: bool,
    clusters: bool,
    ragged: float | None,
    alone: bool,
) -> int:
    """Cubes under one whole top by the rules of top_cubes (and a black top's row,
    _black_row), where no fitted model counts it (see count_patches)."""
    if black:
        # (A black top is its darkest face inside bright bevels, not a face blur ate into: no
        # band to give back, no footprint.)
        shape = top_cubes(t, unit, config, 0.0, p.side, ragged=config.black_ragged_top_cubes)
        return max(shape, _black_row(t, p.side, config, alone))
    footprint = p.footprint if clusters else 0.0
    if footprint > 0 and p.packed is not None and t.area >= config.top_grown_from * unit:
        t = t._replace(outline=p.packed.outline(t))  # (only such tops' counts read it)
    return top_cubes(t, unit, config, footprint, p.side, ragged=ragged)


def _small_solid(top: Top, footprint: float, config: VisionConfig) -> bool:
    """Whether a black top narrower than a whole one's is still a cube's: too small to have its
    shape measured (a far, blurred cube's; a line's long top is measured) and as solid as a
    square, its inscribed radius near half its width (a fragment a seam or blur cut off a top
    is ragged)."""
    return (
        top.area < config.top_shape_from * footprint
        and top.thick >= config.black_small_top_solidity * top.width
    )


def _black_row(top: Top, side: float, config: VisionConfig, alone: bool = False) -> int:
    """Cubes in a row a black top's length holds, when the top fills its rectangle (a ragged
    top, as one merged with a print line, is not measured so): a merged pair's cells test
    often finds one cell, the band leaving its darker middle or a noise dent out, but its
    length stays (see VisionConfig.black_top_cube_length). A ragged top is measured so too
    when it is its patch's only whole top and as narrow as a row (a pair whose band is
    frayed: see VisionConfig.black_row_width)."""
    if top.area < config.top_min_fill * top.length * top.width and not (
        alone
        and top.width <= config.black_row_width * side
        and top.length >= config.black_row_length * side
    ):
        return 0
    return round(top.length / (config.black_top_cube_length * side))


def _line(comp: U8Image, thickness: float, length: float) -> bool:
    """Whether a patch is nowhere ``thickness`` px thick (inscribed radius) and longer than
    ``length`` px (its smallest enclosing rectangle's long side): a line, not a fragment of a
    cube's top (as thin, but short)."""
    depth = cv2.distanceTransform(np.pad(comp, 1), cv2.DIST_L2, 3)
    if float(depth.max()) >= thickness:
        return False
    return max(cv2.minAreaRect(cv2.findNonZero(comp))[1]) > length


def top_shape(part: U8Image, side: float, config: VisionConfig) -> tuple[float, float, int, int]:
    """A top's smallest enclosing rectangle (long and short side, pixels), how many of its
    cube-sized cells the top covers, and how many it covers on two cells across where it may
    be a brick read too narrow for two (else 0; see top_cubes).

    Blur eats a top's edges and spreads its bevels, so its area says little (a lone top reads
    0.6-1.5 cube tops on the labelled renders), but the rectangle keeps the cubes' layout: a
    row of n is n sides long; a block or an L covers the cells of its rectangle that hold a
    cube, judged at each cell's centre, far from the blurred edges.
    """
    # (The holes a top encloses lie inside its hull: its rectangle is the same with them
    # filled or not, and they are filled only where its cells are judged, see _holes_filled.)
    rect = cv2.minAreaRect(cv2.findNonZero(part))
    length, width, along, across = _rect_cells(rect, side, config)
    if along * across == 1:
        return length, width, 1, 0
    box = cv2.boxPoints(rect)
    origin = box[0]
    edges = box[1::2] - origin  # (corners 1 and 3: a view, not a copy by index)
    long_i = 0 if float(np.dot(edges[0], edges[0])) >= float(np.dot(edges[1], edges[1])) else 1
    u, v = edges[long_i], edges[1 - long_i]
    part = _holes_filled(part)
    cells = _cells_covered(part, origin, u, v, along, across)
    staggered = 0
    if across == 1 and along == 3 and width >= config.top_stagger_width * side:
        # Two rows of two a cube apart along (a brick of four) read too narrow for two cells
        # across, the one cell's centre between the rows. Two across: the brick (or an L of
        # four) leaves two of six cells bare; a wide-blurred row covers them all. (Longer rows:
        # a court card's row of five, bent, read seven cells so.)
        staggered = _cells_covered(part, origin, u, v, along, 2)
        if 2 * along - staggered < 2:
            staggered = 0
    return length, width, max(1, cells), staggered


def _rect_cells(rect: Any, side: float, config: VisionConfig) -> tuple[float, float, int, int]:
    """A rectangle's (cv2.minAreaRect's) long and short sides in pixels (+1: it runs through
    the outer pixels' centres) and the cube-sized cells laid along and across it."""
    a, b = rect[1]
    length, width = (a + 1.0, b + 1.0) if a >= b else (b + 1.0, a + 1.0)
    along = max(
        1, round((length - config.top_length_halo * side) / (config.top_length_sides * side))
    )
    across = max(1, round(width / (config.top_width_sides * side)))
    return length, width, along, across


@functools.lru_cache(maxsize=16)
def _disc(reach: int) -> U8Image:
    """The disc ``reach`` pixels round a pixel (an ellipse's structuring element)."""
    out: U8Image = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (2 * reach + 1, 2 * reach + 1))
    return out


def top_peaks(part: U8Image, shade: F32Image, side: float, config: VisionConfig) -> int:
    """The bright centres of a top (``part``, its pixels in its box; ``shade``, their
    lightness there): the peaks of its lightness smoothed over VisionConfig.top_peak_blur of a
    side (the top's own pixels only), each the lightest within top_peak_reach sides (equal
    neighbours one peak). A cube's top is lightest at its middle and blur darkens it towards
    its edges, so cubes whose seams blur erased still show a peak each, wherever they stand
    under the top (a cell grid finds only those at its cells' centres)."""
    weight = part.astype(np.float32)
    sigma = config.top_peak_blur * side
    # (Zeros beyond the box: the top's own pixels alone weigh in its smoothed lightness. Both
    # sums blurred as one two-channel image: the same kernel on each, at one call's cost.)
    both = cv2.GaussianBlur(
        cv2.merge((shade * weight, weight)), (0, 0), sigma, borderType=cv2.BORDER_CONSTANT
    )
    # (In hundredths of an L unit, rounded: a flat stretch, as glare's clipped white, is one
    # plateau, not the float rounding's scatter of equal neighbours.)
    smooth = np.rint(both[..., 0] / np.maximum(both[..., 1], 1e-6) * 100.0)
    smooth[part == 0] = -1.0
    reach = max(1, round(config.top_peak_reach * side))
    top = (smooth >= cv2.dilate(smooth, _disc(reach))) & (part > 0)
    n, _ = cv2.connectedComponents(top.view(np.uint8), connectivity=8)
    return max(1, n - 1)


def _cells_covered(part: U8Image, origin: Any, u: Any, v: Any, along: int, across: int) -> int:
    """How many cells of a grid (``along`` x ``across`` over the rectangle at ``origin`` with
    edges ``u``, ``v``) the top covers, each judged at its centre."""
    h, w = part.shape
    cells = 0
    for i in range(along):
        for j in range(across):
            cx, cy = origin + u * ((i + 0.5) / along) + v * ((j + 0.5) / across)
            ix, iy = min(max(round(float(cx)), 0), w - 1), min(max(round(float(cy)), 0), h - 1)
            # (Half or more of the 3x3 pixels round it: counted, not averaged, the same test.)
            near = part[max(iy - 1, 0) : iy + 2, max(ix - 1, 0) : ix + 2]
            cells += 2 * cv2.countNonZero(near) >= near.size
    return cells


def outline_length(part: U8Image) -> float:
    """The length of a patch's outer outline, pixels: through its outer pixels' centres, plus
    a half pixel's turn all round (the pixels' own edge lies half a pixel further out)."""
    contours, _ = cv2.findContours(_framed(part), cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_NONE)
    return sum(cv2.arcLength(c, True) for c in contours) + math.pi


def top_cubes(
    top: Top,
    unit: float,
    config: VisionConfig,
    footprint: float = 0.0,
    side: float | None = None,
    *,
    ragged: float | None = None,
) -> int:
    """Cubes under one bright top: the cells of its rectangle it covers (see top_shape); a
    ragged top (a cube half under another piece, a glint) counts by its area. A top of
    several cubes (``footprint``, the model's top square, and its outline known) meets its
    area grown back by what blur ate (see grown_cubes) halfway; without ``footprint`` (black
    tops) the shape's count stands. ``side``: a cube's side there, pixels (unknown: no pair
    is read from a long, narrow top); ``ragged``: cube tops each cube of a ragged top reads
    (unknown: ``merged_top_cubes``)."""
    fill = top.area / max(1.0, top.length * top.width)
    # (Clusters at different turns: see top_cells_trusted. A black top, its darkest face
    # inside bright bevels, comes without the footprint: its cells are not so sure.)
    trusted = config.top_cells_trusted if footprint > 0 else math.inf
    if fill < config.top_min_fill and top.cells < trusted:
        per_cube = config.merged_top_cubes if ragged is None else ragged
        shape = max(1, round(top.area / unit / per_cube))
    else:
        cells = top.cells
        # A brick read one cell across (see top_shape) is as many cubes as its cells on two
        # across where its area says as many too (a row of three at a slant covers four so).
        if (
            top.staggered > cells
            and round(top.area / unit / config.merged_top_cubes) >= top.staggered
        ):
            cells = top.staggered
        # Two cubes in a row may read as one top as long as two cubes' but far narrower than
        # long (too short for two cells); a lone top blurred that long is blurred as wide.
        if (
            cells == 1
            and side is not None
            and top.length >= config.top_pair_length * side
            and top.length >= config.top_pair_aspect * top.width
        ):
            cells = 2
        # A bent row or an L at a slant can put a cell's centre off the top: the top's area
        # keeps a floor under the cells it is found to cover.
        shape = max(cells, round(top.area / unit / config.top_area_floor))
    if (
        shape == 2
        and side is not None
        and top.width >= config.top_l_width * side
        and fill < config.top_l_fill
        and top.area >= config.top_l_area * unit
    ):
        shape = 3  # an L of three at a slant (see VisionConfig.top_l_width)
    elif (
        shape == 2
        and top.cells == 2
        and fill >= config.top_min_fill
        and top.length < config.top_square_aspect * top.width
    ):
        shape = 1  # a lone top blurred as wide as long (see VisionConfig.top_square_aspect)
    if footprint <= 0 or top.outline <= 0 or top.area < config.top_grown_from * unit:
        return shape
    return max(1, math.floor((shape + grown_cubes(top, unit, footprint)) / 2 + 0.5))


def grown_cubes(top: Top, unit: float, footprint: float) -> float:
    """Model cube tops under a top once the band blur ate round it is given back.

    Blur eats a band of the same width round every top, so a lone cube's top (the unit) loses
    a larger share of its area than a top of several cubes: over many cubes' tops the area
    counts high, most when the unit is small (hard El Grande seeds 100-159: tops of 3+ cubes
    read 1.26 units per cube where the unit is under 0.65 of the model's square, 1.02 over
    0.85). The band's width is what grows the unit's square into the model's; the top grown
    by it (its outline times the width, and the corners' round) over the model's square reads
    1.02-1.03 per cube whatever the cluster's size.
    """
    band = (math.sqrt(footprint) - math.sqrt(unit)) / 2
    return (top.area + top.outline * band + math.pi * band * band) / footprint


def find_blobs(
    mask: U8Image,
    footprint: F32Image | float,
    cube_side: F32Image | float,
    config: VisionConfig = DEFAULT_CONFIG,
    *,
    split: npt.NDArray[Any] | None = None,
    factor: float = 1.0,
) -> list[Blob]:
    """Blobs of a binary mask (0/255 or 0/1) with their cube counts, counted by whole area.

    ``footprint``/``cube_side`` give a cube's pixel area and side, either as one number or as a
    per-pixel map (perspective).
    """
    return count_patches(measure(mask, footprint, cube_side), factor, config, split=split)


def _split(comp: U8Image, k: int, x0: int, y0: int) -> tuple[tuple[float, float], ...]:
    ys, xs = nonzero(comp)
    pts = np.stack([xs, ys], axis=1).astype(np.float32)
    if pts.shape[0] < k:
        c = pts.mean(axis=0)
        return ((float(c[0]) + x0, float(c[1]) + y0),) * k
    cv2.setRNGSeed(7)  # the same frame always splits the same way
    labels = np.zeros((pts.shape[0], 1), np.int32)
    _, _, centres = cv2.kmeans(pts, k, labels, _KMEANS, 2, cv2.KMEANS_PP_CENTERS)
    return tuple((float(c[0]) + x0, float(c[1]) + y0) for c in centres)
