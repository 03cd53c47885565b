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


def _segment_distance(p: Image, a: Image, ends: Image) -> Image:
    """Distance of each row of ``p`` from the nearest of the segments from ``a`` to each row of
    ``ends`` (weighted Lab)."""
    ab = ends - a  # K x 3
    pa = p - a
    denom = np.maximum(np.einsum("kc,kc->k", ab, ab), np.float32(1e-6))
    t = np.clip((pa[:, None, :] * ab[None]).sum(axis=2) / denom, 0.0, 1.0)
    d: Image = np.linalg.norm(p[:, None, :] - (a + t[..., None] * ab[None]), axis=2).min(axis=1)
    return d


def drop_fringes(
    labels: Image, lab: Image, model: ColourModel, names: Sequence[str], reach: int
) -> None:
    """In place: pixels labelled one piece colour, within ``reach`` pixels of another piece
    colour, and nearer a mix of that other colour with the board (or its own shade) than to
    their own colour, become background."""
    if not model.background:
        return
    codes = [model.label(n) for n in names if n in model.names]
    present = [(c, labels == c) for c in codes]
    present = [(c, m) for c, m in present if m.any()]
    if len(present) < 2:
        return
    kernel = np.ones((2 * reach + 1, 2 * reach + 1), np.uint8)
    near = [cv2.dilate(m.view(np.uint8), kernel) for _, m in present]
    # A pixel of one of the colours near another: near two of them (its own and another).
    around = np.sum(near, axis=0, dtype=np.uint8)
    mine = np.zeros(labels.shape, np.int8) - 1
    for i, (_, m) in enumerate(present):
        mine[m] = i
    at = np.flatnonzero((around >= 2) & (mine >= 0))
    if not at.size:
        return
    own = mine.ravel()[at]
    refs = np.array([model.pieces[model.names[c - 1]][0] for c, _ in present], np.float32) * _W
    p = np.take(lab.reshape(-1, 3), at, axis=0).astype(np.float32) * _W
    d_own = np.linalg.norm(p - refs[own], axis=1)
    d_mix = np.full(at.size, np.inf, np.float32)
    bg = np.array(model.background, np.float32) * _W
    for i, ref_y in enumerate(refs):
        sel = (own != i) & (near[i].ravel()[at] > 0)
        if not sel.any():
            continue
        # Its own shaded side (darker and duller), or the board: what its edge blurs into.
        shade_y = ref_y.copy()
        shade_y[0] *= SHADE
        shade_y[1:] = 128.0 + (ref_y[1:] - 128.0) * SHADE
        d = _segment_distance(p[sel], ref_y, np.vstack([shade_y, bg]))
        d_mix[sel] = np.minimum(d_mix[sel], d)
    labels.ravel()[at[d_mix < d_own]] = BACKGROUND
