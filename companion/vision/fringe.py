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
    """Distance of each row of ``p`` from the nearest of the segments from the same row of
    ``a`` to each of the same row's ``ends`` (N x K x 3; weighted Lab)."""
    ab = ends - a[:, None, :]  # N x K x 3
    pa = p - a
    denom = np.maximum(np.einsum("nkc,nkc->nk", ab, ab), np.float32(1e-6))
    t = np.clip((pa[:, None, :] * ab).sum(axis=2) / denom, 0.0, 1.0)
    d: Image = np.linalg.norm(p[:, None, :] - (a[:, None, :] + t[..., None] * ab), axis=2).min(
        axis=1
    )
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
    masks = [(c, cv2.inRange(labels, c, c)) for c in codes]
    present = [c for c, m in masks if cv2.countNonZero(m)]
    if len(present) < 2:
        return
    kernel = np.ones((2 * reach + 1, 2 * reach + 1), np.uint8)
    near: list[Image] = [cv2.dilate(m, kernel) for c, m in masks if c in present]
    # A pixel of one of the colours near another: near two of them (its own and another).
    around = near[0] & 1
    for mask in near[1:]:
        around += mask & 1
    # Each pixel's colour as its number among those there (255: none of them).
    table = np.full(256, 255, np.uint8)
    table[present] = np.arange(len(present))
    mine = cv2.LUT(labels, table)
    at = np.flatnonzero((around >= 2) & (mine != 255))
    if not at.size:
        return
    own = mine.ravel()[at].astype(np.intp)
    refs = np.array([model.pieces[model.names[c - 1]][0] for c in present], np.float32) * _W
    p = np.take(lab.reshape(-1, 3), at, axis=0).astype(np.float32) * _W
    d_own = np.linalg.norm(p - refs[own], axis=1)
    bg = np.array(model.background, np.float32) * _W
    # Its own shaded side (darker and duller), or the board: what its edge blurs into. Each
    # pixel is measured against every other colour it lies near, all in one go.
    shades = refs.copy()
    shades[:, 0] *= SHADE
    shades[:, 1:] = 128.0 + (refs[:, 1:] - 128.0) * SHADE
    pairs = [
        (np.flatnonzero((own != i) & (near[i].ravel()[at] > 0)), i) for i in range(len(present))
    ]
    rows = np.concatenate([r for r, _ in pairs])
    other = np.concatenate([np.full(r.size, i) for r, i in pairs])
    d_mix = np.full(at.size, np.inf, np.float32)
    if rows.size:
        board = np.broadcast_to(bg.reshape(1, -1, 3), (rows.size, bg.size // 3, 3))
        ends = np.concatenate([shades[other][:, None, :], board], axis=1)
        np.minimum.at(d_mix, rows, _segment_distance(p[rows], refs[other], ends))
    labels.ravel()[at[d_mix < d_own]] = BACKGROUND
