"""How sure a place's counts are: the chance that every blob counted there is counted right.

A blob's count (cubes.Blob) comes from its whole tops, checked against its area; where the two
disagree, or a top is an odd shape for its count, it is more often wrong. How much more is
not a rule to write by hand: a logistic regression over a few measures of the blob (FEATURES)
gives the chance its count is wrong. It is fitted per game on the blobs of hard synthetic
renders against the cubes the renderer put under each (benchmarks/fit_confidence.py writes
confidence_model.json beside this file; NumPy only at run time).

A place's confidence is the chance that none of its blobs is wrong: the product of (1 - p)
over them. A place with no blob is 1.0: a cube the colours did not label at all leaves no
trace to doubt by (the still frames and the players' eyes are the check there).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from companion.vision.cubes import Blob, Shape
from companion.vision.errors import VisionError
from companion.vision.fitted import read_json, read_linear

MODEL_FILE = Path(__file__).with_name("confidence_model.json")
REFIT = "python -m benchmarks.fit_confidence"

# The measures of a blob the model reads, in order (see features).
FEATURES = (
    "black",  # a black blob: the colour of print lines and shaded sides
    "court",  # in a court (cubes crowd there) rather than a region or tile
    "cubes",  # its count, at most 8
    "area_over",  # its area in cube tops less its count (blobs' area, see Blob.estimate)
    "area_off",  # ... how far, either way
    "seeds_over",  # its whole tops less its count
    "seeds_off",
    "residual",  # how far its area is from a whole number of cubes
    "lone",  # one cube from one whole top
    "black_area_over",
    "court_area_over",
    "many",  # three cubes or more
    "whole",  # whole tops
    "merged",  # cubes beyond one a whole top: those read from a top's shape
    "big_over",  # the biggest top's area in cube tops less the cells it covers
    "big_cells",
    "big_fill",
    "big_aspect",
    "tops_over",  # the whole tops' area in cube tops less the count
    "factor",  # the colour's lone top over the model square: how much blur ate
    "slivers",  # tops too small or thin to be whole (lit sides, a half-hidden cube)
    "big_per_cube",  # the biggest top's area in cube tops over the count
)


class ConfidenceModelError(VisionError):
    """The confidence model's file is missing or not one this module can read."""


@dataclass(frozen=True)
class ConfidenceModel:
    """A logistic regression over FEATURES: a blob's features, standardised (``mean``,
    ``scale``), weighed by ``weights`` (its last entry the bias) give the log-odds that its
    count is wrong."""

    mean: npt.NDArray[np.float64]
    scale: npt.NDArray[np.float64]
    weights: npt.NDArray[np.float64]

    @classmethod
    def from_json(cls, data: Any) -> ConfidenceModel:
        what = "confidence model"
        return cls(*read_linear(data, FEATURES, True, what, REFIT, ConfidenceModelError))

    def wrong(self, rows: Sequence[Sequence[float]] | npt.NDArray[np.float64]) -> list[float]:
        """Each row's chance of a wrong count (rows of features in FEATURES' order)."""
        if not len(rows):
            return []
        z = (np.asarray(rows, np.float64) - self.mean) / self.scale
        odds = z @ self.weights[:-1] + self.weights[-1]
        out: list[float] = (1.0 / (1.0 + np.exp(-odds))).tolist()
        return out


def features(blob: Blob, black: bool, court: bool) -> tuple[float, ...]:
    """A blob's measures in FEATURES' order (``black``: a black blob; ``court``: in a court)."""
    # (One definition of the measures: features_many's, on a row of one.)
    row: tuple[float, ...] = tuple(features_many([blob], [black], [court])[0].tolist())
    return row


def features_many(
    blobs: Sequence[Blob], black: Sequence[bool], court: Sequence[bool]
) -> npt.NDArray[np.float64]:
    """:func:`features` of each blob, a row each, worked out for all at once (a read's ~80
    blobs one by one in Python cost ~0.3 ms)."""
    raw = np.array([(b.cubes, b.estimate, b.seeds, *b.shape) for b in blobs], np.float64).reshape(
        -1, 3 + len(Shape._fields)
    )
    n, estimate, seeds = raw[:, 0], raw[:, 1], raw[:, 2]
    whole, tops, area, big_area, big_cells, big_fill, big_aspect, factor = raw[:, 3:].T
    dark = np.asarray(black, np.float64)
    crowd = np.asarray(court, np.float64)
    over = estimate - n
    return np.column_stack(
        (
            dark,
            crowd,
            np.minimum(n, 8),
            over,
            np.abs(over),
            seeds - n,
            np.abs(seeds - n),
            np.abs(estimate - np.round(estimate)),
            (n == 1) & (seeds == 1),
            dark * over,
            crowd * over,
            n >= 3,
            whole,
            n - whole,
            big_area - big_cells,
            big_cells,
            big_fill,
            big_aspect,
            area - n,
            factor,
            tops - whole,
            big_area / np.maximum(n, 1),
        )
    ).astype(np.float64)


def place_confidence(wrong: Sequence[float]) -> float:
    """The chance that none of a place's blobs (each's chance of a wrong count) is wrong."""
    return float(np.prod([1.0 - p for p in wrong])) if wrong else 1.0


def load(game: str, path: Path | None = None) -> ConfidenceModel:
    """The game's fitted model (read once): the package's, or the one at ``path``."""
    return _load(game, MODEL_FILE if path is None else path)


@lru_cache(maxsize=8)
def _load(game: str, path: Path) -> ConfidenceModel:
    data = read_json(path, "confidence model", REFIT, ConfidenceModelError)
    games = data.get("games")
    if not isinstance(games, dict) or game not in games:
        raise ConfidenceModelError(
            f"confidence model {path} has no model for {game}: refit it ({REFIT})"
        )
    return ConfidenceModel.from_json(games[game])
