"""Random positions of both games: the truth always counts exactly what the position holds."""

from __future__ import annotations

from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from companion.vision.layout import CAROLUS_COLOURS, EL_GRANDE_REGIONS, load_layout
from companion.vision.synth import EASY, render

TINY = EASY.with_size(320, 180)
EG_COLOURS = ("yellow", "green", "blue", "red", "black")
QUICK = settings(
    max_examples=8,
    deadline=None,
    derandomize=True,
    suppress_health_check=[HealthCheck.too_slow],
)


@st.composite
def el_grande_positions(draw: st.DrawFn) -> dict[str, Any]:
    players = draw(st.lists(st.sampled_from(EG_COLOURS), min_size=2, max_size=5, unique=True))
    regions = {
        r: {c: draw(st.integers(0, 6)) for c in players}
        for r in draw(st.lists(st.sampled_from(EL_GRANDE_REGIONS), unique=True, max_size=9))
    }
    return {
        "game": "el-grande",
        "players": players,
        "king": draw(st.sampled_from(EL_GRANDE_REGIONS)),
        "grandes": {c: draw(st.sampled_from(EL_GRANDE_REGIONS)) for c in players},
        "regions": regions,
        "courts": {c: draw(st.integers(0, 12)) for c in players},
    }


@st.composite
def carolus_positions(draw: st.DrawFn) -> dict[str, Any]:
    players = draw(st.sampled_from([["white", "black"], ["white", "black", "grey"]]))
    order = draw(st.permutations([f"t{i:02d}" for i in range(1, 16)]))
    ring = [
        {
            "id": t,
            "knights": {c: draw(st.integers(0, 3)) for c in CAROLUS_COLOURS},
            "castle": draw(st.sampled_from([None, *players])),
        }
        for t in order
    ]
    start = draw(st.integers(0, 14))
    length = draw(st.integers(0, 6))
    groups = [[order[(start + k) % 15] for k in range(length)]] if length >= 2 else []
    return {
        "game": "carolus-magnus",
        "players": players,
        "ring": ring,
        "regions": groups,
        "charlemagne": draw(st.sampled_from(order)),
        "courts": {p: {c: draw(st.integers(0, 8)) for c in CAROLUS_COLOURS} for p in players},
        "reserves": {p: {c: draw(st.integers(0, 2)) for c in CAROLUS_COLOURS} for p in players},
    }


def _nonzero(counts: dict[str, int]) -> dict[str, int]:
    return {c: n for c, n in counts.items() if n}


@QUICK
@given(el_grande_positions(), st.integers(0, 2**20))
def test_el_grande_truth_matches_any_position(pos: dict[str, Any], seed: int) -> None:
    layout = load_layout("el-grande")
    _, truth = render(pos, seed=seed, conditions=TINY)
    expected = {r: _nonzero(c) for r, c in pos["regions"].items() if _nonzero(c)}
    for seat, player in enumerate(pos["players"], 1):
        if pos["courts"][player]:
            expected[f"court_{seat}"] = {player: pos["courts"][player]}
    assert truth["counts"] == expected
    for cube in truth["cubes"]:
        assert layout.area_at(tuple(cube["board"])) == cube["area"]
    grandes = {p["colour"]: p["area"] for p in truth["pieces"] if p["kind"] == "grande"}
    assert grandes == pos["grandes"]


@QUICK
@given(carolus_positions(), st.integers(0, 2**20))
def test_carolus_truth_matches_any_position(pos: dict[str, Any], seed: int) -> None:
    _, truth = render(pos, seed=seed, conditions=TINY)
    for tile in pos["ring"]:
        assert truth["counts"].get(tile["id"], {}) == _nonzero(tile["knights"])
    for seat, player in enumerate(pos["players"], 1):
        assert truth["counts"].get(f"court_{seat}", {}) == _nonzero(pos["courts"][player])
        assert truth["counts"].get(f"reserve_{seat}", {}) == _nonzero(pos["reserves"][player])
    castles = {p["area"]: p["colour"] for p in truth["pieces"] if p["kind"] == "castle"}
    assert castles == {t["id"]: t["castle"] for t in pos["ring"] if t["castle"]}
    assert truth["regions"] == pos["regions"]
