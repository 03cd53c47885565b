"""The rule sheet's worked example (rules/carolus-magnus.md section 6), as a position file."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from companion.games.carolus.analysis import analyze
from companion.games.carolus.api import analyze_position, format_analysis
from companion.games.carolus.moves import Move
from companion.games.carolus.position import from_position, to_position

DATA = Path(__file__).parents[2] / "data" / "carolus"
POSITION = json.loads((DATA / "worked_example.json").read_text())
EXPECTED = json.loads((DATA / "worked_example.expected.json").read_text())


def region(analysis: dict[str, Any], territories: list[str]) -> dict[str, Any]:
    found = [r for r in analysis["regions"] if r["territories"] == territories]
    assert len(found) == 1, territories
    return found[0]


def test_analysis_of_the_worked_example() -> None:
    a = analyze_position(POSITION)
    assert {c: a["influence"][c] for c in EXPECTED["influence"]} == EXPECTED["influence"]
    c = region(a, EXPECTED["region_c"]["territories"])
    assert {k: c[k] for k in EXPECTED["region_c"]} == EXPECTED["region_c"]
    assert a["reachable"] == EXPECTED["reachable"]
    assert a["regions_left"] == EXPECTED["regions_left"]
    assert a["to_move"] == EXPECTED["to_move"]
    at_risk = [[t["colour"], t["holder"], t["rival"]] for t in a["threats"]["colours"]]
    assert sorted(at_risk) == sorted(EXPECTED["colours_at_risk"])


def test_the_best_placement_is_the_rule_sheets() -> None:
    a = analyze_position(POSITION)
    step1 = a["choices"][0]
    assert step1["outcome"] == "keep"
    wk = step1["with_knights"]
    want = EXPECTED["with_knights_step_1"]
    assert sorted(wk["knights"]) == sorted(want["knights"])
    assert {k: wk[k] for k in ("strength", "outcome", "merged")} == {
        k: want[k] for k in ("strength", "outcome", "merged")
    }
    threats = [t for t in a["threats"]["regions"] if t["rival"] == "white"]
    assert [t["region"] for t in threats] == [EXPECTED["region_c"]["territories"]]
    assert threats[0]["merged"] == want["merged"]


def test_playing_the_worked_example() -> None:
    game = from_position(POSITION)
    moves = [Move.parse(m) for m in EXPECTED["moves"]]
    for m in moves[:3]:
        game.push(m)
    assert game.phase == "charlemagne"
    c = region(analyze(game), EXPECTED["region_c"]["territories"])
    want = EXPECTED["after_knights_region_c"]
    assert {k: c[k] for k in want} == want
    game.push(moves[3])
    after = to_position(game)
    assert after["regions"] == EXPECTED["after"]["groups"]
    assert after["castles_left"] == EXPECTED["after"]["castles_left"]
    a = analyze(game)
    assert a["regions_left"] == EXPECTED["after"]["regions_left"]
    assert a["influence"]["yellow"] == EXPECTED["after"]["yellow"]
    # White then refills his reserve with 3 dice.
    assert game.phase == "refill" and game.turn == "white"
    for _ in moves:
        game.pop()
    assert to_position(game) == to_position(from_position(POSITION))


def test_text_table_names_the_outcomes() -> None:
    text = format_analysis(analyze_position(POSITION))
    assert "t05+t06+t07" in text
    assert "white to move, 1..2 steps" in text
    assert "with knights" in text and "merges into t04+t05+t06+t07+t08" in text
    assert "white's red is at risk: black has 4 red in reserve" in text
