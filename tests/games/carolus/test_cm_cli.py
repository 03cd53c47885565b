"""The commands end to end, as a user runs them: ``.venv/bin/companion`` in a subprocess."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

DATA = Path(__file__).parents[2] / "data" / "carolus"
COMPANION = str(Path(sys.executable).with_name("companion"))


def run(*args: str, stdin: str | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [COMPANION, *args], capture_output=True, text=True, input=stdin, timeout=120
    )


def test_analyze_prints_the_spec_json() -> None:
    out = run("analyze", str(DATA / "worked_example.json"))
    assert out.returncode == 0, out.stderr
    a = json.loads(out.stdout)
    assert a["game"] == "carolus-magnus"
    c = next(r for r in a["regions"] if r["territories"] == ["t05", "t06", "t07"])
    assert (c["strength"], c["majority"]) == ({"white": 3, "black": 9}, "black")
    assert a["regions_left"] == 13


def test_analyze_text_with_player_and_steps() -> None:
    path = str(DATA / "worked_example.json")
    out = run("analyze", path, "--format", "text", "--player", "black", "--steps", "3")
    assert out.returncode == 0, out.stderr
    assert "black to move, 1..3 steps:" in out.stdout
    assert "3: t09 -> build by white" in out.stdout


def test_analyze_bad_position_exits_2_and_names_the_path() -> None:
    bad = DATA / "bad" / "group_not_consecutive.json"
    out = run("analyze", str(bad))
    assert out.returncode == 2
    assert "regions[0]: t05, t07 are not consecutive territories of the ring" in out.stderr
    assert out.stdout == ""


def test_replay_prints_final_position_and_scores() -> None:
    out = run("replay", str(DATA / "records" / "opening_2p.rec"))
    assert out.returncode == 0, out.stderr
    assert "moves applied: 22" in out.stdout
    assert "scores: white 1, black 1" in out.stdout


def test_replay_of_a_finished_game_names_the_winner() -> None:
    out = run("replay", str(DATA / "records" / "random_3p.rec"))
    assert out.returncode == 0, out.stderr
    assert "outcome: grey wins: grey has placed all 8 castles" in out.stdout


def test_replay_stops_at_the_first_illegal_move_with_exit_1() -> None:
    text = (DATA / "records" / "opening_2p.rec").read_text() + "white disc 3\n"
    out = run("replay", "-", stdin=text)
    assert out.returncode == 1
    assert "illegal move: line 34: white disc 3: white has already used disc 3" in out.stderr


def test_replay_unreadable_header_exits_2() -> None:
    out = run("replay", "-", stdin='{"game": "carolus-magnus", "players": ["white"]}\n')
    assert out.returncode == 2
    assert "header seed" in out.stderr


def test_selfplay_runs_and_checks_invariants() -> None:
    for players in ("2", "3", "4"):
        out = run(
            "selfplay",
            "--game",
            "carolus-magnus",
            "--players",
            players,
            "--games",
            "3",
            "--seed",
            "1",
        )
        assert out.returncode == 0, out.stderr
        assert f"carolus-magnus: 3 games, {players} players" in out.stdout


def test_selfplay_refuses_five_players() -> None:
    out = run("selfplay", "--game", "carolus-magnus", "--players", "5", "--games", "1")
    assert out.returncode == 2
    assert "Carolus Magnus is for 2 to 4 players" in out.stderr
