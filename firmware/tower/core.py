"""The tower's whole behaviour, without any hardware: beam edges and colours in, frames out.

``Tower`` is driven by the board adapter (or the simulator) through four calls:

- ``edge(blocked, t_us)`` for each beam edge, ``colour(code)`` for each cube the colour sensor saw;
- ``receive(data)`` with the bytes the host sent;
- ``poll(now_us)`` regularly, which returns the bytes to write to the host.

Link rules (see firmware/PROTOCOL.md): each drop is sent at once; unacknowledged drops are all sent
again, oldest first, when the oldest has waited RETRANSMIT_US (doubling while the host is silent);
a HELLO resends everything unacknowledged immediately and is answered with a STATUS. Drops restored
from an earlier boot go first, and this boot's drops only once the host has acknowledged them all,
so none can overtake them. A heartbeat STATUS goes out every HEARTBEAT_US.

Pure and portable (CPython and MicroPython).
"""

import struct

from tower import config as C
from tower import frame
from tower.droplog import DropLog
from tower.pulses import PulseFilter


class Tower:
    def __init__(self, boot_id, store=None, colour_sensor=False, cfg=C):
        self.cfg = cfg
        self.boot_id = boot_id & 0xFFFFFFFF
        self.colour_sensor = colour_sensor
        self.beam = PulseFilter(cfg)
        self.log = DropLog(store, cfg.LOG_CAPACITY)
        self.next_seq = 1
        self.count = 0
        self.rx_errors = 0
        self.stray_colours = 0
        self._deframer = frame.Deframer()
        self._waiting = []  # [t_us, confidence, deadline] of drops waiting for their colour
        self._status_due = frame.R_BOOT
        self._next_heartbeat = None
        self._retransmit_us = cfg.RETRANSMIT_US
        self._now = 0

    # -- inputs -------------------------------------------------------------------------------

    def edge(self, blocked, t_us):
        self._pulses(self.beam.edge(blocked, t_us))

    def colour(self, code, t_us):
        """The colour sensor recognised a cube at ``t_us``: it belongs to the oldest drop still
        waiting, if that drop's cube can have reached the sensor by then.

        Cubes reach the sensor in the order they fell, so the oldest waiting drop is the one. A
        colour too soon after it is the late colour of a drop that has gone out as unknown:
        giving it to the waiting drop would shift every later colour onto the wrong cube."""
        self._expire(t_us)
        if self._waiting and t_us - self._waiting[0][0] >= self.cfg.COLOUR_MIN_SLIDE_US:
            start_us, confidence, _ = self._waiting.pop(0)
            self._record(start_us, code, confidence)
        else:
            self.stray_colours += 1

    def awaiting_colour(self):
        """How many drops wait for the colour sensor."""
        return len(self._waiting)

    def receive(self, data):
        for block in self._deframer.feed(data):
            try:
                version, kind, payload = frame.unpack(block)
                if version != frame.VERSION:
                    raise ValueError("version")
                self._handle(kind, payload)
            except ValueError:
                self.rx_errors += 1

    # -- output -------------------------------------------------------------------------------

    def poll(self, now_us):
        self._now = now_us
        self._pulses(self.beam.poll(now_us))
        self._expire(now_us)
        out = bytearray()
        if self._status_due is not None:
            out.extend(self.status(self._status_due))
            self._status_due = None
            self._next_heartbeat = now_us + self.cfg.HEARTBEAT_US
        elif self._next_heartbeat is None or now_us >= self._next_heartbeat:
            out.extend(self.status(frame.R_HEARTBEAT))
            self._next_heartbeat = now_us + self.cfg.HEARTBEAT_US
        records = self.log.records
        oldest_sent = records[0][6] if records else None
        if oldest_sent is not None and now_us - oldest_sent >= self._retransmit_us:
            for rec in records:
                if rec[6] is not None:
                    rec[6] = None
                    rec[5] |= frame.D_RETRANSMIT
            self._retransmit_us = min(self._retransmit_us * 2, self.cfg.RETRANSMIT_MAX_US)
        sent = 0
        for rec in records:
            if rec[0] != records[0][0]:
                # A later boot's drops wait until the host has acknowledged every drop of the
                # earlier boot (restored after a reset). The host orders drops by seq within a
                # boot but cannot order two boots: if a restored drop's frame is lost and the new
                # boot's drop 1 gets through, the host would deliver it first.
                break
            if rec[6] is None:
                if sent >= self.cfg.BURST:
                    break
                out.extend(
                    frame.pack(
                        frame.T_DROP,
                        struct.pack(frame.DROP_FMT, rec[0], rec[1], rec[2], rec[3], rec[4], rec[5]),
                    )
                )
                rec[6] = now_us
                sent += 1
        return bytes(out)

    def status(self, reason):
        flags = 0
        if self.beam.blocked:
            flags |= frame.F_BEAM_BLOCKED
        if self.colour_sensor:
            flags |= frame.F_COLOUR_SENSOR
        if self.log.overflows:
            flags |= frame.F_OVERFLOW
        oldest_boot, oldest_seq = self.log.oldest()
        payload = struct.pack(
            frame.STATUS_FMT,
            reason,
            self.boot_id,
            self.next_seq,
            self.count,
            min(len(self.log), 0xFFFF),
            oldest_boot,
            oldest_seq,
            min(self.beam.jams, 0xFFFF),
            min(self.log.overflows, 0xFFFF),
            flags,
            (self._now // 1000) & 0xFFFFFFFF,
        )
        return frame.pack(frame.T_STATUS, payload)

    # -- internals ----------------------------------------------------------------------------

    def _pulses(self, pulses):
        for pulse in pulses:
            for _ in range(pulse.cubes):
                if self.colour_sensor:
                    deadline = pulse.start_us + self.cfg.COLOUR_WAIT_US
                    self._waiting.append([pulse.start_us, pulse.confidence, deadline])
                else:
                    self._record(pulse.start_us, 0, pulse.confidence)

    def _expire(self, now_us):
        """Drops whose colour has not come by their deadline go out as unknown."""
        while self._waiting and now_us >= self._waiting[0][2]:
            t_us, confidence, _ = self._waiting.pop(0)
            self._record(t_us, 0, confidence)

    def _record(self, t_us, colour, confidence):
        self.log.append(self.boot_id, self.next_seq, t_us, colour, confidence)
        self.next_seq += 1
        self.count += 1

    def _handle(self, kind, payload):
        # Any valid word from the host means it is there: stop backing off.
        self._retransmit_us = self.cfg.RETRANSMIT_US
        if kind == frame.T_ACK:
            if len(payload) != struct.calcsize(frame.ACK_FMT):
                raise ValueError("ACK of the wrong length")
            boot_id, seq = struct.unpack(frame.ACK_FMT, payload)
            # (The log forgets acked records by making a new list: look at it after the ack.)
            if (
                self.log.ack(boot_id, seq)
                and self.log.records
                and self.log.records[0][6] is not None
            ):
                records = self.log.records
                # Progress: the rest get a fresh window. A repeated ack must not, or a host that
                # keeps acking the same drop would postpone the retransmission for ever.
                records[0][6] = max(records[0][6], self._now)
        elif kind == frame.T_HELLO:
            for rec in self.log.records:
                rec[6] = None
            self._status_due = frame.R_HELLO
        elif kind == frame.T_SNAPSHOT:
            self._status_due = frame.R_SNAPSHOT
        else:
            raise ValueError("unknown message type")
