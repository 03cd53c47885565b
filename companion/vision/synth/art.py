"""Board art: the flat picture of the table seen straight from above, in board millimetres.

The static part (table, board, regions, names, fixed markers) is cached per layout and scale;
per render only the movable flat things (Carolus tiles and court cards, scoreboards) are added.
"""

from __future__ import annotations

import functools
import math
import unicodedata
from dataclasses import dataclass

import cv2
import numpy as np
from numpy.typing import NDArray

from companion.vision.layout import CAROLUS_COLOURS, Layout, MarkerSpec, Polygon, Pose
from companion.vision.synth.scene import Scene

U8 = NDArray[np.uint8]

TABLE = (62, 92, 128)  # BGR: a wooden table
EG_BOARD = (150, 190, 205)
EG_SEA = (170, 150, 120)
EG_REGION_FILLS = {
    "galicia": (160, 200, 185),
    "pais_vasco": (170, 205, 220),
    "aragon": (150, 190, 215),
    "cataluna": (175, 215, 200),
    "castilla_la_vieja": (140, 200, 225),
    "castilla_la_nueva": (165, 220, 230),
    "sevilla": (150, 205, 210),
    "granada": (175, 200, 225),
    "valencia": (160, 215, 215),
}
CM_MAT = (120, 112, 100)
CM_TILE = (150, 200, 180)
CM_CARD = (225, 235, 240)
INK = (40, 45, 55)

# BGR of the painted dots on court cards (the cubes' own colours live in pieces.py).
DOT_COLOURS = {
    "red": (40, 40, 200),
    "blue": (190, 100, 30),
    "yellow": (40, 205, 235),
    "green": (60, 160, 50),
    "pink": (180, 120, 240),
}


@dataclass(frozen=True)
class Canvas:
    """Where the texture sits on the board: board mm → texture pixel."""

    x0: float
    y0: float
    scale: float  # pixels per mm
    width: int
    height: int

    def px(self, point: tuple[float, float]) -> tuple[float, float]:
        return ((point[0] - self.x0) * self.scale, (point[1] - self.y0) * self.scale)

    def poly(self, polygon: Polygon | list[tuple[float, float]]) -> NDArray[np.int32]:
        pts = np.array([self.px(p) for p in polygon], dtype=np.float64)
        return np.round(pts * 16).astype(np.int32)  # 4 fractional bits for cv2 shift=4


def table_extent(layout: Layout, margin: float = 40.0) -> tuple[float, float, float, float]:
    """The rectangle of the table (board mm) worth drawing: board, areas and the ring."""
    w, h = layout.board_size
    xs, ys = [0.0, w], [0.0, h]
    for area in layout.areas:
        x0, y0, x1, y1 = area.polygon.bbox
        xs += [x0, x1]
        ys += [y0, y1]
    if layout.ring is not None:
        cx, cy = layout.ring.center
        reach = layout.ring.radius + 70
        xs += [cx - reach, cx + reach]
        ys += [cy - reach, cy + reach]
    if layout.court_card is not None:
        for c in layout.courts:
            x0, y0, x1, y1 = layout.court_polygon(c.home).bbox
            xs += [x0, x1]
            ys += [y0, y1]
    return (min(xs) - margin, min(ys) - margin, max(xs) + margin, max(ys) + margin)


def ascii_label(text: str) -> str:
    """OpenCV's Hershey fonts draw ASCII only."""
    return unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode()


def _fill(
    img: U8,
    canvas: Canvas,
    polygon: Polygon | list[tuple[float, float]],
    colour: tuple[int, int, int],
) -> None:
    cv2.fillPoly(img, [canvas.poly(polygon)], colour, cv2.LINE_AA, shift=4)


def _outline(
    img: U8,
    canvas: Canvas,
    polygon: Polygon | list[tuple[float, float]],
    colour: tuple[int, int, int],
    width_mm: float,
) -> None:
    thickness = max(1, round(width_mm * canvas.scale))
    cv2.polylines(img, [canvas.poly(polygon)], True, colour, thickness, cv2.LINE_AA, shift=4)


def _text(
    img: U8,
    canvas: Canvas,
    text: str,
    centre: tuple[float, float],
    height_mm: float,
    colour: tuple[int, int, int] = INK,
    angle: float = 0.0,
) -> None:
    text = ascii_label(text)
    font = cv2.FONT_HERSHEY_DUPLEX
    scale = height_mm * canvas.scale / 22.0
    thickness = max(1, round(scale * 1.6))
    (tw, th), _ = cv2.getTextSize(text, font, scale, thickness)
    if angle == 0.0:
        x, y = canvas.px(centre)
        cv2.putText(
            img,
            text,
            (round(x - tw / 2), round(y + th / 2)),
            font,
            scale,
            colour,
            thickness,
            cv2.LINE_AA,
        )
        return
    # Rotated text: draw on a patch, then paste it turned (only the ink pixels).
    pad = 4
    patch = np.zeros((th * 2 + pad * 2, tw + pad * 2), np.uint8)
    cv2.putText(patch, text, (pad, th + pad), font, scale, 255, thickness, cv2.LINE_AA)
    cx, cy = canvas.px(centre)
    m = cv2.getRotationMatrix2D((patch.shape[1] / 2, th / 2 + pad), -angle, 1.0)
    m[0, 2] += cx - patch.shape[1] / 2
    m[1, 2] += cy - (th / 2 + pad)
    mask = cv2.warpAffine(patch, m, (img.shape[1], img.shape[0]))
    img[mask > 128] = colour


@functools.lru_cache(maxsize=64)
def marker_image(marker_id: int, pixels: int) -> U8:
    dictionary = cv2.aruco.getPredefinedDictionary(cv2.aruco.DICT_4X4_50)
    return np.asarray(cv2.aruco.generateImageMarker(dictionary, marker_id, pixels), np.uint8)


def draw_marker(img: U8, canvas: Canvas, marker: MarkerSpec, pose: Pose | None = None) -> None:
    """An ArUco sticker: white margin of one cell, then the black-bordered code."""
    corners = marker.corners(pose)
    cell = marker.size / 6  # DICT_4X4 with its 1-cell border is 6 cells a side
    ctr = (sum(p[0] for p in corners) / 4, sum(p[1] for p in corners) / 4)
    grow = (marker.size / 2 + cell) / (marker.size / 2)
    margin = [(ctr[0] + (x - ctr[0]) * grow, ctr[1] + (y - ctr[1]) * grow) for x, y in corners]
    _fill(img, canvas, margin, (245, 245, 245))
    side = max(24, round(marker.size * canvas.scale * 2))
    code = marker_image(marker.id, side)
    dst = np.array([canvas.px(p) for p in corners], dtype=np.float32)
    x0, y0 = np.floor(dst.min(axis=0)).astype(int) - 2
    x1, y1 = np.ceil(dst.max(axis=0)).astype(int) + 2
    x0, y0 = max(x0, 0), max(y0, 0)
    x1, y1 = min(x1, img.shape[1]), min(y1, img.shape[0])
    if x1 <= x0 or y1 <= y0:
        return
    src = np.array([[0, 0], [side, 0], [side, side], [0, side]], dtype=np.float32)
    m = cv2.getPerspectiveTransform(src, dst - np.array([x0, y0], dtype=np.float32))
    roi = img[y0:y1, x0:x1]
    warped = cv2.warpPerspective(code, m, (x1 - x0, y1 - y0), flags=cv2.INTER_AREA)
    alpha = cv2.warpPerspective(np.full_like(code, 255), m, (x1 - x0, y1 - y0))
    a = (alpha.astype(np.float32) / 255.0)[..., None]
    roi[:] = (roi * (1 - a) + warped[..., None] * a).astype(np.uint8)


def canvas_for(layout: Layout, scale: float) -> Canvas:
    x0, y0, x1, y1 = table_extent(layout)
    return Canvas(x0, y0, scale, math.ceil((x1 - x0) * scale), math.ceil((y1 - y0) * scale))


@functools.lru_cache(maxsize=8)
def base_art(layout: Layout, scale: float) -> tuple[U8, Canvas]:
    """The static table picture (cached: treat the array as read-only)."""
    canvas = canvas_for(layout, scale)
    img = np.empty((canvas.height, canvas.width, 3), np.uint8)
    img[:] = TABLE if layout.game == "el-grande" else CM_MAT
    rng = np.random.default_rng(7)
    grain = rng.normal(0, 4, (canvas.height // 8 + 1, canvas.width // 8 + 1)).astype(np.float32)
    grain = np.asarray(
        cv2.resize(grain, (canvas.width, canvas.height), interpolation=cv2.INTER_CUBIC), np.float32
    )
    img[:] = np.clip(img + grain[..., None], 0, 255).astype(np.uint8)
    w, h = layout.board_size
    board = [(0.0, 0.0), (w, 0.0), (w, h), (0.0, h)]
    if layout.game == "el-grande":
        _fill(img, canvas, board, EG_BOARD)
        x0, y0, x1, y1 = _regions_bbox(layout)
        _fill(img, canvas, [(x0, y0), (x1, y0), (x1, y1), (x0, y1)], EG_SEA)
        for area in layout.areas:
            if area.kind == "region":
                _fill(img, canvas, area.polygon, EG_REGION_FILLS.get(area.id, (170, 200, 210)))
        for area in layout.areas:
            if area.kind == "region":
                _outline(img, canvas, area.polygon, (60, 70, 90), 1.2)
                cx, cy = area.polygon.centroid
                _text(img, canvas, area.label, (cx, cy), 7.0, (80, 90, 110))
            elif area.kind in ("court", "scoreboard_rest"):
                _fill(img, canvas, area.polygon, (175, 205, 215))
                _outline(img, canvas, area.polygon, (100, 120, 140), 0.8)
                x0a, y0a, x1a, y1a = area.polygon.bbox
                _text(img, canvas, area.label, ((x0a + x1a) / 2, y0a + 6), 5.0, (100, 120, 140))
            elif area.kind == "castillo":
                _fill(img, canvas, area.polygon, (90, 110, 140))
        _outline(img, canvas, board, (60, 80, 100), 2.0)
    else:
        _fill(img, canvas, board, (128, 122, 110))
        for area in layout.areas:
            colour = (80, 85, 90) if area.kind == "dice_tray" else (140, 135, 125)
            _fill(img, canvas, area.polygon, colour)
            _outline(img, canvas, area.polygon, (200, 200, 195), 0.8)
            x0a, y0a, x1a, y1a = area.polygon.bbox
            _text(img, canvas, area.label, ((x0a + x1a) / 2, y1a - 5), 5.0, (200, 200, 195))
    for marker in layout.board_markers:
        draw_marker(img, canvas, marker)
    img.setflags(write=False)
    return img, canvas


def _regions_bbox(layout: Layout) -> tuple[float, float, float, float]:
    boxes = [a.polygon.bbox for a in layout.areas if a.kind == "region"]
    return (
        min(b[0] for b in boxes) - 12,
        min(b[1] for b in boxes) - 12,
        max(b[2] for b in boxes) + 12,
        max(b[3] for b in boxes) + 12,
    )


def draw_flats(img: U8, canvas: Canvas, layout: Layout, scene: Scene) -> None:
    """Tiles, court cards and scoreboards, painted onto a copy of the base art."""
    for flat in scene.flats:
        if flat.kind == "tile":
            poly = scene.tile_areas[flat.id]
            _fill(img, canvas, poly, CM_TILE)
            _outline(img, canvas, poly, (70, 100, 90), 1.0)
            draw_marker(img, canvas, layout.tile_marker(flat.id), flat.pose)
            _text(
                img, canvas, flat.id, flat.pose.apply((0, 31)), 4.5, (70, 100, 90), flat.pose.angle
            )
        elif flat.kind == "court_card":
            assert layout.court_card is not None
            seat = int(flat.id.split("_")[1])
            _fill(img, canvas, layout.court_polygon(flat.pose), CM_CARD)
            _outline(img, canvas, layout.court_polygon(flat.pose), (120, 130, 140), 0.8)
            for colour in CAROLUS_COLOURS:
                row = layout.court_row_polygon(colour, flat.pose)
                _outline(img, canvas, row, (200, 205, 210), 0.5)
                x0, y0, _, y1 = layout.court_card.row(colour).bbox
                dot = flat.pose.apply((x0 + 4.0, (y0 + y1) / 2))
                cv2.circle(
                    img,
                    tuple(round(v * 16) for v in canvas.px(dot)),
                    round(3.2 * canvas.scale * 16),
                    DOT_COLOURS[colour],
                    -1,
                    cv2.LINE_AA,
                    shift=4,
                )
            draw_marker(img, canvas, layout.court_marker(seat), flat.pose)
        elif flat.kind == "scoreboard":
            p = flat.pose
            card = [p.apply(q) for q in ((-15, -10), (15, -10), (15, 10), (-15, 10))]
            _fill(img, canvas, card, (200, 225, 235))
            _outline(img, canvas, card, (60, 70, 90), 0.8)
            _text(img, canvas, flat.label, (p.x, p.y), 6.0, (30, 30, 120), p.angle)
