"""The pawns and grandes: the king and Charlemagne by the thickest blob of their colour, a
grande by the thickest cube top of its colour."""

from __future__ import annotations

import math
from dataclasses import dataclass, replace
from typing import Any

import cv2
import numpy as np
import numpy.typing as npt

from companion.vision.config import VisionConfig
from companion.vision.cubes import Patch
from companion.vision.geometry import Geometry
from companion.vision.layout import Layout
from companion.vision.masks import fill_holes

Image = npt.NDArray[Any]


@dataclass(frozen=True)
class Figure:
    name: str
    colour: str
    diameter: float  # mm across, seen from above
    round_: bool


def figures_of(layout: Layout) -> tuple[Figure, ...]:
    p = layout.pieces
    if layout.game == "el-grande":
        out = [Figure("king", "black", float(p["king"]["diameter"]), True)] if "king" in p else []
        if "grande" in p:
            for colour in ("yellow", "green", "blue", "red", "black"):
                out.append(Figure(f"grande:{colour}", colour, float(p["grande"]), False))
        return tuple(out)
    if "charlemagne" in p:
        return (Figure("charlemagne", "yellow", float(p["charlemagne"]["diameter"]), True),)
    return ()


def find_figure(
    mask: Image, fig: Figure, geo: Geometry, layout: Layout, config: VisionConfig
) -> tuple[tuple[float, float], tuple[int, int, Image]] | None:
    """Where a figure stands and its pixels: the thickest blob of its colour, if thick
    enough to hold it.

    Holes are filled first (a pawn's glint). A block of touching cubes is as wide as a
    grande but the dark seams between its cubes keep each core thin. The figure's body is
    the blob opened by a disc no cube can hold: cubes touching it fall away.
    """
    if not mask.any():
        return None
    radius_px = fig.diameter / 2 * geo.mm_px
    # Between a cube's and the figure's inscribed radius; both lose a pixel or so to the
    # dark edge every piece shows.
    cube_half = float(layout.pieces["cube"]) / 2 * geo.mm_px
    threshold = cube_half - config.edge_px + config.big_piece_radius_share * (radius_px - cube_half)
    min_area = 0.45 * (math.pi * radius_px**2 if fig.round_ else (2 * radius_px) ** 2)
    n, labels, stats, _ = cv2.connectedComponentsWithStats(mask, connectivity=8)
    best: tuple[float, float, float, int] | None = None
    for i in range(1, n):
        x, y, w, h, area = (int(v) for v in stats[i])
        if area < min_area:
            continue
        comp = fill_holes(np.pad((labels[y : y + h, x : x + w] == i).astype(np.uint8), 1))
        dist = cv2.distanceTransform(comp, cv2.DIST_L2, 3)
        _, peak, _, loc = cv2.minMaxLoc(dist)
        if peak < threshold:
            continue
        # Of the blobs thick enough, the one most like the figure in thickness and (the
        # king) size: blurred clusters of cubes (their seams gone) and a grande are thick
        # too. Charlemagne stands among yellow cubes, his blob joins theirs: thickness only.
        size = float(comp.sum()) / (math.pi * radius_px**2 * config.figure_area)
        weight = config.king_size_weight if fig.name == "king" else 0.0
        unlike = weight * abs(math.log(max(size, 1e-3))) - math.log(peak / radius_px)
        if best is None or unlike < best[0]:
            best = (unlike, float(loc[0] + x - 1), float(loc[1] + y - 1), i)
    if best is None:
        return None
    _, fx, fy, i = best
    x, y, w, h, _ = (int(v) for v in stats[i])
    comp = fill_holes((labels[y : y + h, x : x + w] == i).astype(np.uint8))
    r = max(1, int(threshold))
    disc = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (2 * r + 1, 2 * r + 1))
    body = cv2.morphologyEx(comp, cv2.MORPH_OPEN, disc)
    # Keep only the opened part under the peak (another thick patch is not this figure).
    _nb, parts = cv2.connectedComponents(body)
    at = int(parts[min(int(fy) - y, h - 1), min(int(fx) - x, w - 1)])
    if at:
        body = (parts == at).astype(np.uint8)
    return (fx, fy), (x, y, body)


def find_big_top(
    patches: list[Patch], fig: Figure, geo: Geometry, layout: Layout, config: VisionConfig
) -> tuple[float, float] | None:
    """A box figure (grande): the thickest bright top of its colour, if thick enough.

    Tops, not whole blobs: the seams between touching cubes keep each cube's top thin, so a
    block of cubes is no grande. The figure's top is taken out of its patch (in place), so
    it is not counted as cubes.
    """
    cube_half = float(layout.pieces["cube"]) / 2 * geo.mm_px
    half = fig.diameter / 2 * geo.mm_px
    threshold = cube_half - config.edge_px + config.big_piece_radius_share * (half - cube_half)
    best: tuple[float, int, int] | None = None
    for i, patch in enumerate(patches):
        for j, top in enumerate(patch.tops):
            if top.thick >= threshold and (best is None or top.thick > best[0]):
                best = (top.thick, i, j)
    if best is None:
        return None
    _, i, j = best
    patch = patches[i]
    area, fx, fy = patch.tops[j].area, patch.tops[j].x, patch.tops[j].y
    rest = patch.tops[:j] + patch.tops[j + 1 :]
    share = area / max(1.0, sum(t.area for t in patch.tops))
    patches[i] = replace(patch, tops=rest, area=max(0.0, patch.area * (1 - share)))
    return fx, fy
