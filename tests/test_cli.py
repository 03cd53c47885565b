"""The ``companion`` command as a user runs it: a real subprocess."""

import json
import subprocess
import sys
from pathlib import Path


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


def test_unreadable_files_name_themselves_once(tmp_path: Path) -> None:
    binary = tmp_path / "bin.json"
    binary.write_bytes(b"\xff\xfe")
    out = run("analyze", str(binary))
    assert out.returncode == 2
    assert out.stderr.strip() == f"companion: {binary}: not UTF-8 text"
    out = run("analyze", str(tmp_path))
    assert out.returncode == 2
    assert out.stderr.strip() == f"companion: {tmp_path}: cannot read (Is a directory)"


def test_replay_of_a_record_without_header_says_so(tmp_path: Path) -> None:
    empty = tmp_path / "empty.txt"
    empty.write_text("# just a comment\n", encoding="utf-8")
    out = run("replay", str(empty))
    assert out.returncode == 2
    assert out.stderr.startswith(f"companion: {empty}: no readable header")
    other = tmp_path / "other.txt"
    other.write_text('{"game": "chess"}\n', encoding="utf-8")
    out = run("replay", str(other))
    assert out.returncode == 2
    assert "header game: 'chess' is not a known game" in out.stderr


def test_selfplay_reports_games_no_rule_can_end() -> None:
    # Seed 3's 100 two-player games include one that stalls (every cube in play, no stop
    # changes anything): it is counted, not taken for a broken invariant.
    out = run(
        "selfplay", "--game", "carolus-magnus", "--players", "2", "--games", "100", "--seed", "3"
    )
    assert out.returncode == 0, out.stderr
    assert "carolus-magnus: 100 games, 2 players" in out.stdout
    assert "1 of them stalled: no move could change anything" in out.stdout
