"""Random legal positions of both games: the truth always counts exactly what the position holds."""

from __future__ import annotations

from collections import Counter
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from companion.games.carolus.options import Options
from companion.games.carolus.state import CASTLES
from companion.games.elgrande.board import CABALLEROS_PER_PLAYER
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
    """Legal positions (the engine reads them): at most 30 caballeros of a colour in play."""
    players = draw(st.lists(st.sampled_from(EG_COLOURS), min_size=2, max_size=5, unique=True))
    courts = {c: draw(st.integers(0, 12)) for c in players}
    left = {c: CABALLEROS_PER_PLAYER - courts[c] for c in players}
    regions: dict[str, dict[str, int]] = {}
    for r in draw(st.lists(st.sampled_from(EL_GRANDE_REGIONS), unique=True, max_size=9)):
        regions[r] = {}
        for c in players:
            regions[r][c] = min(draw(st.integers(0, 6)), left[c])
            left[c] -= regions[r][c]
    return {
        "game": "el-grande",
        "players": players,
        "king": draw(st.sampled_from(EL_GRANDE_REGIONS)),
        "grandes": {c: draw(st.sampled_from(EL_GRANDE_REGIONS)) for c in players},
        "regions": regions,
        "courts": courts,
    }


@st.composite
def carolus_positions(draw: st.DrawFn) -> dict[str, Any]:
    """Legal positions (the engine reads them): cubes within the supply of each colour, one
    castle owner per region and no two neighbouring regions of one owner, influence held by a
    leader at court."""
    players = draw(st.sampled_from([["white", "black"], ["white", "black", "grey"]]))
    order = draw(st.permutations([f"t{i:02d}" for i in range(1, 16)]))
    left = dict.fromkeys(CAROLUS_COLOURS, Options().cubes_per_colour)

    def cubes(most: int) -> dict[str, int]:
        out = {}
        for c in CAROLUS_COLOURS:
            out[c] = min(draw(st.integers(0, most)), left[c])
            left[c] -= out[c]
        return out

    courts = {p: cubes(8) for p in players}
    reserves = {p: cubes(2) for p in players}
    knights = [cubes(3) for _ in order]
    start = draw(st.integers(0, 14))
    length = draw(st.integers(0, 6))
    group = [(start + k) % 15 for k in range(length)] if length >= 2 else []
    # Regions clockwise from the group (or from ``start``); castles so that the engine would not
    # have merged two neighbouring regions.
    runs = [group] if group else []
    runs += [[(start + k) % 15] for k in range(len(group), 15)]
    castle: list[str | None] = [None] * 15
    built = dict.fromkeys(players, 0)
    owners: list[str | None] = []
    for i, run in enumerate(runs):
        banned = {owners[-1]} if owners else set()
        if i == len(runs) - 1 and owners:
            banned.add(owners[0])
        owner = draw(st.sampled_from([None, *(p for p in players if p not in banned)]))
        for t in run:
            if owner is not None and built[owner] < CASTLES[len(players)] and draw(st.booleans()):
                castle[t] = owner
                built[owner] += 1
        owners.append(owner if any(castle[t] for t in run) else None)
    influence = {}
    for c in CAROLUS_COLOURS:
        best = max(players, key=lambda p: courts[p][c])
        influence[c] = best if courts[best][c] else None
    return {
        "game": "carolus-magnus",
        "players": players,
        "ring": [
            {"id": t, "knights": knights[i], "castle": castle[i]} for i, t in enumerate(order)
        ],
        "regions": [[order[t] for t in group]] if group else [],
        "charlemagne": draw(st.sampled_from(order)),
        "courts": courts,
        "influence": influence,
        "reserves": reserves,
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
    castles = [(p["area"], p["colour"]) for p in truth["pieces"] if p["kind"] == "castle"]
    on_tiles = {t["id"]: t["castle"] for t in pos["ring"] if t["castle"]}
    assert {a: c for a, c in castles if a != "castle_supply"} == on_tiles
    # The castles not on the board wait in the supply (the engine's default castles_left).
    supply = Counter(c for a, c in castles if a == "castle_supply")
    built = Counter(on_tiles.values())
    assert supply == {p: CASTLES[len(pos["players"])] - built[p] for p in pos["players"]}
    assert truth["regions"] == pos["regions"]
