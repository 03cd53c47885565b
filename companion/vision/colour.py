"""Colour classification in Lab with a reject distance.

A :class:`ColourModel` holds reference Lab values for each piece colour (sampled from cubes at
known places during calibration, or nominal values) and for the board background. Every pixel is
labelled with its nearest reference: a piece colour if within the reject distance, background if
nearest to the board, and UNKNOWN when it is far from everything (a hand, a sleeve, a phone).
Which coloured piece a piece pixel belongs to is then told mostly by hue: shade, glare and blur
change a cube's lightness and chroma far more than its hue. A hueless pixel darker than the
darkest reference, when that is hueless (El Grande's black), is that colour however much darker:
nothing else the model knows lies there (a set-up's black sampled under a lamp's glare, the
game's black tops far darker).

Classification goes through a lookup table over quantised Lab (64 levels per channel), built once
per model, so labelling a frame is one indexing pass. A camera frame is labelled straight from its
BGR values (:meth:`ColourModel.classify_bgr`) through a cache over all 2^24 BGR colours, filled
as colours are first seen: the label of a BGR colour is that of its Lab value, so the result is
the same, without converting the whole frame to Lab.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from functools import cached_property
from typing import Any

import cv2
import numpy as np
import numpy.typing as npt

from companion.vision.config import DEFAULT_CONFIG, VisionConfig
from companion.vision.masks import opened_by

Lab = tuple[float, float, float]
U8Image = npt.NDArray[Any]

BACKGROUND = 0
UNKNOWN = 255
# A faint pixel's raw label: FAINT | its colour's label (see ColourModel.faint_chroma).
FAINT = 128
# A BGR cache entry not filled yet (labels are BACKGROUND, 1..250 and UNKNOWN).
_PENDING = 254
# Lightness varies with shading far more than hue does; it weighs half in the distance.
L_WEIGHT = 0.5
_Q = 2  # quantisation shift: 256 levels -> 64 per channel
NEUTRAL_CHROMA = 12.0
NEUTRAL_SHARE = 0.55


def bgr_to_lab(bgr: Sequence[int]) -> Lab:
    """OpenCV 8-bit Lab of one BGR colour."""
    px = np.array([[list(bgr)]], dtype=np.uint8)
    lab = cv2.cvtColor(px, cv2.COLOR_BGR2Lab)[0, 0]
    return (float(lab[0]), float(lab[1]), float(lab[2]))


def pack_bgr(bgr: U8Image) -> U8Image:
    """Each pixel of an 8-bit BGR image as one number, B | G << 8 | R << 16 (uint32)."""
    packed: U8Image = cv2.cvtColor(bgr, cv2.COLOR_BGR2BGRA).view("<u4")[..., 0]
    np.bitwise_and(packed, 0xFFFFFF, out=packed)  # (in place: no second frame-sized array)
    return packed


def lab_of_packed(packed: U8Image) -> U8Image:
    """Lab (N x 3) of a list of packed pixels (see :func:`pack_bgr`)."""
    # (Converted as one row: OpenCV converts row by row, and N rows of one pixel cost several
    # times one row of N; the values are the same, every 24-bit colour checked.)
    lab: U8Image = cv2.cvtColor(unpack_bgr(packed)[None], cv2.COLOR_BGR2Lab)[0]
    return lab


def unpack_bgr(packed: U8Image) -> U8Image:
    """The BGR pixels (... x 3, uint8) of packed ones (see :func:`pack_bgr`)."""
    bytes_ = np.ascontiguousarray(packed, "<u4").view(np.uint8).reshape(*packed.shape, 4)
    out: U8Image = np.ascontiguousarray(bytes_[..., :3])
    return out


def is_neutral(lab: Lab) -> bool:
    """Whether a reference colour has no hue to go by (black, white, grey: chroma under
    NEUTRAL_CHROMA)."""
    return math.hypot(lab[1] - 128.0, lab[2] - 128.0) < NEUTRAL_CHROMA


def lab_distance(a: Lab, b: Lab) -> float:
    return float(np.sqrt((L_WEIGHT * (a[0] - b[0])) ** 2 + (a[1] - b[1]) ** 2 + (a[2] - b[2]) ** 2))


@dataclass(frozen=True)
class ColourModel:
    """Reference colours; ``names`` fixes the label of each colour (label = index + 1)."""

    pieces: Mapping[str, tuple[Lab, ...]]
    background: tuple[Lab, ...] = ()
    reject_distance: float = DEFAULT_CONFIG.reject_distance
    background_distance: float = DEFAULT_CONFIG.background_distance
    min_chroma_share: float = DEFAULT_CONFIG.min_chroma_share
    fade_share: float = DEFAULT_CONFIG.fade_share
    hue_lightness_weight: float = DEFAULT_CONFIG.hue_lightness_weight
    # Colours whose pixels may be duller than min_chroma_share: (name, share), the lower of
    # the two applies (a model made more lenient, e.g. for faded pawns, stays so).
    chroma_shares: tuple[tuple[str, float], ...] = ()
    # Pixels that fail only the chroma share but are at least this saturated are faint
    # (``classify_packed(..., faint=True)`` gives them FAINT | label; see keep_faint); None:
    # no faint pixels, they stay unknown.
    faint_chroma: float | None = None

    def __post_init__(self) -> None:
        if not self.pieces:
            raise ValueError("a colour model needs at least one piece colour")
        if len(self.pieces) > 250:
            raise ValueError("a colour model holds at most 250 piece colours")
        most = _PENDING - 1 - FAINT  # (FAINT | label must stay clear of _PENDING and UNKNOWN)
        if self.faint_chroma is not None and len(self.pieces) > most:
            raise ValueError(f"a colour model with faint pixels holds at most {most} colours")

    @property
    def names(self) -> tuple[str, ...]:
        return tuple(self.pieces)

    def label(self, name: str) -> int:
        return self.names.index(name) + 1

    def name_of(self, label: int) -> str | None:
        if label in (BACKGROUND, UNKNOWN):
            return None
        return self.names[label - 1]

    @cached_property
    def lut(self) -> U8Image:
        """Label of every quantised Lab bin, flattened: index = L<<12 | a<<6 | b (6 bits each).
        Faint bins (see ``faint_chroma``) hold FAINT | label."""
        step = 1 << _Q
        centres = np.arange(64, dtype=np.float32) * step + (step - 1) / 2
        L, A, B = np.meshgrid(centres, centres, centres, indexing="ij")
        bins = np.stack([L.ravel() * L_WEIGHT, A.ravel(), B.ravel()], axis=1)
        labels = self._labels(bins, np.inf)
        if self.faint_chroma is not None:
            # What the same model labels with the chroma share floored at faint_chroma,
            # where the share itself left the pixel unknown.
            weak = self._labels(bins, self.faint_chroma)
            faint = (labels == UNKNOWN) & (weak >= 1) & (weak <= len(self.pieces))
            labels[faint] = FAINT | weak[faint]
        return labels

    def _labels(self, bins: npt.NDArray[Any], floor: float) -> U8Image:
        """Labels of the bins, a coloured piece's chroma test asking at most ``floor``."""
        best = np.full(bins.shape[0], np.inf, dtype=np.float32)
        labels = np.full(bins.shape[0], UNKNOWN, dtype=np.uint8)
        chroma = np.hypot(bins[:, 1] - 128.0, bins[:, 2] - 128.0)
        shares = dict(self.chroma_shares)
        darkest = self._darkest_neutral()
        for index, (name, refs) in enumerate(self.pieces.items()):
            share = min(shares.get(name, self.min_chroma_share), self.min_chroma_share)
            for ref in refs:
                # Black, white and grey have no hue to go by: the shaded side of a red cube
                # is as dark as black, so neutral colours accept only near-neutral pixels.
                ref_chroma = float(np.hypot(ref[1] - 128.0, ref[2] - 128.0))
                neutral = ref_chroma < NEUTRAL_CHROMA
                if ref == darkest:
                    # Nothing the model knows is darker than its darkest hueless colour
                    # (black): a pixel darker still is that colour, as far as hue goes.
                    d = _dist(_floored(bins, ref[0] * L_WEIGHT), ref)
                else:
                    d = _dist(bins, ref)
                reach = self.reject_distance * (NEUTRAL_SHARE if neutral else 1.0)
                better = (d < best) & (d <= reach)
                if not neutral:
                    # ... and a coloured piece is saturated: a grey mat or a shadow within
                    # reach of a dull, dim colour (blue, pink in dim light) is not that piece.
                    better &= chroma >= min(share * ref_chroma, floor)
                labels[better] = index + 1
                best[better] = d[better]
        self._by_hue(bins, labels)
        for ref in self.background:
            d = _dist(bins, ref)
            # The board wins a pixel only if it is nearer than every piece colour.
            better = (d < best) & (d <= self.background_distance)
            labels[better] = BACKGROUND
            best[better] = d[better]
        # Far from every piece and from the board, but near enough to a piece colour to be a
        # dim or shaded piece pixel? No: UNKNOWN stays unknown; readers decide what it means.
        return labels

    def _darkest_neutral(self) -> Lab | None:
        """The darkest hueless reference, if it is darker than every other reference (piece
        and board)."""
        refs = [ref for refs in self.pieces.values() for ref in refs]
        neutral = [ref for ref in refs if is_neutral(ref)]
        if not neutral:
            return None
        darkest = min(neutral, key=lambda ref: ref[0])
        others = [ref[0] for ref in (*refs, *self.background) if ref is not darkest]
        return darkest if all(darkest[0] < light for light in others) else None

    def _by_hue(self, bins: npt.NDArray[Any], labels: U8Image) -> None:
        """Which coloured piece a coloured pixel belongs to is told by hue, its chroma allowed
        to fade (see ``_faded_dist``): whether it is a piece at all stays with the plain
        distance, so faded print does not become pieces."""
        chromatic = [
            (index + 1, ref)
            for index, refs in enumerate(self.pieces.values())
            for ref in refs
            if not is_neutral(ref)
        ]
        codes = np.array(sorted({code for code, _ in chromatic}), np.uint8)
        which = np.isin(labels, codes)
        if len(codes) < 2 or not which.any():
            return
        some = bins[which]
        best = np.full(some.shape[0], np.inf, np.float32)
        relabel = labels[which]
        for code, ref in chromatic:
            d = _faded_dist(some, ref, self.fade_share, self.hue_lightness_weight)
            better = d < best
            relabel[better] = code
            best[better] = d[better]
        labels[which] = relabel

    def classify(self, lab: U8Image, faint: bool = False) -> U8Image:
        """Label image (BACKGROUND, 1..n, UNKNOWN) of an 8-bit Lab image; with ``faint``,
        faint pixels as FAINT | label (else UNKNOWN)."""
        q = lab >> _Q
        index = (q[..., 0].astype(np.int32) << 12) | (q[..., 1].astype(np.int32) << 6) | q[..., 2]
        labels: U8Image = self.lut[index]
        return labels if faint else self._unfaint(labels)

    def _unfaint(self, labels: U8Image) -> U8Image:
        """In place: faint labels made UNKNOWN."""
        if self.faint_chroma is not None:
            faint = cv2.inRange(labels, FAINT + 1, FAINT + len(self.pieces))
            labels[faint > 0] = UNKNOWN
        return labels

    @cached_property
    def _bgr_labels(self) -> U8Image:
        """Label of every 24-bit BGR colour (index B | G << 8 | R << 16), _PENDING until seen."""
        return np.full(1 << 24, _PENDING, np.uint8)

    def classify_bgr(self, bgr: U8Image) -> U8Image:
        """Label image of an 8-bit BGR image: the same as ``classify`` of its Lab conversion."""
        return self.classify_packed(pack_bgr(bgr))

    def classify_packed(self, packed: U8Image, faint: bool = False) -> U8Image:
        """Labels of packed BGR pixels (see :func:`pack_bgr`), as ``classify_bgr`` (``faint``:
        as ``classify``'s).

        Each colour is converted and classified once per model, when first seen; after a few
        frames of the same table almost every pixel is one lookup.
        """
        cache = self._bgr_labels
        # (Indices made NumPy's own integers first: np.take converts 32-bit unsigned ones
        # at several times the cost.)
        labels: U8Image = np.take(cache, packed.astype(np.intp))
        missing = labels == _PENDING
        if cv2.countNonZero(missing.view(np.uint8)):
            keys = packed[missing]
            new = self.classify(lab_of_packed(keys), faint=True)
            cache[keys] = new
            labels[missing] = new
        return labels if faint else self._unfaint(labels)

    def classify_one(self, lab: Lab) -> str | None:
        """Name of the colour of one Lab value, or None (background or unknown)."""
        px = np.array([[lab]], dtype=np.uint8)
        return self.name_of(int(self.classify(px)[0, 0]))

    def to_json(self) -> dict[str, Any]:
        return {
            "pieces": {name: [list(ref) for ref in refs] for name, refs in self.pieces.items()},
            "background": [list(ref) for ref in self.background],
            "reject_distance": self.reject_distance,
            "background_distance": self.background_distance,
        }

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> ColourModel:
        return cls(
            pieces={name: tuple(_lab(r) for r in refs) for name, refs in data["pieces"].items()},
            background=tuple(_lab(r) for r in data.get("background", ())),
            reject_distance=float(data.get("reject_distance", DEFAULT_CONFIG.reject_distance)),
            background_distance=float(
                data.get("background_distance", DEFAULT_CONFIG.background_distance)
            ),
        )

    def with_config(self, config: VisionConfig) -> ColourModel:
        return ColourModel(
            self.pieces,
            self.background,
            config.reject_distance,
            config.background_distance,
            config.min_chroma_share,
            config.fade_share,
            config.hue_lightness_weight,
            chroma_shares=(("blue", config.blue_chroma_share),),
            faint_chroma=config.faint_chroma,
        )


def keep_faint(labels: U8Image, pieces: int, width: int) -> None:
    """In place: faint pixels (FAINT | label, of ``pieces`` colours) become their colour's
    where they make patches at least ``width`` pixels thick (a glared or dim cube's top),
    UNKNOWN elsewhere (the thin blurred halo round a vivid cube).

    The same as opening the faint mask with a ``width`` square and keeping what is left, but
    the opening is made only in the boxes that can hold such a square: faint pixels are a few
    hundred thin halos spread over the whole image (see opened_by)."""
    faint = cv2.inRange(labels, FAINT + 1, FAINT + pieces)
    height, across = labels.shape
    rows = cv2.reduce(faint, 1, cv2.REDUCE_SUM, dtype=cv2.CV_32S)[:, 0] // 255
    tops, bottoms = _runs(rows)
    if not tops.size:
        return
    # A square (its part in the image) is `width` rows of `width` faint pixels each, fewer
    # where it runs off the image: only bands of rows, then runs of columns in them, holding
    # one are opened. Bands are parted by rows, and boxes by columns, without faint pixels,
    # which no square crosses: a box opened alone (blank round it) opens as in the whole.
    sides = bool(faint[:, 0].any() or faint[:, -1].any())
    kernel = np.ones((width, width), np.uint8)
    keeps: list[tuple[U8Image, U8Image, npt.NDArray[np.bool_]]] = []
    for band in _holding(tops, rows >= (1 if sides else width), width, height):
        top, bottom = int(tops[band]), int(bottoms[band]) + 1
        strip = faint[top:bottom]
        cols = cv2.reduce(strip, 0, cv2.REDUCE_SUM, dtype=cv2.CV_32S)[0] // 255
        lefts, rights = _runs(cols)
        edge = top == 0 or bottom == height
        for box in _holding(lefts, cols >= (1 if edge else width), width, across):
            left, right = int(lefts[box]), int(rights[box]) + 1
            y0, y1 = max(0, top - width), min(height, bottom + width)
            x0, x1 = max(0, left - width), min(across, right + width)
            alone = np.zeros((y1 - y0, x1 - x0), np.uint8)
            alone[top - y0 : bottom - y0, left - x0 : right - x0] = strip[:, left:right]
            opened = opened_by(alone, kernel)
            if cv2.countNonZero(opened):
                view = labels[y0:y1, x0:x1]
                keeps.append((view, view.copy(), opened > 0))
    # (Every faint pixel UNKNOWN through the mask, the kept ones' labels put back: a masked
    # copy over the whole image costs several times a bitwise or.)
    cv2.bitwise_or(labels, faint, dst=labels)
    for view, before, kept in keeps:
        np.bitwise_and(before, np.uint8(FAINT - 1), out=view, where=kept)


def _runs(values: npt.NDArray[Any]) -> tuple[npt.NDArray[Any], npt.NDArray[Any]]:
    """First and last index of each run of nonzero entries of a 1-D array."""
    at = np.flatnonzero(values)
    if not at.size:
        return at, at
    breaks = np.flatnonzero(np.diff(at) > 1)
    return np.concatenate((at[:1], at[breaks + 1])), np.concatenate((at[breaks], at[-1:]))


def _holding(firsts: npt.NDArray[Any], full: npt.NDArray[Any], width: int, size: int) -> list[int]:
    """Which runs (by their ``firsts``) hold ``width`` consecutive ``full`` lines, or fewer at
    the image's edge (0 or ``size``)."""
    starts, ends = _runs(full)
    long = (ends - starts + 1 >= width) | (starts == 0) | (ends == size - 1)
    found = np.searchsorted(firsts, starts[long], side="right") - 1
    return sorted(set(found.tolist()))


def _lab(values: Iterable[float]) -> Lab:
    v = [float(x) for x in values]
    if len(v) != 3 or not all(0.0 <= x <= 255.0 for x in v):
        raise ValueError(f"{v!r} is not an 8-bit Lab triple")
    return (v[0], v[1], v[2])


def _dist(bins: npt.NDArray[Any], ref: Lab) -> npt.NDArray[Any]:
    r = np.array([ref[0] * L_WEIGHT, ref[1], ref[2]], dtype=np.float32)
    d: npt.NDArray[Any] = np.sqrt(((bins - r) ** 2).sum(axis=1))
    return d


def _floored(bins: npt.NDArray[Any], lightness: float) -> npt.NDArray[Any]:
    """The bins with their (weighted) lightness raised to at least ``lightness``."""
    out = bins.copy()
    np.maximum(out[:, 0], lightness, out=out[:, 0])
    return out


def _faded_dist(bins: npt.NDArray[Any], ref: Lab, fade: float, l_weight: float) -> npt.NDArray[Any]:
    """Distance to the nearest of the reference's own hue faded down to ``fade`` of its
    chroma: a blurred, distant or glared cube's pixels mix with the grey round them and lose
    chroma, not hue (a faded red stays red, though as dull as pink)."""
    a, b = ref[1] - 128.0, ref[2] - 128.0
    chroma = float(np.hypot(a, b))
    ua, ub = a / chroma, b / chroma
    pa, pb = bins[:, 1] - 128.0, bins[:, 2] - 128.0
    along = np.clip(pa * ua + pb * ub, fade * chroma, chroma)
    dl = (bins[:, 0] - ref[0] * L_WEIGHT) * (l_weight / L_WEIGHT)
    d: npt.NDArray[Any] = np.sqrt(dl**2 + (pa - along * ua) ** 2 + (pb - along * ub) ** 2)
    return d


def sample_lab(lab: U8Image, mask: U8Image) -> Lab | None:
    """Median Lab of the masked pixels (robust to the odd edge pixel), None if the mask is empty."""
    pixels = lab[mask > 0]
    if pixels.shape[0] == 0:
        return None
    med = np.median(pixels, axis=0)
    return (float(med[0]), float(med[1]), float(med[2]))


# Nominal piece colours (BGR) of ordinary wooden pieces under neutral light. They serve reads
# without a colour calibration; `companion vision calibrate` replaces them with sampled ones.
NOMINAL_BGR: dict[str, tuple[int, int, int]] = {
    "red": (40, 40, 200),
    "blue": (170, 90, 30),
    "yellow": (40, 210, 235),
    "green": (60, 150, 40),
    "pink": (180, 120, 240),
    "black": (35, 35, 35),
    "white": (235, 235, 235),
    "grey": (140, 140, 140),
}


def nominal_model(names: Sequence[str], background: Sequence[Lab] = ()) -> ColourModel:
    """A model of the nominal colours of ``names`` (each must be in NOMINAL_BGR)."""
    unknown = [n for n in names if n not in NOMINAL_BGR]
    if unknown:
        raise ValueError(f"no nominal colour for {unknown}; known: {sorted(NOMINAL_BGR)}")
    return ColourModel({n: (bgr_to_lab(NOMINAL_BGR[n]),) for n in names}, tuple(background))
