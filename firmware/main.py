"""Runs at power-up on the Pico: the tower firmware (copy with `mpremote`, see README.md).

The firmware ignores Ctrl-C (binary frames contain 0x03), so there are two ways back to the REPL:
a file ``safe.txt`` on the Pico, or the beam blocked (a finger in the tower's mouth) at power-up.
"""

import os

import machine
from tower import board


def _safe_mode():
    try:
        os.stat("safe.txt")
        return True
    except OSError:
        pass
    return machine.Pin(board.BEAM_PIN, machine.Pin.IN, machine.Pin.PULL_UP).value() == 0


if not _safe_mode():
    board.run()
