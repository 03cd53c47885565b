"""The Pico adapter: the only file that touches ``machine``, ``micropython`` and the USB serial.

Wiring (hardware/tower/WIRING.md): IR receiver on GP15 (low while the beam is broken, pulled up),
TCS34725 on I2C0 (SDA GP4, SCL GP5), status LED on the board LED. The beam edge interrupt runs as
a *hard* IRQ that only stores the tick count and the pin level into preallocated arrays; everything
else happens in the main loop.
"""

import os
import select
import sys
import time
from array import array

import machine
import micropython

from tower import colour, core

BEAM_PIN = 15
SDA_PIN = 4
SCL_PIN = 5
STORE_FILE = "drops.bin"
EDGE_SLOTS = 64  # edges buffered between two loop passes (a cube makes two)
# One colour reading per integration period (24 ms): reading faster returns the same sample twice,
# which the watcher would take for two agreeing readings.
SENSOR_PERIOD_US = 24000

micropython.alloc_emergency_exception_buf(100)


class FileStore:
    """The drop log on the Pico's flash; written to a new file then renamed, so never torn."""

    def __init__(self, path=STORE_FILE):
        self.path = path

    def read(self):
        try:
            with open(self.path, "rb") as f:
                return f.read()
        except OSError:
            return None

    def write(self, data):
        tmp = self.path + ".tmp"
        with open(tmp, "wb") as f:
            f.write(data)
        os.rename(tmp, self.path)


class Board:
    def __init__(self, beam_pin=BEAM_PIN, with_colour=True):
        self.pin = machine.Pin(beam_pin, machine.Pin.IN, machine.Pin.PULL_UP)
        self._ticks = array("i", [0] * EDGE_SLOTS)
        self._levels = bytearray(EDGE_SLOTS)
        self._head = 0  # written by the IRQ
        self._tail = 0  # read by the loop
        self._last_ticks = time.ticks_us()
        self.now_us = 0  # device time: unwrapped microseconds since boot
        self._last_read = -SENSOR_PERIOD_US
        self.sensor = None
        self.watcher = None
        if with_colour:
            try:
                i2c = machine.I2C(0, sda=machine.Pin(SDA_PIN), scl=machine.Pin(SCL_PIN))
                self.sensor = colour.Tcs34725(i2c)
                self.watcher = colour.ColourWatcher()
            except OSError:
                self.sensor = None  # no colour sensor fitted: drops are sent as "unknown"
        boot_id = int.from_bytes(os.urandom(4), "big")
        self.tower = core.Tower(boot_id, FileStore(), colour_sensor=self.sensor is not None)
        self.pin.irq(self._on_edge, machine.Pin.IRQ_FALLING | machine.Pin.IRQ_RISING, hard=True)

    def _on_edge(self, pin):
        # Hard IRQ: no allocation. A full buffer drops the edge rather than overwrite one.
        nxt = (self._head + 1) % EDGE_SLOTS
        if nxt != self._tail:
            self._ticks[self._head] = time.ticks_us()
            self._levels[self._head] = pin.value()
            self._head = nxt

    def _clock(self, ticks):
        self.now_us += time.ticks_diff(ticks, self._last_ticks)
        self._last_ticks = ticks
        return self.now_us

    def step(self, rx):
        """One loop pass: edges, colour, bytes from the host; returns the bytes to send."""
        while self._tail != self._head:
            ticks, level = self._ticks[self._tail], self._levels[self._tail]
            self._tail = (self._tail + 1) % EDGE_SLOTS
            # Unwrap relative to the loop clock: edges are never older than the last loop pass.
            t = self.now_us + time.ticks_diff(ticks, self._last_ticks)
            self.tower.edge(level == 0, t)
        if rx:
            self.tower.receive(rx)
        now = self._clock(time.ticks_us())
        if self.sensor is not None and now - self._last_read >= SENSOR_PERIOD_US:
            self._last_read = now
            code = self.watcher.feed(*self.sensor.read())
            if code is not None:
                self.tower.colour(code, now)
        return self.tower.poll(now)


def run():
    micropython.kbd_intr(-1)  # binary frames contain 0x03; Ctrl-C must not stop the program
    board = Board()
    poller = select.poll()
    poller.register(sys.stdin, select.POLLIN)
    stdin, stdout = sys.stdin.buffer, sys.stdout.buffer
    while True:
        rx = bytearray()
        while poller.poll(0):
            rx.extend(stdin.read(1))
        out = board.step(bytes(rx))
        if out:
            stdout.write(out)
        time.sleep_ms(2)
