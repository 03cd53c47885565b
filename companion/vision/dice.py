"""The dice in the Carolus Magnus tray: the colour spot on each white die's top face, or the
crown."""

from __future__ import annotations

from typing import Any

import cv2
import numpy as np
import numpy.typing as npt

from companion.vision.colour import L_WEIGHT, ColourModel, bgr_to_lab, lab_distance
from companion.vision.config import VisionConfig
from companion.vision.geometry import Geometry
from companion.vision.layout import Layout
from companion.vision.masks import fill_holes

Image = npt.NDArray[Any]

CAROLUS_FACES = ("red", "blue", "yellow", "green", "pink", "crown")
# The crown printed on the dice: gold. Nominal, like the piece colours.
CROWN_BGR = (20, 150, 200)


def read_dice(
    lab: Image, geo: Geometry, layout: Layout, colours: ColourModel, config: VisionConfig
) -> tuple[str, ...]:
    """Top faces of the dice in the tray: the colour spot on each white die, or a crown.

    A die is whatever in the tray is far from the tray's own colour; its face symbol is its
    saturated pixels. The crown is gold, close to yellow: its ragged shape (low solidity)
    tells it from the round yellow spot.
    """
    assert geo.tray is not None
    die_mm = float(layout.pieces.get("die", 16.0))
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
    body = ((d > config.die_contrast) | (chroma >= config.die_spot_chroma)) & tray
    body = body.astype(np.uint8)
    body = cv2.morphologyEx(body, cv2.MORPH_OPEN, np.ones((2, 2), np.uint8))
    n, labels, stats, centroids = cv2.connectedComponentsWithStats(body, connectivity=8)
    faces: list[tuple[float, float, str]] = []
    refs = dict(colours.pieces)
    refs["crown"] = (bgr_to_lab(CROWN_BGR),)
    for i in range(1, n):
        x, y, w, h, area = (int(v) for v in stats[i])
        if area < 0.4 * die_area:
            continue
        comp = fill_holes((labels[y : y + h, x : x + w] == i).astype(np.uint8))
        spot = (comp > 0) & (chroma[y : y + h, x : x + w] >= config.die_spot_chroma)
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
            ragged = _solidity(spot) < config.crown_solidity
            small = spot.sum() < config.crown_area_share * die_area
            if ragged == small:
                colour = "crown" if ragged else "yellow"
        for _ in range(max(1, round(area / (die_area * 1.25)))):
            faces.append((float(centroids[i][1]) + ty, float(centroids[i][0]) + tx, colour))
    return tuple(name for _, _, name in sorted(faces))


def _solidity(mask: npt.NDArray[Any]) -> float:
    """Area over convex hull area of the largest patch of a mask (1.0 for a disc)."""
    m = mask.astype(np.uint8)
    contours, _ = cv2.findContours(m, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
    if not contours:
        return 1.0
    c = max(contours, key=cv2.contourArea)
    hull = cv2.contourArea(cv2.convexHull(c))
    return float(cv2.contourArea(c)) / hull if hull > 0 else 1.0
