"""The hand check: is a hand or arm over the board? Then nothing in the frame is counted.

A hand is skin-coloured (or, over the areas, of no colour the model knows: a sleeve, a glove)
and big: many cube footprints. And it belongs to an arm that reaches in from outside the
board: the blob must touch the board's outline or the frame's border. A region's warm print in
warm light can look like skin and is as big as a hand, but it lies within the board.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import cv2
import numpy as np
import numpy.typing as npt

from companion.vision.colour import BACKGROUND, L_WEIGHT, UNKNOWN, Lab, lab_of_packed
from companion.vision.config import DEFAULT_CONFIG, VisionConfig
from companion.vision.local_print import percentile_rows, percentile_u8
from companion.vision.masks import opened_by

Image = npt.NDArray[Any]


def white_cast(paper: Image) -> tuple[float, float]:
    """The light's colour cast (Lab a, b offsets) from the Lab pixels (N x 3) of the printed
    markers' white paper (the markers with their margins): their brighter part (the lightest
    30 %), by the median."""
    if paper.shape[0] < 16:
        return 0.0, 0.0
    # (Each channel made contiguous first, and both medians taken in one call: picking rows
    # of an N x 3 array costs several times picking from its channels.)
    light, a, b = np.ascontiguousarray(paper.T)
    bright = light >= percentile_u8(np.bincount(light, minlength=256), 70.0)
    counts = np.stack(
        [np.bincount(a[bright], minlength=256), np.bincount(b[bright], minlength=256)]
    )
    cast_a, cast_b = percentile_rows(counts, 50.0)
    return float(cast_a) - 128.0, float(cast_b) - 128.0


def _run(inside: Image) -> tuple[int, int]:
    """First and last true index of a boolean run over 0..255 ((1, 0): none)."""
    where = np.flatnonzero(inside)
    return (int(where[0]), int(where[-1])) if where.size else (1, 0)


def skin_box(
    cast: tuple[float, float] = (0.0, 0.0), config: VisionConfig = DEFAULT_CONFIG
) -> tuple[tuple[int, int, int], tuple[int, int, int]]:
    """Skin as a box of OpenCV 8-bit Lab values (lowest, highest), the light's ``cast`` (see
    :func:`white_cast`) taken off: warm, mid-light, moderately saturated."""
    # Each channel's test is an interval of its 256 values.
    values = np.arange(256, dtype=np.float32)
    lo_a, hi_a = config.skin_a
    lo_b, hi_b = config.skin_b
    a0, a1 = _run(((values - cast[0]) > lo_a) & ((values - cast[0]) < hi_a))
    b0, b1 = _run(((values - cast[1]) > lo_b) & ((values - cast[1]) < hi_b))
    l0, l1 = _run(np.arange(256) > config.skin_l)
    return (l0, a0, b0), (l1, a1, b1)


# Lab's a and b of a colour under a light's tint shift in proportion to (L* + 16), that is
# to its 8-bit lightness plus this: a dark skin shows less of the cast than the markers' paper.
_LAB_OFFSET = 16.0 * 255.0 / 100.0


def paper_lightness(paper: Image) -> float:
    """The 8-bit Lab lightness of the markers' paper (N x 3 Lab pixels, as for
    :func:`white_cast`): the median of their lightest 30 % (255 when there is too little)."""
    if paper.shape[0] < 16:
        return 255.0
    light = paper[:, 0]
    bright = light[light >= percentile_u8(np.bincount(light, minlength=256), 70.0)]
    return percentile_u8(np.bincount(bright, minlength=256), 50.0)


def skin_mask(
    lab: Image,
    cast: tuple[float, float] = (0.0, 0.0),
    config: VisionConfig = DEFAULT_CONFIG,
    paper: float | None = None,
) -> Image:
    """Skin pixels of an OpenCV 8-bit Lab image under light of that ``cast`` (see
    :func:`white_cast`). With the ``paper``'s lightness (:func:`paper_lightness`), the cast
    is taken off each pixel in proportion to its lightness (a tint shifts a and b so; the
    cast is the paper's); without, whole."""
    if paper is None:
        low, high = skin_box(cast, config)
        out: Image = cv2.inRange(np.ascontiguousarray(lab), low, high) > 0
        return out
    f = lab.astype(np.float32)
    scale = (f[..., 0] + _LAB_OFFSET) / (paper + _LAB_OFFSET)
    a = f[..., 1] - cast[0] * scale
    b = f[..., 2] - cast[1] * scale
    lo_a, hi_a = config.skin_a
    lo_b, hi_b = config.skin_b
    inside: Image = (a > lo_a) & (a < hi_a) & (b > lo_b) & (b < hi_b) & (f[..., 0] > config.skin_l)
    return inside


def board_print(lab: Image, board: Sequence[Lab], config: VisionConfig = DEFAULT_CONFIG) -> Image:
    """Pixels (OpenCV 8-bit Lab) within ``config.hand_print_distance`` of one of the board's
    own colours (the calibration's, seen under this light)."""
    return near_print(lab, board, config.hand_print_distance)


def near_print(lab: Image, board: Sequence[Lab], distance: float) -> Image:
    """Pixels (OpenCV 8-bit Lab) within ``distance`` (Lab, lightness weighed half) of one of
    the ``board``'s colours."""
    near = np.zeros(lab.shape[:-1], bool)
    f = lab.astype(np.float32)
    for ref in board:
        d2 = (L_WEIGHT * (f[..., 0] - ref[0])) ** 2 + (f[..., 1] - ref[1]) ** 2
        d2 += (f[..., 2] - ref[2]) ** 2
        near |= d2 < distance**2
    return near


class SkinColours:
    """Which BGR colours are skin: under light of the frame's cast (:func:`skin_mask` of their
    Lab, with the paper's lightness) and not the board's own print (:func:`board_print`: in
    warm light a beige frame or a peach region is skin-coloured, and as big as an arm); skin
    under neutral light; and that skin far from the board's print (the colour model's board
    colours also hold the table the lens bends inside the board's outline: an arm of its
    colour is no print). ``board``: the board's print colours (calibration's
    ``board_print``). A cache over all 24-bit colours (packed as colour.pack_bgr packs them),
    filled as colours are first seen, started again when the cast or the paper's lightness
    changes: a frame's skin is one lookup, not a Lab conversion."""

    _KNOWN, _CAST, _NEUTRAL, _OFF_PRINT, _TABLE = 1, 2, 4, 8, 16

    def __init__(
        self,
        config: VisionConfig = DEFAULT_CONFIG,
        board: Sequence[Lab] = (),
        table: Sequence[Lab] = (),
    ) -> None:
        self.config = config
        self.board = tuple(board)
        self.table = tuple(table)
        self._light: tuple[float, float, float] | None = None
        self._table = np.zeros(1 << 24, np.uint8)

    def masks(
        self, packed: Image, cast: tuple[float, float], paper: float = 255.0
    ) -> tuple[Image, Image, Image, Image]:
        """Skin under the cast (not the board's print), under neutral light, and under
        neutral light far from the print (beyond the colour model's background distance), of
        packed BGR pixels; and the table's own colours (the calibration's, within that
        distance): a wooden table may be skin-coloured, and is no forearm."""
        light = (cast[0], cast[1], paper)
        if light != self._light:
            self._table[:] = 0
            self._light = light
        # (Indices made NumPy's own integers first: np.take converts 32-bit unsigned ones
        # at several times the cost.)
        bits = np.take(self._table, packed.astype(np.intp))
        missing = bits == 0
        if cv2.countNonZero(missing.view(np.uint8)):
            keys = packed[missing]
            lab = lab_of_packed(keys)[:, None]
            under = skin_mask(lab, cast, self.config, paper) & ~board_print(
                lab, self.board, self.config
            )
            plain = skin_mask(lab, config=self.config)[:, 0]
            off = plain & ~near_print(lab, self.board, self.config.background_distance)[:, 0]
            table = near_print(lab, self.table, self.config.background_distance)[:, 0]
            new = (
                self._KNOWN
                | (self._CAST * under[:, 0])
                | (self._NEUTRAL * plain)
                | (self._OFF_PRINT * off)
                | (self._TABLE * table)
            ).astype(np.uint8)
            self._table[keys] = new
            bits[missing] = new
        return (
            (bits & self._CAST) > 0,
            (bits & self._NEUTRAL) > 0,
            (bits & self._OFF_PRINT) > 0,
            (bits & self._TABLE) > 0,
        )


def hand_check(
    labels: Image,
    skin: tuple[Image, ...],
    hand_zone: Image,
    area_zone: Image,
    outside: Image,
    typical_footprint: float,
    config: VisionConfig,
) -> str | None:
    """Why this frame shows a hand or arm over the board, or None.

    ``labels``, ``skin`` and the zones are at half the working image's resolution (a hand is
    big: every other pixel of every other row is plenty). ``skin``: skin under the light's cast
    (taken from the markers' paper: warm light makes the whole board look like skin) and skin
    under neutral light, and optionally skin under neutral light far from the board's print
    (see :class:`SkinColours`). ``hand_zone``: where a hand matters (the
    board but its markers and the tower); ``area_zone``: the areas; ``outside``: off the board.
    """
    # Skin as under neutral light; or skin as the camera sees it where the colour model does
    # not take it for the board (a cast misjudged by glare on a marker), or takes it for the
    # table's colour only (a pale arm in a magenta cast).
    skin_cast, skin_plain = skin[0], skin[1]
    # (The masks' bytes, 0 or 1, combined by OpenCV: a pass each at a fraction of NumPy's
    # cost on booleans. The opening and the counts read them as they are.)
    cast_b, plain_b = skin_cast.view(np.uint8), skin_plain.view(np.uint8)
    skin_b = cv2.bitwise_and(plain_b, cv2.inRange(labels, BACKGROUND + 1, 255))
    cv2.bitwise_or(skin_b, cast_b, dst=skin_b)
    if len(skin) > 2:
        cv2.bitwise_or(skin_b, skin[2].view(np.uint8), dst=skin_b)
    unknown_b = cv2.inRange(labels, UNKNOWN, UNKNOWN)
    # Over the areas anything of no known colour is suspect; over bare mat or the board's
    # frame (scoreboards, print, the tower's shadow) only skin is.
    strange_b = cv2.bitwise_or(
        cv2.bitwise_and(unknown_b, area_zone.view(np.uint8)),
        cv2.bitwise_and(skin_b, hand_zone.view(np.uint8)),
    )
    kernel = np.ones((2, 2), np.uint8)
    blobs = opened_by(strange_b, kernel)
    limit = config.hand_min_cubes * typical_footprint / 4
    total = cv2.countNonZero(blobs)
    if total < min(limit, config.hand_reach_cubes * typical_footprint / 4):
        return None  # not enough of it for one blob (most frames: no need to look closer)
    # The forearm over the table: skin as under neutral light or under the cast (off the board
    # the colour model knows nothing), but not the table's own colours: a wooden table may be
    # skin-coloured all round the board.
    off_table = cv2.bitwise_or(cast_b, plain_b)
    if len(skin) > 3:
        cv2.bitwise_and(off_table, cv2.inRange(skin[3].view(np.uint8), 0, 0), dst=off_table)
    off_board = cv2.bitwise_and(off_table, outside.view(np.uint8))
    # (The forearm is this opened: never more pixels.)
    no_arm = cv2.countNonZero(off_board) < limit
    if total < limit and no_arm:
        return None  # no blob that big, and no forearm a smaller one could be joined to
    n, parts = cv2.connectedComponents(blobs, connectivity=8)
    points = cv2.findNonZero(blobs).reshape(-1, 2)
    at = points[:, 1].astype(np.intp) * blobs.shape[1] + points[:, 0]
    part = parts.ravel()[at]
    area = np.bincount(part, minlength=n)
    area[0] = 0
    big = np.flatnonzero(area >= limit).tolist()
    if not big:
        if no_arm:
            return None
        arm = opened_by(off_board, kernel)
        return _reaching_in(blobs, parts, area, arm, limit, typical_footprint, config)
    # One blob must be that big by itself (scattered odd pixels joined by a grey mat are no
    # hand), and reach off the board. What joins a blob to the world outside the board: skin
    # or anything unknown on the board's frame (a sleeve), skin off the board (the forearm) or
    # over what the blob itself leaves out: an arm reaching in past El Grande's tower or over
    # a marker crosses them (the tower's brown sides, skin-coloured, are no hand by themselves).
    joins = strange_b.view(bool) | ((unknown_b > 0) & hand_zone) | (skin_b.view(bool) & ~hand_zone)
    reach = cv2.bitwise_or(opened_by(joins.astype(np.uint8), kernel), blobs)
    border = np.zeros_like(outside)
    border[0, :] = border[-1, :] = border[:, 0] = border[:, -1] = True
    edge = cv2.dilate((outside | border).astype(np.uint8), np.ones((3, 3), np.uint8)) > 0
    for i in big:
        # A blob lies in one piece of what joins it to the world: fill that piece from it.
        y, x = divmod(int(at[np.argmax(part == i)]), blobs.shape[1])
        _, _, _, (rx, ry, rw, rh) = cv2.floodFill(reach, None, (x, y), 2, flags=8)
        joined = reach[ry : ry + rh, rx : rx + rw] == 2
        if (joined & edge[ry : ry + rh, rx : rx + rw]).any():
            return f"a hand or arm over the board (blob of {area[i]} px)"
    return None


def _reaching_in(
    blobs: Image,
    parts: Image,
    area: Image,
    arm: Image,
    limit: float,
    typical_footprint: float,
    config: VisionConfig,
) -> str | None:
    """A hand reaching in from off the board is small over it at first: a blob over the
    board of ``config.hand_reach_cubes`` footprints or more joined to a forearm over the table
    (``arm``: skin off the board) of ``limit`` pixels or more."""
    if cv2.countNonZero(arm) < limit:
        return None
    reach = config.hand_reach_cubes * typical_footprint / 4
    held = np.flatnonzero(area >= reach).tolist()
    if not held:
        return None
    joined = cv2.bitwise_or(blobs, arm)
    n, pieces = cv2.connectedComponents(joined, connectivity=8)
    on_arm = np.bincount(pieces[arm > 0], minlength=n)
    for i in held:
        y, x = np.argwhere(parts == i)[0]
        off = int(on_arm[pieces[y, x]])
        if pieces[y, x] and off >= limit:
            return (
                f"a hand over the board's edge (blob of {area[i]} px, "
                f"its arm of {off} px over the table)"
            )
    return None
