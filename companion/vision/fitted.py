"""A fitted linear model's file read and checked (top_model.json, confidence_model.json): the
mean and scale that standardise its features and the weights over them (their last row the
biases), refused with what to do when they are not the measures this reader makes."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from companion.vision.errors import VisionError

Array = npt.NDArray[np.float64]


def read_json(path: Path, what: str, refit: str, error: type[VisionError]) -> dict[str, Any]:
    """The JSON object in ``path`` (``what``: the model's name in messages; ``refit``: the
    command that writes it); ``error`` raised when it cannot be read or is no object."""
    try:
        data = json.loads(path.read_text())
    except (OSError, ValueError) as e:
        raise error(
            f"cannot read the {what} {path} ({e}): it ships with the package; refit it with {refit}"
        ) from e
    if not isinstance(data, dict):
        raise error(f"{what} {path} is not a JSON object: refit it ({refit})")
    return data


def read_linear(
    data: Any,
    features: tuple[str, ...],
    vector: bool,
    what: str,
    refit: str,
    error: type[VisionError],
) -> tuple[Array, Array, Array]:
    """``data``'s mean, scale and weights over ``features`` (in that order): the weights one
    row a feature and a last for the biases, a column a class (two or more), or one score
    (``vector``: a vector)."""
    try:
        names = list(data["features"])
        mean = np.array(data["mean"], np.float64)
        scale = np.array(data["scale"], np.float64)
        weights = np.array(data["weights"], np.float64)
    except (KeyError, TypeError, ValueError) as e:
        raise error(
            f"{what} is not features, mean, scale and weights ({e}): refit it ({refit})"
        ) from e
    if names != list(features):
        raise error(
            f"{what} is over features {names}, this reader measures {list(features)}: "
            f"refit it ({refit})"
        )
    d = len(features)
    shaped = (
        weights.shape == (d + 1,)
        if vector
        else weights.ndim == 2 and weights.shape[0] == d + 1 and weights.shape[1] >= 2
    )
    if not (
        mean.shape == (d,)
        and scale.shape == (d,)
        and shaped
        and np.all(np.isfinite(weights))
        and np.all(scale > 0)
    ):
        raise error(
            f"{what}'s mean, scale and weights ({mean.shape}, {scale.shape}, {weights.shape}) "
            f"do not fit {d} features: refit it ({refit})"
        )
    return mean, scale, weights
