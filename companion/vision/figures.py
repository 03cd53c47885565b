"""The pawns and grandes: the king and Charlemagne by the thickest, roundest blob of their
colour, a grande by the thickest cube top of its colour that is a grande's size.

Black pieces under a lamp's glare are mid-grey, out of the colour model's reach for black: the
king and the black grande are also looked for as hueless pixels far darker than the board's
print round them (:func:`dark_pieces`)."""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from typing import Any

import cv2
import numpy as np
import numpy.typing as npt

from companion.vision.colour import BACKGROUND
from companion.vision.config import VisionConfig
from companion.vision.cubes import Patch, clean, measure_planes
from companion.vision.geometry import Geometry
from companion.vision.hand import white_cast
from companion.vision.layout import Layout
from companion.vision.local_print import GREY, local_print
from companion.vision.masks import fill_small_holes
from companion.vision.mosaic import Mosaic

Image = npt.NDArray[Any]


@dataclass(frozen=True)
class Figure:
    name: str
    colour: str
    diameter: float  # mm across, seen from above
    round_: bool
    height: float  # mm


def figures_of(layout: Layout) -> tuple[Figure, ...]:
    p = layout.pieces
    if layout.game == "el-grande":
        out = []
        if "king" in p:
            k = p["king"]
            out.append(Figure("king", "black", float(k["diameter"]), True, float(k["height"])))
        if "grande" in p:
            side = float(p["grande"])
            for colour in ("yellow", "green", "blue", "red", "black"):
                out.append(Figure(f"grande:{colour}", colour, side, False, side))
        return tuple(out)
    if "charlemagne" in p:
        c = p["charlemagne"]
        return (Figure("charlemagne", "yellow", float(c["diameter"]), True, float(c["height"])),)
    return ()


def dark_pieces(lab: Image, labels: Image, geo: Geometry, config: VisionConfig) -> Image:
    """Pixels that may be a black piece's: hueless (once the light's cast, seen on the
    markers' paper, is off) and far darker than the board's print round them.

    Exposure, a gradient or an arm's shadow scale the print and the piece alike, so the ratio
    of their grey values holds; a lamp's glare lifts a black piece towards mid-grey but the
    print with it. A piece's shadow is as dark as half the print, but of its hue.
    """
    board = (geo.board > 0) & ~geo.ignore
    print_ = board & (labels == BACKGROUND)
    window = round(config.dark_piece_window * geo.mm_px)
    local = local_print(lab, print_, window)
    markers = lab.reshape(-1, 3)[geo.white]
    cast = np.array(white_cast(markers), np.float32)
    paper = float(np.percentile(GREY[markers[:, 0]], 85)) if markers.size else 255.0
    grey = GREY[lab[..., 0]]
    print_grey = np.maximum(GREY[local[..., 0]], 1.0)
    ab = lab[..., 1:].astype(np.float32) - 128.0 - cast * np.clip(grey / paper, 0, 1)[..., None]
    print_ab = local[..., 1:].astype(np.float32) - 128.0
    print_ab -= cast * np.clip(print_grey / paper, 0, 1)[..., None]
    print_chroma = np.maximum(1.0, np.hypot(print_ab[..., 0], print_ab[..., 1]))
    along = (ab * print_ab).sum(axis=-1) / print_chroma
    ratio = grey / print_grey
    # Far darker than a shadow gets, a pixel is black whatever hue the print round it has
    # (near a border, the next region's or the sea's).
    dark = (
        board
        & (ratio <= config.dark_piece_ratio)
        & (np.hypot(ab[..., 0], ab[..., 1]) <= config.dark_piece_chroma)
        & (
            (along <= config.dark_piece_print_hue * print_chroma)
            | (ratio <= config.black_piece_ratio)
        )
    )
    out: Image = clean(dark.astype(np.uint8) * 255)
    return out


def find_figure(
    mask: Image,
    fig: Figure,
    geo: Geometry,
    layout: Layout,
    config: VisionConfig,
    head: Callable[[tuple[float, float]], tuple[float, float]] | None = None,
    to_work: Callable[[float, float], tuple[float, float]] | None = None,
) -> tuple[tuple[float, float], tuple[int, int, Image]] | None:
    """Where a pawn's foot stands and its pixels (in the mask's coordinates; ``to_work`` maps
    them into the working image, whose geometry sizes things, when the mask is a mosaic's).

    Holes are filled first (a pawn's glint). Each blob is opened by a disc no cube can hold,
    so cubes touching the pawn and its head fall away; each part left that is thick enough
    is a candidate foot. The pawn is the candidate most like a pawn: its blob near the foot
    fills the pawn's outline (the foot's disc, and the head where the camera sees it:
    ``head`` gives that working-image point for a foot), the foot is thick (blurred clusters
    of cubes and a grande are nearly as thick) and round (their outlines are squares and
    hexagons, whose edge lies farther from the middle at the corners). The pixels returned
    are the blob's within the pawn's outline.
    """
    if not mask.any():
        return None
    cube = float(layout.pieces["cube"])
    foot = fig.diameter / 2 * geo.mm_px
    filled = fill_small_holes((mask > 0).astype(np.uint8), config.figure_hole * math.pi * foot**2)
    r = max(1, round(config.figure_open * foot))
    opened = cv2.morphologyEx(filled, cv2.MORPH_OPEN, _disc(r))
    n, parts, stats, _ = cv2.connectedComponentsWithStats(opened, connectivity=8)
    if n <= 1:
        return None
    _, blobs = cv2.connectedComponents(filled, connectivity=8)
    best: tuple[float, float, float, tuple[int, int, Image]] | None = None
    for j in range(1, n):
        x, y, w, h, _ = (int(v) for v in stats[j])
        part = np.pad((parts[y : y + h, x : x + w] == j).astype(np.uint8), 1)
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
        near = cv2.dilate(outline, _disc(max(1, round(config.figure_near * radius)))) > 0
        inside = own & (outline > 0)
        fit = float(inside.sum()) / max(1.0, float(((own & near) | (outline > 0)).sum()))
        like = fit + peak / radius - config.figure_roundness * _spread(part, loc, peak)
        if best is None or like > best[0]:
            # Its pixels: the blob's within the outline (the head may lean farther) and its
            # blurred edge round it.
            edge = _disc(max(1, round(config.edge_px)) + 1)
            pixels = own & (cv2.dilate(whole, edge) > 0)
            best = (like, fx, fy, (ox, oy, pixels.astype(np.uint8)))
    if best is None:
        return None
    _, fx, fy, pixels = best
    return (fx, fy), pixels


def _disc(r: int) -> Image:
    out: Image = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (2 * r + 1, 2 * r + 1))
    return out


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
    t = np.linspace(0.0, 2 * math.pi, 24, endpoint=False)
    ring = np.stack([np.cos(t), np.sin(t)], axis=1)
    base, top = np.array(foot), np.array(head)
    disc = base + radius * ring
    ball = top + head_radius * ring
    far = base + (top - base) * slack + head_radius * ring
    points = np.vstack([disc, ball, far])
    grow = radius * 0.5 + 2
    x0 = max(0, math.floor(points[:, 0].min() - grow))
    y0 = max(0, math.floor(points[:, 1].min() - grow))
    x1 = min(shape[1], math.ceil(points[:, 0].max() + grow))
    y1 = min(shape[0], math.ceil(points[:, 1].max() + grow))
    masks = []
    for parts in ((disc, ball), (disc, ball, far)):
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
    return float(np.percentile(d, 75) - np.percentile(d, 10)) / max(peak, 1.0)


def find_big_top(
    patches: list[Patch],
    fig: Figure,
    geo: Geometry,
    layout: Layout,
    config: VisionConfig,
    take: bool = True,
) -> tuple[float, float] | None:
    """A box figure (grande): of the bright tops of its colour thick enough, the thickest of
    about a grande top's size.

    Tops, not whole blobs: the seams between touching cubes keep each cube's top thin, so a
    block of cubes is no grande; where blur erased the seams, their merged top is as thick
    but bigger. With ``take`` the figure's top is taken out of its patch (in place), so it is
    not counted as cubes.
    """
    cube = float(layout.pieces["cube"])
    cube_half = cube / 2 * geo.mm_px
    half = fig.diameter / 2 * geo.mm_px
    threshold = cube_half - config.edge_px + config.big_piece_radius_share * (half - cube_half)
    # A top's counted pixels are about top_factor of the modelled square, a grande's too.
    expected = (fig.diameter / cube) ** 2 * config.top_factor
    best: tuple[float, int, int] | None = None
    for i, patch in enumerate(patches):
        for j, top in enumerate(patch.tops):
            if top.thick < config.grande_thickness * threshold:
                continue
            size = max(top.area / patch.footprint, 1e-3) / expected
            like = top.thick / threshold - config.grande_size_weight * abs(math.log(size))
            if best is None or like > best[0]:
                best = (like, i, j)
    if best is None:
        return None
    _, i, j = best
    fx, fy = patches[i].tops[j].x, patches[i].tops[j].y
    if take:
        _take(patches, i, j)
    return fx, fy


def find_grande(
    counted: list[Patch],
    seen: Image,
    fig: Figure,
    geo: Geometry,
    layout: Layout,
    config: VisionConfig,
    lightness: Image,
    dark: bool = False,
    pieces: Mosaic | None = None,
) -> tuple[float, float] | None:
    """Where a grande's top shows in the working image (see :func:`find_big_top`), looked for
    on ``seen`` (its colour's pixels; the black grande's with the dark ones; the mosaic's
    ``pieces`` when given); its top is then taken out of the ``counted`` patches of its
    colour.

    Sensor noise speckles a top at the colour model's reach (a few pixels of it fall out),
    and the thickness of a top is very sensitive to that: the pixels are closed over the
    speckles first. A ``dark`` (black) top's lightness band is narrow against the noise: its
    lightness is judged over 3x3 pixels (not a coloured one's: the thin dark seams between
    touching cubes would go).
    """
    closed = cv2.morphologyEx(seen, cv2.MORPH_CLOSE, np.ones((3, 3), np.uint8)) > 0
    if pieces is not None:
        closed &= pieces.inside > 0  # (the mosaic's cut-outs lie a pixel apart)
    side = fig.diameter * geo.mm_px
    closed = fill_small_holes(closed.astype(np.uint8), config.figure_hole * side * side) > 0
    if pieces is not None:
        closed &= pieces.inside > 0
    found: Image = closed.astype(np.uint8) * np.uint8(255)
    light = cv2.medianBlur(lightness, 3) if dark else lightness
    # (measure_planes wants the first and last rows empty, as the mosaic's are.)
    pad = ((1, 1), (0, 0))
    wider = measure_planes(
        np.pad(found, pad),
        1,
        geo.footprint,
        geo.side,
        np.pad(light, pad),
        index=np.pad(pieces.index if pieces is not None else _raster(closed.shape), pad),
        width=pieces.width if pieces is not None else closed.shape[1],
        config=config,
    )[0]
    top = find_big_top(wider, fig, geo, layout, config, take=False)
    if top is not None:
        take_top_at(counted, top, fig.diameter / 2 * geo.mm_px)
    return top


def _raster(shape: tuple[int, ...]) -> Image:
    """Each pixel's flat index in an image of that shape (it is its own working image)."""
    out: Image = np.arange(shape[0] * shape[1], dtype=np.intp).reshape(shape[:2])
    return out


def take_top_at(patches: list[Patch], at: tuple[float, float], reach: float) -> None:
    """Take the top nearest ``at`` (within ``reach`` px) out of its patch: a figure found on
    another mask (the black grande on the dark pixels too) is not counted as cubes."""
    near: tuple[float, int, int] | None = None
    for i, patch in enumerate(patches):
        for j, top in enumerate(patch.tops):
            d = math.hypot(top.x - at[0], top.y - at[1])
            if d <= reach and (near is None or d < near[0]):
                near = (d, i, j)
    if near is not None:
        _take(patches, near[1], near[2])


def _take(patches: list[Patch], i: int, j: int) -> None:
    patch = patches[i]
    area = patch.tops[j].area
    rest = patch.tops[:j] + patch.tops[j + 1 :]
    share = area / max(1.0, sum(t.area for t in patch.tops))
    patches[i] = replace(patch, tops=rest, area=max(0.0, patch.area * (1 - share)))
