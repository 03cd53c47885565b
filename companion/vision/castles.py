"""Castles on the Carolus Magnus territory tiles: hueless, thick blobs unlike the tile's own
colour, white, grey or black by their lightness between the tile marker's paper and ink.

Black, white and grey have no hue, and the grey castle is the grey of the mat, so castles are
looked for only on the tiles. Their lightness cannot be read on its own: exposure scales it and
a lamp's glare adds to it (a black castle under glare is as light as a grey one in the shade).
Every tile carries a printed marker, white paper and black ink under the same light as the
castle beside it: a castle's lightness is read as a share of the way from the ink to the paper,
and the paper's tint is the light's colour cast, taken off before judging the castle hueless.

Speed: the tiles cover a third of the working image, castles a few per cent of them. Castles
are read at their own resolution: the tiles' box binned 2x2 when a castle stays
``castle_bin_px`` wide there (a 1080p frame's), as it is otherwise; the markers' thin paper
bands are sampled at the working image's resolution, only those pixels made Lab. What depends
only on where the tiles lie (the tiles' pixels and places at the search's resolution, each
marker's paper and ink samples, the boxes round each run of tile pixels that the Lab is made
on) is worked out once per tile placement (:class:`TileView`); per frame, the tests are made
one after the other on the pixels still in play, the first (nearly hueless before the cast is
taken off) over the tiles' box in one OpenCV pass. Castles too small to be read binned but
wide enough to be seen on the bins (a 720p frame's) are found on the bins and decided on the
pixels of a window round each candidate (:func:`_bins_then_pixels`): only there, and on the
mat round the tiles, is every pixel made Lab.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass, replace
from typing import Any

import cv2
import numpy as np
import numpy.typing as npt
from numpy.lib.stride_tricks import as_strided

from companion.vision.colour import BACKGROUND, UNKNOWN
from companion.vision.config import VisionConfig
from companion.vision.geometry import Geometry
from companion.vision.layout import Layout
from companion.vision.local_print import (
    GREY,
    PrintCells,
    lab_distance,
    median_columns,
    median_rows,
    median_u8,
    percentile_rows,
    print_cells,
)
from companion.vision.masks import components, fill_small_holes, nonzero, opened_by

Image = npt.NDArray[Any]
FloatArray = npt.NDArray[Any]
_PlaceAt = Callable[[float, float], "str | None"]

# A marker's white margin is one code cell wide round its 6-cell code (1/3 of its half side):
# paper is sampled in a band inside that margin, ink well inside the code's black border.
_PAPER_BAND = (1.1, 1.28)
_CODE = 0.9


@dataclass(frozen=True)
class TileLight:
    """The light on one tile, seen on its marker: grey values of its paper and ink, and the
    paper's tint (the light's colour cast)."""

    paper: float
    ink: float
    cast: tuple[float, float]  # the paper's Lab a, b offsets from neutral
    # The share of the paper's pixels at the top of the camera's range in some channel: the
    # cast is cut short there (the channel the light favours stops at 255).
    clipped: float = 0.0


@dataclass(frozen=True)
class _Samples:
    """Where a tile marker's paper band and ink lie: flat indices into the working image."""

    band: npt.NDArray[Any]
    code: npt.NDArray[Any]


@dataclass(frozen=True)
class _Gathered:
    """Every marker's samples in one list each, with the row (marker) of each sample: one
    gather and one count per frame for all markers."""

    tiles: tuple[str, ...]  # the markers sampled, in row order
    band: npt.NDArray[Any]
    band_row: npt.NDArray[Any]
    code: npt.NDArray[Any]
    code_row: npt.NDArray[Any]

    def at_pitch(self, pitch: int, width: int) -> _Gathered:
        """The samples as rows of an image ``width`` pixels wide stored ``pitch`` pixels a
        row (see :func:`_pixel_rows`)."""
        if pitch == width:
            return self
        band, code = (flat + (flat // width) * (pitch - width) for flat in (self.band, self.code))
        return replace(self, band=band, code=code)

    @classmethod
    def of(cls, markers: Mapping[str, _Samples | None]) -> _Gathered:
        sampled = [(t, s) for t, s in markers.items() if s is not None]
        empty = np.zeros(0, np.intp)

        def rows(parts: list[npt.NDArray[Any]]) -> npt.NDArray[Any]:
            return np.repeat(np.arange(len(parts)), [len(p) for p in parts])

        bands = [s.band for _, s in sampled]
        codes = [s.code for _, s in sampled]
        return cls(
            tuple(t for t, _ in sampled),
            np.concatenate(bands) if bands else empty,
            rows(bands),
            np.concatenate(codes) if codes else empty,
            rows(codes),
        )


@dataclass(frozen=True)
class TileView:
    """The tiles as the castle search sees them, for one geometry (tile placement): at the
    castles' own resolution, the working image binned ``bin`` x ``bin`` when a castle stays
    :attr:`VisionConfig.castle_bin_px` wide so (the Lab conversion, the print's median and the
    tests cost a quarter); the markers' paper and ink are thin bands, sampled at the working
    image's own resolution."""

    box: tuple[int, int, int, int]  # the tiles' box (x, y, w, h) in the working image
    bin: int  # working pixels a side per castle-search pixel (1 or 2)
    on_tile: Image  # uint8, 255 on the tiles' readable pixels, over the binned box
    # uint8, 255 on the bare mat where a castle at a tile's edge may show its top
    # (Geometry.castle_reach): searched, but no print; its pixels (flat) and their places.
    over_mat: Image
    mat_at: Image
    mat_places: Image
    places: Image  # each binned box pixel's place code (geo.place_map)
    markers: Mapping[str, _Samples | None]  # None: the marker's window is too small
    sampled: _Gathered  # the markers' samples (flat indices into the working image), all in one
    # Where the search's Lab is made (x0, y0, x1, y1 in the binned box): each run of touching
    # tile pixels' box, a pixel wider (the 3x3 blur's reach); a third to a half of the tiles'
    # box lies between the tiles.
    lab_boxes: tuple[tuple[int, int, int, int], ...]
    # The binned box's pixels (flat) whose (blurred) Lab those boxes give exactly.
    exact: Image
    # The tiles binned 2x2, where castles are looked for when this view is unbinned but a
    # castle stays VisionConfig.castle_where_bin_px wide on the bins (the candidates found
    # there are decided on this view's pixels); None: looked for on this view.
    coarse: TileView | None = None
    # Where the mat pixels' 3x3 neighbours lie (for their blurred Lab without the box's):
    # set with ``coarse``.
    mat_blur: _MatBlur | None = None

    @classmethod
    def of(cls, geo: Geometry, layout: Layout, config: VisionConfig) -> TileView | None:
        """None when no tile is placed."""
        if geo.tile_mask is None:
            return None
        binned = castle_width(geo, layout) / 2
        if binned >= config.castle_bin_px:
            return cls._at(geo, 2)
        if binned >= config.castle_where_bin_px:
            view = cls._at(geo, 1)
            return replace(view, coarse=cls._at(geo, 2), mat_blur=_MatBlur.of(view.over_mat))
        return cls._at(geo, 1)

    @classmethod
    def _at(cls, geo: Geometry, step: int) -> TileView:
        """The view binned ``step`` x ``step`` (geo.tile_mask set)."""
        assert geo.tile_mask is not None
        w, h = geo.size
        bx, by, bw, bh = geo.tile_box
        # (Whole bins only: the box's corner on a bin's, its end within the image.)
        x0, y0 = bx - bx % step, by - by % step
        x1 = min(bx + bw + (-(bx + bw)) % step, w - w % step)
        y1 = min(by + bh + (-(by + bh)) % step, h - h % step)
        on_tile = (geo.tile_mask[y0:y1, x0:x1] & ~geo.ignore[y0:y1, x0:x1]).astype(np.uint8)
        on_tile *= np.uint8(255)
        places = geo.place_map[y0:y1, x0:x1]
        over_mat = np.zeros_like(on_tile)
        if geo.castle_reach is not None:
            reach = geo.castle_reach[y0:y1, x0:x1]
            over_mat[reach > 0] = 255
            places = np.where(reach > 0, reach, places)
        if step > 1:
            # A bin is on a tile when all its pixels are (the mat's grey along a tile's edge
            # would pass for a castle's); its place is its first pixel's.
            size = ((x1 - x0) // step, (y1 - y0) // step)
            on_tile = cv2.resize(on_tile, size, interpolation=cv2.INTER_AREA)
            on_tile = np.where(on_tile == 255, on_tile, np.uint8(0))
            over_mat = cv2.resize(over_mat, size, interpolation=cv2.INTER_AREA)
            over_mat = np.where((over_mat > 0) & (on_tile == 0), np.uint8(255), np.uint8(0))
            places = places[::step, ::step]
        markers = {t: _marker_samples(c, geo.size) for t, c in geo.tile_markers.items()}
        boxes, exact = _lab_boxes(cv2.bitwise_or(on_tile, over_mat), blur=step == 1)
        return cls(
            (x0, y0, x1 - x0, y1 - y0),
            step,
            np.ascontiguousarray(on_tile),
            np.ascontiguousarray(over_mat),
            np.flatnonzero(over_mat),
            np.ascontiguousarray(places).reshape(-1)[np.flatnonzero(over_mat)],
            np.ascontiguousarray(places),
            markers,
            _Gathered.of(markers),
            boxes,
            exact,
        )

    def lab(self, box: Image, every: bool = False) -> Image:
        """The search's Lab of the (binned) box's BGR, blurred 3x3 at full resolution: made
        on :attr:`lab_boxes` only (zero elsewhere: never read there, see :attr:`exact`),
        or on ``every`` pixel."""
        if every:
            lab: Image = cv2.cvtColor(box, cv2.COLOR_BGR2Lab)
        else:
            lab = np.zeros_like(box)
            for x0, y0, x1, y1 in self.lab_boxes:
                # (OpenCV converts each pixel on its own: the same values as of the whole box.)
                cv2.cvtColor(box[y0:y1, x0:x1], cv2.COLOR_BGR2Lab, dst=lab[y0:y1, x0:x1])
        if self.bin == 1:
            lab = cv2.blur(lab, (3, 3))
        return lab


@dataclass(frozen=True)
class _MatBlur:
    """The mat pixels' (:attr:`TileView.over_mat`) blurred Lab, as the box's 3x3 blur gives it,
    from their neighbours' pixels only: those neighbours (box rows and columns; beyond the
    box's edge the blur's reflection) and each mat pixel's nine of them (rows into that list)."""

    ys: npt.NDArray[Any]
    xs: npt.NDArray[Any]
    nine: npt.NDArray[Any]  # 9 x N

    @classmethod
    def of(cls, over_mat: Image) -> _MatBlur:
        h, w = over_mat.shape
        ys, xs = np.nonzero(over_mat)

        def reflected(at: npt.NDArray[Any], size: int) -> npt.NDArray[Any]:
            # (OpenCV's default border, BORDER_REFLECT_101: -1 is 1, size is size - 2.)
            return np.abs(size - 1 - np.abs(size - 1 - at))

        shifts = [(dy, dx) for dy in (-1, 0, 1) for dx in (-1, 0, 1)]
        flat = np.stack(
            [reflected(ys + dy, h) * w + reflected(xs + dx, w) for dy, dx in shifts], axis=1
        )
        unique, nine = np.unique(flat, return_inverse=True)
        at_y, at_x = np.divmod(unique, w)
        return cls(at_y, at_x, np.ascontiguousarray(nine.reshape(flat.shape).T, np.intp))

    def lab(self, image: Image, corner: tuple[int, int]) -> Image:
        """The mat pixels' blurred Lab (N x 3, uint8; ``image``: the working image, BGR, the
        view's box at ``corner``)."""
        if not self.nine.shape[1]:
            return np.zeros((0, 3), np.uint8)
        pixels, pitch = _pixel_rows(image)
        # (Each pixel's three bytes as one item: NumPy gathers those ten times as fast as
        # rows of three.)
        at = (self.ys + corner[1]) * pitch + (self.xs + corner[0])
        bgr = np.take(pixels.view(np.dtype("V3")).reshape(-1), at).view(np.uint8).reshape(-1, 3)
        # Each pixel's Lab in four 16-bit lanes of one 64-bit word: the nine neighbours'
        # sums in one gather and one sum (nine 8-bit values stay within a lane).
        lanes = cv2.cvtColor(_lab_rows(bgr).astype(np.uint16)[None], cv2.COLOR_BGR2BGRA)[0]
        sums = np.take(lanes.view(np.uint64).reshape(-1), self.nine).sum(axis=0, dtype=np.uint64)
        three = cv2.cvtColor(sums.view(np.uint16).reshape(1, -1, 4), cv2.COLOR_BGRA2BGR)
        # (cv2.blur's 8-bit mean of nine, rounded: a ninth never ends in a half.)
        out: Image = cv2.convertScaleAbs(three, alpha=1 / 9)[0]
        return out


def _lab_boxes(on_tile: Image, blur: bool) -> tuple[tuple[tuple[int, int, int, int], ...], Image]:
    """The boxes round each run of touching tile pixels, a pixel wider (clipped to the
    image), and where their Lab is exact (flat bool): each pixel whose blur's 3x3 neighbours
    they all cover (beyond the image's edge the blur reflects pixels within a pixel of it)."""
    h, w = on_tile.shape
    _, _, stats, _ = cv2.connectedComponentsWithStats(on_tile, connectivity=8)
    boxes = []
    covered: Image = np.zeros((h, w), np.uint8)
    for x, y, bw, bh, _ in stats[1:].tolist():
        box = (max(0, x - 1), max(0, y - 1), min(w, x + bw + 1), min(h, y + bh + 1))
        boxes.append(box)
        covered[box[1] : box[3], box[0] : box[2]] = 1
    if blur:
        # (Erosion's default border counts pixels beyond the image as covered.)
        covered = cv2.erode(covered, np.ones((3, 3), np.uint8))
    return tuple(boxes), covered.reshape(-1) > 0


def castle_width(geo: Geometry, layout: Layout) -> float:
    """A castle's width in working pixels (at the board's centre)."""
    castle = layout.pieces.get("castle", {})
    return float(castle.get("width", 13.0)) * geo.mm_px


def _marker_window(
    corners: npt.NDArray[Any], size: tuple[int, int]
) -> tuple[int, int, int, int] | None:
    """The window (x0, y0, x1, y1) round a marker and its paper band, inside the image."""
    w, h = size
    c = corners.astype(np.float64)
    mid = c.mean(axis=0)
    x0, y0 = np.floor(mid + (c - mid).min(axis=0) * _PAPER_BAND[1]).astype(int) - 1
    x1, y1 = np.ceil(mid + (c - mid).max(axis=0) * _PAPER_BAND[1]).astype(int) + 2
    x0, y0, x1, y1 = max(0, x0), max(0, y0), min(w, x1), min(h, y1)
    if x1 - x0 < 3 or y1 - y0 < 3:
        return None
    return int(x0), int(y0), int(x1), int(y1)


def _marker_samples(corners: npt.NDArray[Any], size: tuple[int, int]) -> _Samples | None:
    """A marker's paper band and ink as flat indices into the working image (``size``)."""
    window = _marker_window(corners, size)
    if window is None:
        return None
    x0, y0, x1, y1 = window
    c = corners.astype(np.float64)
    mid = c.mean(axis=0)

    def square(factor: float) -> Image:
        m = np.zeros((y1 - y0, x1 - x0), np.uint8)
        pts = mid + (c - mid) * factor - (x0, y0)
        cv2.fillConvexPoly(m, np.round(pts).astype(np.int32), 1)
        return m > 0

    band = square(_PAPER_BAND[1]) & ~square(_PAPER_BAND[0])
    code = square(_CODE)
    if band.sum() < 8 or code.sum() < 8:
        return None

    def flat(mask: Image) -> npt.NDArray[Any]:
        ys, xs = np.nonzero(mask)
        out: npt.NDArray[Any] = (ys + y0) * size[0] + (xs + x0)
        return out

    return _Samples(flat(band), flat(code))


def tile_lights(image: Image, view: TileView, config: VisionConfig) -> dict[str, TileLight]:
    """Each tile's light from its marker (``image``: the working image, BGR). A marker covered
    or out of place (paper not clearly lighter than ink) gets the median light of the other
    tiles."""
    found: dict[str, TileLight] = {}
    pixels, pitch = _pixel_rows(image)
    sampled = view.sampled.at_pitch(pitch, image.shape[1])
    for tile, light in zip(sampled.tiles, _marker_lights(pixels, sampled), strict=True):
        if light.paper - light.ink >= config.marker_min_contrast:
            found[tile] = light
    if not found:
        return {}
    # The light's colour is the same over the table (one lamp): where a marker's paper is
    # clipped, the cast seen on the markers that are not stands in for its own (which is cut
    # short: a white castle there keeps the rest of the cast and reads as coloured).
    clear = [v.cast for v in found.values() if v.clipped <= config.castle_paper_clipped]
    if clear and len(clear) < len(found):
        cast = (_median([c[0] for c in clear]), _median([c[1] for c in clear]))
        found = {
            t: v if v.clipped <= config.castle_paper_clipped else replace(v, cast=cast)
            for t, v in found.items()
        }
    middle = TileLight(
        _median([v.paper for v in found.values()]),
        _median([v.ink for v in found.values()]),
        (
            _median([v.cast[0] for v in found.values()]),
            _median([v.cast[1] for v in found.values()]),
        ),
    )
    return {t: found.get(t, middle) for t in view.markers}


# The top of an 8-bit channel, give or take the sensor's noise: a value clipped there.
_TOP = 254


def _median(values: list[float]) -> float:
    """``np.median`` of a few floats (none NaN), without its array's checks and copies: the
    middle one, or the mean of the middle two (a float64 sum halved, as NumPy's mean)."""
    ranked = sorted(values)
    half = len(ranked) // 2
    if len(ranked) % 2:
        return ranked[half]
    return (ranked[half - 1] + ranked[half]) / 2


def _pixel_rows(image: Image) -> tuple[Image, int]:
    """An 8-bit BGR image's pixels as rows of 3 without a copy, and its row pitch in pixels:
    pixel (y, x) is row y * pitch + x. (The working image is often a crop of the frame, whose
    ``reshape`` copies all of it, several times what the markers' samples cost.)"""
    h, w = image.shape[:2]
    if image.flags.c_contiguous:
        return image.reshape(-1, 3), w
    row, column, channel = image.strides
    if column != 3 or channel != 1 or row % 3:
        return np.ascontiguousarray(image).reshape(-1, 3), w
    pitch = row // 3
    out: Image = as_strided(image, shape=((h - 1) * pitch + w, 3), strides=(3, 1), writeable=False)
    return out, pitch


def _marker_lights(pixels: Image, samples: _Gathered) -> list[TileLight]:
    """Each sampled marker's light (``pixels``: the working image's, BGR, N x 3; a row each:
    the counts of its samples' values, and percentiles and medians of all rows at once)."""
    rows = len(samples.tiles)
    if not rows:
        return []

    def counts(values: Image, row: npt.NDArray[Any]) -> Image:
        at = row * 256 + values
        out: Image = np.bincount(at, minlength=rows * 256).reshape(rows, 256)
        return out

    # Only the samples made Lab (OpenCV converts each pixel on its own: the same values as
    # from the whole image made Lab).
    # (np.take: NumPy's fancy and boolean indexing of N x 3 rows cost several times as much.)
    band = np.take(pixels, samples.band, axis=0)
    margin = _lab_rows(band)
    # The margin's lighter part: blur darkens its inner edge towards the code's black border.
    # (Percentiles and medians from 8-bit counts: NumPy's numbers, at a fraction of the cost.)
    light = counts(margin[:, 0], samples.band_row)
    least = percentile_rows(light, 60)
    lit = np.flatnonzero(margin[:, 0] >= np.take(least, samples.band_row))
    paper_row = np.take(samples.band_row, lit)
    top = np.take(band, lit, axis=0).max(axis=1) >= _TOP
    clipped = np.bincount(paper_row[top], minlength=rows) / np.maximum(
        1, np.bincount(paper_row, minlength=rows)
    )
    paper_ab = np.take(margin, lit, axis=0)
    a = median_rows(counts(paper_ab[:, 1], paper_row))
    b = median_rows(counts(paper_ab[:, 2], paper_row))
    light[np.arange(256) < np.ceil(least)[:, None]] = 0
    # (Whole pixels gathered, then their lightness: np.take copies a strided column whole.)
    code = _lab_rows(np.take(pixels, samples.code, axis=0))[:, 0]
    ink = percentile_rows(counts(code, samples.code_row), 5, GREY)
    paper = median_rows(light, GREY)
    return [
        TileLight(float(p), float(i), (float(x) - 128.0, float(y) - 128.0), float(c))
        for p, i, x, y, c in zip(
            paper.tolist(), ink.tolist(), a.tolist(), b.tolist(), clipped.tolist(), strict=True
        )
    ]


def _lab_rows(bgr: Image) -> Image:
    """N x 3 BGR pixels made Lab (8-bit)."""
    # (As one row: OpenCV converts row by row, and N rows of one pixel cost several times one
    # row of N; each pixel's values are the same, see colour.lab_of_packed.)
    out: Image = cv2.cvtColor(bgr[None], cv2.COLOR_BGR2Lab)[0]
    return out


@dataclass(frozen=True)
class CastleBlob:
    """A hueless blob on a tile, measured: a castle if thick enough (see :func:`read_castles`).

    ``body``: the lightness share (ink 0, paper 1) of the middle of the blob's thickest part,
    the castle's body (a black castle's lit edges are thin, and its own shadow on the tile
    joins its blob at one side). ``print_share``: the tile print's share beside it;
    ``typical``: the print's share over all tiles. ``whole``: the share's median over the
    whole blob (a grey castle's lit top with its shaded side and its shadow).
    """

    place: str | None
    centre: tuple[float, float]  # working px
    area: float  # castle tops (width squared)
    thickness: float  # inscribed radius over the castle's width
    body: float
    print_share: float
    typical: float
    whole: float

    def _corrected(self, share: float) -> float:
        """A share half corrected (in proportion) by how the print beside the blob differs
        from the print elsewhere: a gradient or a shadow band the marker does not share
        scales castle and print alike, but a glare spot over the castle lifts the print
        towards the paper, not in proportion."""
        return share * math.sqrt(self.typical / max(self.print_share, 0.2))

    @property
    def lightness(self) -> float:
        """The body's share, half corrected by the print beside it."""
        return self._corrected(self.body)

    @property
    def whole_lightness(self) -> float:
        """The whole blob's median share, half corrected as the body's."""
        return self._corrected(self.whole)

    def colour(self, config: VisionConfig) -> str:
        light = self.lightness
        if light < config.black_castle_sure or (
            light < config.black_castle_share and self.whole_lightness < config.grey_castle_whole
        ):
            return "black"
        return "white" if light >= config.white_castle_share else "grey"


def read_castles(
    image: Image,
    view: TileView | None,
    geo: Geometry,
    place_at: _PlaceAt,
    layout: Layout,
    config: VisionConfig,
    labels: Image | None = None,
) -> dict[str, str]:
    """Castles on the territories: hueless blobs, thick as a castle, on a tile (see
    :func:`castle_blobs`); white, grey or black by their lightness. ``image``: the working
    image (BGR); ``labels``: the colour model's, whose piece colours (cubes, Charlemagne) are
    left out of the tile's print."""
    tile_ids = {t.id for t in layout.tiles}
    out: dict[str, str] = {}
    for blob in castle_blobs(image, view, geo, place_at, layout, config, labels):
        if blob.thickness < config.castle_thickness:
            continue  # a thin strip: the mat along a tile's edge, a cube's pale rim
        if blob.place is None or blob.place not in tile_ids:
            continue
        out[blob.place] = blob.colour(config)
    return dict(sorted(out.items()))


def castle_blobs(
    image: Image,
    view: TileView | None,
    geo: Geometry,
    place_at: _PlaceAt,
    layout: Layout,
    config: VisionConfig,
    labels: Image | None = None,
) -> list[CastleBlob]:
    """Every blob on the tiles that is hueless once the light's cast is off, unlike the
    tile's print round it and not of the print's hue (a shadow), and at least as big as a
    castle's top, measured."""
    if view is None:
        return []
    lights = tile_lights(image, view, config)
    if not lights:
        return []
    table = _Table.of(geo, lights)
    if view.coarse is not None:
        coarse = view.coarse
        return _bins_then_pixels(image, view, coarse, geo, place_at, layout, config, labels, table)
    step = view.bin
    width = castle_width(geo, layout) / step  # in the search's (binned) pixels
    bx, by, bw, bh = view.box
    box = image[by : by + bh, bx : bx + bw]
    pieces = _pieces_in(labels, view.box)
    if step > 1:
        bw, bh = bw // step, bh // step
        box = cv2.resize(box, (bw, bh), interpolation=cv2.INTER_AREA)
        if pieces is not None:
            # (A bin with any piece pixel in it is no print.)
            pieces = cv2.resize(pieces, (bw, bh), interpolation=cv2.INTER_AREA)
    # Sensor noise in the dark (a black castle's hue) is strong: judged over 3x3 pixels, or
    # over a bin's 2x2 (a 3x3 blur of the bins, 6x6 pixels, mixes a castle's rim into its
    # body: white ones read grey and grey ones black on hard seeds 100-159).
    # Only the tiles' pixels are read but for a hole filled in a blob below: made on the tiles.
    sub = view.lab(box)
    print_ = view.on_tile
    if pieces is not None:
        print_ = cv2.bitwise_and(print_, cv2.inRange(pieces, 0, 0))
    window = round(config.castle_print_window * width)
    cells = print_cells(sub, print_, window, config.castle_print_cells)
    typical = _median_share(cells, view, table)
    reference = _mat_reference(sub, view, table)
    where = hueless(sub, _around(cells, sub.shape[1]), view, table, config, reference)
    neutral: Image = np.zeros((bh, bw), np.uint8)
    neutral.reshape(-1)[where] = 1
    # Specks a pixel wide are opened away; not on the bins (4x4 pixels: the thin parts of a
    # castle's blob went, its middle moved towards its dark side and shadow, and white castles
    # read grey, grey ones black on hard seeds 100-159).
    mask = neutral
    if step == 1:
        mask = opened_by(neutral, np.ones((2, 2), np.uint8))
    mask = fill_small_holes(mask, config.castle_hole * width * width)
    lightness = sub.reshape(-1, 3)[:, 0]

    def every_lightness() -> Image:
        # A hole filled off the tiles (between them, or at the box's edge): rare.
        out: Image = view.lab(box, every=True).reshape(-1, 3)[:, 0]
        return out

    part = _Part(mask, lightness, view.exact, view, None, None, every_lightness)
    found = _Found(image, view, cells, reference, table, typical, geo, place_at, config)
    return found.measured(part, width)[0]


def _around(cells: PrintCells, columns: int) -> Callable[[npt.NDArray[Any]], Image]:
    """The print round pixels given by flat indices into an image ``columns`` wide, of the
    same resolution and box as ``cells``."""

    def at(where: npt.NDArray[Any]) -> Image:
        row, column = np.divmod(where, columns)
        return cells.at(row, column)

    return at


def _bins_then_pixels(
    image: Image,
    view: TileView,
    coarse: TileView,
    geo: Geometry,
    place_at: _PlaceAt,
    layout: Layout,
    config: VisionConfig,
    labels: Image | None,
    table: _Table,
) -> list[CastleBlob]:
    """:func:`castle_blobs` found on the bins (``coarse``) and decided on the working image's
    pixels (``view``) in a window round each candidate: the tests and the blobs of the search
    on a quarter of the pixels (each bin's mean BGR made Lab), the blobs measured as an
    unbinned search measures them, with its print round each pixel and its mat round each
    tile. Only the windows' print cells (and theirs the median reads) are made of every print
    pixel's blurred Lab; elsewhere (where to look, the median filling the cells that are not
    print, the typical share) they are estimated from every third pixel each way, not blurred:
    unbiased, if noisier. (The print worked out on the bins' own cells, or on the pixels' cells
    with each cell's mean BGR made Lab, is a grey level or two lighter, the cube root being
    concave: a blob on hard seed 186 grew thicker than a castle.)"""
    width = castle_width(geo, layout)  # in working pixels
    bx, by, bw, bh = view.box
    box = image[by : by + bh, bx : bx + bw]
    print_ = view.on_tile
    pieces = _pieces_in(labels, view.box)
    if pieces is not None:
        print_ = cv2.subtract(print_, pieces)
    window = round(config.castle_print_window * width)
    grid = _PrintGrid.of(box, print_, window, config.castle_print_cells, config.castle_print_sample)
    assert view.mat_blur is not None
    reference = _mat_reference_of(view.mat_blur.lab(image, (bx, by)), view, table)
    # The bins: the working image's 2x2 mean made Lab (as the binned search's), only to find
    # where to look: what is found there is decided on the pixels.
    cx, cy, cw, ch = coarse.box
    bins = cv2.resize(
        image[cy : cy + ch, cx : cx + cw], (cw // 2, ch // 2), interpolation=cv2.INTER_AREA
    )
    sub = coarse.lab(bins)
    ex, ey = cx - bx, cy - by
    dy, dx = ey + 0.5, ex + 0.5  # a bin's middle in the unbinned box
    rough = grid.cells()

    def around(where: npt.NDArray[Any]) -> Image:
        row, column = np.divmod(where, sub.shape[1])
        return rough.at(row * 2 + dy, column * 2 + dx)

    where = hueless(sub, around, coarse, table, config, reference)
    neutral: Image = np.zeros(sub.shape[:2], np.uint8)
    neutral.reshape(-1)[where] = 1
    half = width / 2
    mask = fill_small_holes(neutral, config.castle_hole * half * half)

    def exact(windows: list[_Box]) -> tuple[PrintCells, float]:
        grid.make_exact(windows)
        cells = grid.cells()
        return cells, _median_share(cells, view, table)

    # (The cells and typical share measured with are the exact ones round the windows: these
    # two are replaced before any blob is measured.)
    found = _Found(image, view, rough, reference, table, 1.0, geo, place_at, config)
    return found.decided(_candidates(mask, half, config), width, (ex, ey), exact)


@dataclass
class _PrintGrid:
    """The print's cells (:func:`local_print.print_cells` of the unbinned search's blurred
    Lab) made exact, of every print pixel's blurred Lab, only round the windows that ask for
    them (:meth:`make_exact`), and estimated elsewhere from every third pixel each way, not
    blurred (unbiased: Lab of a mean BGR would be lighter, the cube root being concave): a
    ninth of the Lab for where to look."""

    box: Image  # the unbinned box's BGR
    print_: Image  # uint8 0/255: the print's pixels of the box
    step: int  # pixels a cell side
    k: int  # the median's cells a side
    share: Image  # each cell's print share (0-255), of every pixel: exact
    grid: Image  # each cell's print mean (uint8 Lab)
    exact: Image  # bool: the cells whose mean is of every print pixel

    @classmethod
    def of(cls, box: Image, print_: Image, window: int, cells: int, every: int) -> _PrintGrid:
        """The grid estimated from every ``every``-th pixel each way, none exact yet."""
        h, w = box.shape[:2]
        step = max(1, min(round(window / cells), h, w))
        cols, rows = w // step, h // step
        share = cv2.resize(
            print_[: rows * step, : cols * step], (cols, rows), interpolation=cv2.INTER_AREA
        )
        lab = cv2.cvtColor(_sampled(box, rows, cols, step, every), cv2.COLOR_BGR2Lab)
        sampled = _sampled(print_, rows, cols, step, every)
        grid, seen = _cell_means(lab, sampled, (cols, rows))
        # (A cell mostly print but none of it sampled: the print cells' median, as a cell
        # that is not print.)
        missing = (share >= 128) & (seen == 0)
        if missing.any() and (ok := (share >= 128) & (seen > 0)).any():
            grid[missing] = median_u8(grid[ok]).astype(np.uint8)
        return cls(box, print_, step, max(3, cells | 1), share, grid, np.zeros((rows, cols), bool))

    def make_exact(self, windows: list[_Box]) -> None:
        """The cells whose print a pixel of these windows (x0, y0, x1, y1 in the box) reads,
        made of every print pixel's blurred Lab: those round it (:meth:`PrintCells.at`), and
        theirs the median reads."""
        rows, cols = self.share.shape
        step, reach = self.step, self.k // 2 + 1
        for x0, y0, x1, y1 in windows:
            c0, c1 = max(0, x0 // step - reach), min(cols, (x1 - 1) // step + 1 + reach)
            r0, r1 = max(0, y0 // step - reach), min(rows, (y1 - 1) // step + 1 + reach)
            if c0 >= c1 or r0 >= r1:
                continue
            # (Only the box of the cells not yet exact: windows side by side share cells.)
            rows_left = np.flatnonzero(~self.exact[r0:r1, c0:c1].all(axis=1))
            cols_left = np.flatnonzero(~self.exact[r0:r1, c0:c1].all(axis=0))
            if not rows_left.size:
                continue
            r0, r1 = r0 + int(rows_left[0]), r0 + int(rows_left[-1]) + 1
            c0, c1 = c0 + int(cols_left[0]), c0 + int(cols_left[-1]) + 1
            px = np.s_[r0 * step : r1 * step, c0 * step : c1 * step]
            lab = _blurred_lab(self.box, c0 * step, r0 * step, c1 * step, r1 * step)
            self.grid[r0:r1, c0:c1] = _cell_means(lab, self.print_[px], (c1 - c0, r1 - r0))[0]
            self.exact[r0:r1, c0:c1] = True

    def fill(self) -> Image | None:
        """What the cells not print take: the print cells' median (None: no print cell)."""
        found = self.share >= 128
        if not found.any():
            return None
        out: Image = median_u8(self.grid[found]).astype(np.uint8)
        return out

    def cells(self, fill: Image | None = None) -> PrintCells:
        """The print round each pixel, as :func:`local_print.print_cells` makes it of the
        grid's means (the cells not print: ``fill``, by default :meth:`fill`)."""
        found = self.share >= 128
        grid = self.grid.copy()
        fill = self.fill() if fill is None else fill
        if fill is not None:
            grid[~found] = fill
        smooth: Image = cv2.medianBlur(grid, self.k)
        return PrintCells(smooth, found.view(np.uint8) * np.uint8(255), self.step)


def _sampled(image: Image, rows: int, cols: int, step: int, every: int) -> Image:
    """The pixels sampled in each of rows x cols cells ``step`` a side: every ``every``-th
    each way, from the middle of the first ``every``."""
    if step % every == 0:
        # (A nearest resize by a whole factor reads each block's middle pixel: OpenCV's
        # copy, several times as fast as NumPy's of a strided view.)
        size = (cols * step // every, rows * step // every)
        out: Image = cv2.resize(
            image[: rows * step, : cols * step], size, interpolation=cv2.INTER_NEAREST_EXACT
        )
        return out
    within = np.arange(every // 2, step, every)
    ys = (np.arange(rows)[:, None] * step + within).reshape(-1)
    xs = (np.arange(cols)[:, None] * step + within).reshape(-1)
    out = np.take(np.take(image, ys, axis=0), xs, axis=1)
    return out


def _cell_means(lab: Image, print_: Image, size: tuple[int, int]) -> tuple[Image, Image]:
    """Each cell's (``size``: columns, rows; whole cells) mean Lab of its print pixels, as
    :func:`local_print.print_cells` rounds it, and its print share (0-255)."""
    share = cv2.resize(print_, size, interpolation=cv2.INTER_AREA)
    masked = cv2.bitwise_and(lab, lab, mask=print_)
    means = cv2.resize(masked, size, interpolation=cv2.INTER_AREA).astype(np.float32)
    means *= 255.0 / np.maximum(share, 1).astype(np.float32)[..., None]
    out: Image = np.rint(np.minimum(means, 255.0)).astype(np.uint8)
    return out, share


def _blurred_lab(box: Image, x0: int, y0: int, x1: int, y1: int) -> Image:
    """The box's Lab blurred 3x3 (as :meth:`TileView.lab` makes it where it is exact) over
    x0:x1, y0:y1 only: made on those pixels and a ring of their neighbours (at the box's
    edge the blur's reflection, as the box's)."""
    h, w = box.shape[:2]
    ex0, ey0, ex1, ey1 = max(0, x0 - 1), max(0, y0 - 1), min(w, x1 + 1), min(h, y1 + 1)
    lab = cv2.blur(cv2.cvtColor(box[ey0:ey1, ex0:ex1], cv2.COLOR_BGR2Lab), (3, 3))
    out: Image = lab[y0 - ey0 : y1 - ey0, x0 - ex0 : x1 - ex0]
    return out


def _pieces_in(labels: Image | None, box: tuple[int, int, int, int]) -> Image | None:
    """The colour model's piece colours (cubes, Charlemagne) in the box (x, y, w, h) of its
    labels, 255 there: left out of the tiles' print (None: no labels given)."""
    if labels is None:
        return None
    x, y, w, h = box
    out: Image = cv2.inRange(labels[y : y + h, x : x + w], BACKGROUND + 1, UNKNOWN - 1)
    return out


def _candidates(mask: Image, width: float, config: VisionConfig) -> list[_Box]:
    """The boxes (x0, y0, x1, y1, on ``mask``'s pixels) of its blobs at least
    ``castle_candidate_area`` castle squares big (``width``: a castle's, in those pixels)."""
    n, _, stats, _ = components(mask, connectivity=8)
    big = np.flatnonzero(stats[:n, cv2.CC_STAT_AREA] >= config.castle_candidate_area * width**2)
    return [(x, y, x + w, y + h) for x, y, w, h, _ in stats[big[big > 0]].tolist()]


_Box = tuple[int, int, int, int]  # x0, y0, x1, y1


@dataclass(frozen=True)
class _Tiles:
    """The tiles' pixels of the windows searched at full resolution, side by side (see
    :class:`TileView`): 255 on a tile's readable pixels, 255 on the bare mat a castle's top
    may show over, place codes."""

    on_tile: Image
    over_mat: Image
    places: Image


@dataclass(frozen=True)
class _Part:
    """What the hueless blobs are measured on: their ``mask``, its pixels' lightness (flat;
    ``exact``: where that lightness is the tiles' blurred Lab's, None: everywhere), the
    tiles cut to it, each pixel's offset (row, column) to the search's box (None: it is the
    box), the window each pixel's rim is of (-1 elsewhere: a blob on a window's outer pixels
    may go on beyond it) and the lightness of every pixel, for a blob that reaches a pixel
    not exact."""

    mask: Image
    lightness: Image
    exact: Image | None
    tiles: TileView | _Tiles
    offsets: tuple[Image, Image] | None
    rim: Image | None
    every: Callable[[], Image]


@dataclass(frozen=True)
class _Mosaic:
    """Windows of the search's box (unbinned) stacked one under the other, each in a ring of
    one pixel (its neighbours in the box, or the box's edge reflected, as the 3x3 blur reads
    there): their blurred Lab, tiles, each pixel's offset to the box, and which window's rim
    each pixel is (-1: none)."""

    lab: Image
    tiles: _Tiles
    offsets: tuple[Image, Image]
    rim: Image

    @classmethod
    def of(cls, box: Image, view: TileView, windows: list[_Box]) -> _Mosaic:
        bh, bw = box.shape[:2]
        width = max(x1 - x0 for x0, _, x1, _ in windows) + 2
        height = sum(y1 - y0 + 2 for _, y0, _, y1 in windows)
        bgr: Image = np.zeros((height, width, 3), np.uint8)
        on_tile, over_mat = np.zeros((height, width), np.uint8), np.zeros((height, width), np.uint8)
        places = np.zeros((height, width), view.places.dtype)
        dy, dx = np.zeros((height, width), np.intp), np.zeros((height, width), np.intp)
        rim = np.full((height, width), -1, np.intp)
        top = 0
        for k, (x0, y0, x1, y1) in enumerate(windows):
            h, w = y1 - y0, x1 - x0
            ex0, ey0, ex1, ey1 = max(0, x0 - 1), max(0, y0 - 1), min(bw, x1 + 1), min(bh, y1 + 1)
            ringed = cv2.copyMakeBorder(
                box[ey0:ey1, ex0:ex1],
                1 - (y0 - ey0),
                1 - (ey1 - y1),
                1 - (x0 - ex0),
                1 - (ex1 - x1),
                cv2.BORDER_REFLECT_101,
            )
            bgr[top : top + h + 2, : w + 2] = ringed
            inner = np.s_[top + 1 : top + 1 + h, 1 : 1 + w]
            cut = np.s_[y0:y1, x0:x1]
            on_tile[inner] = view.on_tile[cut]
            over_mat[inner] = view.over_mat[cut]
            places[inner] = view.places[cut]
            dy[inner], dx[inner] = y0 - top - 1, x0 - 1
            rim[inner] = k
            rim[top + 2 : top + h, 2:w] = -1
            top += h + 2
        lab = cv2.blur(cv2.cvtColor(bgr, cv2.COLOR_BGR2Lab), (3, 3))
        return cls(lab, _Tiles(on_tile, over_mat, places), (dy, dx), rim)


@dataclass(frozen=True)
class _Found:
    """What a frame's castle search has found, to measure its blobs with: the working image,
    the view measured on, the print's cells (of the search's own resolution), the mat's
    median round each tile, the markers' light, the print's typical share."""

    image: Image
    view: TileView
    cells: PrintCells
    reference: Image | None
    table: _Table
    typical: float
    geo: Geometry
    place_at: _PlaceAt
    config: VisionConfig

    def decided(
        self,
        candidates: list[_Box],
        width: float,
        shift: tuple[int, int],
        exact: Callable[[list[_Box]], tuple[PrintCells, float]] | None = None,
    ) -> list[CastleBlob]:
        """The blobs in a window round each candidate (a box of bins, whose box lies
        ``shift`` working pixels from this view's), found and measured on the working
        image's pixels (``width``: a castle's there); ``exact``: the print's cells and its
        typical share made exact round windows (None: this search's are)."""
        if not candidates:
            return []
        bx, by, bw, bh = self.view.box
        box = self.image[by : by + bh, bx : bx + bw]
        margin = math.ceil(self.config.castle_window * width)

        def grown(x0: int, y0: int, x1: int, y1: int, by: int) -> _Box:
            return max(0, x0 - by), max(0, y0 - by), min(bw, x1 + by), min(bh, y1 + by)

        sx, sy = shift
        windows = _merged(
            [
                grown(2 * x0 + sx, 2 * y0 + sy, 2 * x1 + sx, 2 * y1 + sy, margin)
                for x0, y0, x1, y1 in candidates
            ]
        )
        while True:
            found = self
            if exact is not None:
                cells, typical = exact(windows)
                found = replace(self, cells=cells, typical=typical)
            blobs, edge = found._in(box, windows, width)
            wider = [grown(*w, margin) if i in edge else w for i, w in enumerate(windows)]
            if wider == windows:
                return blobs
            windows = _merged(wider)

    def _in(
        self, box: Image, windows: list[_Box], width: float
    ) -> tuple[list[CastleBlob], set[int]]:
        """The blobs of the windows of the box, measured, and the windows (their indices)
        where a blob a candidate's size reaches the edge."""
        mosaic = _Mosaic.of(box, self.view, windows)
        dy, dx = (o.reshape(-1) for o in mosaic.offsets)
        columns = mosaic.lab.shape[1]

        def around(where: npt.NDArray[Any]) -> Image:
            row, column = np.divmod(where, columns)
            return self.cells.at(row + np.take(dy, where), column + np.take(dx, where))

        where = hueless(mosaic.lab, around, mosaic.tiles, self.table, self.config, self.reference)
        neutral: Image = np.zeros(mosaic.rim.shape, np.uint8)
        neutral.reshape(-1)[where] = 1
        mask = opened_by(neutral, np.ones((2, 2), np.uint8))
        # (Holes as in the whole box: the windows' rings are no blob.)
        mask = fill_small_holes(mask, self.config.castle_hole * width * width)
        lightness = mosaic.lab.reshape(-1, 3)[:, 0]
        part = _Part(
            mask, lightness, None, mosaic.tiles, mosaic.offsets, mosaic.rim, lambda: lightness
        )
        blobs, edge = self.measured(part, width)
        return blobs, edge

    def measured(self, part: _Part, width: float) -> tuple[list[CastleBlob], set[int]]:
        """The blobs of ``part`` at least ``castle_min_area`` big, measured (``width``: a
        castle's in the part's pixels), and the windows where a blob at least
        ``castle_candidate_area`` big reaches the rim."""
        config, view, table = self.config, self.view, self.table
        step = view.bin
        mask = part.mask
        rows, cols = mask.shape
        n, blobs, stats, centroids = components(mask, connectivity=8)
        lightness = part.lightness
        whole = part.exact is None  # whether ``lightness`` is of every pixel of the part
        places = part.tiles.places.reshape(-1)
        over_mat = part.tiles.over_mat.reshape(-1)
        out: list[CastleBlob] = []
        edge: set[int] = set()
        least = min(config.castle_min_area, config.castle_candidate_area) * width * width
        for i in np.flatnonzero(stats[:n, cv2.CC_STAT_AREA] >= least).tolist():
            if i == 0:
                continue
            area = float(stats[i, cv2.CC_STAT_AREA]) / (width * width)
            x, y, w, h = (int(v) for v in stats[i, :4])
            blob = blobs[y : y + h, x : x + w] == i
            ys, xs = nonzero(blob)
            every = (ys + y) * cols + (xs + x)
            top = left = 0
            if part.offsets is not None and part.rim is not None:
                top, left = (int(o.reshape(-1)[every[0]]) for o in part.offsets)
                window = int(np.take(part.rim.reshape(-1), every).max())
                if window >= 0:
                    edge.add(window)
            if area < config.castle_min_area:
                continue  # the tile's printed name, a marker's white margin
            # (OpenCV's border: NumPy's pad costs as much as the transform on a blob's few
            # pixels.)
            edged = cv2.copyMakeBorder(
                blob.view(np.uint8), 1, 1, 1, 1, cv2.BORDER_CONSTANT, value=0
            )
            dist = cv2.distanceTransform(edged, cv2.DIST_L2, 3)[1:-1, 1:-1]
            cx, cy = float(centroids[i][0]) + left, float(centroids[i][1]) + top
            # (A bin's centre in working pixels: the middle of the pixels it holds.)
            u, v = view.box[0] + (cx + 0.5) * step - 0.5, view.box[1] + (cy + 0.5) * step - 0.5
            # The body: the middle of the blob's thickest part.
            cy_, cx_ = nonzero(dist >= _core_depth(dist, config.castle_core * width))
            core = (cy_ + y) * cols + (cx_ + x)
            # (The core lies inside the blob: where the whole blob's Lab is exact, so is the
            # core's.)
            if not whole and part.exact is not None and not np.take(part.exact, every).all():
                lightness = part.every()
                whole = True
            body, spread = (
                float(median_columns(table.share(lightness[at], places[at])[:, None])[0])
                for at in (core, every)
            )
            row, column = min(int(cy) - top, rows - 1), min(int(cx) - left, cols - 1)
            at = row * cols + column
            beside = self.cells.at(np.array([row + top]), np.array([column + left]))[:, 0]
            # (A castle's top wholly over the mat: its tile is the one whose reach that is.)
            code = int(places[at]) if over_mat[at] else 0
            out.append(
                CastleBlob(
                    self.geo.places[code - 1].id if code else self.place_at(u, v),
                    (u, v),
                    area,
                    float(dist.max()) / width,
                    body,
                    float(table.share(beside, places[[at]])[0]),
                    self.typical,
                    spread,
                )
            )
        return out, edge


def _merged(boxes: list[_Box]) -> list[_Box]:
    """Boxes (x0, y0, x1, y1) that overlap joined into their bounding box, until none do."""
    out = list(boxes)
    joined = True
    while joined:
        joined = False
        for i in range(len(out)):
            for j in range(i + 1, len(out)):
                a, b = out[i], out[j]
                if a[0] < b[2] and b[0] < a[2] and a[1] < b[3] and b[1] < a[3]:
                    out[i] = (min(a[0], b[0]), min(a[1], b[1]), max(a[2], b[2]), max(a[3], b[3]))
                    del out[j]
                    joined = True
                    break
            if joined:
                break
    return out


def _core_depth(dist: Image, less: float) -> float:
    """The least depth of a blob's thickest part: ``less`` under its deepest pixel's, at least
    a pixel (a one-pixel line's depth is OpenCV's 0.955: its whole)."""
    deepest = float(dist.max())
    return min(deepest, max(1.0, deepest - less))


@dataclass(frozen=True)
class _Table:
    """Each place's light (ink, paper, cast) for per-pixel lookups by place code."""

    paper: FloatArray
    ink: FloatArray
    cast: FloatArray

    @classmethod
    def of(cls, geo: Geometry, lights: Mapping[str, TileLight]) -> _Table:
        count = len(geo.places) + 1
        paper = np.full(count, 255.0, np.float32)
        ink = np.zeros(count, np.float32)
        cast = np.zeros((count, 2), np.float32)
        for k, place in enumerate(geo.places):
            light = lights.get(place.id)
            if light is not None:
                paper[k + 1], ink[k + 1], cast[k + 1] = light.paper, light.ink, light.cast
        return cls(paper, ink, cast)

    def share(self, lightness: Image, places: Image) -> FloatArray:
        """Grey value as a share from the pixel's tile's ink to its paper."""
        p, i = np.take(self.paper, places), np.take(self.ink, places)
        out: FloatArray = (np.take(GREY, lightness) - i) / np.maximum(1.0, p - i)
        return out

    def relative(self, lab: Image, places: Image) -> tuple[FloatArray, FloatArray]:
        """Per pixel (N x 3 Lab): its share, and Lab a, b with the tile's cast taken off (in
        proportion to that share: a white paper shows the whole cast, black ink none of it)."""
        share = self.share(lab[:, 0], places)
        seen = np.clip(share, 0.0, 1.0)[:, None]
        cast = np.take(self.cast, places, axis=0)
        ab: FloatArray = lab[:, 1:].astype(np.float32) - 128.0 - cast * seen
        return share, ab


def _median_share(cells: PrintCells, view: TileView, table: _Table) -> float:
    """The median share of the print (the cells' lightness) over the print's cells, 1 if
    there are none: as NumPy's median of every cell's share (its place the one at its
    middle), from the counts of each (place, lightness) pair."""
    count = len(table.paper)
    rows, cols = cells.found.shape
    half = cells.step // 2  # (each cell's middle pixel)
    places = np.ascontiguousarray(view.places[half :: cells.step, half :: cells.step][:rows, :cols])
    counts = cv2.calcHist(
        [places, cells.lab], [0, 1], cells.found, [count, 256], [0, count, 0, 256]
    )
    seen = np.flatnonzero(counts.reshape(-1))
    n = int(counts.astype(np.int64).sum())
    if not n:
        return 1.0
    place, lightness = np.divmod(seen, 256)
    values = table.share(lightness, place)
    order = np.argsort(values, kind="stable")
    below = np.cumsum(counts.reshape(-1)[seen][order].astype(np.int64))
    middle = [
        values[order][np.searchsorted(below, k, side="right")]
        for k in sorted({(n - 1) // 2, n // 2})
    ]
    return float(np.mean(np.array(middle, np.float32)))


def hueless(
    lab: Image,
    around: Callable[[npt.NDArray[Any]], Image],
    view: TileView | _Tiles,
    table: _Table,
    config: VisionConfig,
    reference: Image | None,
) -> npt.NDArray[Any]:
    """The pixels (flat indices into ``lab``) that may be a castle's: ``lab`` blurred over
    the search's box or windows of it (``view``'s tiles cut to them), ``around``: the print
    round pixels (given by flat indices), ``reference``: the mat's median round each tile
    (:func:`_mat_reference`)."""
    # A pixel's cast is at most its tile's: nothing more colourful than the most cast plus a
    # castle's chroma can pass; that leaves a few per cent of the tiles for the tests below.
    reach = config.castle_chroma + float(np.abs(table.cast).max(initial=0.0)) + 1.0
    low, high = max(0, math.floor(128 - reach)), min(255, math.ceil(128 + reach))
    near = cv2.inRange(lab, (0, low, low), (255, high, high))
    searched = cv2.bitwise_or(view.on_tile, view.over_mat)
    # (The mat's test first: most of the pixels over the mat pass the chroma's first look.)
    where = _unlike_mat(
        np.flatnonzero(cv2.bitwise_and(near, searched) != 0), lab, view, table, config, reference
    )
    # (Rows of pixels gathered with np.take, by index: NumPy's fancy and boolean indexing of
    # N x 3 arrays cost ten to forty times as much.)
    places = np.take(view.places.reshape(-1), where)
    pixels = np.take(lab.reshape(-1, 3), where, axis=0)
    share, ab = table.relative(pixels, places)
    kept = np.flatnonzero(np.hypot(ab[:, 0], ab[:, 1]) <= config.castle_chroma)
    where, places, pixels, share, ab = (
        np.take(a, kept, axis=0) for a in (where, places, pixels, share, ab)
    )
    # A pale tile in cold light or under glare is nearly hueless too: a castle must also stand
    # out from the tile's print round it (the light varies across a tile, so not the tile's
    # own median) ...
    print_ = around(where)
    kept = np.flatnonzero(lab_distance(pixels, print_) > config.castle_contrast)
    where, places, print_, share, ab = (
        np.take(a, kept, axis=0) for a in (where, places, print_, share, ab)
    )
    # ... and keep little of the print's hue: the shadow of a pawn or a stack of cubes is the
    # print, darker and duller, but of its hue still. Far darker than any shadow is black,
    # whose hue is mostly noise.
    print_share, print_ab = table.relative(print_, places)
    print_chroma = np.maximum(1.0, np.hypot(print_ab[:, 0], print_ab[:, 1]))
    # (The two products summed by hand: a reduction along a 2-long axis costs far more.)
    along = (ab[:, 0] * print_ab[:, 0] + ab[:, 1] * print_ab[:, 1]) / print_chroma
    keep = (along <= config.castle_print_hue * print_chroma) | (
        share < config.castle_shadow_ratio * print_share
    )
    out: npt.NDArray[Any] = where[keep]
    return out


def _mat_reference(lab: Image, view: TileView, table: _Table) -> Image | None:
    """The mat round each tile (its median Lab over the tile's reach over the mat, a row per
    place code), None when no castle's top may show over the mat."""
    if not view.mat_at.size:
        return None
    return _mat_reference_of(np.take(lab.reshape(-1, 3), view.mat_at, axis=0), view, table)


def _mat_reference_of(mat_lab: Image, view: TileView, table: _Table) -> Image | None:
    """:func:`_mat_reference` of the mat pixels' Lab (N x 3, :attr:`TileView.mat_at`'s)."""
    if not view.mat_at.size:
        return None
    # Each place's median of its mat pixels, from counts per (place, channel, value): one
    # pass over them all, not one per place or channel.
    rows = len(table.paper)
    offsets = view.mat_places.astype(np.intp)[:, None] * 768 + np.arange(0, 768, 256)
    counts = np.bincount((offsets + mat_lab).reshape(-1), minlength=rows * 768)
    out: Image = median_rows(counts.reshape(rows * 3, 256)).reshape(rows, 3)
    return out


def _unlike_mat(
    where: npt.NDArray[Any],
    lab: Image,
    view: TileView | _Tiles,
    table: _Table,
    config: VisionConfig,
    reference: Image | None,
) -> npt.NDArray[Any]:
    """``where`` without the pixels over the mat (:attr:`TileView.over_mat`) that are not a
    castle's top: those must stand out from the mat round that tile (``reference``) and be
    lighter than it. The mat is nearly hueless itself, so a shadow on it passes every other
    test: only a castle's lit top is lighter (a black castle's is not: it is read from the
    side it shows on the tile, as black as its top)."""
    if reference is None:
        return where
    on_mat = np.take(view.over_mat.reshape(-1), where) != 0
    if not on_mat.any():
        return where
    at = where[on_mat]
    places = np.take(view.places.reshape(-1), at)
    pixels = np.take(lab.reshape(-1, 3), at, axis=0)
    mat = np.take(reference, places, axis=0)
    lighter = table.share(pixels[:, 0], places) > table.share(
        np.round(mat[:, 0]).astype(np.intp), places
    )
    unlike = lab_distance(pixels, mat) > config.castle_contrast
    keep = np.ones(len(where), bool)
    keep[np.flatnonzero(on_mat)] = lighter & unlike
    out: npt.NDArray[Any] = where[keep]
    return out
