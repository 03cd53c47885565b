"""Timing helpers shared by the benchmarks: medians of repeated runs."""

from __future__ import annotations

import statistics
import time
from collections.abc import Callable


def median_seconds(fn: Callable[[], object], *, runs: int = 7, number: int = 1) -> float:
    """Median wall time of ``number`` calls of ``fn``, over ``runs`` runs, per call."""
    fn()  # warm-up: imports, caches
    samples = []
    for _ in range(runs):
        start = time.perf_counter()
        for _ in range(number):
            fn()
        samples.append((time.perf_counter() - start) / number)
    return statistics.median(samples)


def fmt(seconds: float) -> str:
    """A duration with a readable unit."""
    if seconds < 1e-3:
        return f"{seconds * 1e6:.1f} µs"
    if seconds < 1:
        return f"{seconds * 1e3:.2f} ms"
    return f"{seconds:.2f} s"
