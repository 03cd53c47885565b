"""The drops the host has not acknowledged yet, kept in order and persisted across resets.

A record is ``[boot_id, seq, t_us, colour, confidence, flags, sent_at]``; ``sent_at`` is the
device time of its last transmission (None: due now). Acknowledgement is cumulative per boot:
``ack(b, s)`` forgets every record of boot ``b`` up to ``s``. Records of an earlier boot (restored
from flash after a reset) stay in front, and ``core`` sends a later boot's records only once they
are all acknowledged, so the host receives everything in the order it happened.

The log is written to the store after every change: drops come at the speed of a hand, and a
littlefs write of a few hundred bytes takes milliseconds. A reset between the beam and the write
loses that one drop; nothing else is ever lost.

Pure and portable (CPython and MicroPython).
"""

import struct

from tower import config as C
from tower import frame

_RECORD = ">IIQBBB"
_RECORD_SIZE = struct.calcsize(_RECORD)
_MAGIC = b"TWR1"


class MemoryStore:
    """A store that is just a bytes value; the simulator keeps one across simulated resets."""

    def __init__(self, data=None):
        self.data = data
        self.writes = 0

    def read(self):
        return self.data

    def write(self, data):
        self.data = bytes(data)
        self.writes += 1


def dump(records):
    body = bytearray(_MAGIC)
    for rec in records:
        body.extend(struct.pack(_RECORD, rec[0], rec[1], rec[2], rec[3], rec[4], rec[5]))
    body.extend(struct.pack(">H", frame.crc16(body)))
    return bytes(body)


def load(data):
    """Records in ``data``, or [] when it is missing, torn or not ours."""
    if not data or len(data) < 6 or data[:4] != _MAGIC:
        return []
    body, crc = data[:-2], struct.unpack(">H", data[-2:])[0]
    if frame.crc16(body) != crc or (len(body) - 4) % _RECORD_SIZE:
        return []
    out = []
    for i in range(4, len(body), _RECORD_SIZE):
        b, s, t, colour, conf, flags = struct.unpack(_RECORD, body[i : i + _RECORD_SIZE])
        out.append([b, s, t, colour, conf, flags | frame.D_RESTORED, None])
    return out


class DropLog:
    def __init__(self, store=None, capacity=C.LOG_CAPACITY):
        self.store = store
        self.capacity = capacity
        self.records = load(store.read()) if store is not None else []
        self.overflows = 0

    def __len__(self):
        return len(self.records)

    def append(self, boot_id, seq, t_us, colour, confidence):
        if len(self.records) >= self.capacity:
            # The host has been away for a whole game's worth of drops; keep the newest.
            self.records.pop(0)
            self.overflows += 1
        self.records.append([boot_id, seq, t_us, colour, confidence, 0, None])
        self._save()

    def ack(self, boot_id, seq):
        """Forget the records of ``boot_id`` up to ``seq``; how many were forgotten."""
        keep = [r for r in self.records if not (r[0] == boot_id and r[1] <= seq)]
        removed = len(self.records) - len(keep)
        if removed:
            self.records = keep
            self._save()
        return removed

    def oldest(self):
        """(boot_id, seq) of the oldest record, (0, 0) when empty."""
        if not self.records:
            return 0, 0
        return self.records[0][0], self.records[0][1]

    def _save(self):
        if self.store is not None:
            self.store.write(dump(self.records))
