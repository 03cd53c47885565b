"""Position files (spec/positions.md): reading, defaults, round trips, consistency checks."""

import json
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from companion.games.elgrande.board import COLOURS, REGIONS
from companion.games.elgrande.options import Options
from companion.games.elgrande.position import position_from_json, position_to_json
from companion.games.errors import PositionError

DATA = Path(__file__).parents[2] / "data/elgrande/positions"
BAD = json.loads((DATA / "bad/expected_errors.json").read_text(encoding="utf-8"))


def load(name: str) -> dict:
    return json.loads((DATA / name).read_text(encoding="utf-8"))


def test_spec_example_reads() -> None:
    pos = position_from_json(load("spec_example.json"))
    assert pos.players == ("red", "yellow", "blue")
    assert pos.king == "castilla_la_nueva"
    assert pos.areas["galicia"] == {"red": 3, "blue": 1}
    assert pos.areas["castillo"] == {"red": 2, "yellow": 1}
    assert pos.areas["cataluna"] == {}
    assert pos.scoreboards == {"valencia": (8, 4, 0)}
    assert pos.courts == {"red": 5, "yellow": 7, "blue": 2}
    assert pos.round == 3
    assert pos.options == Options()


def test_defaults_are_setup_values() -> None:
    pos = position_from_json(
        {
            "game": "el-grande",
            "players": ["green", "black"],
            "king": "galicia",
            "grandes": {"green": "aragon", "black": "valencia"},
            "regions": {"aragon": {"green": 2}, "valencia": {"black": 2}},
        }
    )
    assert pos.round == 1
    assert pos.courts == {"green": 7, "black": 7}
    # The province is the rest of a player's 30 caballeros: 21 at setup.
    assert pos.provinces == {"green": 21, "black": 21}
    assert pos.scores == {"green": 0, "black": 0}
    assert pos.scoreboards == {}


def test_round_trip_is_exact() -> None:
    for name in ("spec_example.json", "hand_scored.json"):
        pos = position_from_json(load(name))
        text = json.dumps(position_to_json(pos))
        again = position_from_json(json.loads(text))
        assert again == pos
        assert position_to_json(again) == position_to_json(pos)


def test_options_survive_the_round_trip() -> None:
    data = load("spec_example.json")
    data["options"] = {"veto": False, "short_game": "skip_1_4_7"}
    pos = position_from_json(data)
    assert pos.options.veto is False
    assert position_to_json(pos)["options"] == {"veto": False, "short_game": "skip_1_4_7"}


@st.composite
def positions(draw: st.DrawFn) -> dict:
    players = draw(st.lists(st.sampled_from(COLOURS), min_size=2, max_size=5, unique=True))
    king = draw(st.sampled_from(REGIONS))
    regions: dict[str, dict[str, int]] = {}
    left = dict.fromkeys(players, 30)
    for region in REGIONS:
        counts = {}
        for colour in players:
            n = draw(st.integers(0, min(4, left[colour])))
            if n:
                counts[colour] = n
                left[colour] -= n
        if counts:
            regions[region] = counts
    castillo = {c: draw(st.integers(0, min(3, left[c]))) for c in players}
    for c in players:
        left[c] -= castillo[c]
    courts = {c: draw(st.integers(0, left[c])) for c in players}
    provinces = {c: left[c] - courts[c] for c in players}
    return {
        "game": "el-grande",
        "players": players,
        "round": draw(st.integers(1, 9)),
        "king": king,
        "grandes": {c: draw(st.sampled_from(REGIONS)) for c in players},
        "regions": regions,
        "castillo": castillo,
        "scoreboards": draw(
            st.sampled_from(
                [{}, {"galicia": [8, 4, 0]}, {"castillo": [4, 0, 0], "sevilla": [8, 4, 0]}]
            )
        ),
        "courts": courts,
        "provinces": provinces,
        "scores": {c: draw(st.integers(0, 120)) for c in players},
    }


@settings(max_examples=60, deadline=None)
@given(positions())
def test_random_positions_round_trip(data: dict) -> None:
    pos = position_from_json(data)
    for colour in pos.players:
        on_board = sum(counts.get(colour, 0) for counts in pos.areas.values())
        assert on_board + pos.courts[colour] + pos.provinces[colour] == 30
    assert position_from_json(json.loads(json.dumps(position_to_json(pos)))) == pos


@pytest.mark.parametrize("name", sorted(BAD))
def test_bad_position_file_is_a_clear_error(name: str) -> None:
    path = DATA / "bad" / f"{name}.json"
    before = path.read_bytes()
    out = subprocess.run(
        [sys.executable, "-m", "companion.cli", "analyze", str(path)],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert out.returncode == 2, out.stdout
    assert out.stdout == ""
    assert BAD[name] in out.stderr
    assert out.stderr.startswith(f"companion: {path}: ")
    assert path.read_bytes() == before


def test_position_error_is_a_value_error_with_a_path() -> None:
    data = load("spec_example.json")
    data["regions"]["galicia"]["red"] = -1
    with pytest.raises(ValueError) as info:
        position_from_json(data)
    assert isinstance(info.value, PositionError)
    assert info.value.path == "regions.galicia.red"
