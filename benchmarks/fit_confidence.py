"""Fit the confidence model (companion/vision/confidence_model.json): the chance a blob's count
is wrong, per game, from the blobs of hard renders and the cubes the renderer put under each
(the labelled patches of benchmarks/top_tops, cached under ``$TMPDIR/companion-tops``).

    python -m benchmarks.fit_confidence [--check]

Each game is fitted on its own seeds (SEEDS: never 0-40, the bench's and held-out, nor
300-399, the fresh ones the fit is judged on by benchmarks/vision_confidence).
"""

from __future__ import annotations

import argparse
from typing import Any

import numpy as np
import numpy.typing as npt

from benchmarks.top_tops import seed_patches
from benchmarks.train_top_model import COURT_ROWS, write_or_check
from companion.vision import confidence, cubes, top_model
from companion.vision.config import DEFAULT_CONFIG

# Seeds each game is fitted on: El Grande's fit sets of the reader's rules; Carolus's first
# 120 of its top model's (on its first sixty, 100-159, 27 wrong blobs: fresh 300-399's 81
# wrong places were expected 50.8).
SEEDS = {"el-grande": ((100, 219), (400, 599)), "carolus-magnus": ((100, 219),)}
# The penalty on the standardised weights (22 of them, fitted on 57-169 wrong blobs): each
# game's best log-likelihood fitted on half its seeds and judged on the other half (El Grande
# 100-219 / 400-599: 0.3, 1, 3, 10 tried; Carolus 100-159 / 160-219: 1, 3, 10, 30).
L2 = {"el-grande": 10.0, "carolus-magnus": 1.0}


def blob_rows(game: str, seeds: range) -> tuple[npt.NDArray[Any], npt.NDArray[Any]]:
    """Every blob the read counted on these seeds: its features and whether its count was
    wrong (its truth: the cubes whose image centres lie on or next to its patch; in a Carolus
    court card's rows, only a count over it is)."""
    model = top_model.load() if game == "carolus-magnus" else None
    xs: list[tuple[float, ...]] = []
    ys: list[bool] = []
    for seed in seeds:
        for item in seed_patches(game, seed):
            blobs = cubes.count_patches(
                [item.patch],
                item.factor,
                DEFAULT_CONFIG,
                black=item.black,
                clusters=item.clusters,
                ragged=item.ragged,
                model=model,
            )
            court = any(area.startswith("court_") for area in item.areas)
            # (In a Carolus court card's row the row's length counts the cubes and the reader
            # takes the larger count: a blob counted under its truth there costs nothing.)
            row = game == "carolus-magnus" and any(a.startswith(COURT_ROWS) for a in item.areas)
            for blob in blobs:
                if blob.cubes > 0:
                    xs.append(confidence.features(blob, item.black, court))
                    ys.append(blob.cubes > item.truth if row else blob.cubes != item.truth)
    return np.array(xs, np.float64), np.array(ys, np.float64)


def fit_binary(x: npt.NDArray[Any], y: npt.NDArray[Any], l2: float) -> dict[str, Any]:
    """A logistic regression on standardised features by Newton's method, an L2 penalty on
    the weights (not the bias). Deterministic."""
    mean = x.mean(axis=0)
    scale = x.std(axis=0)
    scale[scale == 0] = 1.0  # (a feature these blobs never vary)
    z = np.hstack([(x - mean) / scale, np.ones((len(x), 1))])
    penalty = np.full(z.shape[1], l2)
    penalty[-1] = 0.0
    w = np.zeros(z.shape[1])
    for _ in range(50):
        p = 1.0 / (1.0 + np.exp(-(z @ w)))
        grad = z.T @ (p - y) + penalty * w
        hess = (z * (p * (1 - p))[:, None]).T @ z + np.diag(penalty + 1e-9)
        step = np.linalg.solve(hess, grad)
        w -= step
        if float(np.abs(step).max()) < 1e-10:
            break
    return {"mean": mean.tolist(), "scale": scale.tolist(), "weights": w.tolist()}


def fitted() -> dict[str, Any]:
    games: dict[str, Any] = {}
    for game, spans in SEEDS.items():
        seeds = [s for a, b in spans for s in range(a, b + 1)]
        x, y = blob_rows(game, seeds)
        games[game] = {
            "seeds": [list(span) for span in spans],
            "l2": L2[game],
            "blobs": len(y),
            "wrong": int(y.sum()),
            "features": list(confidence.FEATURES),
            **fit_binary(x, y, L2[game]),
        }
    return {
        "about": "the chance a blob's count is wrong: a logistic regression per game fitted by "
        "benchmarks/fit_confidence.py (see companion/vision/confidence.py)",
        "games": games,
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--check", action="store_true", help="compare with the committed file")
    args = ap.parse_args()
    data = fitted()
    write_or_check(data, confidence.MODEL_FILE, args.check)
    for game, fit in data["games"].items():
        print(f"{game}: {fit['blobs']} blobs, {fit['wrong']} wrong")
    print(f"wrote {confidence.MODEL_FILE}")


if __name__ == "__main__":
    main()
