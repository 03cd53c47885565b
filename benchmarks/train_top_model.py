"""Fit the top model (companion/vision/top_model.json): a multinomial logistic regression from
a top's measures to the cubes under it, on the labelled tops of hard Carolus renders
(benchmarks/top_tops.py; never the benchmark's seeds 0-40).

    python -m benchmarks.train_top_model [--check] [--first 100] [--cases 120] [--l2 1e-4]

Rendering and reading the seeds the first time takes ~15 minutes on two cores (cached under
$TMPDIR); fitting takes seconds. ``--check``: fit and compare with the committed file instead
of writing it (the fit is deterministic: the same data give the same weights).
"""

from __future__ import annotations

import argparse
import collections
import json
import sys
from typing import Any

import numpy as np
import numpy.typing as npt

from benchmarks.top_tops import Labelled, seed_patches
from companion.vision import top_model
from companion.vision.config import DEFAULT_CONFIG
from companion.vision.cubes import whole_tops

# (El Grande's clusters keep cubes.top_cubes' rules: a model fitted on its tops the same way
# read 3 -> 3 bench counts wrong, held-out 24 -> 26; see the vision README.)
GAME = "carolus-magnus"
L2 = 1e-4
# Areas whose cubes lie in a court card's rows: the row's filled length counts them and the
# reader takes the larger of that and the tops' count (pipeline, court_rows.py), so a top
# there counted under its truth costs nothing and one over it a wrong count.
COURT_ROWS = ("court_",)


def top_rows(
    labelled: list[Labelled],
) -> tuple[npt.NDArray[Any], npt.NDArray[Any], npt.NDArray[Any]]:
    """Features and truth of the patches with exactly one whole top (the patch's cubes are
    that top's), and whether each top lies in a court card's row. A top no cube is found
    under is left out: a cube whose centre the labelling put on a neighbouring patch, or a
    bit of print."""
    xs, ys, rows = [], [], []
    cfg = DEFAULT_CONFIG
    for item in labelled:
        p = item.patch
        unit = p.footprint * item.factor
        whole = whole_tops(p, unit, item.black, cfg)
        if item.black or len(whole) != 1 or item.truth < 1:
            continue
        ragged = cfg.merged_top_cubes if item.ragged is None else item.ragged
        x = top_model.features(whole[0], unit, p.side, ragged=ragged)
        xs.append(x)
        ys.append(item.truth)
        rows.append(any(a.startswith(COURT_ROWS) for a in item.areas))
    return np.array(xs, np.float64), np.array(ys, np.int64), np.array(rows, bool)


def fit_logistic(
    x: npt.NDArray[Any],
    y: npt.NDArray[Any],
    at_most: npt.NDArray[Any] | None = None,
    l2: float = L2,
    steps: int = 60,
) -> dict[str, Any]:
    """A multinomial logistic regression of counts 0 .. max(y) on standardised features, fitted
    by Newton's method (the parameters are few: each step solves the whole Hessian), with an
    L2 penalty ``l2`` on the weights (not the biases). Deterministic.

    ``at_most``: tops whose truth is only a bound, any count from one to it right (court
    rows, see COURT_ROWS): their likelihood is that of the whole range, its share of each count
    in it taken anew at each step (the expectation-maximisation way)."""
    mean = x.mean(axis=0)
    scale = x.std(axis=0)
    scale[scale == 0] = 1.0  # (a feature one group never varies: black in Carolus's)
    z = np.hstack([(x - mean) / scale, np.ones((len(x), 1))])
    n, d = z.shape
    k = int(y.max()) + 1
    allowed = np.eye(k)[y]
    if at_most is not None:
        allowed[at_most] = (np.arange(k)[None, :] <= y[at_most, None]) & (np.arange(k) >= 1)
    penalty = np.full(d, l2)
    penalty[-1] = 1e-8
    w = np.zeros((d, k))

    def probabilities(w: npt.NDArray[Any]) -> npt.NDArray[Any]:
        s = z @ w
        s -= s.max(axis=1, keepdims=True)
        p: npt.NDArray[Any] = np.exp(s)
        return p / p.sum(axis=1, keepdims=True)

    def loss(w: npt.NDArray[Any]) -> float:
        p = probabilities(w)
        return float(
            -np.log(np.maximum((p * allowed).sum(axis=1), 1e-300)).mean()
            + 0.5 * (penalty[:, None] * w**2).sum()
        )

    for _ in range(steps):
        p = probabilities(w)
        target = p * allowed + 1e-300 * allowed
        target /= target.sum(axis=1, keepdims=True)
        grad = (z.T @ (p - target) / n + penalty[:, None] * w).T.ravel()
        hess = np.zeros((k, d, k, d))
        for a in range(k):
            for b in range(a, k):
                weight = p[:, a] * ((a == b) - p[:, b])
                block = (z * weight[:, None]).T @ z / n
                hess[a, :, b, :] = block
                hess[b, :, a, :] = block.T
        h = hess.reshape(k * d, k * d) + np.diag(np.tile(penalty, k))
        step = np.linalg.solve(h + 1e-10 * np.eye(k * d), grad).reshape(k, d).T
        before, size = loss(w), 1.0
        while loss(w - size * step) > before and size > 1e-4:
            size /= 2
        w = w - size * step
        if float(np.abs(size * step).max()) < 1e-7:
            break
    return {"mean": mean.tolist(), "scale": scale.tolist(), "weights": w.tolist()}


def fitted(first: int, cases: int, l2: float = L2) -> dict[str, Any]:
    labelled = [item for seed in range(first, first + cases) for item in seed_patches(GAME, seed)]
    x, y, rows = top_rows(labelled)
    fit = fit_logistic(x, y, rows, l2)
    model = top_model.TopModel.from_json({"features": list(top_model.FEATURES), **fit})
    wrong = sum(
        model.predict(row) > truth if bound else model.predict(row) != truth
        for row, truth, bound in zip(x, y.tolist(), rows.tolist(), strict=True)
    )
    return {
        "about": "cubes under one bright top: a multinomial logistic regression fitted by "
        "benchmarks/train_top_model.py (see companion/vision/top_model.py)",
        "game": GAME,
        "seeds": [first, first + cases - 1],
        "l2": l2,
        "tops": len(y),
        "truth": {str(c): int(v) for c, v in sorted(collections.Counter(y.tolist()).items())},
        "in_court_rows": int(rows.sum()),
        "wrong_on_them": wrong,
        "features": list(top_model.FEATURES),
        **fit,
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--first", type=int, default=100)
    ap.add_argument("--cases", type=int, default=120)
    ap.add_argument("--l2", type=float, default=L2, help="penalty on the weights")
    ap.add_argument("--check", action="store_true", help="compare with the committed file")
    args = ap.parse_args()
    if args.first <= 40:
        sys.exit("seeds 0-40 are the benchmark's and held-out: fit on 41 or later")
    data = fitted(args.first, args.cases, args.l2)
    if args.check:
        committed = json.loads(top_model.MODEL_FILE.read_text())
        same = _same(data, committed)
        print("same as the committed file" if same else "differs from the committed file")
        sys.exit(0 if same else 1)
    top_model.MODEL_FILE.write_text(json.dumps(data, indent=1) + "\n")
    print(
        f"{data['tops']} tops, {data['wrong_on_them']} wrong on them; wrote {top_model.MODEL_FILE}"
    )


def _same(a: Any, b: Any) -> bool:
    """Whether two fits agree (numbers to 1e-6: another machine's BLAS may round apart)."""
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(_same(a[k], b[k]) for k in a)
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(_same(u, v) for u, v in zip(a, b, strict=True))
    if isinstance(a, float) or isinstance(b, float):
        return bool(np.isclose(a, b, rtol=1e-6, atol=1e-6))
    return bool(a == b)


if __name__ == "__main__":
    main()
