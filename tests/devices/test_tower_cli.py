"""``companion tower listen`` and ``companion tower simulate`` as a user runs them."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

COMPANION = [sys.executable, "-m", "companion.cli"]


def run(*args: str, timeout: float = 60) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [*COMPANION, *args], capture_output=True, text=True, timeout=timeout, check=False
    )


def test_listen_to_a_missing_port_is_exit_2_with_a_clear_message() -> None:
    out = run("tower", "listen", "--port", "/dev/serial/by-id/usb-nothing-here")
    assert out.returncode == 2
    assert "port /dev/serial/by-id/usb-nothing-here does not exist" in out.stderr
    assert out.stdout == ""


def test_listen_to_something_that_is_not_a_serial_port_is_exit_2() -> None:
    out = run("tower", "listen", "--port", "/dev/null")
    assert out.returncode == 2
    assert "cannot open /dev/null" in out.stderr and "serial port" in out.stderr


def test_simulate_rejects_a_bad_script_with_exit_2(tmp_path: Path) -> None:
    script = tmp_path / "game.txt"
    script.write_text("rate 5\ndrops 3 purple\n", encoding="utf-8")
    out = run("tower", "simulate", "--script", str(script))
    assert out.returncode == 2
    assert "game.txt line 2: colour 'purple'" in out.stderr
    out = run("tower", "simulate", "--corrupt", "2")
    assert out.returncode == 2 and "--corrupt must be between 0 and 1" in out.stderr
    out = run("tower", "simulate", "--script", str(tmp_path / "missing.txt"))
    assert out.returncode == 2 and "cannot read" in out.stderr


def test_simulate_then_listen_prints_drops_as_json_lines_with_colours_hidden(
    tmp_path: Path,
) -> None:
    options = ["--drops", "4", "--rate", "50", "--sensor", "--lose", "0.2", "--seed", "2"]
    sim = subprocess.Popen(
        [*COMPANION, "tower", "simulate", *options, "--link-dir", str(tmp_path), "--linger", "5"],
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert sim.stdout is not None
        port = sim.stdout.readline().strip()
        assert port == str(tmp_path / "usb-Companion_Castillo_Tower_SIM-if00")
        out = run("tower", "listen", "--port", port, "--count", "4", "--seconds", "20")
    finally:
        sim.terminate()
        sim.wait(timeout=10)
    assert out.returncode == 0, out.stderr
    lines = [json.loads(line) for line in out.stdout.splitlines()]
    assert lines[0]["event"] == "link" and lines[0]["state"] == "connected"
    drops = [line for line in lines if line["event"] == "drop"]
    assert [d["seq"] for d in drops] == [1, 2, 3, 4]
    assert {d["colour"] for d in drops} == {"hidden"}, "the Castillo's colours stay secret"
    assert lines[-1]["event"] == "summary" and lines[-1]["drops"] == 4
