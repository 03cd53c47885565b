"""How well a read's confidence points at its wrong places, on hard renders: the fitted model
(companion/vision/confidence.py) against the rule before it (a place's least sure blob,
VisionConfig.fitted_confidence off), both read from the same frames in the same run.

    python -m benchmarks.vision_confidence [games...] [--first 300] [--cases 100]

A place is wrong when any colour's count there is. For each way of scoring: the wrong places
among those below 0.5 (where the session asks the table) and how many right places it asks
about; the wrong places among the least sure 5 % and 10 % of places (the same number of
questions for both); and how many wrong places the confidences expect (the sum of 1 - c)
against how many there are. Renders are cached under ``$TMPDIR/companion-renders``. The
fit's seeds (benchmarks/fit_confidence.SEEDS) are not for judging it: take 0-40 or 300-399.
"""

from __future__ import annotations

import argparse
import itertools
from dataclasses import replace

import numpy as np

from benchmarks.bench_vision import CM_COLOURS, POSITIONS
from benchmarks.vision_errors import hard_case
from companion.vision.config import DEFAULT_CONFIG
from companion.vision.pipeline import Reader

WAYS = {"fitted": DEFAULT_CONFIG, "rule": replace(DEFAULT_CONFIG, fitted_confidence=False)}
ASK = 0.5  # below this the session asks the table (docs/observation.md)


def places(game: str, seeds: range) -> dict[str, list[tuple[float, bool]]]:
    """Every place read on these seeds, by way: (its confidence, whether it is wrong)."""
    out: dict[str, list[tuple[float, bool]]] = {way: [] for way in WAYS}
    for seed in seeds:
        reader, image, truth = hard_case(game, seed)
        if reader is None:
            continue
        _, position = POSITIONS[game](seed)
        colours = position["players"] if game == "el-grande" else CM_COLOURS
        for way, config in WAYS.items():
            obs = Reader(reader.calibration, reader.layout, config=config).read(image)
            if obs.occluded:
                continue
            for place, sure in obs.confidence.items():
                want = truth["counts"].get(place, {})
                wrong = any(want.get(c, 0) != obs.count(place, c) for c in colours)
                out[way].append((sure, wrong))
    return out


def report(game: str, rows: dict[str, list[tuple[float, bool]]]) -> None:
    for way, pairs in rows.items():
        sure = np.array([c for c, _ in pairs])
        wrong = np.array([w for _, w in pairs])
        n, bad = len(pairs), int(wrong.sum())
        asked = sure < ASK
        order = np.argsort(sure, kind="stable")
        least = []
        for share in (0.05, 0.10):
            k = round(share * n)
            least.append(f"least sure {share:.0%} ({k}): {int(wrong[order[:k]].sum())}")
        print(
            f"{game} {way}: {n} places, {bad} wrong; below {ASK}: {int(wrong[asked].sum())} "
            f"of the wrong, {int((asked & ~wrong).sum())} right ones asked about "
            f"({(asked & ~wrong).sum() / max(1, n - bad):.1%}); {'; '.join(least)}; "
            f"wrong expected {float((1 - sure).sum()):.1f}"
        )
        bins = [0.0, 0.5, 0.8, 0.95, 0.99, 1.01]
        cells = []
        for lo, hi in itertools.pairwise(bins):
            inside = (sure >= lo) & (sure < hi)
            if inside.any():
                cells.append(
                    f"[{lo:.2f}, {min(hi, 1.0):.2f}{')' if hi <= 1 else ']'}: "
                    f"{int(wrong[inside].sum())}/{int(inside.sum())} wrong, "
                    f"expected {float((1 - sure[inside]).sum()):.1f}"
                )
        print("   " + "; ".join(cells))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("games", nargs="*", default=list(POSITIONS))
    ap.add_argument("--first", type=int, default=300)
    ap.add_argument("--cases", type=int, default=100)
    args = ap.parse_args()
    for game in args.games:
        report(game, places(game, range(args.first, args.first + args.cases)))


if __name__ == "__main__":
    main()
