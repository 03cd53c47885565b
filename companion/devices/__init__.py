"""Devices: the tower link, buttons and LEDs, camera sources, and their simulators."""
