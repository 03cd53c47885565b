"""The ``companion`` command as a user runs it: a real subprocess."""

import json
import subprocess
import sys


def run(*args: str, stdin: str | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "companion.cli", *args],
        capture_output=True,
        text=True,
        input=stdin,
        timeout=120,
    )


def test_help_lists_commands() -> None:
    out = run("--help")
    assert out.returncode == 0
    for command in ("analyze", "replay", "selfplay", "demo"):
        assert command in out.stdout


def test_analyze_unknown_game_is_a_clear_error() -> None:
    out = run("analyze", "-", stdin=json.dumps({"game": "chess"}))
    assert out.returncode == 2
    assert "game: 'chess' is not a known game" in out.stderr


def test_analyze_not_json() -> None:
    out = run("analyze", "-", stdin="{not json")
    assert out.returncode == 2
    assert "not valid JSON (line 1" in out.stderr


def test_analyze_missing_file() -> None:
    out = run("analyze", "/nonexistent/position.json")
    assert out.returncode == 2
    assert "no such file" in out.stderr
