"""El Grande ``analyze``: reading, checking and scoring a position file's JSON.

Baseline: ``json.loads`` of the same text (the floor any analysis pays to read the file).
"""

from __future__ import annotations

import json
from pathlib import Path

from benchmarks.timing import fmt, median_seconds
from companion.games import jsonio
from companion.games.elgrande.api import analyze_position

POSITION = Path(__file__).parents[1] / "tests/data/elgrande/positions/hand_scored.json"


def main() -> None:
    text = POSITION.read_text(encoding="utf-8")
    baseline = median_seconds(lambda: json.loads(text), number=2000)
    full = median_seconds(lambda: analyze_position(jsonio.loads(text)), number=500)
    print(f"position: {POSITION.name} (4 players, 8 regions occupied, 2 scoreboards)")
    print(f"json.loads baseline      : {fmt(baseline)} per position")
    print(f"read + check + analyze   : {fmt(full)} per position ({full / baseline:.0f}x baseline)")
    print(f"analyses per second      : {1 / full:,.0f}")


if __name__ == "__main__":
    main()
