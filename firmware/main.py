"""Runs at power-up on the Pico: the tower firmware (copy with `mpremote`, see README.md)."""

from tower import board

board.run()
