"""How many cubes lie under one bright top: a model fitted on many labelled tops.

A top (cubes.Top) is a cube's top, or several touching cubes' whose seams blur erased. Its
count is read from a few scale-free measures of it (area in cube tops, length and width in
cube sides, how much of its rectangle it fills, the cells of it that hold a cube, ...) by a
multinomial logistic regression fitted on the tops of hard synthetic Carolus renders, seeds
100-299 (benchmarks/train_top_model.py writes top_model.json beside this file; the reader
needs only NumPy to use it). It stands in for cubes.top_cubes' stacked rules where those
were fitted one or two cells at a time; El Grande's clusters keep the rules (see Reader).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
import numpy.typing as npt

from companion.vision.errors import VisionError
from companion.vision.fitted import read_json, read_linear

if TYPE_CHECKING:
    from companion.vision.cubes import Top

MODEL_FILE = Path(__file__).with_name("top_model.json")
REFIT = "python -m benchmarks.train_top_model"

# The measures the model reads, in order (see features). The first are the top's own; the
# rest are products and powers of them, as a linear score needs them to bend its boundaries.
FEATURES = (
    "area",  # the top's area over one cube top's here (the colour's factor applied)
    "length",  # its smallest enclosing rectangle's long side, cube sides
    "width",  # ... and short side
    "fill",  # its area over its rectangle's
    "thick",  # its inscribed radius, cube sides
    "cells",  # cube-sized cells of its rectangle it covers (cubes.top_shape)
    "staggered",  # cells covered on two across, when judged a brick (else 0)
    "area_per_ragged",  # area over the cube tops a ragged top of this colour reads per cube
    "length_width",
    "fill_area",
    "brick",  # staggered where it is more than cells, else cells
    "area_squared",
    "aspect",  # length over width
    # Whether brick is 2, 3, 4, 5, 6 or more: cells are a count of their own, which a linear
    # score of brick alone would weigh the same for every count.
    "brick_2",
    "brick_3",
    "brick_4",
    "brick_5",
    "brick_6",
    # Whether its bright centres (cubes.top_peaks) are more than brick: a cube's top is
    # lightest at its middle, so cubes under one top whose cells miss one (four at a turn read
    # as an L's three cells, a pair as one) still show a peak each. (Only more: a top with
    # fewer peaks than cells is counted by the rest, as before.)
    "peaks_over",
)


# Scores closer than this may be ordered otherwise by a batched product (see predict_many):
# far above the ~1e-13 its sums' rounding can move a score of a few tens, far below any gap
# that matters.
TIE = 1e-9


class TopModelError(VisionError):
    """The top model's file is missing or not one this module can read."""


@dataclass(frozen=True)
class TopModel:
    """A multinomial logistic regression over FEATURES: a top's features, standardised
    (``mean``, ``scale``), score each count 0, 1, 2, ... (``weights``' columns, its last row
    the biases); the count scoring highest is the top's (one at least: a whole top is a
    cube's at least)."""

    mean: npt.NDArray[np.float64]
    scale: npt.NDArray[np.float64]
    weights: npt.NDArray[np.float64]

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> TopModel:
        return cls(*read_linear(data, FEATURES, False, "top model", REFIT, TopModelError))

    def scores(self, x: Sequence[float]) -> npt.NDArray[np.float64]:
        """Each count's score (0, 1, 2, ...) for a top of these features."""
        z = (np.asarray(x, np.float64) - self.mean) / self.scale
        out: npt.NDArray[np.float64] = z @ self.weights[:-1] + self.weights[-1]
        return out

    def predict(self, x: Sequence[float]) -> int:
        """The cubes under a top of these features (in FEATURES' order)."""
        return 1 + int(np.argmax(self.scores(x)[1:]))

    def predict_many(self, rows: Sequence[Sequence[float]] | npt.NDArray[np.float64]) -> list[int]:
        """:meth:`predict` of each row, from one matrix product for all (a read's ~90 tops
        cost ~5 us each scored alone). The product sums in another order than one row's, so
        its scores may differ in their last bits: a row whose best two counts lie within
        TIE of each other is scored alone, so every count is the one predict gives."""
        if not len(rows):
            return []
        z = (np.asarray(rows, np.float64) - self.mean) / self.scale
        scores = (z @ self.weights[:-1] + self.weights[-1])[:, 1:]
        best = np.argmax(scores, axis=1)
        ranked = np.sort(scores, axis=1)
        out: list[int] = (1 + best).tolist()
        if ranked.shape[1] > 1:
            for i in np.flatnonzero(ranked[:, -1] - ranked[:, -2] <= TIE).tolist():
                out[i] = self.predict(rows[i])
        return out


def load(path: Path | None = None) -> TopModel:
    """The fitted model (read once): the package's, or the one at ``path``."""
    return _load(MODEL_FILE if path is None else path)


@lru_cache(maxsize=4)
def _load(path: Path) -> TopModel:
    return TopModel.from_json(read_json(path, "top model", REFIT, TopModelError))


def features(top: Top, unit: float, side: float, *, ragged: float) -> tuple[float, ...]:
    """A top's measures in FEATURES' order. ``unit``: one cube top's area here (pixels, the
    colour's factor applied); ``side``: a cube's side (pixels); ``ragged``: cube tops each
    cube of a ragged top of this colour reads (light colours' blur frays them more)."""
    # (One definition of the measures: features_many's, on a row of one.)
    row: tuple[float, ...] = tuple(features_many([top], [unit], [side], ragged=ragged)[0].tolist())
    return row


def features_many(
    tops: Sequence[Top],
    unit: Sequence[float],
    side: Sequence[float],
    *,
    ragged: float | npt.NDArray[np.float64],
) -> npt.NDArray[np.float64]:
    """:func:`features` of many tops (a row each), each with its own ``unit`` and ``side``
    (and ``ragged``, if given one per top), made on columns (a read scores its ~90 tops at
    once)."""
    from companion.vision.cubes import Top  # (cubes imports this module: not at its top)

    # (A Top is a tuple of numbers: one array of all, not an attribute per top and field.)
    t = np.array(tops, np.float64).reshape(-1, len(Top._fields))
    field = {name: t[:, i] for i, name in enumerate(Top._fields)}
    units, sides = np.asarray(unit, np.float64), np.asarray(side, np.float64)
    area = field["area"] / units
    length, width = field["length"] / sides, field["width"] / sides
    fill = field["area"] / np.maximum(1.0, field["length"] * field["width"])
    cells, staggered = field["cells"], field["staggered"]
    brick = np.maximum(cells, staggered)
    over = (field["peaks"] > brick).astype(np.float64)
    return np.stack(
        [
            area,
            length,
            width,
            fill,
            field["thick"] / sides,
            cells,
            staggered,
            area / ragged,
            length * width,
            fill * area,
            brick,
            area * area,
            length / np.maximum(width, 0.1),
            *((np.minimum(brick, 6) == n).astype(np.float64) for n in range(2, 7)),
            over,
        ],
        axis=1,
    )
