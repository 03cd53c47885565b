"""Castles on the Carolus Magnus territory tiles: hueless, thick blobs unlike the tile's own
colour, white, grey or black by their lightness against the tile."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import cv2
import numpy as np
import numpy.typing as npt

from companion.vision.colour import L_WEIGHT
from companion.vision.config import VisionConfig
from companion.vision.geometry import Geometry
from companion.vision.layout import Layout

Image = npt.NDArray[Any]
FloatArray = npt.NDArray[Any]
_PlaceAt = Callable[[float, float], "str | None"]


def read_castles(
    lab: Image, geo: Geometry, place_at: _PlaceAt, layout: Layout, config: VisionConfig
) -> dict[str, str]:
    """Castles on the territories: neutral (hueless) blobs of a castle's size.

    Black, white and grey have no hue, and the grey castle is the grey of the mat, so
    castles are looked for only on the tiles, and told apart by their lightness against
    the tile's own (which follows the light over the table).
    """
    castle = layout.pieces.get("castle", {})
    width = float(castle.get("width", 13.0)) * geo.mm_px
    tile_ids = {t.id for t in layout.tiles}
    if geo.tile_mask is None:
        return {}
    bx, by, bw, bh = geo.tile_box
    sub = lab[by : by + bh, bx : bx + bw]
    on_tile = geo.tile_mask[by : by + bh, bx : bx + bw] & ~geo.ignore[by : by + bh, bx : bx + bw]
    chroma = np.hypot(sub[..., 1].astype(np.float32) - 128, sub[..., 2].astype(np.float32) - 128)
    neutral = (chroma <= config.castle_chroma) & on_tile
    # A pale tile in cold light is nearly hueless too: a castle must also stand out
    # from its own tile's colour.
    neutral &= _unlike_own_place(sub, geo.place_map[by : by + bh, bx : bx + bw], on_tile) > (
        config.castle_contrast
    )
    kernel = np.ones((2, 2), np.uint8)
    mask = cv2.morphologyEx(neutral.astype(np.uint8), cv2.MORPH_OPEN, kernel)
    n, labels, stats, centroids = cv2.connectedComponentsWithStats(mask, connectivity=8)
    centroids = np.asarray(centroids) + np.array([bx, by])
    place_sub = geo.place_map[by : by + bh, bx : bx + bw]
    light = sub[..., 0]
    out: dict[str, str] = {}
    for i in range(1, n):
        if stats[i, cv2.CC_STAT_AREA] < config.castle_min_area * width * width:
            continue  # the tile's printed name, a marker's white margin
        x, y, w, h = (int(v) for v in stats[i, :4])
        part = np.pad((labels[y : y + h, x : x + w] == i).astype(np.uint8), 1)
        if cv2.distanceTransform(part, cv2.DIST_L2, 3).max() < (config.castle_thickness * width):
            continue  # a thin strip: the mat along a tile's edge, a cube's pale rim
        pid = place_at(float(centroids[i][0]), float(centroids[i][1]))
        if pid is None or pid not in tile_ids:
            continue
        index = next(k for k, p in enumerate(geo.places) if p.id == pid)
        tile_light = float(np.median(light[(place_sub == index + 1) & ~neutral]))
        # The lower third of its lightness: a white castle's shaded side is still light,
        # a black one's lit bevel and top are still dark.
        top = float(np.percentile(light[labels == i], 30)) / max(1.0, tile_light)
        if top >= config.white_castle_share:
            out[pid] = "white"
        elif top >= config.grey_castle_share:
            out[pid] = "grey"
        else:
            out[pid] = "black"
    return dict(sorted(out.items()))


def _unlike_own_place(lab: Image, places: Image, where: npt.NDArray[Any]) -> FloatArray:
    """Lab distance (lightness at half weight) of each pixel from its place's median colour
    (the place's own print, as pieces cover little of it)."""
    pix = lab.astype(np.float32)
    refs = np.zeros((int(places.max()) + 1, 3), np.float32)
    # Every third pixel of every third row is plenty for a median; grouped by place at once.
    step = where[::3, ::3]
    index = places[::3, ::3][step]
    values = pix[::3, ::3][step]
    order = np.argsort(index, kind="stable")
    index, values = index[order], values[order]
    starts = np.flatnonzero(np.r_[True, index[1:] != index[:-1]])
    for start, end in zip(starts, np.r_[starts[1:], index.size], strict=True):
        refs[index[start]] = np.median(values[start:end], axis=0)
    ref = refs[places]
    d: FloatArray = np.sqrt(
        (L_WEIGHT * (pix[..., 0] - ref[..., 0])) ** 2
        + (pix[..., 1] - ref[..., 1]) ** 2
        + (pix[..., 2] - ref[..., 2]) ** 2
    )
    return d
