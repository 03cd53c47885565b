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

from dataclasses import dataclass, replace
from typing import Any, NamedTuple

import cv2
import numpy as np
import numpy.typing as npt

from companion.vision.config import DEFAULT_CONFIG, VisionConfig

U8Image = npt.NDArray[Any]
F32Image = npt.NDArray[Any]
I32Image = npt.NDArray[Any]

TOP_NOISE = 10.0  # Lab L units: what sensor noise moves a pixel
TOP_PEAK_SHARE = 0.45  # a lightness shared by this share of the commonest one is a face
DARK_TOP = 45  # Lab L below which a cube is black: its bevel edges, not its top, are bright
_KMEANS = (cv2.TERM_CRITERIA_EPS + cv2.TERM_CRITERIA_MAX_ITER, 20, 0.2)


@dataclass(frozen=True)
class Blob:
    """A connected patch of one colour and the cubes read from it."""

    cubes: int
    estimate: float  # area / footprint, before rounding
    seeds: int
    centres: tuple[tuple[float, float], ...]
    bbox: tuple[int, int, int, int]  # x, y, w, h in working pixels

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


def clean(mask: U8Image) -> U8Image:
    """Drop one-pixel specks (print texture, sensor noise). No closing: the dark seam between
    two touching cubes is worth keeping."""
    out: U8Image = cv2.morphologyEx(mask, cv2.MORPH_OPEN, np.ones((2, 2), np.uint8))
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

    def moved(self, dx: float, dy: float) -> Top:
        return self._replace(x=self.x + dx, y=self.y + dy)


@dataclass(frozen=True)
class Patch:
    """One connected component of a colour mask, measured (before any counting)."""

    area: float  # pixels that count: the cube tops when lightness is known, else all
    centroid: tuple[float, float]
    bbox: tuple[int, int, int, int]
    footprint: float  # one cube top's pixel area at the centroid
    side: float
    comp: U8Image  # the component's own pixels inside bbox
    tops: tuple[Top, ...] = ()


def measure(
    mask: U8Image,
    footprint: F32Image | float,
    cube_side: F32Image | float,
    lightness: U8Image | None = None,
    top_share: float = 0.85,
    raw: U8Image | None = None,
    config: VisionConfig = DEFAULT_CONFIG,
) -> list[Patch]:
    """The components of a mask. With ``lightness`` (Lab L), only the tops count: the pixels
    within ``top_share`` of the blob's bright end. A cube's sides show or hide depending on
    where it stands and on its neighbours, but n touching cubes always show n tops."""
    n, labels, stats, centroids = cv2.connectedComponentsWithStats(mask, connectivity=8)
    out = []
    for i in range(1, n):
        x, y, w, h, area = (int(v) for v in stats[i])
        cx, cy = float(centroids[i][0]), float(centroids[i][1])
        ix, iy = min(int(cx), mask.shape[1] - 1), min(int(cy), mask.shape[0] - 1)
        fp = float(footprint[iy, ix]) if isinstance(footprint, np.ndarray) else float(footprint)
        side = float(cube_side[iy, ix]) if isinstance(cube_side, np.ndarray) else float(cube_side)
        comp = (labels[y : y + h, x : x + w] == i).astype(np.uint8)
        counted = float(area)
        if lightness is not None:
            own = comp > 0
            if raw is not None:
                own &= raw[y : y + h, x : x + w] > 0
            light = lightness[y : y + h, x : x + w]
            values = light[own]
            tops: tuple[Top, ...] = ()
            if values.size:
                mode = _top_lightness(values)
                band = max(mode * (1 - top_share), TOP_NOISE)
                top = (own & (np.abs(light.astype(np.int16) - mode) <= band)).astype(np.uint8)
                counted = float(np.count_nonzero(top))
                k, top_labels, top_stats, _ = cv2.connectedComponentsWithStats(top, connectivity=4)
                found = []
                for j in range(1, k):
                    area_j = float(top_stats[j, cv2.CC_STAT_AREA])
                    if area_j < 0.3 * fp:
                        continue  # a glint or a sliver: no need to measure its thickness
                    part = np.pad((top_labels == j).astype(np.uint8), 1)
                    dist = cv2.distanceTransform(part, cv2.DIST_L2, 3)
                    _, thick, _, loc = cv2.minMaxLoc(dist)
                    length, width, cells = top_shape(part, side, config)
                    found.append(
                        Top(
                            area_j,
                            float(thick),
                            loc[0] + x - 1.0,
                            loc[1] + y - 1.0,
                            length,
                            width,
                            cells,
                        )
                    )
                tops = tuple(found)
            out.append(Patch(counted, (cx, cy), (x, y, w, h), fp, side, comp, tops))
            continue
        out.append(Patch(counted, (cx, cy), (x, y, w, h), fp, side, comp))
    return out


def measure_in(
    rois: list[tuple[int, int, int, int]],
    groups: npt.NDArray[Any],
    mask: U8Image,
    footprint: F32Image,
    cube_side: F32Image,
    lightness: U8Image,
    raw: U8Image,
    config: VisionConfig = DEFAULT_CONFIG,
) -> list[Patch]:
    """:func:`measure` inside each region of interest only: the work follows the pieces, not
    the size of the frame. Region ``i`` is box ``rois[i]`` and the pixels where ``groups`` is
    ``i + 1`` (boxes may overlap, groups do not)."""
    out: list[Patch] = []
    for index, (x, y, w, h) in enumerate(rois):
        sub = mask[y : y + h, x : x + w] * (groups[y : y + h, x : x + w] == index + 1)
        if not sub.any():
            continue
        for p in measure(
            sub,
            footprint[y : y + h, x : x + w],
            cube_side[y : y + h, x : x + w],
            lightness[y : y + h, x : x + w],
            raw=raw[y : y + h, x : x + w],
            config=config,
        ):
            bx, by, bw, bh = p.bbox
            out.append(
                replace(
                    p,
                    centroid=(p.centroid[0] + x, p.centroid[1] + y),
                    bbox=(bx + x, by + y, bw, bh),
                    tops=tuple(t.moved(x, y) for t in p.tops),
                )
            )
    return out


def _top_lightness(values: npt.NDArray[Any]) -> float:
    """The lightness of the cube tops in a blob: the brightest of its common lightnesses.

    Tops face the lamp: of the faces a blob shows in strength, they are the brightest. Far from
    the camera's axis a side can show as much as the top, so the commonest lightness alone
    would pick the side. Thin bright edges (a black cube's) are too few to count as a face.
    """
    hist = np.bincount(values >> 2, minlength=64).astype(np.float32)
    smooth = np.convolve(hist, np.array([1.0, 2.0, 1.0], np.float32), mode="same")
    common = int(smooth.argmax())
    if 4 * common < DARK_TOP:
        return 4.0 * common + 2.0  # a black cube: its top is its commonest, darkest face
    strong = smooth >= TOP_PEAK_SHARE * smooth.max()
    peaks = [
        i
        for i in range(len(smooth))
        if strong[i]
        and smooth[i] >= (smooth[i - 1] if i else 0.0)
        and smooth[i] >= (smooth[i + 1] if i + 1 < len(smooth) else 0.0)
    ]
    return 4.0 * float(max(peaks)) + 2.0


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


def count_patches(
    patches: list[Patch],
    factor: float = 1.0,
    config: VisionConfig = DEFAULT_CONFIG,
    *,
    split: npt.NDArray[Any] | None = None,
) -> list[Blob]:
    """Cubes in each patch: area over (footprint x factor), rounded; checked by seeds.

    ``split`` marks pixels where a blob must be split into cube centres (near a border);
    elsewhere a blob's centre stands for all its cubes.
    """
    blobs: list[Blob] = []
    for p in patches:
        unit = p.footprint * factor
        estimate = p.area / unit
        if estimate < config.min_blob_cubes or estimate > config.max_blob_cubes:
            continue  # a speck; or a patch of print or cloth no pile of cubes could make
        cubes = max(1, round(estimate - 0.25))  # see the tops below: the bar for two is high
        x, y, w, h = p.bbox
        if p.tops:
            # The dark seams keep touching cubes' tops apart: each whole top is a seed, and a
            # top that is more than one (seams lost to blur) counts by its shape. Lit slivers
            # of sides are no tops (too thin). The blob's area (estimate) is the cross-check.
            whole = [
                t
                for t in p.tops
                if t.area / unit >= config.min_top_cubes
                and t.thick >= config.min_top_thickness * p.side
            ]
            seeds = len(whole)
            if whole:
                cubes = sum(top_cubes(t, unit, config) for t in whole)
        else:
            seeds = seed_count(np.pad(p.comp, 1), p.side)
        centres: tuple[tuple[float, float], ...] = (p.centroid,) * cubes
        if cubes > 1 and (split is None or split[y : y + h, x : x + w][p.comp > 0].any()):
            centres = _split(p.comp, cubes, x, y)
        blobs.append(Blob(cubes, estimate, seeds, centres, p.bbox))
    return blobs


def top_shape(part: U8Image, side: float, config: VisionConfig) -> tuple[float, float, int]:
    """A top's smallest enclosing rectangle (long and short side, pixels) and how many of its
    cube-sized cells the top covers.

    Blur eats a top's edges and spreads its bevels, so its area says little (a lone top reads
    0.6-1.5 cube tops on the labelled renders), but the rectangle keeps the cubes' layout: a
    row of n is n sides long; a block or an L covers the cells of its rectangle that hold a
    cube, judged at each cell's centre, far from the blurred edges.
    """
    box = cv2.boxPoints(cv2.minAreaRect(cv2.findNonZero(part)))
    origin = box[0]
    edges = [box[1] - origin, box[3] - origin]
    # +1: the rectangle runs through the outer pixels' centres.
    sizes = [float(np.hypot(*e)) + 1.0 for e in edges]
    long_i = 0 if sizes[0] >= sizes[1] else 1
    length, width = sizes[long_i], sizes[1 - long_i]
    along = max(1, round(length / (config.top_length_sides * side)))
    across = max(1, round(width / (config.top_width_sides * side)))
    if along * across == 1:
        return length, width, 1
    u, v = edges[long_i], edges[1 - long_i]
    h, w = part.shape
    cells = 0
    for i in range(along):
        for j in range(across):
            cx, cy = origin + u * ((i + 0.5) / along) + v * ((j + 0.5) / across)
            ix, iy = min(max(round(float(cx)), 0), w - 1), min(max(round(float(cy)), 0), h - 1)
            cells += bool(part[max(iy - 1, 0) : iy + 2, max(ix - 1, 0) : ix + 2].mean() >= 0.5)
    return length, width, max(1, cells)


def top_cubes(top: Top, unit: float, config: VisionConfig) -> int:
    """Cubes under one bright top: the cells of its rectangle it covers (see top_shape); a
    ragged top (a cube half under another piece, a glint) counts by its area."""
    fill = top.area / max(1.0, top.length * top.width)
    if fill < config.top_min_fill:
        return max(1, round(top.area / unit / config.merged_top_cubes))
    return top.cells


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
    ys, xs = np.nonzero(comp)
    pts = np.stack([xs, ys], axis=1).astype(np.float32)
    if pts.shape[0] < k:
        c = pts.mean(axis=0)
        return ((float(c[0]) + x0, float(c[1]) + y0),) * k
    cv2.setRNGSeed(7)  # the same frame always splits the same way
    labels = np.zeros((pts.shape[0], 1), np.int32)
    _, _, centres = cv2.kmeans(pts, k, labels, _KMEANS, 2, cv2.KMEANS_PP_CENTERS)
    return tuple((float(c[0]) + x0, float(c[1]) + y0) for c in centres)


def remove_disc(mask: U8Image, centre: tuple[float, float], radius: float) -> None:
    """Erase a found big piece from a mask so its pixels are not counted as cubes."""
    cv2.circle(mask, (round(centre[0]), round(centre[1])), max(1, round(radius)), 0, -1)
