"""Analyses of hand-worked positions (tests/data/carolus/analysis_cases.json)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from carolus_builders import position

from companion.games.carolus.api import analyze_position, format_analysis

CASES = json.loads(
    (Path(__file__).parents[2] / "data" / "carolus" / "analysis_cases.json").read_text()
)["cases"]
SPEC_REGION_KEYS = {"territories", "castles", "strength", "majority", "if_charlemagne_stops"}


@pytest.mark.parametrize("case", CASES, ids=[c["name"] for c in CASES])
def test_analysis(case: dict[str, Any]) -> None:
    a = analyze_position(position(**case["position"]))
    expect = case["expect"]
    assert a["to_move"] == expect["to_move"]
    assert a["reachable"] == expect["reachable"]
    assert a["regions_left"] == expect["regions_left"] == len(a["regions"])
    for want in expect["regions"]:
        got = next(r for r in a["regions"] if r["territories"] == want["territories"])
        assert {k: got[k] for k in SPEC_REGION_KEYS} == want
    # Every territory of the ring is listed exactly once.
    listed = [t for r in a["regions"] for t in r["territories"]]
    assert sorted(listed) == [f"t{i:02d}" for i in range(1, 16)]
    json.dumps(a)  # the analysis is plain JSON


def test_text_of_a_team_game_names_the_teams() -> None:
    text = format_analysis(analyze_position(position(**CASES[0]["position"])))
    assert "teams: white: ann + cid; black: ben + dora" in text
    assert "ben to move, 1..1 steps:" in text
    assert "1: t05 -> build by white" in text
