"""Where things are in the working image: the places cubes are counted in, their outlines
projected from board mm, each cube's size at each pixel, and the masks of what is not read.

Built once per calibration and tile placement (:class:`~companion.vision.pipeline.Reader` keeps
it between frames); frames are never warped.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import cv2
import numpy as np
import numpy.typing as npt

from companion.vision import homography as hg
from companion.vision import standing
from companion.vision.calibration import Calibration
from companion.vision.config import DEFAULT_CONFIG, VisionConfig
from companion.vision.layout import Layout, Polygon, Pose

Image = npt.NDArray[Any]


_ANGLES = [2 * math.pi * k / 16 for k in range(16)]


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
    readable: Image  # 0 where ``ignore``, else 255: a mask that clears the ignored labels
    tray: Image | None
    mm_px: float  # working pixels per board mm at the board centre
    hand_zone: npt.NDArray[Any]  # where a hand matters, at half resolution
    area_zone: npt.NDArray[Any]  # the areas and places, at half resolution
    outside: npt.NDArray[Any]  # off the board, at half resolution
    white: npt.NDArray[Any]  # flat indices of the board markers' paper (with their margins)
    typical_footprint: float
    tray_box: tuple[int, int, int, int] = (0, 0, 0, 0)
    tile_mask: npt.NDArray[Any] | None = None
    # Where a tall piece's (the Castillo tower's) shadow may fall: a box (x, y, w, h) of the
    # working image and the zone within it (empty: no tall piece).
    shadow_box: tuple[int, int, int, int] = (0, 0, 0, 0)
    shadow_zone: npt.NDArray[Any] | None = None
    shadow_side: float = 0.0  # a cube's side there (the median, px)
    # Where black must be darker than a shadow (shadows.py): the tower's shadow zone, or all
    # of the board that is read when the set-up's black is light (config.dark_black_lightness).
    # (Grey tops stay unread in the tower's zone only, ``shadow_zone``: grey there is its
    # shadow.)
    dark_box: tuple[int, int, int, int] = (0, 0, 0, 0)
    dark_zone: npt.NDArray[Any] | None = None
    dark_side: float = 0.0
    tile_box: tuple[int, int, int, int] = (0, 0, 0, 0)
    # The bare mat where a castle standing at a tile's edge may show its top (the tile's
    # outline raised to a castle's height): that tile's place code there, 0 elsewhere.
    castle_reach: npt.NDArray[Any] | None = None
    # Each tile's marker corners (working px, ArUco order): its paper and ink are the light's
    # white and black references on that tile (castles.py).
    tile_markers: Mapping[str, npt.NDArray[Any]] = field(default_factory=dict)


def tile_polygons(layout: Layout, tiles: Mapping[str, Pose]) -> dict[str, Polygon]:
    return {t: layout.tile_polygon(t, pose) for t, pose in tiles.items()}


def locate_movables(
    frame: Image, calibration: Calibration, layout: Layout
) -> tuple[dict[str, Pose], dict[int, Pose]]:
    """Poses (board mm) of the Carolus territory tiles and court cards seen in a frame."""
    # The detector's sharper looks run while a wanted marker is missing: a seat's card not in
    # play (once the calibration knows the seats) is not wanted, else they would run on every
    # search of a table with fewer players than cards.
    want = [t.marker for t in layout.tiles]
    seats = calibration.courts_in_play or tuple(c.seat for c in layout.courts)
    want += [layout.court_marker(s).id for s in seats]
    detected = hg.detect_markers(frame, want=want)
    tiles: dict[str, Pose] = {}
    courts: dict[int, Pose] = {}
    for marker_id, corners in detected.items():
        tile = layout.tile_by_marker(marker_id)
        court = layout.court_by_marker(marker_id)
        if tile is None and court is None:
            continue
        pose = _pose_of(corners, calibration)
        if tile is not None:
            tiles[tile.id] = pose
        elif court is not None:
            courts[court.seat] = pose
    return tiles, courts


def _pose_of(corners: npt.NDArray[Any], calibration: Calibration) -> Pose:
    """A movable marker's pose (board mm) from its corners in the image."""
    b = hg.unproject(calibration.h, corners, calibration.lens)
    centre = b.mean(axis=0)
    edge = b[1] - b[0]
    return Pose(float(centre[0]), float(centre[1]), math.degrees(math.atan2(edge[1], edge[0])))


def movables_in_windows(
    frame: Image, calibration: Calibration, layout: Layout, poses: Mapping[str, Pose]
) -> dict[str, Pose]:
    """The tiles' and cards' poses now (``poses``: where they lay, by tile id or
    ``court_<seat>``) of those whose marker is seen in a small window round where it lay. A
    still table costs a few small searches, not one over the whole frame."""
    h_img, w_img = frame.shape[:2]
    out: dict[str, Pose] = {}
    for key, pose in poses.items():
        spec = (
            layout.court_marker(int(key[6:]))
            if key.startswith("court_")
            else layout.tile_marker(key)
        )
        c = hg.project(calibration.h, list(spec.corners(pose)), calibration.lens)
        x0, y0 = np.floor(c.min(axis=0)).astype(int)
        x1, y1 = np.ceil(c.max(axis=0)).astype(int)
        # (As calibration.markers_moved looks for the board's markers: half a marker round.)
        pad = max(8, int(x1 - x0) // 2)
        x0, y0 = max(0, int(x0) - pad), max(0, int(y0) - pad)
        x1, y1 = min(w_img, int(x1) + pad), min(h_img, int(y1) + pad)
        if x1 - x0 < 8 or y1 - y0 < 8:
            continue
        found = hg.detect_markers(frame[y0:y1, x0:x1], want=[spec.id]).get(spec.id)
        if found is not None:
            out[key] = _pose_of(found + np.array([x0, y0], np.float64), calibration)
    return out


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
    corners = hg.project_outline(h, [(0, 0), (bw, 0), (bw, bh), (0, bh)], lens)
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

    def image_to_work(p: npt.NDArray[Any]) -> npt.NDArray[Any]:
        return np.round((p - (x0, y0)) * scale).astype(np.int32)

    def to_work(points: Sequence[tuple[float, float]]) -> npt.NDArray[Any]:
        return image_to_work(hg.project_outline(h, points, lens))

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
    # away from the camera in the image, so its whole neighbourhood is left out, and all of
    # the tower as the camera's pose shows it: foot to top, grown by its shadow's soft edge.
    for area in layout.areas_of_kind("castillo"):
        cv2.fillPoly(ignore, [to_work(_grow(area.polygon.points, 1.7))], 1)
        hull = _standing_hull(calibration, area.polygon.points, config.tower_height, config)
        cv2.fillConvexPoly(ignore, to_work(_grow(hull, config.tower_margin)), 1)
    # ... and its shadow falls somewhere round it (the lamp may stand anywhere), as dark as
    # black on the pale print: there black must be darker than a shadow (shadows.py).
    shadow = np.zeros_like(ignore)
    far = config.tower_shadow_reach * config.tower_height
    for area in layout.areas_of_kind("castillo"):
        ring = [
            (x + far * math.cos(t), y + far * math.sin(t))
            for x, y in area.polygon.points
            for t in _ANGLES
        ]
        around = cv2.convexHull(np.array(ring, np.float32)).reshape(-1, 2)
        cv2.fillConvexPoly(shadow, to_work([(float(x), float(y)) for x, y in around]), 1)
    shadow[ignore > 0] = 0
    shadow_box = _box(shadow)
    sx, sy, sw, sh = shadow_box
    shadow_zone = shadow[sy : sy + sh, sx : sx + sw] > 0
    shadow_side = float(np.median(side[sy : sy + sh, sx : sx + sw])) if sw and sh else 0.0
    dark_box, dark_zone, dark_side = shadow_box, shadow_zone, shadow_side
    black = calibration.colours.pieces.get("black")
    if black and black[0][0] >= config.dark_black_lightness:
        readable = ignore == 0
        dark_box = _box(readable.view(np.uint8))
        dx, dy, dw, dh = dark_box
        dark_zone = readable[dy : dy + dh, dx : dx + dw]
        dark_side = float(np.median(side[readable])) if dw and dh else 0.0
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
    castle_reach = _castle_reach(
        calibration, layout, places, place_map, ignore, image_to_work, config
    )
    seen = tile_mask if castle_reach is None else tile_mask | (castle_reach > 0)
    return Geometry(
        # A hand anywhere over the board matters, over bare mat too: it is about to move
        # something.
        hand_zone=((ignore == 0) & (tower == 0) & (inner > 0))[::2, ::2],
        area_zone=(on_board & (loose == 0))[::2, ::2],
        outside=outside,
        white=np.flatnonzero(white),
        typical_footprint=float(np.median((side * side)[on_board])) if on_board.any() else 81.0,
        tray_box=_box(tray) if tray is not None else (0, 0, 0, 0),
        shadow_box=shadow_box,
        shadow_zone=shadow_zone,
        shadow_side=shadow_side,
        dark_box=dark_box,
        dark_zone=dark_zone,
        dark_side=dark_side,
        tile_mask=tile_mask if tile_mask.any() else None,
        tile_box=_box(seen.astype(np.uint8)),
        castle_reach=castle_reach,
        tile_markers={
            t: to_work(layout.tile_marker(t).corners(pose)) for t, pose in (tiles or {}).items()
        },
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
        readable=np.where(ignore > 0, 0, 255).astype(np.uint8),
        tray=tray,
        mm_px=cube_px * scale / cube_mm,
    )


def _castle_reach(
    calibration: Calibration,
    layout: Layout,
    places: Sequence[Place],
    place_map: Image,
    ignore: Image,
    image_to_work: Callable[[Image], Image],
    config: VisionConfig,
) -> Image | None:
    """:attr:`Geometry.castle_reach`: each tile's outline raised to a castle's height, where it
    falls on bare mat (None without tiles). Seen from the camera, a piece's top lies further
    out than its foot: a castle at a tile's outer edge shows its top over the mat and only its
    shaded side on the tile (its body then reads as dark as a grey castle's)."""
    castle = layout.pieces.get("castle")
    tile_ids = {t.id for t in layout.tiles}
    if not isinstance(castle, Mapping) or not tile_ids:
        return None
    raised, lens = standing.raised_view(calibration, float(castle.get("height", 16.0)), config)
    reach = np.zeros_like(place_map)
    for index, place in enumerate(places):
        if place.id in tile_ids:
            outline = hg.project_outline(raised, place.polygon.points, lens)
            cv2.fillPoly(reach, [image_to_work(outline)], index + 1)
    reach[(place_map != 0) | (ignore != 0)] = 0
    return reach if reach.any() else None


def _standing_hull(
    calibration: Calibration,
    foot: Sequence[tuple[float, float]],
    height: float,
    config: VisionConfig,
) -> list[tuple[float, float]]:
    """Board-mm outline (convex hull) of where a piece standing on ``foot``, ``height`` mm
    tall, shows in the image: its foot and its top, raised by the camera's pose (standing.py),
    brought back down to the board's plane."""
    raised, lens = standing.raised_view(calibration, height, config)
    top = hg.unproject(calibration.h, hg.project(raised, foot, lens), lens)
    points = np.vstack([np.asarray(foot, np.float64), top]).astype(np.float32)
    hull = cv2.convexHull(points).reshape(-1, 2)
    return [(float(x), float(y)) for x, y in hull]


def _box(mask: Image) -> tuple[int, int, int, int]:
    x, y, w, h = cv2.boundingRect(mask)
    return (int(x), int(y), int(w), int(h))


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


def place_of(geo: Geometry, x: float, y: float) -> str | None:
    """The place (id) a working-image point lies in."""
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


def places_of(geo: Geometry, points: npt.NDArray[np.float64]) -> list[str | None]:
    """:func:`place_of` of each point (N x 2), the places' map looked up for all at once."""
    w, h = geo.size
    # (NumPy's trunc is Python's int() of a float: towards zero, then kept on the image.)
    ix = np.clip(np.trunc(points[:, 0]), 0, w - 1).astype(np.intp)
    iy = np.clip(np.trunc(points[:, 1]), 0, h - 1).astype(np.intp)
    ids = [None, *(p.id for p in geo.places)]
    return [
        ids[i] if i else place_of(geo, x, y)
        for i, (x, y) in zip(geo.place_map[iy, ix].tolist(), points.tolist(), strict=True)
    ]
