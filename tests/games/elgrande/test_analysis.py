"""``companion analyze`` on El Grande positions: the spec example and hand-scored positions."""

import json
import subprocess
import sys
from pathlib import Path

from companion.games.elgrande.analysis import analyze
from companion.games.elgrande.board import AREAS
from companion.games.elgrande.position import position_from_json

DATA = Path(__file__).parents[2] / "data/elgrande/positions"


def load(name: str) -> dict:
    return json.loads((DATA / name).read_text(encoding="utf-8"))


def run_analyze(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "companion.cli", "analyze", *args],
        capture_output=True,
        text=True,
        timeout=60,
    )


def test_spec_example_galicia_entry_is_the_one_the_spec_shows() -> None:
    out = run_analyze(str(DATA / "spec_example.json"))
    assert out.returncode == 0, out.stderr
    analysis = json.loads(out.stdout)
    assert analysis["game"] == "el-grande"
    assert set(analysis["areas"]) == set(AREAS)
    # spec/positions.md, "companion analyze", El Grande example:
    assert analysis["areas"]["galicia"] == {
        "values": [4, 2, 0],
        "counts": {"red": 3, "blue": 1},
        "places": {"red": 1, "blue": 2},
        "points": {"red": 4, "blue": 2},
        "king_bonus": None,
        "grande_bonus": "red",
        "total": {"red": 6, "blue": 2},
    }


def test_three_players_values_drop_the_third() -> None:
    analysis = analyze(position_from_json(load("spec_example.json")))
    # 3 players: [first, second, 0]; the scoreboard on valencia replaces its printed values.
    assert analysis["areas"]["castilla_la_nueva"]["values"] == [7, 4, 0]
    assert analysis["areas"]["valencia"]["values"] == [8, 4, 0]
    assert analysis["areas"]["castillo"]["points"] == {"red": 5, "yellow": 3}


def test_hand_scored_position() -> None:
    # Per area (4 players, king in castilla_la_nueva):
    # galicia 4/2/0 red 3 (+2 grande) blue 1; pais_vasco 5/3/1 red=yellow tie -> 3 each, blue 1;
    # aragon yellow alone 5 +2 grande; castilla_la_vieja three tied at 2 -> second place 4 each;
    # castilla_la_nueva blue 7 +2 king, green 4; sevilla tie -> 3 each, no grande bonus for blue;
    # granada scoreboard 4/0/0: yellow 4, green 0; valencia green 5 +2 grande, three tied behind
    # him take third place: 2 each; castillo scoreboard 8/4/0: yellow 8, red 4.
    expected = load("hand_scored.expected.json")
    analysis = analyze(position_from_json(load("hand_scored.json")))
    assert {a: info["total"] for a, info in analysis["areas"].items()} == expected["totals"]
    assert analysis["scoring_now"] == expected["scoring_now"]
    assert analysis["areas"]["castilla_la_nueva"]["king_bonus"] == "blue"
    assert analysis["areas"]["sevilla"]["grande_bonus"] is None


def test_text_format_is_a_readable_table() -> None:
    out = run_analyze(str(DATA / "hand_scored.json"), "--format", "text")
    assert out.returncode == 0, out.stderr
    lines = out.stdout.splitlines()
    assert lines[0].split()[:2] == ["area", "values"]
    assert lines[0].split()[2:6] == ["red", "yellow", "blue", "green"]
    nueva = next(line for line in lines if line.startswith("Castilla la Nueva"))
    assert "king +2: blue" in nueva
    total = next(line for line in lines if line.startswith("scoring now"))
    assert total.split()[2:] == ["22", "24", "21", "15"]


def test_player_and_steps_are_refused_for_el_grande() -> None:
    out = run_analyze(str(DATA / "spec_example.json"), "--player", "red", "--steps", "2")
    assert out.returncode == 2
    assert "Carolus Magnus" in out.stderr
