"""The Castillo tower's firmware: pure logic (CPython and MicroPython) plus the Pico adapter."""
