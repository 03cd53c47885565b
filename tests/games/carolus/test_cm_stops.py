"""Charlemagne's stops from tests/data/carolus/stops.json: build, take over, merge, end."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from carolus_builders import position

from companion.games.carolus.moves import Move
from companion.games.carolus.position import from_position, to_position

CASES = json.loads((Path(__file__).parents[2] / "data" / "carolus" / "stops.json").read_text())[
    "cases"
]


@pytest.mark.parametrize("case", CASES, ids=[c["name"] for c in CASES])
def test_stop(case: dict[str, Any]) -> None:
    game = from_position(position(**case["position"]))
    before = to_position(game)
    for text in case["moves"]:
        game.push(Move.parse(text))
    after = to_position(game)
    expect = case["expect"]
    if "groups" in expect:
        assert sorted(after["regions"]) == sorted(expect["groups"])
    if "castles" in expect:
        on_board: dict[str, int] = dict.fromkeys(expect["castles"], 0)
        for t in after["ring"]:
            if t["castle"]:
                on_board[t["castle"]] += 1
        assert on_board == expect["castles"]
    if "castles_left" in expect:
        assert after["castles_left"] == expect["castles_left"]
    if "regions_left" in expect:
        assert len(game.state.regions) == expect["regions_left"]
    for tid, owner in expect.get("castle_on", {}).items():
        assert next(t["castle"] for t in after["ring"] if t["id"] == tid) == owner
    if "charlemagne" in expect:
        assert after["charlemagne"] == expect["charlemagne"]
    if "charlemagne_in" in expect:
        s = game.state
        assert s.region_ids(s.region_index(s.charlemagne)) == expect["charlemagne_in"]
    outcome = game.outcome()
    if expect["outcome"] is None:
        assert outcome is None
        assert game.phase == "refill"
    else:
        assert outcome is not None
        assert list(outcome.winners) == expect["outcome"]["winners"]
        assert expect["outcome"]["reason"] in outcome.reason
        assert game.phase == "over" and game.turn is None
        assert list(game.legal_moves()) == []
    game.pop()
    assert to_position(game) == before
