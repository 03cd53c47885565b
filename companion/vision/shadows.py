"""A shadow is no black cube.

El Grande's Castillo tower casts a shadow as long as the tower is tall; on the pale print
(a court zone beside it) that shadow, with the print's lines and names in it, is as dark as
the colour model's black, and thick: read as a row or a block of black cubes. Round the
tower, black pixels must also be darker than a shadow gets against the print round them
(:func:`figures.dark_within`, the black pieces' test under glare), or lie at the rim of such
pixels (a black cube's blurred rim). When the set-up's black was sampled light (under a
lamp's glare, see ``VisionConfig.dark_black_lightness``) the model's black also takes the
print's dark lines and the sea in a lamp's shadow: there the test covers the whole board
(``Geometry.dark_zone``).
"""

from __future__ import annotations

from typing import Any

import cv2
import numpy as np
import numpy.typing as npt

from companion.vision.colour import BACKGROUND
from companion.vision.config import VisionConfig
from companion.vision.figures import MarkerLight, dark_within
from companion.vision.geometry import Geometry

Image = npt.NDArray[Any]


def shadow_pixels(
    image: Image,
    labels: Image,
    black: int,
    geo: Geometry,
    config: VisionConfig,
    light: MarkerLight | None = None,
) -> Image | None:
    """The black pixels (label ``black``) of ``labels`` in the zone where black must be darker
    than a shadow (``geo.dark_zone``) that are no darker than one (bool, over
    ``geo.dark_box``), or None if there are none (:func:`apply_shadows` labels them board);
    ``labels`` is only read (this may run beside the hand check, which reads them too).
    ``light``: the markers' (see :func:`figures.marker_light`), if the caller has it."""
    zone = geo.dark_zone
    x, y, w, h = geo.dark_box
    if zone is None or not w or not h:
        return None
    sub = labels[y : y + h, x : x + w]
    black_px = (sub == black) & zone
    if not black_px.any():
        return None  # (most frames: nothing black there, no Lab needed)
    rim = max(1, round(config.shadow_rim * geo.dark_side))
    # Only the dark pixels within the rim of a black one matter: the dark test (Lab and the
    # print round each pixel over the whole box, so the answers are the same) judges its
    # pixels round the black ones only.
    bx, by, bw, bh = cv2.boundingRect(black_px.view(np.uint8))
    need = (x + bx - rim, y + by - rim, bw + 2 * rim, bh + 2 * rim)
    dark = dark_within(image, labels, geo, geo.dark_box, config, light, need)
    kept = cv2.dilate(dark, np.ones((2 * rim + 1, 2 * rim + 1), np.uint8)) > 0
    gone: Image = black_px & ~kept
    return gone


def apply_shadows(labels: Image, gone: Image | None, geo: Geometry) -> int:
    """Label :func:`shadow_pixels`' pixels as board; how many."""
    if gone is None:
        return 0
    x, y, w, h = geo.dark_box
    labels[y : y + h, x : x + w][gone] = BACKGROUND
    return int(gone.sum())
