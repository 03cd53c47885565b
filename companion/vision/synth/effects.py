"""What happens between the table and the file: light, a hand in the way, the sensor, JPEG."""

from __future__ import annotations

import math
from dataclasses import dataclass

import cv2
import numpy as np
from numpy.typing import NDArray

from companion.vision.synth.conditions import Conditions

U8 = NDArray[np.uint8]
F32 = NDArray[np.float32]

SKIN = ((120, 160, 215), (95, 135, 190), (70, 105, 160), (50, 75, 115))


def lighting(img: U8, conditions: Conditions, rng: np.random.Generator) -> U8:
    """Uneven light: a ramp, a vignette, white balance, exposure and a soft cast shadow."""
    h, w = img.shape[:2]
    ys, xs = np.mgrid[0:h:8, 0:w:8].astype(np.float32)
    xs, ys = xs / w - 0.5, ys / h - 0.5
    field = np.ones_like(xs)
    g = rng.uniform(*conditions.light_gradient)
    a = rng.uniform(0, 2 * math.pi)
    field += g * (math.cos(a) * xs + math.sin(a) * ys)
    field *= 1 - rng.uniform(*conditions.vignette) * 2 * (xs * xs + ys * ys)
    darkness = rng.uniform(*conditions.cast_shadow)
    if darkness > 0:
        # A soft band, as from an arm or the lamp's stand.
        b = rng.uniform(0, math.pi)
        off = rng.uniform(-0.3, 0.3)
        d = np.abs(math.cos(b) * xs + math.sin(b) * ys - off)
        field *= 1 - darkness * np.clip(1.0 - d / 0.09, 0, 1)
    field = cv2.resize(field, (w, h), interpolation=cv2.INTER_LINEAR)
    wb = 1 + rng.uniform(-1, 1, 3) * rng.uniform(*conditions.white_balance)
    gain = field[..., None] * (wb * rng.uniform(*conditions.exposure)).astype(np.float32)
    lit = img.astype(np.float32) * gain
    glare = rng.uniform(*conditions.glare)
    if glare > 0:
        # A soft bright spot that washes colours out towards white where it falls.
        gx, gy = rng.uniform(0.2, 0.8), rng.uniform(0.2, 0.8)
        radius = rng.uniform(0.08, 0.18)
        d2 = ((xs + 0.5 - gx) ** 2 + ((ys + 0.5 - gy) * h / w) ** 2) / radius**2
        spot = cv2.resize(glare * np.exp(-d2).astype(np.float32), (w, h))[..., None]
        lit = lit * (1 - spot) + 255.0 * spot
    return np.clip(lit, 0, 255).astype(np.uint8)


@dataclass(frozen=True)
class Hand:
    """An arm reaching in from one image edge towards ``target`` (pixels)."""

    edge: int  # 0 top, 1 right, 2 bottom, 3 left
    start: float  # 0..1 along that edge
    target: tuple[float, float]
    width: float  # arm width in pixels
    skin: tuple[int, int, int]


def random_hand(
    w: int,
    h: int,
    mm_px: float,
    rng: np.random.Generator,
    target: tuple[float, float] | None = None,
) -> Hand:
    if target is None:
        target = (rng.uniform(0.25, 0.75) * w, rng.uniform(0.25, 0.75) * h)
    skin = SKIN[int(rng.integers(len(SKIN)))]
    return Hand(
        int(rng.integers(4)),
        float(rng.uniform(0.2, 0.8)),
        target,
        float(85 * mm_px * rng.uniform(0.9, 1.15)),
        skin,
    )


def _edge_point(hand: Hand, w: int, h: int) -> tuple[float, float]:
    pad = hand.width
    if hand.edge == 0:
        return (hand.start * w, -pad)
    if hand.edge == 1:
        return (w + pad, hand.start * h)
    if hand.edge == 2:
        return (hand.start * w, h + pad)
    return (-pad, hand.start * h)


def draw_hand(img: U8, hand: Hand, reach: float = 1.0) -> F32:
    """Paint the arm (``reach`` 0..1 of the way to its target); returns its mask (0..1)."""
    h, w = img.shape[:2]
    mask = np.zeros((h, w), np.float32)
    if reach <= 0:
        return mask
    sx, sy = _edge_point(hand, w, h)
    tx = sx + (hand.target[0] - sx) * reach
    ty = sy + (hand.target[1] - sy) * reach
    dx, dy = tx - sx, ty - sy
    length = math.hypot(dx, dy) or 1.0
    ux, uy = dx / length, dy / length
    nx, ny = -uy, ux
    half = hand.width / 2
    # Forearm: a tapered band; hand: an ellipse at the tip; fingers: thinner ellipses beyond.
    arm = np.array(
        [
            [sx + nx * half * 1.2, sy + ny * half * 1.2],
            [tx + nx * half * 0.9, ty + ny * half * 0.9],
            [tx - nx * half * 0.9, ty - ny * half * 0.9],
            [sx - nx * half * 1.2, sy - ny * half * 1.2],
        ]
    )
    shadow = np.zeros((h, w), np.float32)
    off = (hand.width * 0.35, hand.width * 0.45)
    for target, shift in ((shadow, off), (mask, (0.0, 0.0))):
        _arm_shape(target, arm + np.array(shift), (tx + shift[0], ty + shift[1]), (ux, uy), half)
    shadow = np.asarray(cv2.GaussianBlur(shadow, (0, 0), hand.width * 0.25), np.float32)
    # Only the part of the picture the arm or its shadow touches is recomputed.
    touched = np.argwhere((shadow > 0.004) | (mask > 0))
    if len(touched) == 0:
        return mask
    (y0, x0), (y1, x1) = touched.min(axis=0), touched.max(axis=0) + 1
    roi = img[y0:y1, x0:x1]
    m = mask[y0:y1, x0:x1, None]
    base = roi.astype(np.float32) * (1 - 0.45 * shadow[y0:y1, x0:x1, None])
    # Skin shaded across the arm, for a rounder look.
    ys, xs = np.mgrid[y0:y1, x0:x1].astype(np.float32)
    across = np.clip(1 - np.abs((xs - sx) * nx + (ys - sy) * ny) / (half * 1.3), 0, 1)
    skin = np.array(hand.skin, np.float32)[None, None, :] * (0.72 + 0.3 * across)[..., None]
    roi[:] = np.clip(base * (1 - m) + skin * m, 0, 255).astype(np.uint8)
    return mask


def _arm_shape(
    target: F32,
    arm: NDArray[np.float64],
    tip: tuple[float, float],
    u: tuple[float, float],
    half: float,
) -> None:
    """Forearm band, palm, four fingers and a thumb, filled with 1.0 into ``target``."""
    (tx, ty), (ux, uy) = tip, u
    nx, ny = -uy, ux
    angle = math.degrees(math.atan2(uy, ux))
    cv2.fillConvexPoly(target, np.round(arm).astype(np.int32), 1.0, cv2.LINE_AA)

    def blob(along: float, across: float, axes: tuple[float, float], turn: float = 0.0) -> None:
        centre = (
            round(tx + ux * half * along + nx * half * across),
            round(ty + uy * half * along + ny * half * across),
        )
        size = (max(1, round(half * axes[0])), max(1, round(half * axes[1])))
        cv2.ellipse(target, centre, size, angle + turn, 0, 360, 1.0, -1, cv2.LINE_AA)

    blob(0.7, 0.0, (1.25, 1.1))
    for k in range(4):
        blob(2.1, (k - 1.5) * 0.5, (0.8, 0.2))
    blob(1.0, 1.35, (0.6, 0.22), 40.0)


def sensor(img: U8, conditions: Conditions, rng: np.random.Generator) -> U8:
    """Blur, noise and JPEG compression."""
    sigma = rng.uniform(*conditions.blur)
    if sigma > 0.05:
        img = np.asarray(cv2.GaussianBlur(img, (0, 0), sigma), np.uint8)
    noise = rng.uniform(*conditions.noise)
    if noise > 0:
        grain = rng.normal(0, noise, img.shape).astype(np.float32)
        img = np.clip(img.astype(np.float32) + grain, 0, 255).astype(np.uint8)
    if conditions.jpeg_quality is not None:
        ok, buf = cv2.imencode(".jpg", img, [cv2.IMWRITE_JPEG_QUALITY, conditions.jpeg_quality])
        if ok:
            img = np.asarray(cv2.imdecode(buf, cv2.IMREAD_COLOR), np.uint8)
    return np.asarray(img, np.uint8)
