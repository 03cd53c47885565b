"""``companion demo`` (what ``make demo`` runs): the simulated table end to end."""

import re
import subprocess
import sys


def test_demo_runs_every_simulated_device_against_the_engine() -> None:
    out = subprocess.run(
        [sys.executable, "-m", "companion.cli", "demo", "--seed", "7"],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert out.returncode == 0, out.stdout + out.stderr
    tower = re.search(r"tower: (\d+) caballeros dropped, (\d+) drops received", out.stdout)
    assert tower and tower.group(1) == tower.group(2) and int(tower.group(1)) > 0
    assert re.search(r"camera: .* agrees with the engine", out.stdout)
    assert "a hand over the board gives no counts" in out.stdout
    # Secret disk choices never reach the screen.
    assert " secret " not in out.stdout.replace("makes a secret choice", "")
    assert "scoring now" in out.stdout
    assert "Carolus Magnus — the rule sheet's worked example" in out.stdout
    assert "demo finished: every simulated device agreed with the rules engine" in out.stdout


def test_demo_without_devices_still_plays_and_analyses() -> None:
    out = subprocess.run(
        [
            sys.executable,
            "-m",
            "companion.cli",
            "demo",
            "--no-camera",
            "--no-tower",
            "--rounds",
            "1",
        ],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert out.returncode == 0, out.stderr
    assert "tower:" not in out.stdout and "camera:" not in out.stdout
    assert "-- round 1" in out.stdout and "-- round 2" not in out.stdout
