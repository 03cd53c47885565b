"""The whole read: frame + calibration -> Observation, as a chain of small stages.

1. ``working_image``: crop to the board and resample so a cube is ~9 px wide (speed, and the same
   thresholds at every resolution).
2. ``labels``: Lab, then the colour model's lookup table: one label per pixel.
3. ``hand_check`` (hand.py): a big skin-coloured blob (or one of no known colour over the areas)
   reaching in from off the board means a hand or arm: the frame is occluded, nothing counted.
4. figures and castles (by colour and size), cubes (by area, checked by seeds), dice faces.
5. ``Observation``: counts per area, figures, dice, confidence, and what could not be read.

Geometry (area outlines projected into the working image, per-place cube footprints) is made once
per calibration and tile placement by :class:`Reader`; frames are never warped.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

import cv2
import numpy as np
import numpy.typing as npt

from companion.vision import homography as hg
from companion.vision.calibration import Calibration
from companion.vision.colour import BACKGROUND, L_WEIGHT, bgr_to_lab, lab_distance
from companion.vision.config import DEFAULT_CONFIG, VisionConfig
from companion.vision.cubes import Patch, clean, count_patches, footprint_factor, measure_in
from companion.vision.errors import VisionError
from companion.vision.fringe import drop_fringes
from companion.vision.hand import hand_check
from companion.vision.layout import Layout, Polygon, Pose
from companion.vision.observation import Observation
from companion.vision.still import is_moving, median_frame, thumbnail

Image = npt.NDArray[Any]
FloatArray = npt.NDArray[Any]


_ANGLES = [2 * math.pi * k / 16 for k in range(16)]
CAROLUS_FACES = ("red", "blue", "yellow", "green", "pink", "crown")
# The crown printed on the dice: gold. Nominal, like the piece colours.
CROWN_BGR = (20, 150, 200)
_PlaceAt = Callable[[float, float], "str | None"]


class NotAFrame(VisionError, ValueError):
    """Something that is not a colour camera frame of the calibrated size."""


@dataclass(frozen=True)
class Place:
    """Somewhere cubes are counted (region, court, territory, reserve), in board mm."""

    id: str
    polygon: Polygon


@dataclass
class Geometry:
    """Projected outlines and sizes in the working image; built once, used for every frame."""

    crop: tuple[int, int, int, int]
    scale: float
    size: tuple[int, int]
    places: tuple[Place, ...]
    place_map: Image  # 0 = nowhere, i + 1 = places[i]
    near_border: npt.NDArray[Any]
    footprint: npt.NDArray[Any]  # a cube's pixel area at each working pixel
    side: npt.NDArray[Any]  # a cube's side in working pixels
    board: Image  # 255 over the board's areas (where a hand matters)
    ignore: npt.NDArray[Any]  # printed markers: black and white, not pieces
    tray: Image | None
    mm_px: float  # working pixels per board mm at the board centre
    hand_zone: npt.NDArray[Any]  # where a hand matters, at half resolution
    area_zone: npt.NDArray[Any]  # the areas and places, at half resolution
    outside: npt.NDArray[Any]  # off the board, at half resolution
    white: npt.NDArray[Any]  # the board markers with their white margins
    typical_footprint: float
    tray_box: tuple[int, int, int, int] = (0, 0, 0, 0)
    tile_mask: npt.NDArray[Any] | None = None
    tile_box: tuple[int, int, int, int] = (0, 0, 0, 0)


def tile_polygons(layout: Layout, tiles: Mapping[str, Pose]) -> dict[str, Polygon]:
    return {t: layout.tile_polygon(t, pose) for t, pose in tiles.items()}


def locate_movables(
    frame: Image, calibration: Calibration, layout: Layout
) -> tuple[dict[str, Pose], dict[int, Pose]]:
    """Poses (board mm) of the Carolus territory tiles and court cards seen in a frame."""
    detected = hg.detect_markers(frame, want=layout.all_marker_ids())
    tiles: dict[str, Pose] = {}
    courts: dict[int, Pose] = {}
    for marker_id, corners in detected.items():
        tile = layout.tile_by_marker(marker_id)
        court = layout.court_by_marker(marker_id)
        if tile is None and court is None:
            continue
        b = hg.unproject(calibration.h, corners, calibration.lens)
        centre = b.mean(axis=0)
        edge = b[1] - b[0]
        pose = Pose(float(centre[0]), float(centre[1]), math.degrees(math.atan2(edge[1], edge[0])))
        if tile is not None:
            tiles[tile.id] = pose
        elif court is not None:
            courts[court.seat] = pose
    return tiles, courts


def count_places(
    layout: Layout, tiles: Mapping[str, Pose], courts: Mapping[int, Pose]
) -> tuple[Place, ...]:
    """Where cubes are counted, most specific first (a tile over the mat, a card over a zone)."""
    if layout.game == "el-grande":
        return tuple(Place(a.id, a.polygon) for a in layout.areas if a.kind in ("region", "court"))
    places = [Place(t, layout.tile_polygon(t, pose)) for t, pose in sorted(tiles.items())]
    places += [Place(f"court_{s}", layout.court_polygon(p)) for s, p in sorted(courts.items())]
    places += [Place(a.id, a.polygon) for a in layout.areas if a.kind == "reserve"]
    return tuple(places)


def build_geometry(
    calibration: Calibration,
    layout: Layout,
    tiles: Mapping[str, Pose] | None = None,
    courts: Mapping[int, Pose] | None = None,
    config: VisionConfig = DEFAULT_CONFIG,
) -> Geometry:
    h = calibration.h
    lens = calibration.lens
    bw, bh = layout.board_size
    corners = hg.project(h, [(0, 0), (bw, 0), (bw, bh), (0, bh)], lens)
    w_img, h_img = calibration.image_size
    x0 = max(0, math.floor(corners[:, 0].min()))
    y0 = max(0, math.floor(corners[:, 1].min()))
    x1 = min(w_img, math.ceil(corners[:, 0].max()))
    y1 = min(h_img, math.ceil(corners[:, 1].max()))
    cube_mm = float(layout.pieces["cube"])
    centre = (bw / 2, bh / 2)
    cube_px = cube_mm * hg.local_scale(h, centre, lens)
    # Whole-number binning only (2x2, 3x3 ...): OpenCV's area resampling is fast for those, and
    # a cube keeps at least cube_side_px pixels a side.
    scale = 1.0 / max(1, math.floor(cube_px / config.cube_side_px))
    size = (max(1, round((x1 - x0) * scale)), max(1, round((y1 - y0) * scale)))

    def to_work(points: Sequence[tuple[float, float]]) -> npt.NDArray[Any]:
        p = hg.project(h, points, lens)
        return np.round((p - (x0, y0)) * scale).astype(np.int32)

    places = count_places(layout, tiles or {}, courts or {})
    place_map = np.zeros((size[1], size[0]), np.uint8)
    side_by_place = np.zeros(len(places) + 1, np.float32)
    side_by_place[0] = cube_px * scale
    # Paint the least specific first so tiles and cards win where they overlap a zone.
    for index in range(len(places) - 1, -1, -1):
        place = places[index]
        cv2.fillPoly(place_map, [to_work(place.polygon.points)], index + 1)
        side_by_place[index + 1] = cube_mm * hg.local_scale(h, place.polygon.centroid, lens) * scale
    side = side_by_place[place_map]
    edges = cv2.morphologyEx(place_map, cv2.MORPH_GRADIENT, np.ones((3, 3), np.uint8)) > 0
    reach = max(3, round(config.cube_side_px))
    near = cv2.dilate(edges.astype(np.uint8), np.ones((reach, reach), np.uint8)) > 0
    board = np.zeros_like(place_map)
    for area in layout.areas:
        cv2.fillPoly(board, [to_work(area.polygon.points)], 255)
    board[place_map > 0] = 255
    # Outside the board (the table, the floor) nothing is read.
    ignore = np.ones(place_map.shape, np.uint8)
    cv2.fillPoly(ignore, [to_work([(0, 0), (bw, 0), (bw, bh), (0, bh)])], 0)
    # The board's outline is known to a few pixels only (no lens model): a band inside it
    # counts as outside for the hand check (the table's dark shadow is skin-coloured).
    band = max(1, round(config.hand_edge_cubes * cube_px * scale))
    inner = cv2.erode(1 - ignore, np.ones((2 * band + 1, 2 * band + 1), np.uint8))
    outside = inner[::2, ::2] == 0
    markers = [m.corners() for m in layout.board_markers]
    for t, pose in (tiles or {}).items():
        markers.append(layout.tile_marker(t).corners(pose))
    for s, pose in (courts or {}).items():
        markers.append(layout.court_marker(s).corners(pose))
    white = np.zeros_like(ignore)
    for spec in layout.board_markers:
        cv2.fillConvexPoly(white, to_work(_grow(spec.corners(), 1.25)), 1)
    for m in markers:
        cv2.fillConvexPoly(ignore, to_work(_grow(m, 1.25)), 1)
    # The Castillo tower stands there: tall, brown, hollow; nothing on it is read. It leans
    # away from the camera in the image, so its whole neighbourhood is left out.
    for area in layout.areas_of_kind("castillo"):
        cv2.fillPoly(ignore, [to_work(_grow(area.polygon.points, 1.7))], 1)
    # A court card's printed colour dots are no cubes: only its rows are read.
    if layout.court_card is not None:
        for pose in (courts or {}).values():
            card = np.zeros_like(ignore)
            cv2.fillPoly(card, [to_work(layout.court_polygon(pose).points)], 1)
            for colour, row in layout.court_card.rows:
                cv2.fillPoly(card, [to_work(layout.court_row_polygon(colour, pose).points)], 0)
                # Each row starts with its printed colour dot; cubes line up after it.
                rx, ry0, _, ry1 = row.bbox
                centre = pose.apply((rx + config.court_dot_mm / 2, (ry0 + ry1) / 2))
                r = config.court_dot_mm * 0.45
                ring = [(centre[0] + r * math.cos(t), centre[1] + r * math.sin(t)) for t in _ANGLES]
                cv2.fillPoly(card, [to_work(ring)], 1)
            ignore |= card
    tray = None
    trays = layout.areas_of_kind("dice_tray")
    if trays:
        tray = np.zeros_like(place_map)
        cv2.fillPoly(tray, [to_work(trays[0].polygon.points)], 255)
    on_board = (board > 0) & (ignore == 0)
    # The tower's brown sides lean far out in the image: the hand check keeps well clear.
    tower = np.zeros_like(ignore)
    for area in layout.areas_of_kind("castillo"):
        cv2.fillPoly(tower, [to_work(_grow(area.polygon.points, 2.6))], 1)
    # The dice tray and the castle supply hold hueless pieces the colour model does not know:
    # there only skin means a hand.
    loose = np.zeros_like(ignore)
    for area in layout.areas:
        if area.kind in ("dice_tray", "castle_supply"):
            cv2.fillPoly(loose, [to_work(_grow(area.polygon.points, 1.15))], 1)
    tile_ids = {t.id for t in layout.tiles}
    tile_mask = np.isin(place_map, [i + 1 for i, p in enumerate(places) if p.id in tile_ids])
    return Geometry(
        # A hand anywhere over the board matters, over bare mat too: it is about to move
        # something.
        hand_zone=((ignore == 0) & (tower == 0) & (inner > 0))[::2, ::2],
        area_zone=(on_board & (loose == 0))[::2, ::2],
        outside=outside,
        white=white > 0,
        typical_footprint=float(np.median((side * side)[on_board])) if on_board.any() else 81.0,
        tray_box=_box(tray) if tray is not None else (0, 0, 0, 0),
        tile_mask=tile_mask if tile_mask.any() else None,
        tile_box=_box(tile_mask.astype(np.uint8)),
        crop=(x0, y0, x1, y1),
        scale=scale,
        size=size,
        places=places,
        place_map=place_map,
        near_border=near,
        footprint=side * side,
        side=side,
        board=board,
        ignore=ignore > 0,
        tray=tray,
        mm_px=cube_px * scale / cube_mm,
    )


def _piece_regions(
    masks: Mapping[str, Image], colours: Sequence[str]
) -> tuple[list[tuple[int, int, int, int]], npt.NDArray[Any]]:
    """Groups of piece-coloured pixels (all colours at once, grown by two pixels, so a blob
    and its closing stay in one group): their boxes, and the group of every pixel."""
    union: Image | None = None
    for colour in colours:
        m = masks.get(colour)
        if m is not None:
            union = m.copy() if union is None else cv2.bitwise_or(union, m)
    if union is None:
        return [], np.zeros((1, 1), np.int32)
    grown = cv2.dilate(union, np.ones((5, 5), np.uint8))
    n, groups, stats, _ = cv2.connectedComponentsWithStats(grown, connectivity=8)
    out = []
    for i in range(1, n):
        x, y, bw, bh, _ = (int(v) for v in stats[i])
        out.append((x, y, bw, bh))
    return out, groups


def _moved(old: Pose, new: Pose, config: VisionConfig) -> bool:
    turn = abs((new.angle - old.angle + 180.0) % 360.0 - 180.0)
    return math.hypot(new.x - old.x, new.y - old.y) > config.marker_tolerance_mm or turn > 2.0


def _box(mask: Image) -> tuple[int, int, int, int]:
    x, y, w, h = cv2.boundingRect(mask)
    return (int(x), int(y), int(w), int(h))


def fill_holes(mask: Image) -> Image:
    """The mask with enclosed holes filled (a pawn's glint, a die's pips)."""
    h, w = mask.shape
    flood = np.zeros((h + 2, w + 2), np.uint8)
    outside = (mask == 0).astype(np.uint8)
    cv2.floodFill(outside, flood, (0, 0), 2)
    filled: Image = np.where(outside == 1, 1, mask).astype(np.uint8)
    return filled


def _grow(corners: Sequence[tuple[float, float]], factor: float) -> list[tuple[float, float]]:
    c = np.array(corners, dtype=np.float64)
    m = c.mean(axis=0)
    return [(float(p[0]), float(p[1])) for p in m + (c - m) * factor]


def working_image(frame: Image, geometry: Geometry) -> Image:
    x0, y0, x1, y1 = geometry.crop
    crop = frame[y0:y1, x0:x1]
    if geometry.scale >= 1.0:
        return crop
    out: Image = cv2.resize(crop, geometry.size, interpolation=cv2.INTER_AREA)
    return out


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


class Reader:
    """Reads frames of one calibrated table; keeps the projected geometry between frames."""

    def __init__(
        self,
        calibration: Calibration,
        layout: Layout,
        config: VisionConfig = DEFAULT_CONFIG,
    ) -> None:
        if calibration.game != layout.game:
            raise VisionError(
                f"calibration is for {calibration.game} but layout {layout.name!r} is for "
                f"{layout.game}; calibrate with this layout"
            )
        self.calibration = calibration
        self.layout = layout
        self.config = config
        self.colours = calibration.colours.with_config(config)
        self.factors: dict[str, float] = dict(calibration.factors)
        # A calibrated factor is trusted more: a frame may move it only a little.
        self.spread = 1.15
        self.last_factors: dict[str, float] = {}
        self._poses: dict[str, Pose] = {k: Pose(*v) for k, v in calibration.movables.items()}
        self._geometry: Geometry | None = None
        self._movables: tuple[dict[str, Pose], dict[int, Pose]] = ({}, {})

    def geometry(
        self, tiles: Mapping[str, Pose] | None = None, courts: Mapping[int, Pose] | None = None
    ) -> Geometry:
        key = (dict(tiles or {}), dict(courts or {}))
        if self._geometry is None or key != self._movables:
            self._geometry = build_geometry(
                self.calibration, self.layout, tiles, courts, self.config
            )
            self._movables = key
        return self._geometry

    def check_frame(self, frame: object) -> Image:
        if not isinstance(frame, np.ndarray) or frame.ndim != 3 or frame.shape[2] != 3:
            raise NotAFrame("not a colour image (expected an H x W x 3 BGR array)")
        w, h = self.calibration.image_size
        if frame.shape[:2] != (h, w):
            raise NotAFrame(
                f"frame is {frame.shape[1]}x{frame.shape[0]} but the calibration was made at "
                f"{w}x{h}; use the same camera resolution or calibrate again"
            )
        return frame.astype(np.uint8, copy=False)

    def read(
        self,
        frame: Image,
        *,
        tiles: Mapping[str, Pose] | None = None,
        courts: Mapping[int, Pose] | None = None,
        frames: int = 1,
    ) -> Observation:
        """Read one (still, median) frame. Carolus tiles/cards are located if not given."""
        frame = self.check_frame(frame)
        assumed: list[str] = []
        if self.layout.game == "carolus-magnus" and tiles is None:
            tiles, courts, assumed = self._places_now(frame, courts)
        geo = self.geometry(tiles, courts)
        small = working_image(frame, geo)
        lab = cv2.cvtColor(small, cv2.COLOR_BGR2Lab)
        labels = self.colours.classify(lab)
        labels[geo.ignore] = BACKGROUND
        game = self.layout.game
        hand = hand_check(
            labels,
            lab,
            geo.hand_zone,
            geo.area_zone,
            geo.outside,
            geo.typical_footprint,
            self.config,
            geo.white,
        )
        if hand is not None:
            return Observation(game, occluded=True, unread={"board": hand}, frames=frames)
        obs = self._read_pieces(labels, lab, geo, tiles or {}, frames)
        if assumed:
            unread = dict(obs.unread)
            for key in assumed:
                unread[key] = "marker not seen; read where it lay before"
            obs = replace(obs, unread=unread)
        return obs

    def _places_now(
        self, frame: Image, courts: Mapping[int, Pose] | None
    ) -> tuple[dict[str, Pose], dict[int, Pose], list[str]]:
        """Tile and card places: as seen now, else where they lay before. A place that moved
        less than the markers' own jitter keeps its old value, so the geometry stays cached."""
        seen_tiles, seen_courts = locate_movables(frame, self.calibration, self.layout)
        seen: dict[str, Pose] = dict(seen_tiles)
        seen.update({f"court_{s}": p for s, p in seen_courts.items()})
        assumed = []
        for key in set(self._poses) | set(seen):
            new = seen.get(key)
            old = self._poses.get(key)
            if new is None:
                assumed.append(key)
            elif old is None or _moved(old, new, self.config):
                self._poses[key] = new
        tiles = {k: p for k, p in self._poses.items() if not k.startswith("court_")}
        cards = {int(k[6:]): p for k, p in self._poses.items() if k.startswith("court_")}
        return tiles, dict(courts) if courts is not None else cards, sorted(assumed)

    def read_still(
        self,
        frames: Sequence[Image],
        *,
        tiles: Mapping[str, Pose] | None = None,
        courts: Mapping[int, Pose] | None = None,
    ) -> Observation:
        """The median of a few frames, or an occluded observation if anything moved among them."""
        checked = [self.check_frame(f) for f in frames]
        thumbs = [thumbnail(f) for f in checked]
        for a, b in itertools.pairwise(thumbs):
            if is_moving(a, b, self.config):
                return Observation(
                    self.layout.game,
                    occluded=True,
                    unread={"board": "the scene moved between frames"},
                    frames=len(checked),
                )
        return self.read(median_frame(checked), tiles=tiles, courts=courts, frames=len(checked))

    # --- the stages after the hand check --------------------------------------------------------
    def _read_pieces(
        self,
        labels: Image,
        lab: Image,
        geo: Geometry,
        tiles: Mapping[str, Pose],
        frames: int,
    ) -> Observation:
        cfg = self.config
        layout = self.layout
        lightness = lab[..., 0]
        counts: dict[str, dict[str, int]] = {p.id: {} for p in geo.places}
        confidence: dict[str, float] = {p.id: 1.0 for p in geo.places}
        flags: dict[str, list[str]] = {}
        unread: dict[str, str] = {}
        figures: dict[str, str | None] = {}
        castles: dict[str, str] = {}
        in_tray = geo.tray > 0 if geo.tray is not None else None
        figure_list = figures_of(layout)
        cube_colours = (
            ("yellow", "green", "blue", "red", "black")
            if layout.game == "el-grande"
            else ("red", "blue", "yellow", "green", "pink")
        )
        drop_fringes(labels, lab, self.colours, cube_colours, cfg.fringe_px)
        masks: dict[str, Image] = {}
        for name in self.colours.names:
            m = (labels == self.colours.label(name)).astype(np.uint8) * 255
            if in_tray is not None:
                m[in_tray] = 0
            masks[name] = clean(m)

        def place_at(x: float, y: float) -> str | None:
            ix = min(max(int(x), 0), geo.size[0] - 1)
            iy = min(max(int(y), 0), geo.size[1] - 1)
            i = int(geo.place_map[iy, ix])
            if i:
                return geo.places[i - 1].id
            # A cube just outside the outline (pushed to the edge) goes to the nearest place.
            r = max(2, round(float(geo.side[iy, ix]) * 0.6))
            win = geo.place_map[max(0, iy - r) : iy + r + 1, max(0, ix - r) : ix + r + 1]
            vals = win[win > 0]
            return geo.places[int(np.bincount(vals).argmax()) - 1].id if vals.size else None

        # Pawns first: each removes its own pixels from its colour's mask.
        for fig in figure_list:
            if not fig.round_:
                continue
            mask = masks.get(fig.colour)
            if mask is None:
                continue
            found = self._find_figure(mask, fig, geo)
            if found is None:
                if fig.name in ("king", "charlemagne"):
                    figures[fig.name] = None
                    unread[fig.name] = "not seen on the board"
                continue
            (fx, fy), (x, y, body) = found
            figures[fig.name] = place_at(fx, fy)
            # The figure's own pixels are no cubes; a sliver of edge round it stays behind
            # and is too small to count.
            region = mask[y : y + body.shape[0], x : x + body.shape[1]]
            region[cv2.dilate(body, np.ones((3, 3), np.uint8)) > 0] = 0

        if layout.game == "carolus-magnus":
            castles = self._read_castles(lab, geo, place_at)

        measured: dict[str, list[Patch]] = {}
        factors: dict[str, float] = {}
        rois, groups = _piece_regions(masks, cube_colours)
        for colour in cube_colours:
            mask = masks.get(colour)
            if mask is None:
                continue
            # Counting by area: close the dark edge between a cube's top and its lit side, so
            # one cube is one blob (the seams still part the tops, see cubes.measure).
            closed = cv2.morphologyEx(mask, cv2.MORPH_CLOSE, np.ones((3, 3), np.uint8))
            measured[colour] = measure_in(
                rois, groups, closed, geo.footprint, geo.side, lightness, mask
            )
            grande = next((f for f in figure_list if f.colour == colour and not f.round_), None)
            if grande is not None:
                found_top = self._find_big_top(measured[colour], grande, geo)
                if found_top is not None:
                    figures[grande.name] = place_at(*found_top)
            factors[colour] = footprint_factor(
                measured[colour], self.factors.get(colour, cfg.top_factor), self.spread
            )
        # A colour seen only in clusters has no single to measure; the colours agree to
        # within a third, so the median of all keeps it in line.
        typical = float(np.median(list(factors.values()))) if factors else cfg.top_factor
        for colour, patches in measured.items():
            factor = min(max(factors[colour], typical / 1.35), typical * 1.35)
            self.last_factors[colour] = factor
            blobs = count_patches(patches, factor, cfg, split=geo.near_border)
            for blob in blobs:
                for cx, cy in blob.centres[: blob.cubes]:
                    pid = place_at(cx, cy)
                    if pid is None:
                        continue
                    counts[pid][colour] = counts[pid].get(colour, 0) + 1
                if blob.cubes == 0:
                    continue
                pid = place_at(*blob.centres[0])
                if pid is None:
                    continue
                confidence[pid] = min(confidence[pid], blob.confidence)
                if blob.residual > cfg.irregular_residual:
                    flags.setdefault(pid, []).append(f"irregular {colour} blob")
                if blob.seeds != round(blob.estimate):
                    flags.setdefault(pid, []).append(
                        f"{colour}: area says {round(blob.estimate)}, tops say {blob.seeds}"
                    )

        dice: tuple[str, ...] = ()
        if geo.tray is not None:
            dice = self._read_dice(lab, geo)
        for marker in layout.board_markers:
            if marker.id not in self.calibration.markers:
                unread[f"marker {marker.id}"] = (
                    f"not seen ({marker.where}); the board's place comes from the other markers"
                )
        if layout.game == "el-grande":
            unread["castillo"] = (
                "inside the tower: hidden by the rules, counted by the tower sensor"
            )
        else:
            missing = [t.id for t in layout.tiles if t.id not in tiles]
            for t in missing:
                unread[t] = "territory marker not seen"
        return Observation(
            game=layout.game,
            counts=counts,
            figures=figures,
            castles=castles,
            dice=dice,
            confidence=confidence,
            unread=unread,
            flags={k: tuple(v) for k, v in flags.items()},
            frames=frames,
        )

    def _find_figure(
        self, mask: Image, fig: Figure, geo: Geometry
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
        cube_half = float(self.layout.pieces["cube"]) / 2 * geo.mm_px
        threshold = (
            cube_half
            - self.config.edge_px
            + self.config.big_piece_radius_share * (radius_px - cube_half)
        )
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
            size = float(comp.sum()) / (math.pi * radius_px**2 * self.config.figure_area)
            weight = self.config.king_size_weight if fig.name == "king" else 0.0
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

    def _find_big_top(
        self, patches: list[Patch], fig: Figure, geo: Geometry
    ) -> tuple[float, float] | None:
        """A box figure (grande): the thickest bright top of its colour, if thick enough.

        Tops, not whole blobs: the seams between touching cubes keep each cube's top thin, so a
        block of cubes is no grande. The figure's top is taken out of its patch (in place), so
        it is not counted as cubes.
        """
        cube_half = float(self.layout.pieces["cube"]) / 2 * geo.mm_px
        half = fig.diameter / 2 * geo.mm_px
        threshold = (
            cube_half
            - self.config.edge_px
            + self.config.big_piece_radius_share * (half - cube_half)
        )
        best: tuple[float, int, int] | None = None
        for i, patch in enumerate(patches):
            for j, (_, thick, _, _) in enumerate(patch.tops):
                if thick >= threshold and (best is None or thick > best[0]):
                    best = (thick, i, j)
        if best is None:
            return None
        _, i, j = best
        patch = patches[i]
        area, _, fx, fy = patch.tops[j]
        rest = patch.tops[:j] + patch.tops[j + 1 :]
        share = area / max(1.0, sum(t[0] for t in patch.tops))
        patches[i] = replace(patch, tops=rest, area=max(0.0, patch.area * (1 - share)))
        return fx, fy

    def _read_castles(self, lab: Image, geo: Geometry, place_at: _PlaceAt) -> dict[str, str]:
        """Castles on the territories: neutral (hueless) blobs of a castle's size.

        Black, white and grey have no hue, and the grey castle is the grey of the mat, so
        castles are looked for only on the tiles, and told apart by their lightness against
        the tile's own (which follows the light over the table).
        """
        castle = self.layout.pieces.get("castle", {})
        width = float(castle.get("width", 13.0)) * geo.mm_px
        tile_ids = {t.id for t in self.layout.tiles}
        if geo.tile_mask is None:
            return {}
        bx, by, bw, bh = geo.tile_box
        sub = lab[by : by + bh, bx : bx + bw]
        on_tile = (
            geo.tile_mask[by : by + bh, bx : bx + bw] & ~geo.ignore[by : by + bh, bx : bx + bw]
        )
        chroma = np.hypot(
            sub[..., 1].astype(np.float32) - 128, sub[..., 2].astype(np.float32) - 128
        )
        neutral = (chroma <= self.config.castle_chroma) & on_tile
        # A pale tile in cold light is nearly hueless too: a castle must also stand out
        # from its own tile's colour.
        neutral &= _unlike_own_place(sub, geo.place_map[by : by + bh, bx : bx + bw], on_tile) > (
            self.config.castle_contrast
        )
        kernel = np.ones((2, 2), np.uint8)
        mask = cv2.morphologyEx(neutral.astype(np.uint8), cv2.MORPH_OPEN, kernel)
        n, labels, stats, centroids = cv2.connectedComponentsWithStats(mask, connectivity=8)
        centroids = np.asarray(centroids) + np.array([bx, by])
        place_sub = geo.place_map[by : by + bh, bx : bx + bw]
        light = sub[..., 0]
        out: dict[str, str] = {}
        for i in range(1, n):
            if stats[i, cv2.CC_STAT_AREA] < self.config.castle_min_area * width * width:
                continue  # the tile's printed name, a marker's white margin
            x, y, w, h = (int(v) for v in stats[i, :4])
            part = np.pad((labels[y : y + h, x : x + w] == i).astype(np.uint8), 1)
            if cv2.distanceTransform(part, cv2.DIST_L2, 3).max() < (
                self.config.castle_thickness * width
            ):
                continue  # a thin strip: the mat along a tile's edge, a cube's pale rim
            pid = place_at(float(centroids[i][0]), float(centroids[i][1]))
            if pid is None or pid not in tile_ids:
                continue
            index = next(k for k, p in enumerate(geo.places) if p.id == pid)
            tile_light = float(np.median(light[(place_sub == index + 1) & ~neutral]))
            # The lower third of its lightness: a white castle's shaded side is still light,
            # a black one's lit bevel and top are still dark.
            top = float(np.percentile(light[labels == i], 30)) / max(1.0, tile_light)
            if top >= self.config.white_castle_share:
                out[pid] = "white"
            elif top >= self.config.grey_castle_share:
                out[pid] = "grey"
            else:
                out[pid] = "black"
        return dict(sorted(out.items()))

    def _read_dice(self, lab: Image, geo: Geometry) -> tuple[str, ...]:
        """Top faces of the dice in the tray: the colour spot on each white die, or a crown.

        A die is whatever in the tray is far from the tray's own colour; its face symbol is its
        saturated pixels. The crown is gold, close to yellow: its ragged shape (low solidity)
        tells it from the round yellow spot.
        """
        assert geo.tray is not None
        die_mm = float(self.layout.pieces.get("die", 16.0))
        die_area = (die_mm * geo.mm_px) ** 2
        tx, ty, tw, th = geo.tray_box
        tray = (geo.tray[ty : ty + th, tx : tx + tw] > 0) & ~geo.ignore[ty : ty + th, tx : tx + tw]
        if not tray.any():
            return ()
        pix = lab[ty : ty + th, tx : tx + tw].astype(np.float32)
        ref = np.median(pix[tray], axis=0)
        d = np.sqrt(
            (L_WEIGHT * (pix[..., 0] - ref[0])) ** 2
            + (pix[..., 1] - ref[1]) ** 2
            + (pix[..., 2] - ref[2]) ** 2
        )
        chroma = np.hypot(pix[..., 1] - 128, pix[..., 2] - 128)
        # A die: far from the tray's colour, or its saturated face spot (in a dim frame the
        # white die is a mid grey, close to a dark tray; its spot still has colour).
        body = ((d > self.config.die_contrast) | (chroma >= self.config.die_spot_chroma)) & tray
        body = body.astype(np.uint8)
        body = cv2.morphologyEx(body, cv2.MORPH_OPEN, np.ones((2, 2), np.uint8))
        n, labels, stats, centroids = cv2.connectedComponentsWithStats(body, connectivity=8)
        faces: list[tuple[float, float, str]] = []
        refs = dict(self.colours.pieces)
        refs["crown"] = (bgr_to_lab(CROWN_BGR),)
        for i in range(1, n):
            x, y, w, h, area = (int(v) for v in stats[i])
            if area < 0.4 * die_area:
                continue
            comp = fill_holes((labels[y : y + h, x : x + w] == i).astype(np.uint8))
            spot = (comp > 0) & (chroma[y : y + h, x : x + w] >= self.config.die_spot_chroma)
            if not spot.any():
                continue
            med = np.median(pix[y : y + h, x : x + w][spot], axis=0)
            colour = min(
                (name for name in refs if name in CAROLUS_FACES),
                key=lambda name: lab_distance(
                    (float(med[0]), float(med[1]), float(med[2])), refs[name][0]
                ),
            )
            if colour in ("yellow", "crown"):
                # Shape decides when both clues agree (ragged and small: crown; round and
                # big: yellow spot); otherwise the nearer of the two colours stands.
                ragged = _solidity(spot) < self.config.crown_solidity
                small = spot.sum() < self.config.crown_area_share * die_area
                if ragged == small:
                    colour = "crown" if ragged else "yellow"
            for _ in range(max(1, round(area / (die_area * 1.25)))):
                faces.append((float(centroids[i][1]) + ty, float(centroids[i][0]) + tx, colour))
        return tuple(name for _, _, name in sorted(faces))


def _unlike_own_place(lab: Image, places: Image, where: npt.NDArray[Any]) -> FloatArray:
    """Lab distance (lightness at half weight) of each pixel from its place's median colour
    (the place's own print, as pieces cover little of it)."""
    pix = lab.astype(np.float32)
    refs = np.zeros((int(places.max()) + 1, 3), np.float32)
    # Every third pixel of every third row is plenty for a median; grouped by place at once.
    step = where[::3, ::3]
    index = places[::3, ::3][step]
    values = pix[::3, ::3][step]
    order = np.argsort(index, kind="stable")
    index, values = index[order], values[order]
    starts = np.flatnonzero(np.r_[True, index[1:] != index[:-1]])
    for start, end in zip(starts, np.r_[starts[1:], index.size], strict=True):
        refs[index[start]] = np.median(values[start:end], axis=0)
    ref = refs[places]
    d: FloatArray = np.sqrt(
        (L_WEIGHT * (pix[..., 0] - ref[..., 0])) ** 2
        + (pix[..., 1] - ref[..., 1]) ** 2
        + (pix[..., 2] - ref[..., 2]) ** 2
    )
    return d


def _solidity(mask: npt.NDArray[Any]) -> float:
    """Area over convex hull area of the largest patch of a mask (1.0 for a disc)."""
    m = mask.astype(np.uint8)
    contours, _ = cv2.findContours(m, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
    if not contours:
        return 1.0
    c = max(contours, key=cv2.contourArea)
    hull = cv2.contourArea(cv2.convexHull(c))
    return float(cv2.contourArea(c)) / hull if hull > 0 else 1.0


def read_frame(
    frame: Image,
    calibration: Calibration,
    layout: Layout,
    config: VisionConfig = DEFAULT_CONFIG,
) -> Observation:
    """One frame, one observation (no still gate: for a photo of a table at rest)."""
    return Reader(calibration, layout, config).read(frame)
