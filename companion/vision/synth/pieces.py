"""Standing pieces drawn in the camera image: shaded 3D boxes and pawns, with their shadows.

Each piece is built as 3D points in board mm, all points are projected through the (distorting)
camera at once, and pieces are painted far-to-near so nearer ones cover farther ones.
"""

from __future__ import annotations

import math

import cv2
import numpy as np
from numpy.typing import NDArray

from companion.vision.synth.camera import Camera
from companion.vision.synth.scene import Piece

U8 = NDArray[np.uint8]
F64 = NDArray[np.float64]
BGR = tuple[int, int, int]

PIECE_COLOURS: dict[str, BGR] = {
    "yellow": (30, 200, 235),
    "green": (50, 150, 40),
    "blue": (170, 85, 25),
    "red": (35, 35, 195),
    "black": (32, 32, 34),
    "pink": (175, 115, 240),
}
CASTLE_COLOURS: dict[str, BGR] = {
    "white": (228, 230, 232),
    "black": (38, 38, 40),
    "grey": (135, 135, 138),
}
KING = (22, 22, 24)
CHARLEMAGNE = (25, 190, 232)
TOWER = (70, 100, 140)
DIE_BODY = (232, 236, 236)
CROWN = (20, 150, 200)
# Towards the light, board frame (z negative = up): a lamp above and to the upper left.
LIGHT = np.array([-0.35, -0.45, -0.82])
LIGHT = LIGHT / np.linalg.norm(LIGHT)
PAWN_RING = 18


def body_colour(piece: Piece) -> BGR:
    if piece.kind == "king":
        return KING
    if piece.kind == "charlemagne":
        return CHARLEMAGNE
    if piece.kind == "tower":
        return TOWER
    if piece.kind == "die":
        return DIE_BODY
    if piece.kind == "castle":
        return CASTLE_COLOURS[piece.colour]
    return PIECE_COLOURS[piece.colour]


def _box_points(p: Piece) -> F64:
    """The box's four bottom corners, then the four top corners above them, in board mm."""
    a = math.radians(p.angle)
    c, s, h = math.cos(a), math.sin(a), p.size / 2
    corners = ((-h, -h), (h, -h), (h, h), (-h, h))
    if p.lean:
        return _leaning_box_points(p, c, s, corners)
    foot = [(p.x + c * dx - s * dy, p.y + s * dx + c * dy) for dx, dy in corners]
    z = -p.lift  # (board z points into the table: up is negative)
    return np.array([(x, y, z) for x, y in foot] + [(x, y, z - p.height) for x, y in foot])


def _leaning_box_points(
    p: Piece, c: float, s: float, corners: tuple[tuple[float, float], ...]
) -> F64:
    """A box turned by ``p.lean`` about its bottom edge on its local +x side (``p.angle``'s
    way): that edge stays where it stood, the -x bottom edge rises, the top tips over to +x."""
    t = math.radians(p.lean)
    ct, st, h = math.cos(t), math.sin(t), p.size / 2
    pts = []
    for up in (0.0, p.height):
        for dx, dy in corners:
            # In the box's own frame, about the edge x = h, z = 0 (z up here).
            rx = h + (dx - h) * ct + up * st
            rz = -(dx - h) * st + up * ct
            pts.append((p.x + c * rx - s * dy, p.y + s * rx + c * dy, -p.lift - rz))
    return np.array(pts)


def _pawn_profile(p: Piece) -> list[tuple[float, float]]:
    """(height, radius) rings from the foot up to the neck; the head is a sphere on top."""
    r, h = p.size / 2, p.height
    return [(0.0, r), (0.12 * h, r), (0.16 * h, 0.8 * r), (0.45 * h, 0.5 * r), (0.72 * h, 0.34 * r)]


def _pawn_points(p: Piece) -> F64:
    angles = np.linspace(0, 2 * math.pi, PAWN_RING, endpoint=False)
    pts = []
    for z, r in _pawn_profile(p):
        for t in angles:
            pts.append((p.x + r * math.cos(t), p.y + r * math.sin(t), -z))
    head_r = 0.25 * p.size
    pts.append((p.x, p.y, -(p.height - head_r)))
    return np.array(pts)


def piece_points(p: Piece) -> F64:
    return _pawn_points(p) if p.is_pawn else _box_points(p)


def _shade(colour: BGR, factor: float) -> BGR:
    return (
        min(255, round(colour[0] * factor)),
        min(255, round(colour[1] * factor)),
        min(255, round(colour[2] * factor)),
    )


def _brightness(normal: F64) -> float:
    return 0.42 + 0.62 * max(0.0, float(normal @ LIGHT))


def _fill(img: U8, pts: F64, colour: BGR) -> None:
    cv2.fillConvexPoly(img, np.round(pts * 16).astype(np.int32), colour, cv2.LINE_AA, shift=4)


def _edge(img: U8, pts: F64, colour: BGR) -> None:
    cv2.polylines(img, [np.round(pts * 16).astype(np.int32)], True, colour, 1, cv2.LINE_AA, shift=4)


def draw_shadows(img: U8, pieces: list[Piece], camera: Camera, strength: float) -> None:
    """Soft shadows on the table, cast away from the light."""
    if strength <= 0 or not pieces:
        return
    mask = np.zeros(img.shape[:2], np.float32)
    away = -LIGHT[:2] / -LIGHT[2]  # ground offset per mm of height
    polys: list[F64] = []
    for p in pieces:
        if p.is_pawn:
            r = p.size / 2
            t = np.linspace(0, 2 * math.pi, 12, endpoint=False)
            foot = np.column_stack([p.x + r * np.cos(t), p.y + r * np.sin(t)])
            top = foot * 0.4 + np.array([p.x, p.y]) * 0.6 + away * p.height
        else:
            # A lifted box's shadow falls as from a box as tall as its top is high (its foot
            # stands on the box below, whose own shadow covers the part under it).
            box = _box_points(p)
            if p.lean:
                # Each corner's shadow falls as far from it as the corner is high.
                pts = box[:, :2] + away * -box[:, 2:3]
                polys.append(np.column_stack([pts, np.zeros(len(pts))]))
                continue
            foot = box[:4, :2] + away * p.lift
            top = foot + away * p.height
        pts = np.vstack([foot, top])
        polys.append(np.column_stack([pts, np.zeros(len(pts))]))
    flat = camera.project(np.vstack(polys))
    k = 0
    for poly in polys:
        img_pts = flat[k : k + len(poly)]
        k += len(poly)
        hull = cv2.convexHull(np.round(img_pts * 16).astype(np.int32))
        cv2.fillConvexPoly(mask, hull, 1.0, cv2.LINE_AA, shift=4)
    sigma = max(1.0, img.shape[1] / 500)
    mask = np.asarray(cv2.GaussianBlur(mask, (0, 0), sigma), np.float32)
    img[:] = (img * (1.0 - strength * mask[..., None])).astype(np.uint8)


def draw_pieces(img: U8, pieces: list[Piece], camera: Camera) -> list[tuple[float, float]]:
    """Paint the pieces far-to-near; returns each piece's top centre in image pixels."""
    if not pieces:
        return []
    point_sets = [piece_points(p) for p in pieces]
    # (A leaning box's top centre and middle: its own corners'.)
    tops = np.array(
        [
            pts[4:].mean(axis=0) if p.lean else (p.x, p.y, -p.lift - p.height)
            for p, pts in zip(pieces, point_sets, strict=True)
        ]
    )
    allpts = np.vstack([*point_sets, tops])
    projected = camera.project(allpts)
    centre = camera.centre
    out = [tuple(v) for v in projected[-len(pieces) :]]
    spans = []
    k = 0
    for pts in point_sets:
        spans.append((k, k + len(pts)))
        k += len(pts)
    # (A lifted box's middle is higher, so nearer the camera: a stack's top cube is painted
    # after the cube under it.)
    mids = np.array(
        [
            pts.mean(axis=0) if p.lean else (p.x, p.y, -p.lift - p.height / 2)
            for p, pts in zip(pieces, point_sets, strict=True)
        ]
    )
    order = np.argsort(-np.linalg.norm(mids - centre, axis=1))
    f = float(camera.K[0, 0])
    for i in order:
        p = pieces[int(i)]
        a, b = spans[int(i)]
        if p.is_pawn:
            _draw_pawn(img, p, point_sets[int(i)], projected[a:b], camera, f)
        else:
            _draw_box(img, p, point_sets[int(i)], projected[a:b], centre)
    return [(float(u), float(v)) for u, v in out]


_FACES = ((0, 1, 5, 4), (1, 2, 6, 5), (2, 3, 7, 6), (3, 0, 4, 7))


def _draw_box(img: U8, p: Piece, world: F64, image: F64, eye: F64) -> None:
    base = body_colour(p)
    dark = _shade(base, 0.55) if p.colour not in ("black",) else (70, 70, 72)
    if (p.kind == "castle" and p.colour == "black") or p.kind == "king":
        dark = (80, 80, 84)
    # Each face's normal from the box's own corners: from the box's middle to the face's
    # (a box's faces are square to those lines, leaning or not).
    middle = world.mean(axis=0)
    for n, face in enumerate(_FACES):
        quad = world[list(face)]
        mid = quad.mean(axis=0)
        normal = mid - middle
        normal /= np.linalg.norm(normal)
        if float(normal @ (eye - mid)) <= 0:
            continue
        pts = image[list(face)]
        colour = _shade(base, _brightness(normal))
        _fill(img, pts, colour)
        if p.kind == "die" and n < len(p.faces) - 1:
            _die_symbol(img, pts, p.faces[n + 1], side=True, light=_brightness(normal))
        _edge(img, pts, dark)
    top = image[4:8]
    up = world[4:8].mean(axis=0) - middle
    top_light = _brightness(up / np.linalg.norm(up))
    _fill(img, top, _shade(base, top_light))
    if p.kind == "die":
        _die_symbol(img, top, p.faces[0], side=False, light=top_light)
    elif p.kind == "tower":
        inner = top.mean(axis=0) + (top - top.mean(axis=0)) * 0.55
        _fill(img, inner, (25, 30, 40))
    elif p.kind == "castle":
        inner = top.mean(axis=0) + (top - top.mean(axis=0)) * 0.5
        _edge(img, inner, dark)
    _edge(img, top, dark)


def _die_symbol(img: U8, quad: F64, face: str, side: bool, light: float) -> None:
    """The face's colour as a big dot, or a crown; mapped onto the face's quad and lit like
    the face it is printed on."""
    src = np.array([[0, 0], [1, 0], [1, 1], [0, 1]], dtype=np.float32)
    order = quad if not side else quad[[3, 2, 1, 0]]
    h = cv2.getPerspectiveTransform(src, order.astype(np.float32))
    if face == "crown":
        shape = np.array(
            [
                [0.2, 0.72],
                [0.8, 0.72],
                [0.84, 0.3],
                [0.66, 0.5],
                [0.5, 0.22],
                [0.34, 0.5],
                [0.16, 0.3],
            ],
            dtype=np.float32,
        )
        pts = cv2.perspectiveTransform(shape[None], h)[0]
        crown = _shade(CROWN, light)
        cv2.fillPoly(img, [np.round(pts * 16).astype(np.int32)], crown, cv2.LINE_AA, shift=4)
        return
    t = np.linspace(0, 2 * math.pi, 20, endpoint=False)
    circle = np.column_stack([0.5 + 0.33 * np.cos(t), 0.5 + 0.33 * np.sin(t)]).astype(np.float32)
    pts = cv2.perspectiveTransform(circle[None], h)[0]
    _fill(img, pts, _shade(PIECE_COLOURS[face], light))


def _draw_pawn(img: U8, p: Piece, world: F64, image: F64, camera: Camera, f: float) -> None:
    base = body_colour(p)
    rings = len(_pawn_profile(p))
    for r in range(rings - 1):
        lo = image[r * PAWN_RING : (r + 1) * PAWN_RING]
        hi = image[(r + 1) * PAWN_RING : (r + 2) * PAWN_RING]
        hull = cv2.convexHull(np.round(np.vstack([lo, hi]) * 16).astype(np.int32))
        shade = 0.7 + 0.1 * r
        cv2.fillConvexPoly(img, hull, _shade(base, shade), cv2.LINE_AA, shift=4)
    top_ring = image[(rings - 1) * PAWN_RING : rings * PAWN_RING]
    _fill(
        img,
        cv2.convexHull(top_ring.astype(np.float32)).reshape(-1, 2).astype(np.float64),
        _shade(base, 1.0),
    )
    head = image[-1]
    depth = float(camera.depth(world[-1:])[0])
    radius = f * 0.25 * p.size / depth
    cv2.circle(
        img,
        (round(head[0] * 16), round(head[1] * 16)),
        round(radius * 16),
        _shade(base, 1.05),
        -1,
        cv2.LINE_AA,
        shift=4,
    )
    glint = (round((head[0] - radius * 0.35) * 16), round((head[1] - radius * 0.35) * 16))
    glint_colour = _shade(base, 1.35) if p.kind != "king" else (90, 90, 95)
    cv2.circle(img, glint, round(radius * 0.3 * 16), glint_colour, -1, cv2.LINE_AA, shift=4)
