"""A tiny table painter for stage tests: flat board, real ArUco markers, square cubes.

Independent of the project's renderer on purpose, so each stage is tested on an image whose
every cube we placed ourselves. Board mm are painted at ``PX_MM`` px/mm, then warped by a mild
perspective into the camera frame, like a camera a little off vertical.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import cv2
import numpy as np

from companion.vision.colour import NOMINAL_BGR
from companion.vision.layout import Layout, Pose

PX_MM = 2.0
BOARD_BGR = (200, 215, 222)
EDGE_BGR = (120, 130, 140)


@dataclass
class Table:
    layout: Layout
    cubes: list[tuple[str, float, float]] = field(default_factory=list)  # colour, x, y (mm)
    squares: list[tuple[str, float, float, float]] = field(default_factory=list)  # + side mm
    discs: list[tuple[str, float, float, float]] = field(default_factory=list)  # + diameter
    tiles: dict[str, Pose] = field(default_factory=dict)
    hand: tuple[float, float] | None = None
    crown_dice: list[tuple[float, float]] = field(default_factory=list)


def marker_image(marker_id: int, px: int) -> Any:
    d = cv2.aruco.getPredefinedDictionary(cv2.aruco.DICT_4X4_50)
    return cv2.aruco.generateImageMarker(d, marker_id, px)


def paint(table: Table, size: tuple[int, int] = (960, 720), tilt: float = 0.04) -> Any:
    layout = table.layout
    bw, bh = layout.board_size
    W, H = round(bw * PX_MM), round(bh * PX_MM)
    img = np.full((H, W, 3), 245, np.uint8)

    def px(p: Sequence[float]) -> tuple[int, int]:
        return (round(p[0] * PX_MM), round(p[1] * PX_MM))

    def poly(points: Sequence[Sequence[float]], colour: tuple[int, int, int]) -> None:
        pts = np.array([px(p) for p in points], np.int32)
        cv2.fillPoly(img, [pts], colour)
        cv2.polylines(img, [pts], True, EDGE_BGR, 1)

    for area in layout.areas:
        poly(area.polygon.points, BOARD_BGR)
    for tid, pose in table.tiles.items():
        poly(layout.tile_polygon(tid, pose).points, BOARD_BGR)

    def marker(mid: int, corners: Sequence[Sequence[float]], size_mm: float) -> None:
        side = round(size_mm * PX_MM)
        m = cv2.cvtColor(marker_image(mid, side), cv2.COLOR_GRAY2BGR)
        # A white quiet zone round the marker, as on the printed sheet.
        m = cv2.copyMakeBorder(m, side // 6, side // 6, side // 6, side // 6, 0, value=(255,) * 3)
        s = m.shape[0]
        c = np.array(corners, np.float64)
        centre = c.mean(axis=0)
        grown = centre + (c - centre) * (s / side)
        src = np.array([[0, 0], [s, 0], [s, s], [0, s]], np.float32)
        dst = (grown * PX_MM).astype(np.float32)
        h = cv2.getPerspectiveTransform(src, dst)
        warped = cv2.warpPerspective(m, h, (W, H), borderValue=(0, 0, 0))
        mask = cv2.warpPerspective(np.full((s, s), 255, np.uint8), h, (W, H))
        img[mask > 0] = warped[mask > 0]

    for m in layout.board_markers:
        marker(m.id, m.corners(), m.size)
    for tid, pose in table.tiles.items():
        spec = layout.tile_marker(tid)
        marker(spec.id, spec.corners(pose), spec.size)

    cube = float(layout.pieces["cube"])
    for colour, x, y in table.cubes:
        table.squares.append((colour, x, y, cube))
    for colour, x, y, side in table.squares:
        h = side / 2
        pts = np.array([px((x - h, y - h)), px((x + h, y + h))])
        cv2.rectangle(img, tuple(pts[0]), tuple(pts[1] - 1), NOMINAL_BGR[colour], -1)
        dark = tuple(int(v * 0.6) for v in NOMINAL_BGR[colour])
        cv2.rectangle(img, tuple(pts[0]), tuple(pts[1] - 1), dark, 2)  # bevelled edge
    for colour, x, y, d in table.discs:
        cv2.circle(img, px((x, y)), round(d / 2 * PX_MM), NOMINAL_BGR[colour], -1)
    for x, y in table.crown_dice:
        side = float(layout.pieces.get("die", 16))
        h = side / 2
        cv2.rectangle(img, px((x - h, y - h)), px((x + h, y + h)), (240, 240, 240), -1)
        cv2.circle(img, px((x, y)), round(side / 4 * PX_MM), (30, 180, 220), -1)
    if table.hand is not None:
        hx, hy = table.hand
        skin = (120, 160, 215)
        cv2.ellipse(img, px((hx, hy)), (round(45 * PX_MM), round(30 * PX_MM)), 20, 0, 360, skin, -1)
        cv2.line(img, px((hx, hy)), px((hx + 300, hy + 400)), skin, round(40 * PX_MM))

    # Camera: fit the board into the frame, then a slight keystone like a tilted camera.
    fw, fh = size
    margin = 0.06
    s = min(fw * (1 - 2 * margin) / W, fh * (1 - 2 * margin) / H)
    ox, oy = (fw - W * s) / 2, (fh - H * s) / 2
    src = np.array([[0, 0], [W, 0], [W, H], [0, H]], np.float32)
    k = tilt * W * s
    dst = np.array(
        [[ox + k, oy], [ox + W * s - k, oy], [ox + W * s, oy + H * s], [ox, oy + H * s]],
        np.float32,
    )
    h = cv2.getPerspectiveTransform(src, dst)
    frame = cv2.warpPerspective(img, h, (fw, fh), flags=cv2.INTER_AREA, borderValue=(90, 90, 90))
    return frame
