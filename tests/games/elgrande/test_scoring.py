"""Area scoring, fed by the worked examples and stated rules of rules/el-grande.md 5.1."""

import json
from pathlib import Path
from typing import Any

import pytest

from companion.games.elgrande.scoring import score_area, values_in_force

CASES = json.loads(
    (Path(__file__).parents[2] / "data/elgrande/scoring_cases.json").read_text(encoding="utf-8")
)["cases"]


@pytest.mark.parametrize("case", CASES, ids=[c["name"] for c in CASES])
def test_area_scoring(case: dict[str, Any]) -> None:
    boards = {area: tuple(v) for area, v in case.get("scoreboards", {}).items()}
    values = values_in_force(case["area"], boards, len(case["players"]))
    score = score_area(
        case["area"],
        case["counts"],
        values,
        king_region=case["king"],
        grandes=case.get("grandes", {}),
    )
    if "expected_values" in case:
        assert list(score.values) == case["expected_values"]
    if "expected_points" in case:
        assert dict(score.points) == case["expected_points"]
    if "expected_total" in case:
        assert dict(score.total) == case["expected_total"]
    if "expected_king_bonus" in case:
        assert score.king_bonus == case["expected_king_bonus"]
    if "expected_grande_bonus" in case:
        assert score.grande_bonus == case["expected_grande_bonus"]


def test_first_only_scores_nothing_on_a_tie_for_first() -> None:
    # Stack-3 card: "score all regions, first place only (a tie for first scores nothing)".
    values = values_in_force("aragon", {}, 4)
    tied = score_area(
        "aragon",
        {"red": 2, "blue": 2, "green": 1},
        values,
        king_region="galicia",
        grandes={},
        first_only=True,
    )
    assert sum(tied.points.values()) == 0
    clear = score_area(
        "aragon", {"red": 3, "blue": 2}, values, king_region="galicia", grandes={}, first_only=True
    )
    assert dict(clear.points) == {"red": 5, "blue": 0}
