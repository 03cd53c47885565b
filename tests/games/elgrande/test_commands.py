"""``companion replay`` and ``companion selfplay`` on El Grande, as a user runs them."""

import json
import subprocess
import sys
from pathlib import Path

RECORDS = Path(__file__).parents[2] / "data/elgrande/records"


def companion(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "companion.cli", *args], capture_output=True, text=True, timeout=120
    )


def test_replay_of_a_whole_game_prints_the_final_position_and_scores() -> None:
    out = companion("replay", str(RECORDS / "selfplay_4p_seed2026.txt"))
    assert out.returncode == 0, out.stderr
    position_text, _, summary = out.stdout.rpartition("}\n")
    final = json.loads(position_text + "}")
    assert final["game"] == "el-grande"
    assert final["round"] == 9
    scores = dict(item.split() for item in summary.split("scores: ")[1].splitlines()[0].split(", "))
    assert {c: int(v) for c, v in scores.items()} == final["scores"]
    assert "outcome:" in summary


def test_replay_stops_at_the_first_illegal_move_with_its_line_and_reason() -> None:
    out = companion("replay", str(RECORDS / "taboo_place_line13.txt"))
    assert out.returncode == 1
    assert "line 13" in out.stderr
    assert "taboo" in out.stderr
    out = companion("replay", str(RECORDS / "illegal_duplicate_power_line39.txt"))
    assert out.returncode == 1
    assert "line 39" in out.stderr and "already played" in out.stderr


def test_replay_of_an_unreadable_record_is_exit_2(tmp_path: Path) -> None:
    bad = tmp_path / "bad.txt"
    bad.write_text('{"game": "el-grande", "players": ["red"\n', encoding="utf-8")
    out = companion("replay", str(bad))
    assert out.returncode == 2
    assert out.stderr.startswith("companion: ")


def test_selfplay_checks_invariants_and_reports_speed() -> None:
    out = companion("selfplay", "--game", "el-grande", "--players", "5", "--games", "3")
    assert out.returncode == 0, out.stderr
    assert "el-grande: 3 games, 5 players" in out.stdout
    assert "games/s" in out.stdout
    assert out.stderr == ""
