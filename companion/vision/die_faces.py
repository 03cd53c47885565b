"""Which face a die's top symbol shows, from its colour against the die's own white.

Blur and the camera's compression blend a symbol only ~10 px wide with the white round it,
which scales how much darker than the white it is and how colourful it is alike. So a face is
told by its hue and its colourfulness per darkening (luma and chroma as in JPEG's YCbCr), both
kept by that blending: the gold crown and the yellow spot have nearly one hue, but the crown is
far darker for its colour. Against the die's own white, the light's colour and strength drop out.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Sequence
from dataclasses import replace

from companion.vision.colour import NOMINAL_BGR
from companion.vision.config import DEFAULT_CONFIG, VisionConfig

CAROLUS_FACES = ("red", "blue", "yellow", "green", "pink", "crown")
# The crown printed on the dice: gold. Nominal, like the spots' colours (the cubes' nominal
# colours) and the die's white body.
CROWN_BGR = (20, 150, 200)
FACE_BGR: dict[str, tuple[int, int, int]] = {
    name: NOMINAL_BGR[name] for name in CAROLUS_FACES if name != "crown"
}
FACE_BGR["crown"] = CROWN_BGR
DIE_WHITE = NOMINAL_BGR["white"]


def hue_saturation(ratio: Sequence[float], config: VisionConfig) -> tuple[float, float]:
    """Hue (degrees) and log colourfulness per darkening of a colour given as its B, G, R
    ratios to the white beside it. A yellow spot is hardly darker than the white: a small
    constant keeps that ratio finite."""
    b, g, r = (float(v) for v in ratio)
    luma = 0.114 * b + 0.587 * g + 0.299 * r
    cb, cr = 0.564 * (b - luma), 0.713 * (r - luma)
    floor = config.die_saturation_floor
    colourful = (math.hypot(cb, cr) + floor) / (1.0 - luma + floor)
    return math.degrees(math.atan2(cr, cb)), math.log(max(colourful, 1e-6))


@functools.lru_cache(maxsize=8)
def _faces(floor: float) -> tuple[tuple[str, float, float], ...]:
    """Each face's hue and colourfulness (:func:`hue_saturation`, which only reads the
    config's ``die_saturation_floor``), worked out once per floor, not per die."""
    config = replace(DEFAULT_CONFIG, die_saturation_floor=floor)
    return tuple(
        (name, *hue_saturation([c / w for c, w in zip(bgr, DIE_WHITE, strict=True)], config))
        for name, bgr in FACE_BGR.items()
    )


def face_of(ratio: Sequence[float], config: VisionConfig) -> tuple[str | None, str]:
    """The face a symbol's colour (B, G, R ratios to the die's white) shows, or None and why:
    no face near enough, or two faces about as near."""
    hue, saturation = hue_saturation(ratio, config)
    fits = {}
    for name, face_hue, face_saturation in _faces(config.die_saturation_floor):
        turn = (hue - face_hue + 180.0) % 360.0 - 180.0
        fits[name] = (turn / config.die_hue_tolerance) ** 2 + (
            (saturation - face_saturation) / config.die_saturation_tolerance
        ) ** 2
    best, second = sorted(fits, key=fits.__getitem__)[:2]
    if fits[best] > config.die_fit_max:
        return None, f"its symbol is no die colour (nearest {best})"
    if {best, second} == {"crown", "yellow"}:
        return crown_or_yellow(saturation, config)
    if fits[second] - fits[best] < config.die_fit_margin:
        return None, f"its symbol could be {best} or {second}"
    return best, ""


def crown_or_yellow(saturation: float, config: VisionConfig) -> tuple[str | None, str]:
    """The crown or the yellow spot, by colourfulness per darkening alone: their hues are
    nearly one (9 degrees apart, and each spreads over 15 on the hard set), the crown is far
    darker for its colour. Between the two bounds the die is left unread."""
    crown_below, yellow_above = config.die_crown_yellow
    if saturation < crown_below:
        return "crown", ""
    if saturation > yellow_above:
        return "yellow", ""
    return None, "its symbol could be crown or yellow"
