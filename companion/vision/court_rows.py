"""Knights on a Carolus Magnus court card, counted from how far their colour runs along its row.

A court row holds cubes of one colour lined up in a known direction from the row's printed dot,
nearly touching: blur merges their tops into one bar whose lightness varies along it, so tops
and areas under-count it (a row of five read as three). Its length does not: the cubes in a
row are the length its colour fills along the row over a cube's pitch.

The colour's pixels are seen on the plane of the cubes' tops (where a top shows right over its
foot; the lit sides show towards the point under the camera), in the card's own frame: along
the row (u, from the card's marker) and across it (v). Only stretches of the row where the
colour is at least ``court_row_width`` wide across count, so a blurred halo, a thin lit side or
a sliver of a neighbouring row's cube adds nothing; cubes of another colour are not this
row's colour.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt

from companion.vision import homography as hg
from companion.vision.calibration import Calibration
from companion.vision.config import DEFAULT_CONFIG, VisionConfig
from companion.vision.cubes import Patch
from companion.vision.geometry import Geometry
from companion.vision.layout import Layout, Pose
from companion.vision.standing import raised_view

FloatArray = npt.NDArray[Any]


@dataclass(frozen=True)
class CourtRow:
    """One colour's row of one court card, as the working image sees it."""

    place: str  # court_<seat>
    colour: str
    pose: Pose  # the card's marker
    bounds: tuple[float, float, float, float]  # the row in the card's frame, mm (u0, v0, u1, v1)
    lean: tuple[float, float]  # how far a cube's top shows off its foot, card frame, mm
    box: tuple[int, int, int, int]  # working pixels where its cubes may show (x0, y0, x1, y1)
    cube: float  # a cube's side, mm
    pixel_mm: float  # a working pixel's size there, mm


def court_rows(
    calibration: Calibration,
    geo: Geometry,
    layout: Layout,
    courts: Mapping[int, Pose],
    config: VisionConfig = DEFAULT_CONFIG,
) -> tuple[CourtRow, ...]:
    """Every row of every court card placed at ``courts`` (seat -> marker pose)."""
    card = layout.court_card
    if card is None or not courts:
        return ()
    cube = float(layout.pieces["cube"])
    h, lens = calibration.h, calibration.lens
    top, _ = raised_view(calibration, cube, config)
    x0, y0 = geo.crop[:2]
    out = []
    for seat, pose in sorted(courts.items()):
        for colour, polygon in card.rows:
            u0, v0, u1, v1 = polygon.bbox
            mid = ((u0 + u1) / 2, (v0 + v1) / 2)
            seen = hg.project(top, [pose.apply(mid)], lens)
            foot = pose.invert(tuple(hg.unproject(h, seen, lens)[0]))
            lean = (foot[0] - mid[0], foot[1] - mid[1])
            # The row grown by a cube and its lean each way, at the board and at the tops.
            reach = cube + abs(lean[0]) + abs(lean[1])
            corners = [
                pose.apply((u, v))
                for u in (u0 - reach, u1 + reach)
                for v in (v0 - reach, v1 + reach)
            ]
            pts = np.concatenate([hg.project(h, corners, lens), hg.project(top, corners, lens)])
            work = (pts - (x0, y0)) * geo.scale
            lo = np.floor(work.min(axis=0)).astype(int)
            hi = np.ceil(work.max(axis=0)).astype(int)
            box = (int(lo[0]), int(lo[1]), int(hi[0]), int(hi[1]))
            pixel_mm = 1.0 / (hg.local_scale(h, pose.apply(mid), lens) * geo.scale)
            bounds = (u0, v0, u1, v1)
            out.append(CourtRow(f"court_{seat}", colour, pose, bounds, lean, box, cube, pixel_mm))
    return tuple(out)


def _reaches(patch: Patch, box: tuple[int, int, int, int]) -> bool:
    """Whether a patch's box reaches into ``box`` (x0, y0, x1, y1, working px)."""
    bx0, by0, bx1, by1 = box
    x, y, w, h = patch.bbox
    return not (x > bx1 or y > by1 or x + w < bx0 or y + h < by0)


def _pixels(patch: Patch) -> npt.NDArray[Any]:
    """A patch's working-image pixels (x, y)."""
    x, y, _, _ = patch.bbox
    ys, xs = np.nonzero(patch.comp)
    return np.stack([xs + x, ys + y], axis=1)


def filled_length(
    u: FloatArray,
    v: FloatArray,
    cube: float,
    pixel_mm: float,
    config: VisionConfig = DEFAULT_CONFIG,
) -> float:
    """How far (mm) a row's colour runs along it: 1 mm steps of ``u`` where the colour spans
    at least ``court_row_width`` across (``v``, with a pixel's own size), in runs joined over
    gaps of up to ``court_row_gap``; from the first run at least ``court_row_run`` long to the
    last (a row's cubes stand one against the next from its dot: a gap between runs is a
    stretch of the row glare or shade took out of the colour, not a missing cube)."""
    if not u.size:
        return 0.0
    step = np.floor(u).astype(np.int64)
    first = int(step.min())
    step -= first
    high = np.full(int(step.max()) + 1, -np.inf)
    low = np.full(high.size, np.inf)
    np.maximum.at(high, step, v)
    np.minimum.at(low, step, v)
    filled = np.flatnonzero(high - low + pixel_mm >= config.court_row_width * cube)
    if not filled.size:
        return 0.0
    centres = filled + first + 0.5
    # Each filled step covers its millimetre; steps closer than the gap join into one run.
    breaks = np.flatnonzero(np.diff(centres) > 1.0 + config.court_row_gap * cube)
    starts = np.concatenate([[0], breaks + 1])
    ends = np.concatenate([breaks, [centres.size - 1]])
    lengths = centres[ends] - centres[starts] + 1.0
    runs = np.flatnonzero(lengths >= config.court_row_run * cube)
    if not runs.size:
        return 0.0
    # (Session 10: the runs' sum read hard seeds 100-299's rows 41 wrong of 2006, their span
    # 38, none of them made wrong; see benchmarks/fit_court_rows.py.)
    return float(centres[ends[runs[-1]]] - centres[starts[runs[0]]] + 1.0)


def row_cubes(row: CourtRow, length: float, config: VisionConfig = DEFAULT_CONFIG) -> float:
    """Cubes (a fraction) in a row whose colour runs ``length`` mm along it.

    n cubes fill n pitches; the sides in front of the first cube add a share of the lean when
    the tops lean away from the dot, and when they lean towards it the dot's ignored ring hides
    a little of the first cube (hard and easy bench seeds 0-11, least squares)."""
    lean = row.lean[0]
    extra = config.court_lean_away * max(lean, 0.0) - config.court_lean_toward * max(-lean, 0.0)
    return (length - extra - config.court_row_extra * row.cube) / (config.court_pitch * row.cube)


def row_count(row: CourtRow, length: float, config: VisionConfig = DEFAULT_CONFIG) -> int:
    """Cubes in a row whose colour runs ``length`` mm along it (:func:`row_cubes`), rounded up
    from ``court_row_round`` of a cube: the read keeps the row's count or its blobs',
    whichever is more, so one over costs more than one under (benchmarks/fit_court_rows.py)."""
    return max(0, math.floor(row_cubes(row, length, config) + 1.0 - config.court_row_round))


def count_rows(
    rows: Sequence[CourtRow],
    patches: Mapping[str, Sequence[Patch]],
    calibration: Calibration,
    geo: Geometry,
    config: VisionConfig = DEFAULT_CONFIG,
) -> dict[tuple[str, str], int]:
    """Cubes in each row, (court, colour) -> n, from its colour's measured patches."""
    if not rows:
        return {}
    top, lens = raised_view(calibration, rows[0].cube, config)
    origin = np.array(geo.crop[:2], np.float64)
    # Each patch a row reaches is put on the tops' plane once, all of them in one call (a
    # colour's patches are seen by a row on each card; each point is unprojected on its own).
    reached = [[id(p) for p in patches.get(row.colour, ()) if _reaches(p, row.box)] for row in rows]
    needed = {id(p): p for ps in patches.values() for p in ps}
    wanted = list(dict.fromkeys(i for ids in reached for i in ids))
    parts = [_pixels(needed[i]) for i in wanted]
    pts = np.concatenate(parts).astype(np.float64) if parts else np.zeros((0, 2))
    flat = hg.unproject(top, (pts + 0.5) / geo.scale - 0.5 + origin, lens)
    ends = np.cumsum([len(p) for p in parts], dtype=np.int64)
    spans = {i: (int(e) - len(p), int(e)) for i, p, e in zip(wanted, parts, ends, strict=True)}
    out: dict[tuple[str, str], int] = {}
    for row, ids in zip(rows, reached, strict=True):
        board = np.concatenate([flat[slice(*spans[i])] for i in ids]) if ids else np.zeros((0, 2))
        if not len(board):
            out[(row.place, row.colour)] = 0
            continue
        u, v = _card_frame(row.pose, board)
        u0, v0, u1, v1 = row.bounds
        du, dv = row.lean
        cube = row.cube
        margin = config.court_row_margin * cube
        # The lit sides show towards the point under the camera, away from the lean.
        keep = (
            (v >= v0 - max(dv, 0.0) - margin)
            & (v <= v1 + max(-dv, 0.0) + margin)
            & (u >= u0 - abs(du) - cube)
            & (u <= u1 + abs(du) + cube)
        )
        length = filled_length(u[keep], v[keep], cube, row.pixel_mm, config)
        out[(row.place, row.colour)] = row_count(row, length, config)
    return out


def _card_frame(pose: Pose, board: FloatArray) -> tuple[FloatArray, FloatArray]:
    a = np.radians(pose.angle)
    c, s = np.cos(a), np.sin(a)
    dx, dy = board[:, 0] - pose.x, board[:, 1] - pose.y
    return c * dx + s * dy, -s * dx + c * dy
