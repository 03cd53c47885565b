"""Layout overlays: draw a layout's outlines on a blank board or on a photo of the table.

Used by ``companion vision layout-check`` so a group can see whether its measured outlines sit on
the printed borders.
"""

from __future__ import annotations

import math
from pathlib import Path

import cv2
import numpy as np
from numpy.typing import NDArray

from companion.vision.errors import VisionError
from companion.vision.layout import Layout, Polygon, Pose
from companion.vision.synth import art

U8 = NDArray[np.uint8]
F64 = NDArray[np.float64]
LINE = (30, 30, 230)
TEXT = (20, 20, 160)


class OverlayError(VisionError, ValueError):
    """The overlay cannot be drawn (unreadable photo, board markers not found...)."""


def _draw(img: U8, pts: F64, label: str | None, colour: tuple[int, int, int] = LINE) -> None:
    width = max(1, round(min(img.shape[:2]) / 500))
    cv2.polylines(img, [np.round(pts).astype(np.int32)], True, colour, width, cv2.LINE_AA)
    if label:
        cx, cy = pts.mean(axis=0)
        scale = max(0.35, min(img.shape[:2]) / 1400)
        (tw, th), _ = cv2.getTextSize(label, cv2.FONT_HERSHEY_SIMPLEX, scale, 1)
        org = (round(cx - tw / 2), round(cy + th / 2))
        cv2.putText(
            img, label, org, cv2.FONT_HERSHEY_SIMPLEX, scale, (255, 255, 255), 3, cv2.LINE_AA
        )
        cv2.putText(img, label, org, cv2.FONT_HERSHEY_SIMPLEX, scale, TEXT, 1, cv2.LINE_AA)


def _shapes(
    layout: Layout, tiles: dict[str, Pose], courts: dict[int, Pose]
) -> list[tuple[Polygon | list[tuple[float, float]], str]]:
    shapes: list[tuple[Polygon | list[tuple[float, float]], str]] = [
        (a.polygon, a.id) for a in layout.areas
    ]
    for m in layout.board_markers:
        shapes.append((list(m.corners()), f"#{m.id}"))
    for tile_id, pose in tiles.items():
        shapes.append((layout.tile_polygon(tile_id, pose), tile_id))
        shapes.append((list(layout.tile_marker(tile_id).corners(pose)), ""))
    for seat, pose in courts.items():
        shapes.append((layout.court_polygon(pose), f"court {seat}"))
        for colour in ("red", "blue", "yellow", "green", "pink"):
            shapes.append((layout.court_row_polygon(colour, pose), ""))
    return shapes


def blank_overlay(layout: Layout, scale: float = 1.2) -> U8:
    base, canvas = art.base_art(layout, scale)
    img = base.copy()
    tiles = {}
    if layout.ring is not None:
        tiles = {t.id: layout.ring.home(i) for i, t in enumerate(layout.tiles)}
    courts = {c.seat: c.home for c in layout.courts}
    for shape, label in _shapes(layout, tiles, courts):
        pts = np.array([canvas.px(p) for p in shape], dtype=np.float64)
        _draw(img, pts, label)
    return img


def photo_overlay(layout: Layout, photo: U8) -> tuple[U8, str]:
    dictionary = cv2.aruco.getPredefinedDictionary(cv2.aruco.DICT_4X4_50)
    detector = cv2.aruco.ArucoDetector(dictionary, cv2.aruco.DetectorParameters())
    corners, ids, _ = detector.detectMarkers(photo)
    found = (
        {}
        if ids is None
        else {
            int(i): np.asarray(c, np.float64).reshape(4, 2)
            for c, i in zip(corners, ids.ravel(), strict=True)
        }
    )
    board_ids = [m.id for m in layout.board_markers if m.id in found]
    if len(board_ids) < 2:
        raise OverlayError(
            f"found board markers {board_ids or 'none'} in the photo; need at least 2 of "
            f"{[m.id for m in layout.board_markers]} (all 4 is better): check light and focus"
        )
    src = np.vstack([np.array(layout.board_marker(i).corners()) for i in board_ids])
    dst = np.vstack([found[i] for i in board_ids])
    h, _ = cv2.findHomography(src, dst)
    if h is None:
        raise OverlayError("the board markers found do not give a usable view of the board")
    inv = np.linalg.inv(h)

    def pose_of(img_corners: F64) -> Pose:
        board = cv2.perspectiveTransform(img_corners[None], inv)[0]
        cx, cy = board.mean(axis=0)
        angle = math.degrees(math.atan2(board[1, 1] - board[0, 1], board[1, 0] - board[0, 0]))
        return Pose(float(cx), float(cy), angle)

    tiles = {}
    courts = {}
    for marker_id, img_corners in found.items():
        tile = layout.tile_by_marker(marker_id)
        if tile is not None:
            tiles[tile.id] = pose_of(img_corners)
        court = layout.court_by_marker(marker_id)
        if court is not None:
            courts[court.seat] = pose_of(img_corners)
    img = photo.copy()
    for shape, label in _shapes(layout, tiles, courts):
        pts = cv2.perspectiveTransform(np.array(list(shape), dtype=np.float64)[None], h)[0]
        _draw(img, pts, label)
    note = f"board markers {board_ids}"
    if layout.game == "carolus-magnus":
        note += f", tiles found {sorted(tiles)}, court cards found {sorted(courts)}"
    return img, note


def write_overlay(layout: Layout, out: Path, photo: Path | None) -> str:
    """Draw the overlay into ``out``; returns a one-line note of what was drawn."""
    if out.suffix.lower() not in (".png", ".jpg", ".jpeg"):
        raise OverlayError(f"--out {out}: use a .png or .jpg file name")
    if photo is None:
        img, note = blank_overlay(layout), "outlines on a blank board at 1.2 px/mm"
    else:
        picture = cv2.imread(str(photo), cv2.IMREAD_COLOR)
        if picture is None:
            raise OverlayError(f"--photo {photo}: not a readable image file")
        img, note = photo_overlay(layout, np.asarray(picture, np.uint8))
        note = "outlines on the photo through " + note
    if not cv2.imwrite(str(out), img):
        raise OverlayError(f"--out {out}: could not write the image (does the folder exist?)")
    return note
