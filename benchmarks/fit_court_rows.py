"""Where a Carolus court row's count should round up (VisionConfig.court_row_round): each
row's length in cubes (court_rows.row_cubes) and its blobs' count, read apart on hard renders,
and how many rows the read gets wrong when the row's count rounds up from each share of a cube
(the read keeps the larger of the row's count and the blobs'). Renders are cached as
vision_errors caches them.

    python -m benchmarks.fit_court_rows [--first 100] [--cases 200]
"""

from __future__ import annotations

import argparse
import math
from typing import Any

from benchmarks.vision_errors import hard_case, read_with
from companion.vision import court_rows
from companion.vision.config import DEFAULT_CONFIG

GAME = "carolus-magnus"

# A row: its cubes (truth), its length in cubes, its blobs' count.
Row = tuple[int, float, int]


def seed_rows(seed: int) -> list[Row]:
    """The court rows of one hard seed (none from a frame not read: a corner marker hidden,
    or taken for a hand)."""
    reader, image, truth = hard_case(GAME, seed)
    if reader is None:
        return []
    lengths: dict[tuple[str, str], float] = {}

    def measured(row: Any, length: float, config: Any = DEFAULT_CONFIG) -> int:
        lengths[(row.place, row.colour)] = court_rows.row_cubes(row, length, config)
        return 0  # (the read's counts are then the blobs' alone)

    obs = read_with(reader, image, {(court_rows, "row_count"): measured})
    if obs.occluded:
        return []
    return [
        (truth["counts"].get(place, {}).get(colour, 0), cubes, obs.count(place, colour))
        for (place, colour), cubes in sorted(lengths.items())
    ]


def wrong_rows(rows: list[Row], round_up: float) -> int:
    """Rows the read gets wrong when a row's count rounds up from ``round_up`` of a cube."""
    return sum(
        max(blobs, max(0, math.floor(cubes + 1.0 - round_up))) != truth
        for truth, cubes, blobs in rows
    )


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--first", type=int, default=100)
    ap.add_argument("--cases", type=int, default=200)
    args = ap.parse_args()
    rows = [r for seed in range(args.first, args.first + args.cases) for r in seed_rows(seed)]
    print(f"{len(rows)} court rows, hard seeds {args.first}-{args.first + args.cases - 1}")
    chosen = DEFAULT_CONFIG.court_row_round
    for share in sorted({step / 100 for step in range(50, 71)} | {chosen}):
        mark = "  (court_row_round)" if share == chosen else ""
        print(f"  round up from {share:.3f}: {wrong_rows(rows, share)} rows wrong{mark}")


if __name__ == "__main__":
    main()
