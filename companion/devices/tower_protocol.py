"""The tower's serial protocol on the host side: pure encode/decode, no I/O (firmware/PROTOCOL.md).

Frames are ``COBS(version, type, payload, crc16) + b"\\x00"``. :func:`decode` turns one block (the
bytes between two zeros) into a message or a :class:`FrameError` value — it never raises on bad
bytes. :class:`StreamDecoder` does the same incrementally over a byte stream and keeps counts of
what it threw away. This is an implementation independent of the firmware's ``frame.py``; the tests
check that the two agree.
"""

from __future__ import annotations

import struct
from collections import Counter
from dataclasses import dataclass, field

VERSION = 1
MAX_BLOCK = 68  # a COBS block longer than the largest message is garbage, not a frame

T_STATUS, T_DROP = 0x01, 0x02
T_HELLO, T_ACK, T_SNAPSHOT = 0x81, 0x82, 0x83

_STATUS = struct.Struct(">BIIIHIIHHBI")
_DROP = struct.Struct(">IIQBBB")
_HELLO = struct.Struct(">B")
_ACK = struct.Struct(">II")

COLOURS: tuple[str | None, ...] = (None, "yellow", "green", "blue", "red", "black")
REASONS = ("heartbeat", "hello", "snapshot", "boot")
_RETRANSMIT, _RESTORED = 1, 2
_BEAM_BLOCKED, _COLOUR_SENSOR, _OVERFLOW = 1, 2, 4


@dataclass(frozen=True, slots=True)
class DropFrame:
    """A DROP message as it came over the wire (the same drop may come several times)."""

    boot_id: int
    seq: int
    device_time_us: int
    colour: str | None
    confidence: float
    retransmit: bool = False
    restored: bool = False


@dataclass(frozen=True, slots=True)
class TowerStatus:
    """A STATUS message: the tower's counters at one moment (heartbeat, boot, hello, snapshot)."""

    reason: str
    boot_id: int
    next_seq: int
    count: int
    pending: int
    oldest_boot: int
    oldest_seq: int
    jams: int
    overflows: int
    beam_blocked: bool
    colour_sensor: bool
    uptime_ms: int


@dataclass(frozen=True, slots=True)
class Hello:
    version: int = VERSION


@dataclass(frozen=True, slots=True)
class Ack:
    boot_id: int
    seq: int


@dataclass(frozen=True, slots=True)
class SnapshotRequest:
    pass


Message = DropFrame | TowerStatus | Hello | Ack | SnapshotRequest


@dataclass(frozen=True, slots=True)
class FrameError:
    """Why a block was thrown away: ``kind`` is one of cobs, short, crc, version, type, length,
    value, overflow."""

    kind: str
    detail: str
    size: int


# -- CRC and COBS --------------------------------------------------------------------------------


def _crc_table() -> tuple[int, ...]:
    table = []
    for byte in range(256):
        crc = byte << 8
        for _ in range(8):
            crc = ((crc << 1) ^ 0x1021) if crc & 0x8000 else crc << 1
        table.append(crc & 0xFFFF)
    return tuple(table)


_TABLE = _crc_table()


def crc16(data: bytes, crc: int = 0xFFFF) -> int:
    """CRC-16/CCITT-FALSE."""
    for byte in data:
        crc = ((crc << 8) & 0xFFFF) ^ _TABLE[((crc >> 8) ^ byte) & 0xFF]
    return crc


def cobs_encode(data: bytes) -> bytes:
    out = bytearray()
    start = 0
    while True:
        zero = data.find(b"\x00", start, start + 254)
        if zero < 0:
            chunk = data[start : start + 254]
            if len(chunk) == 254:
                out.append(255)
                out += chunk
                start += 254
                if start == len(data):
                    return bytes(out)
                continue
            out.append(len(chunk) + 1)
            out += chunk
            return bytes(out)
        out.append(zero - start + 1)
        out += data[start:zero]
        start = zero + 1


def cobs_decode(block: bytes) -> bytes:
    """Decode one block; ValueError when it is not valid COBS."""
    out = bytearray()
    i, n = 0, len(block)
    while i < n:
        code = block[i]
        if code == 0:
            raise ValueError("zero byte inside a block")
        end = i + code
        if end > n:
            raise ValueError(f"block ends {end - n} byte(s) early")
        out += block[i + 1 : end]
        i = end
        if code != 255 and i < n:
            out.append(0)
    return bytes(out)


# -- messages ------------------------------------------------------------------------------------


def _frame(kind: int, payload: bytes = b"") -> bytes:
    body = bytes((VERSION, kind)) + payload
    return cobs_encode(body + crc16(body).to_bytes(2, "big")) + b"\x00"


def encode(message: Message) -> bytes:
    """One complete frame, delimiter included."""
    match message:
        case Hello(version=v):
            return _frame(T_HELLO, _HELLO.pack(v))
        case Ack(boot_id=b, seq=s):
            return _frame(T_ACK, _ACK.pack(b, s))
        case SnapshotRequest():
            return _frame(T_SNAPSHOT)
        case DropFrame():
            flags = (_RETRANSMIT if message.retransmit else 0) | (
                _RESTORED if message.restored else 0
            )
            code = COLOURS.index(message.colour)
            conf = round(message.confidence * 100)
            payload = _DROP.pack(
                message.boot_id, message.seq, message.device_time_us, code, conf, flags
            )
            return _frame(T_DROP, payload)
        case TowerStatus():
            flags = (
                (_BEAM_BLOCKED if message.beam_blocked else 0)
                | (_COLOUR_SENSOR if message.colour_sensor else 0)
                | (_OVERFLOW if message.overflows else 0)
            )
            payload = _STATUS.pack(
                REASONS.index(message.reason),
                message.boot_id,
                message.next_seq,
                message.count,
                message.pending,
                message.oldest_boot,
                message.oldest_seq,
                message.jams,
                message.overflows,
                flags,
                message.uptime_ms,
            )
            return _frame(T_STATUS, payload)
    raise TypeError(f"not a tower message: {message!r}")


def decode(block: bytes) -> Message | FrameError:
    """The message in one block (without its zero delimiter), or why it is not one."""
    size = len(block)
    try:
        body = cobs_decode(block)
    except ValueError as exc:
        return FrameError("cobs", str(exc), size)
    if len(body) < 4:
        return FrameError("short", f"{len(body)} bytes, a frame has at least 4", size)
    if crc16(body[:-2]) != int.from_bytes(body[-2:], "big"):
        return FrameError("crc", "CRC-16 does not match", size)
    version, kind, payload = body[0], body[1], body[2:-2]
    if version != VERSION:
        return FrameError(
            "version", f"protocol version {version}, this host speaks {VERSION}", size
        )
    layout = {T_STATUS: _STATUS, T_DROP: _DROP, T_HELLO: _HELLO, T_ACK: _ACK}.get(kind)
    if layout is None and kind != T_SNAPSHOT:
        return FrameError("type", f"unknown message type 0x{kind:02x}", size)
    expected = layout.size if layout is not None else 0
    if len(payload) != expected:
        return FrameError("length", f"type 0x{kind:02x} with {len(payload)} bytes", size)
    if kind == T_DROP:
        b, s, t, code, conf, flags = _DROP.unpack(payload)
        if code >= len(COLOURS) or conf > 100:
            return FrameError(
                "value", f"colour code {code} or confidence {conf} out of range", size
            )
        return DropFrame(
            b, s, t, COLOURS[code], conf / 100, bool(flags & _RETRANSMIT), bool(flags & _RESTORED)
        )
    if kind == T_STATUS:
        reason, b, nxt, count, pending, ob, os_, jams, ovf, flags, up = _STATUS.unpack(payload)
        if reason >= len(REASONS):
            return FrameError("value", f"status reason {reason} unknown", size)
        return TowerStatus(
            REASONS[reason],
            b,
            nxt,
            count,
            pending,
            ob,
            os_,
            jams,
            ovf,
            bool(flags & _BEAM_BLOCKED),
            bool(flags & _COLOUR_SENSOR),
            up,
        )
    if kind == T_HELLO:
        return Hello(_HELLO.unpack(payload)[0])
    if kind == T_ACK:
        b, s = _ACK.unpack(payload)
        return Ack(b, s)
    return SnapshotRequest()


@dataclass
class StreamDecoder:
    """Incremental :func:`decode` over a byte stream: feed any chunks, get messages and errors."""

    max_block: int = MAX_BLOCK
    frames: int = 0
    errors: Counter[str] = field(default_factory=Counter)
    _buf: bytearray = field(default_factory=bytearray, repr=False)
    _skipping: bool = field(default=False, repr=False)

    def feed(self, data: bytes) -> list[Message | FrameError]:
        out: list[Message | FrameError] = []
        start = 0
        while start < len(data):
            zero = data.find(b"\x00", start)
            piece = data[start:] if zero < 0 else data[start:zero]
            if not self._skipping:
                self._buf += piece
                if len(self._buf) > self.max_block:
                    self._skipping = True
                    error = FrameError("overflow", "no frame end within the longest frame", 0)
                    out.append(error)
                    self.errors["overflow"] += 1
                    self._buf.clear()
            if zero < 0:
                break
            if self._buf and not self._skipping:
                result = decode(bytes(self._buf))
                if isinstance(result, FrameError):
                    self.errors[result.kind] += 1
                else:
                    self.frames += 1
                out.append(result)
            self._buf.clear()
            self._skipping = False
            start = zero + 1
        return out
