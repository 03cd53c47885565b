"""Colour fringes: the blurred edge of a cube, half cube and half board, can be nearer to
another piece colour than to either (a red cube's edge on a grey mat reads pink, a green one's
on a blue-grey mat blue). Such pixels next to a piece of the colour they came from are given
back to the board, so they do not count as cubes of a colour that is not there.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import cv2
import numpy as np
import numpy.typing as npt

from companion.vision.colour import BACKGROUND, L_WEIGHT, ColourModel

Image = npt.NDArray[Any]
_W = np.array([L_WEIGHT, 1.0, 1.0], np.float32)
SHADE = 0.4  # a cube's darkest side: this share of its top's lightness and chroma


def _segment_distance(p: Image, a: Image, b: Image) -> Image:
    """Distance of each row of ``p`` from the segment a-b (weighted Lab)."""
    ab = b - a
    t = np.clip(((p - a) @ ab) / max(float(ab @ ab), 1e-6), 0.0, 1.0)
    d: Image = np.linalg.norm(p - (a + t[:, None] * ab), axis=1)
    return d


def drop_fringes(
    labels: Image, lab: Image, model: ColourModel, names: Sequence[str], reach: int
) -> None:
    """In place: pixels labelled one piece colour, within ``reach`` pixels of another piece
    colour, and nearer a mix of that other colour with the board (or its own shade) than to
    their own colour, become background."""
    if not model.background:
        return
    present = {n: labels == model.label(n) for n in names if n in model.names}
    present = {n: m for n, m in present.items() if m.any()}
    if len(present) < 2:
        return
    kernel = np.ones((2 * reach + 1, 2 * reach + 1), np.uint8)
    near = {n: cv2.dilate(m.astype(np.uint8), kernel) > 0 for n, m in present.items()}
    bg = [np.array(r, np.float32) * _W for r in model.background]
    for x, mask_x in present.items():
        ref_x = np.array(model.pieces[x][0], np.float32) * _W
        others = [y for y in present if y != x]
        near_any = np.zeros_like(mask_x)
        for y in others:
            near_any |= near[y]
        ys, xs = np.nonzero(mask_x & near_any)
        if ys.size == 0:
            continue
        p = lab[ys, xs].astype(np.float32) * _W
        d_own = np.linalg.norm(p - ref_x, axis=1)
        d_mix = np.full(ys.size, np.inf, np.float32)
        for y in others:
            sel = near[y][ys, xs]
            if not sel.any():
                continue
            ref_y = np.array(model.pieces[y][0], np.float32) * _W
            # Its own shaded side: darker and duller.
            shade_y = ref_y.copy()
            shade_y[0] *= SHADE
            shade_y[1:] = 128.0 + (ref_y[1:] - 128.0) * SHADE
            q = p[sel]
            d = _segment_distance(q, ref_y, shade_y)
            for ref_b in bg:
                d = np.minimum(d, _segment_distance(q, ref_y, ref_b))
            d_mix[sel] = np.minimum(d_mix[sel], d)
        fringe = d_mix < d_own
        labels[ys[fringe], xs[fringe]] = BACKGROUND
