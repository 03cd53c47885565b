"""From beam edges to drops: the glitch filter and the count of cubes in one pulse.

The beam is sampled by edges with microsecond timestamps. A pulse is one stretch of "blocked",
where clear gaps shorter than MERGE_GAP_US do not split it (a tumbling cube can let light through
for a moment) and blocked stretches shorter than GLITCH_US are noise. A pulse is decided only once
the beam has stayed clear for MERGE_GAP_US, so the decision never depends on edges still to come.

Pure and portable (CPython and MicroPython).
"""

from tower import config as C


class Pulse:
    """A decided pulse: when it began, how many cubes it held (0 for a jam), their confidence."""

    __slots__ = ("confidence", "cubes", "duration_us", "start_us")

    def __init__(self, start_us, duration_us, cubes, confidence):
        self.start_us = start_us
        self.duration_us = duration_us
        self.cubes = cubes
        self.confidence = confidence

    def __repr__(self):
        return (
            f"Pulse(start_us={self.start_us}, duration_us={self.duration_us}, "
            f"cubes={self.cubes}, confidence={self.confidence})"
        )


def classify(duration_us, cfg=C):
    """(cubes, confidence) for a pulse of this length; (0, 0) for a glitch or a jam."""
    if duration_us < cfg.GLITCH_US or duration_us >= cfg.JAM_US:
        return 0, 0
    if duration_us < cfg.CUBE_MIN_US:
        return 1, cfg.CONFIDENCE_SHORT
    if duration_us <= cfg.CUBE_MAX_US:
        return 1, cfg.CONFIDENCE_SINGLE
    cubes = max(2, (duration_us + cfg.CUBE_NOMINAL_US // 2) // cfg.CUBE_NOMINAL_US)
    return cubes, (cfg.CONFIDENCE_DOUBLE if cubes == 2 else cfg.CONFIDENCE_MANY)


class PulseFilter:
    """Feed edges with ``edge()``, ask ``poll(now)`` for the pulses that are decided."""

    def __init__(self, cfg=C):
        self.cfg = cfg
        self._start = None  # when the current pulse began, None when idle
        self._end = None  # when the beam last cleared, None while blocked
        self._last_t = None
        self._jam_reported = False
        self.glitches = 0
        self.jams = 0

    @property
    def blocked(self):
        return self._start is not None and self._end is None

    def edge(self, blocked, t_us):
        """The beam became blocked (True) or clear (False) at t_us. Repeated levels are ignored."""
        if self._last_t is not None and t_us < self._last_t:
            t_us = self._last_t  # an edge never goes back in time; trust the order, not the clock
        self._last_t = t_us
        out = []
        if blocked:
            if self._start is None:
                self._start = t_us
            elif self._end is not None:
                if t_us - self._end < self.cfg.MERGE_GAP_US:
                    self._end = None
                else:
                    out = self._decide()
                    self._start = t_us
            self._end = None
        elif self._start is not None and self._end is None:
            self._end = t_us
        return out

    def poll(self, now_us):
        """Pulses decided by now; a jam is reported once while it lasts, as a 0-cube pulse."""
        if self._start is None:
            return []
        if self._end is None:
            if not self._jam_reported and now_us - self._start >= self.cfg.JAM_US:
                self._jam_reported = True
                self.jams += 1
                return [Pulse(self._start, now_us - self._start, 0, 0)]
            return []
        if now_us - self._end >= self.cfg.MERGE_GAP_US:
            return self._decide()
        return []

    def _decide(self):
        start, end, jammed = self._start, self._end, self._jam_reported
        self._start = self._end = None
        self._jam_reported = False
        duration = end - start
        if jammed:
            return []
        cubes, confidence = classify(duration, self.cfg)
        if cubes == 0:
            if duration < self.cfg.GLITCH_US:
                self.glitches += 1
            else:
                self.jams += 1
            return []
        return [Pulse(start, duration, cubes, confidence)]
