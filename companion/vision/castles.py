"""Castles on the Carolus Magnus territory tiles: hueless, thick blobs unlike the tile's own
colour, white, grey or black by their lightness between the tile marker's paper and ink.

Black, white and grey have no hue, and the grey castle is the grey of the mat, so castles are
looked for only on the tiles. Their lightness cannot be read on its own: exposure scales it and
a lamp's glare adds to it (a black castle under glare is as light as a grey one in the shade).
Every tile carries a printed marker, white paper and black ink under the same light as the
castle beside it: a castle's lightness is read as a share of the way from the ink to the paper,
and the paper's tint is the light's colour cast, taken off before judging the castle hueless.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

import cv2
import numpy as np
import numpy.typing as npt

from companion.vision.config import VisionConfig
from companion.vision.geometry import Geometry
from companion.vision.layout import Layout
from companion.vision.local_print import GREY, lab_distance, local_print
from companion.vision.masks import fill_small_holes

Image = npt.NDArray[Any]
FloatArray = npt.NDArray[Any]
_PlaceAt = Callable[[float, float], "str | None"]

# A marker's white margin is one code cell wide round its 6-cell code (1/3 of its half side):
# paper is sampled in a band inside that margin, ink well inside the code's black border.
_PAPER_BAND = (1.1, 1.28)
_CODE = 0.9


@dataclass(frozen=True)
class TileLight:
    """The light on one tile, seen on its marker: grey values of its paper and ink, and the
    paper's tint (the light's colour cast)."""

    paper: float
    ink: float
    cast: tuple[float, float]  # the paper's Lab a, b offsets from neutral


def tile_lights(lab: Image, geo: Geometry, config: VisionConfig) -> dict[str, TileLight]:
    """Each tile's light from its marker. A marker covered or out of place (paper not clearly
    lighter than ink) gets the median light of the other tiles."""
    found: dict[str, TileLight] = {}
    for tile, corners in geo.tile_markers.items():
        light = _marker_light(lab, corners)
        if light is not None and light.paper - light.ink >= config.marker_min_contrast:
            found[tile] = light
    if not found:
        return {}
    middle = TileLight(
        float(np.median([v.paper for v in found.values()])),
        float(np.median([v.ink for v in found.values()])),
        (
            float(np.median([v.cast[0] for v in found.values()])),
            float(np.median([v.cast[1] for v in found.values()])),
        ),
    )
    return {t: found.get(t, middle) for t in geo.tile_markers}


def _marker_light(lab: Image, corners: npt.NDArray[Any]) -> TileLight | None:
    h, w = lab.shape[:2]
    c = corners.astype(np.float64)
    mid = c.mean(axis=0)
    x0, y0 = np.floor(mid + (c - mid).min(axis=0) * _PAPER_BAND[1]).astype(int) - 1
    x1, y1 = np.ceil(mid + (c - mid).max(axis=0) * _PAPER_BAND[1]).astype(int) + 2
    x0, y0, x1, y1 = max(0, x0), max(0, y0), min(w, x1), min(h, y1)
    if x1 - x0 < 3 or y1 - y0 < 3:
        return None

    def square(factor: float) -> Image:
        m = np.zeros((y1 - y0, x1 - x0), np.uint8)
        pts = mid + (c - mid) * factor - (x0, y0)
        cv2.fillConvexPoly(m, np.round(pts).astype(np.int32), 1)
        return m > 0

    sub = lab[y0:y1, x0:x1]
    band = square(_PAPER_BAND[1]) & ~square(_PAPER_BAND[0])
    code = square(_CODE)
    if band.sum() < 8 or code.sum() < 8:
        return None
    margin = sub[band]
    # The margin's lighter part: blur darkens its inner edge towards the code's black border.
    paper = margin[margin[:, 0] >= np.percentile(margin[:, 0], 60)]
    return TileLight(
        float(np.median(GREY[paper[:, 0]])),
        float(np.percentile(GREY[sub[code][:, 0]], 5)),
        (float(np.median(paper[:, 1])) - 128.0, float(np.median(paper[:, 2])) - 128.0),
    )


@dataclass(frozen=True)
class CastleBlob:
    """A hueless blob on a tile, measured: a castle if thick enough (see :func:`read_castles`).

    ``body``: the lightness share (ink 0, paper 1) of the middle of the blob's thickest part,
    the castle's body (a black castle's lit edges are thin, and its own shadow on the tile
    joins its blob at one side). ``print_share``: the tile print's share beside it;
    ``typical``: the print's share over all tiles.
    """

    place: str | None
    centre: tuple[float, float]  # working px
    area: float  # castle tops (width squared)
    thickness: float  # inscribed radius over the castle's width
    body: float
    print_share: float
    typical: float

    @property
    def lightness(self) -> float:
        """The body's share, half corrected (in proportion) by how the print beside it
        differs from the print elsewhere: a gradient or a shadow band the marker does not
        share scales castle and print alike, but a glare spot over the castle lifts the
        print towards the paper, not in proportion."""
        return self.body * math.sqrt(self.typical / max(self.print_share, 0.2))

    def colour(self, config: VisionConfig) -> str:
        light = self.lightness
        if light < config.black_castle_share:
            return "black"
        return "white" if light >= config.white_castle_share else "grey"


def read_castles(
    lab: Image,
    geo: Geometry,
    place_at: _PlaceAt,
    layout: Layout,
    config: VisionConfig,
    pieces: Image | None = None,
) -> dict[str, str]:
    """Castles on the territories: hueless blobs, thick as a castle, on a tile (see
    :func:`castle_blobs`); white, grey or black by their lightness. ``pieces``: pixels the
    colour model gave a piece colour (cubes, Charlemagne), left out of the tile's print."""
    tile_ids = {t.id for t in layout.tiles}
    out: dict[str, str] = {}
    for blob in castle_blobs(lab, geo, place_at, layout, config, pieces):
        if blob.thickness < config.castle_thickness:
            continue  # a thin strip: the mat along a tile's edge, a cube's pale rim
        if blob.place is None or blob.place not in tile_ids:
            continue
        out[blob.place] = blob.colour(config)
    return dict(sorted(out.items()))


def castle_blobs(
    lab: Image,
    geo: Geometry,
    place_at: _PlaceAt,
    layout: Layout,
    config: VisionConfig,
    pieces: Image | None = None,
) -> list[CastleBlob]:
    """Every blob on the tiles that is hueless once the light's cast is off, unlike the
    tile's print round it and not of the print's hue (a shadow), and at least as big as a
    castle's top, measured."""
    castle = layout.pieces.get("castle", {})
    width = float(castle.get("width", 13.0)) * geo.mm_px
    if geo.tile_mask is None:
        return []
    lights = tile_lights(lab, geo, config)
    if not lights:
        return []
    bx, by, bw, bh = geo.tile_box
    # Sensor noise in the dark (a black castle's hue) is strong: judged over 3x3 pixels.
    sub = cv2.blur(lab[by : by + bh, bx : bx + bw], (3, 3))
    place_sub = geo.place_map[by : by + bh, bx : bx + bw]
    on_tile = geo.tile_mask[by : by + bh, bx : bx + bw] & ~geo.ignore[by : by + bh, bx : bx + bw]
    print_ = on_tile.copy()
    if pieces is not None:
        print_ &= ~pieces[by : by + bh, bx : bx + bw]
    neutral, share, print_share = hueless(
        sub, place_sub, on_tile, print_, geo, lights, width, config
    )
    typical = float(np.median(print_share[print_])) if print_.any() else 1.0
    kernel = np.ones((2, 2), np.uint8)
    mask = cv2.morphologyEx(neutral.astype(np.uint8), cv2.MORPH_OPEN, kernel)
    mask = fill_small_holes(mask, config.castle_hole * width * width)
    n, labels, stats, centroids = cv2.connectedComponentsWithStats(mask, connectivity=8)
    out: list[CastleBlob] = []
    for i in range(1, n):
        area = float(stats[i, cv2.CC_STAT_AREA]) / (width * width)
        if area < config.castle_min_area:
            continue  # the tile's printed name, a marker's white margin
        x, y, w, h = (int(v) for v in stats[i, :4])
        blob = labels[y : y + h, x : x + w] == i
        dist = cv2.distanceTransform(np.pad(blob.astype(np.uint8), 1), cv2.DIST_L2, 3)[1:-1, 1:-1]
        cx, cy = float(centroids[i][0]), float(centroids[i][1])
        # The body: the middle of the blob's thickest part.
        core = dist >= max(1.0, float(dist.max()) - config.castle_core * width)
        out.append(
            CastleBlob(
                place_at(cx + bx, cy + by),
                (cx + bx, cy + by),
                area,
                float(dist.max()) / width,
                float(np.median(share[y : y + h, x : x + w][core])),
                float(print_share[min(int(cy), bh - 1), min(int(cx), bw - 1)]),
                typical,
            )
        )
    return out


def hueless(
    lab: Image,
    places: Image,
    on_tile: Image,
    print_: Image,
    geo: Geometry,
    lights: Mapping[str, TileLight],
    width: float,
    config: VisionConfig,
) -> tuple[Image, FloatArray, FloatArray]:
    """Pixels that may be a castle's, the lightness share of each pixel and of the print
    round it. ``print_``: the pixels that may be the tile's print (no piece colour)."""
    share, ab = _relative(lab, places, geo, lights)
    local = local_print(lab, print_, round(config.castle_print_window * width))
    neutral = (np.hypot(ab[..., 0], ab[..., 1]) <= config.castle_chroma) & on_tile
    # A pale tile in cold light or under glare is nearly hueless too: a castle must also stand
    # out from the tile's print round it (the light varies across a tile, so not the tile's
    # own median) ...
    neutral &= lab_distance(lab, local) > config.castle_contrast
    # ... and keep little of the print's hue: the shadow of a pawn or a stack of cubes is the
    # print, darker and duller, but of its hue still. Far darker than any shadow is black,
    # whose hue is mostly noise.
    print_share, print_ab = _relative(local, places, geo, lights)
    print_chroma = np.maximum(1.0, np.hypot(print_ab[..., 0], print_ab[..., 1]))
    along = (ab * print_ab).sum(axis=-1) / print_chroma
    neutral &= (along <= config.castle_print_hue * print_chroma) | (
        share < config.castle_shadow_ratio * print_share
    )
    return neutral, share, print_share


def _relative(
    lab: Image, places: Image, geo: Geometry, lights: Mapping[str, TileLight]
) -> tuple[FloatArray, FloatArray]:
    """Per pixel: grey value as a share from its tile's ink to its paper, and Lab a, b with
    the tile's cast taken off (in proportion to that share: a white paper shows the whole
    cast, black ink none of it)."""
    count = len(geo.places) + 1
    paper = np.full(count, 255.0, np.float32)
    ink = np.zeros(count, np.float32)
    cast = np.zeros((count, 2), np.float32)
    for k, place in enumerate(geo.places):
        light = lights.get(place.id)
        if light is not None:
            paper[k + 1], ink[k + 1], cast[k + 1] = light.paper, light.ink, light.cast
    p, i, c = paper[places], ink[places], cast[places]
    share = (GREY[lab[..., 0]] - i) / np.maximum(1.0, p - i)
    seen = np.clip(share, 0.0, 1.0)[..., None]
    ab: FloatArray = lab[..., 1:].astype(np.float32) - 128.0 - c * seen
    return share, ab
