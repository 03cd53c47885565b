"""The colour of each cube as it rests on the ramp under the TCS34725 colour sensor.

``Tcs34725`` talks to the chip over any object with MicroPython's I2C methods (``readfrom_mem``,
``writeto_mem``), so tests give it a fake bus. ``ColourWatcher`` turns the stream of readings into
one colour per cube: a cube is *present* when the light differs clearly from the empty ramp, and is
classified once two readings in a row agree; it must leave before the next one counts.

Pure and portable (CPython and MicroPython).
"""

UNKNOWN = 0
NAMES = ("unknown", "yellow", "green", "blue", "red", "black")

# Reference chromaticity (r, g, b shares of r+g+b, in thousandths) and brightness (clear reading in
# thousandths of the empty ramp's) of each cube colour under the sensor's white LED, measured on a
# white PLA ramp. A group recalibrates by replacing this table (see firmware/README.md).
REFERENCES = (
    (1, 420, 400, 180, 1600),  # yellow
    (2, 250, 480, 270, 900),  # green
    (3, 200, 330, 470, 800),  # blue
    (4, 560, 230, 210, 1000),  # red
    (5, 340, 340, 320, 350),  # black
)
# Farther than this from every reference (chromaticity thousandths + brightness/10) is unknown.
MAX_DISTANCE = 120
# A reading whose clear channel differs from the empty ramp by more than this ratio is a cube.
PRESENCE_RATIO = 0.25
# ... or whose chromaticity differs from the empty ramp's by more than this (thousandths): a red
# cube can be exactly as bright as the ramp.
PRESENCE_CHROMA = 60
# Two readings agree when their chromaticities differ by at most this (thousandths).
STABLE_DISTANCE = 30


def chromaticity(r, g, b):
    total = r + g + b
    if total <= 0:
        return 333, 333, 333
    return r * 1000 // total, g * 1000 // total, b * 1000 // total


def classify(r, g, b, clear, empty_clear, references=REFERENCES):
    """Colour code of one reading, or UNKNOWN when nothing is close enough."""
    cr, cg, cb = chromaticity(r, g, b)
    brightness = clear * 1000 // max(1, empty_clear)
    best, best_d = UNKNOWN, MAX_DISTANCE + 1
    for code, rr, rg, rb, rbright in references:
        d = abs(cr - rr) + abs(cg - rg) + abs(cb - rb) + abs(brightness - rbright) // 10
        if d < best_d:
            best, best_d = code, d
    return best if best_d <= MAX_DISTANCE else UNKNOWN


class Tcs34725:
    """Minimal TCS34725 driver: power on, 24 ms integration, 4x gain, read (clear, r, g, b)."""

    ADDRESS = 0x29
    _CMD = 0x80
    _AUTO = 0x20
    _ENABLE, _ATIME, _CONTROL, _ID, _CDATA = 0x00, 0x01, 0x0F, 0x12, 0x14
    IDS = (0x44, 0x4D)

    def __init__(self, i2c, address=ADDRESS):
        self.i2c = i2c
        self.address = address
        chip = self._read(self._ID, 1)[0]
        if chip not in self.IDS:
            raise OSError(f"no TCS34725 at 0x{address:02x} (id 0x{chip:02x})")
        self._write(self._ATIME, 0xF6)  # 10 cycles of 2.4 ms
        self._write(self._CONTROL, 0x01)  # gain 4x
        self._write(self._ENABLE, 0x01)  # power on, then enable the ADC (datasheet order)
        self._write(self._ENABLE, 0x03)

    def _read(self, register, n):
        return self.i2c.readfrom_mem(self.address, self._CMD | self._AUTO | register, n)

    def _write(self, register, value):
        self.i2c.writeto_mem(self.address, self._CMD | register, bytes((value,)))

    def read(self):
        """(clear, red, green, blue) raw counts."""
        raw = self._read(self._CDATA, 8)
        return (
            raw[0] | raw[1] << 8,
            raw[2] | raw[3] << 8,
            raw[4] | raw[5] << 8,
            raw[6] | raw[7] << 8,
        )


class ColourWatcher:
    """Readings in, one colour code out per cube that comes to rest under the sensor."""

    def __init__(self, references=REFERENCES):
        self.references = references
        self.empty_clear = None
        self.empty_chroma = None
        self._present = False
        self._last = None
        self._reported = False

    def feed(self, clear, r, g, b):
        """The colour code when a cube has just been recognised, else None."""
        chroma = chromaticity(r, g, b)
        if self.empty_clear is None:
            self.empty_clear = max(1, clear)  # the ramp is empty at start-up
            self.empty_chroma = chroma
            return None
        e = self.empty_chroma
        differs = (
            abs(clear - self.empty_clear) > self.empty_clear * PRESENCE_RATIO
            or abs(chroma[0] - e[0]) + abs(chroma[1] - e[1]) + abs(chroma[2] - e[2])
            > PRESENCE_CHROMA
        )
        if not differs:
            # Follow slow drift (daylight, LED warming) only while the ramp is empty.
            self.empty_clear = (self.empty_clear * 7 + clear) // 8 or 1
            self.empty_chroma = chroma
            self._present = self._reported = False
            self._last = None
            return None
        if self._reported:
            return None
        if self._present and self._last is not None:
            last = self._last
            d = abs(chroma[0] - last[0]) + abs(chroma[1] - last[1]) + abs(chroma[2] - last[2])
            if d <= STABLE_DISTANCE:
                self._reported = True
                return classify(r, g, b, clear, self.empty_clear, self.references)
        self._present = True
        self._last = chroma
        return None
