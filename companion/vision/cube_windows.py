"""A lone cube looked at again in the full-resolution frame (issue #4: stacked and tilted cubes).

The working image's labels are the colour model's classes: a cube's sides, a darker shade of
its top, are mostly unknown there, which loses most of what tells a lean (a top 3-18 % shorter
one way) or a stack (the side band towards the point under the camera, the nadir, twice one
cube's parallax). (The working image is also binned where a cube's side keeps 8 px or more,
geometry.cube_side_px; the hard 1080p frames, 9-15 px a cube, are not.) So each cube counted
alone from one whole top is cut out of the frame in a small window and its pixels classed by
its own top's colour there (the median about the top's thickest point):

- its shade: the pixels of the top's hue, about as colourful for their lightness and no
  lighter (its sides are a darker shade of it), joined to the top; its edge against the board
  drawn by watershed, where the colour changes fastest;
- its top: the shade's pixels lighter than half way from its darkest sides to the top.

From those: the top's sides on the plane of a cube's top in board mm (a flat top is a square,
a leaning one shorter by the cosine of its lean one way), and how far the shade reaches past
the top towards the nadir (one cube's parallax for one cube, two for a stack), away from it
and across it (a flat cube's shade is its top swept towards the nadir: none).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import cv2
import numpy as np
import numpy.typing as npt

from companion.vision.config import VisionConfig
from companion.vision.cubes import Patch
from companion.vision.local_print import median_columns, quantile_of

FloatArray = npt.NDArray[Any]
U8Image = npt.NDArray[np.uint8]
BoolImage = npt.NDArray[np.bool_]
_PIXEL = np.ones((3, 3), np.uint8)
# How far round a pixel the colour beyond an edge is looked for: past a lens's blur.
_SPAN = np.ones((7, 7), np.uint8)
# A top this little colourful (uint8 Lab chroma) is grey: a black cube's, or glare's.
_GREY = 12.0


@dataclass(frozen=True)
class View:
    """Where one lone cube is looked at in the frame (frame pixels)."""

    colour: str
    top: tuple[float, float]  # working-image point of its top (where a flag is placed)
    at: tuple[float, float]  # frame point of its top's thickest part
    foot: tuple[float, float]  # where the foot of one cube whose top shows at ``at`` shows
    side: float  # a cube's side there

    @property
    def parallax(self) -> float:
        """One cube's parallax here, in cube sides (how far its foot shows off its top)."""
        return math.hypot(self.foot[0] - self.at[0], self.foot[1] - self.at[1]) / self.side


@dataclass(frozen=True)
class Seen:
    """One lone cube measured in its window (0 where a measure was not made: not ``told``,
    or, for those only a lean is judged by, not asked)."""

    colour: str
    top: tuple[float, float]  # working-image point (as the View's)
    parallax: float  # one cube's parallax, in cube sides
    # How far its shade reaches past its top, in cube sides: towards the nadir (one cube's
    # parallax for one cube, two for a stack), away from it and across it (a flat cube's:
    # blur's, and a turned top's swept aslant a little across).
    towards: float
    away: float
    across: float
    major: float  # its top's longer and shorter sides on the plane of a cube's top, mm
    minor: float
    told: bool = True  # whether its window told its top and shade

    @property
    def band(self) -> float:
        """Its shade's reach towards the nadir over one cube's parallax: 1 for one cube, 2
        for a stack (0: not measured)."""
        return self.towards / self.parallax if self.parallax > 0 else 0.0


@dataclass(frozen=True)
class Classes:
    """A window's pixels classed by one cube's top colour (window-sized masks)."""

    top: BoolImage
    shade: BoolImage  # the top and the darker pixels of its hue joined to it


def single_tops(patches: Sequence[Patch], singles: Sequence[tuple[float, float]]) -> list[Patch]:
    """The patches counted as one cube from one whole top: those whose centroid is one of
    ``singles`` (a one-cube blob's centre is its patch's centroid) and that hold one top."""
    wanted = set(singles)
    return [p for p in patches if p.centroid in wanted and len(p.tops) == 1]


def cut(
    frame: U8Image, points: Sequence[tuple[float, float]], reach: float
) -> tuple[U8Image, tuple[int, int]]:
    """The frame's pixels in the box within ``reach`` of all ``points`` (clipped to the
    frame), and the window's top-left corner in the frame."""
    h, w = frame.shape[:2]
    xs, ys = [p[0] for p in points], [p[1] for p in points]
    x0, y0 = max(0, math.floor(min(xs) - reach)), max(0, math.floor(min(ys) - reach))
    x1, y1 = min(w, math.ceil(max(xs) + reach) + 1), min(h, math.ceil(max(ys) + reach) + 1)
    return frame[y0:y1, x0:x1], (x0, y0)


def classes(
    window: U8Image, at: tuple[float, float], side: float, config: VisionConfig
) -> Classes | None:
    """The window's top and shade pixels (``at``: the top's thickest part in window pixels;
    ``side``: a cube's side in pixels; what is of the top's hue: see :func:`of_its_hue`).
    None: the top is too grey to class by its hue (a black cube)."""
    lab = cv2.cvtColor(window, cv2.COLOR_BGR2Lab).astype(np.float32)
    lab[..., 1:] -= 128.0
    ys, xs = np.ogrid[0 : window.shape[0], 0 : window.shape[1]]
    # (A quarter side about the thickest part: inside the top whatever its turn.)
    near = (xs - at[0]) ** 2 + (ys - at[1]) ** 2 <= (0.25 * side) ** 2
    if not near.any():
        return None
    own = median_columns(lab[near])
    if float(np.hypot(own[1], own[2])) < _GREY:
        return None
    first = _joined(of_its_hue(lab, own, config) | near, near)
    assert first is not None  # (near is in it)
    shade = _against_board(window, lab, first, near)
    if shade is None:
        return None
    # The top: the shade's pixels lighter than half way from its darkest sides to the top's
    # own lightness (a cube's sides are its top's colour, shaded), so that its edge is where
    # blur has mixed them half and half. The shade's rim is in it only beside such pixels
    # within: where a dark side meets a light board, their mix is as light as a top.
    light = lab[..., 0]
    dark = float(quantile_of(light[shade], 0.05))
    lit = shade & (light >= 0.5 * (float(own[0]) + dark))
    inner = cv2.erode(shade.view(np.uint8), _PIXEL).astype(bool) & lit
    top = _joined(cv2.dilate(inner.view(np.uint8), _PIXEL).astype(bool) & lit, near)
    if top is None:
        return None
    return Classes(top, shade | top)


def of_its_hue(lab: FloatArray, own: FloatArray, config: VisionConfig) -> BoolImage:
    """The pixels of ``lab`` (uint8 Lab, a and b about 0) that may be a shade of the colour
    ``own``: their hue at most ``config.window_hue_deg`` from its, their chroma over
    lightness at least ``window_shade_chroma`` of its, and no lighter than it by more than
    ``window_lighter`` of its chroma.
    A darker shade of a colour keeps its hue and about its chroma over lightness; a pale
    board of the same hue (beige by yellow, pale green by green) has much less of it, and a
    shadow on the board darkens the board's colour without making it more colourful."""
    chroma = float(np.hypot(own[1], own[2]))
    a, b = lab[..., 1], lab[..., 2]
    c = np.hypot(a, b)
    turn = (a * own[1] + b * own[2]) / np.maximum(c * chroma, 1e-6)
    hue_deg, shade_chroma = config.window_hue_deg, config.window_shade_chroma
    light = np.maximum(lab[..., 0], 1.0)
    out: BoolImage = (turn >= math.cos(math.radians(hue_deg))) & (
        c / light >= shade_chroma * chroma / max(float(own[0]), 1.0)
    )
    out &= lab[..., 0] <= own[0] + config.window_lighter * chroma
    return out


def _against_board(
    window: U8Image, lab: FloatArray, first: BoolImage, near: BoolImage
) -> BoolImage | None:
    """The shade where it meets the board: grown by watershed from its pixels far from the
    board's colour (the window's median off it) against those near it, so that its edge is
    where the colour changes fastest (blur mixes a cube's rim with the board beside it), and
    kept to a pixel round ``first`` (another piece beside it is no colour of its own)."""
    grown = cv2.dilate(first.view(np.uint8), _PIXEL).astype(bool)
    outside = ~cv2.dilate(first.view(np.uint8), _SPAN).astype(bool)
    shade = first
    if outside.any():
        off = np.linalg.norm(lab - median_columns(lab[outside]), axis=2)
        beyond = cv2.dilate(off, _SPAN)  # (the contrast across the edge, about each pixel)
        shade = _watershed(
            window,
            first & (off >= 0.75 * beyond),
            ~grown | (off <= 0.25 * beyond),
            off >= 0.5 * beyond,
        )
    return _joined(shade & grown, near)


def _watershed(
    window: U8Image, inside: BoolImage, outside: BoolImage, nearer: BoolImage
) -> BoolImage:
    """The pixels the watershed of ``window``'s colours gives ``inside`` against ``outside``
    (the boundary where the colour changes fastest between them); of the boundary's own
    line, those ``nearer`` the inside's colour."""
    markers = np.zeros(inside.shape, np.int32)
    markers[outside] = 2
    markers[inside & ~outside] = 1
    cv2.watershed(np.ascontiguousarray(window), markers)
    out: BoolImage = (markers == 1) | ((markers == -1) & nearer)
    return out


def _joined(mask: BoolImage, seed: BoolImage) -> BoolImage | None:
    """The parts of ``mask`` (4-connected) that hold a pixel of ``seed``."""
    count, parts = cv2.connectedComponents(mask.view(np.uint8), connectivity=4)
    mine = np.zeros(count, bool)
    mine[parts[seed & mask]] = True
    mine[0] = False
    if not mine.any():
        return None
    out: BoolImage = mine[parts]
    return out


def top_sides(
    top: BoolImage, origin: tuple[int, int], to_board: Callable[[FloatArray], FloatArray]
) -> tuple[float, float]:
    """The top's pixels' spread along their two axes on the board, read as a rectangle's sides
    (a uniform rectangle's second moment along a side a is a²/12), mm, longer then shorter
    (``origin``: the window's corner in the frame; ``to_board``: frame points, N x 2, to board
    mm on the plane of a cube's top)."""
    ys, xs = np.nonzero(top)
    if len(xs) < 3:
        return 0.0, 0.0
    pts = np.column_stack([xs + origin[0], ys + origin[1]]).astype(np.float64)
    board = to_board(pts)
    low, high = np.linalg.eigvalsh(np.cov(board.T))
    # (Each pixel a little square on the board: its own spread added.)
    q = to_board(pts.mean(axis=0) + np.array([(0.0, 0.0), (1.0, 0.0), (0.0, 1.0)]))
    (ax, ay), (bx, by) = q[1] - q[0], q[2] - q[0]
    pixel = abs(float(ax * by - ay * bx)) / 12
    return math.sqrt(12 * (max(float(high), 0.0) + pixel)), math.sqrt(
        12 * (max(float(low), 0.0) + pixel)
    )


def reaches(
    found: Classes, towards: tuple[float, float], sideways: bool = True
) -> tuple[float, float, float]:
    """How far the shade reaches past the top, in pixels: towards the unit direction
    ``towards`` (the nadir's), away from it, and across it (the farther way; 0 unless
    ``sideways``). Each is the median over the lines across the top's middle half: a flat
    cube's shade is its top swept towards the nadir, so on every such line its far edge is the
    top's moved that far, while a corner (rounded by blur) or a neighbour joined at one end
    moves the extremes only."""
    ux, uy = towards
    ys, xs = np.nonzero(found.shade)
    on_top = found.top[ys, xs]
    along = xs * ux + ys * uy
    across = ys * ux - xs * uy
    ahead, behind = _past(along, across, on_top)
    left, right = _past(across, along, on_top) if sideways else (0.0, 0.0)
    return ahead, behind, max(left, right)


def _past(along: FloatArray, across: FloatArray, on_top: BoolImage) -> tuple[float, float]:
    """Over the lines (``across`` rounded) through the middle half of the top (``on_top`` of
    the shade's pixels), the medians of how far the shade reaches past the top along them,
    forwards and backwards."""
    lines = np.round(across).astype(np.intp)
    lines -= lines.min()
    n = int(lines.max()) + 1
    lo, hi = quantile_of(across[on_top], 0.25), quantile_of(across[on_top], 0.75)
    middle = np.zeros(n, bool)
    middle[lines[on_top & (across >= lo) & (across <= hi)]] = True
    ends = []
    for sign in (1.0, -1.0):
        far_shade = np.full(n, -np.inf)
        far_top = np.full(n, -np.inf)
        np.maximum.at(far_shade, lines, sign * along)
        np.maximum.at(far_top, lines[on_top], sign * along[on_top])
        gaps = (far_shade - far_top)[middle & np.isfinite(far_top)]
        ends.append(float(quantile_of(gaps, 0.5)) if len(gaps) else 0.0)
    return ends[0], ends[1]


def measure(
    views: Sequence[View],
    frame: U8Image,
    to_board: Callable[[FloatArray], FloatArray],
    config: VisionConfig,
) -> list[Seen]:
    """Each view's cube measured in its window of ``frame`` (``to_board``: frame points,
    N x 2, to board mm on the plane of a cube's top). The measures only a lean is judged by,
    the top's sides and the shade's reach across, are made only with ``config.tilt_flag``
    (they take a third of a window's time)."""
    lean = config.tilt_flag
    out = []
    for v in views:
        dx, dy = v.foot[0] - v.at[0], v.foot[1] - v.at[1]
        shift = math.hypot(dx, dy)
        # Room for the top and the sides about it (a leaning cube's shows up to a side past
        # its top's middle, turned), swept as far towards the nadir as a stack's band is told
        # (stack_band_max parallaxes): a shade reaching farther, to the window's rim, is a
        # neighbour's.
        sweep = config.stack_band_max
        far = (v.at[0] + sweep * dx, v.at[1] + sweep * dy)
        window, (x0, y0) = cut(frame, (v.at, far), 1.5 * v.side)
        found = classes(window, (v.at[0] - x0, v.at[1] - y0), v.side, config)
        # A shade that runs out of the window is no lone cube's: it joined a neighbour of its
        # colour (or a piece of print of it) and measures neither.
        if found is None or shift <= 0 or _at_rim(found.shade):
            out.append(Seen(v.colour, v.top, v.parallax, 0.0, 0.0, 0.0, 0.0, 0.0, False))
            continue
        major, minor = top_sides(found.top, (x0, y0), to_board) if lean else (0.0, 0.0)
        towards, away, wide = reaches(found, (dx / shift, dy / shift), sideways=lean)
        out.append(
            Seen(
                v.colour,
                v.top,
                v.parallax,
                towards / v.side,
                away / v.side,
                wide / v.side,
                major,
                minor,
            )
        )
    return out


def _at_rim(mask: BoolImage) -> bool:
    return bool(mask[0].any() or mask[-1].any() or mask[:, 0].any() or mask[:, -1].any())


def worth_measuring(view: View, config: VisionConfig) -> bool:
    """Whether the view can be flagged at all: a lean is looked for anywhere, a stack only
    where one cube's parallax tells (most lone cubes stand nearer the nadir than that, and a
    window costs ~1 ms)."""
    return config.tilt_flag or (config.stack_flag and view.parallax >= config.stack_min_parallax)


def probable_stack(seen: Seen, config: VisionConfig) -> bool:
    """Whether its band is clearly longer than one cube's, where one cube's parallax is long
    enough to tell, and not so long that it ran into a neighbour of its colour."""
    if seen.parallax < config.stack_min_parallax:
        return False
    return config.stack_band_ratio <= seen.band <= config.stack_band_max


def probable_tilt(seen: Seen, cube_mm: float, config: VisionConfig) -> bool:
    """Whether its top is about a cube's side one way and clearly shorter the other."""
    lo, hi = config.tilt_major
    if not lo * cube_mm <= seen.major <= hi * cube_mm:
        return False
    return seen.minor <= config.tilt_minor_ratio * seen.major
