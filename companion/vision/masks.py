"""Small operations on binary masks shared by the stages."""

from __future__ import annotations

from typing import Any

import cv2
import numpy as np
import numpy.typing as npt

Image = npt.NDArray[Any]


def fill_holes(mask: Image) -> Image:
    """The mask with enclosed holes filled (a pawn's glint, a die's pips)."""
    h, w = mask.shape
    flood = np.zeros((h + 2, w + 2), np.uint8)
    outside = (mask == 0).astype(np.uint8)
    cv2.floodFill(outside, flood, (0, 0), 2)
    filled: Image = np.where(outside == 1, 1, mask).astype(np.uint8)
    return filled


def fill_small_holes(mask: Image, most: float) -> Image:
    """The mask with its enclosed holes of at most ``most`` pixels filled (a castle's top
    inside the square drawn on it, a pawn's glint), not the big ones a thin outline encloses
    (a marker's margin round its code, a region's printed border)."""
    holes = (fill_holes(mask) > 0) & (mask == 0)
    _, labels, stats, _ = cv2.connectedComponentsWithStats(holes.astype(np.uint8), connectivity=4)
    small = np.flatnonzero(stats[:, cv2.CC_STAT_AREA] <= most)
    out: Image = mask.copy()
    out[np.isin(labels, small[small > 0])] = 1
    return out
