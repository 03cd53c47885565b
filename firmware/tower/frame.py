"""Frames on the tower's serial line: COBS-encoded, CRC-16 checked, each ended by a zero byte.

A frame is ``COBS(version, type, payload..., crc16_hi, crc16_lo) + b"\\x00"``. The zero byte never
occurs inside an encoded frame, so a receiver that lost its place simply waits for the next zero.
The CRC is CRC-16/CCITT-FALSE (poly 0x1021, init 0xFFFF) over version, type and payload.

Pure and portable: runs unchanged under CPython and MicroPython (no typing, no dataclasses).
"""

import struct

VERSION = 1
# Largest decoded frame accepted (the biggest message is 36 bytes); longer runs are garbage.
MAX_FRAME = 64

# Device -> host types are below 0x80, host -> device types from 0x80 on.
T_STATUS = 0x01
T_DROP = 0x02
T_HELLO = 0x81
T_ACK = 0x82
T_SNAPSHOT = 0x83

# Payload layouts (big endian).
STATUS_FMT = ">BIIIHIIHHBI"
DROP_FMT = ">IIQBBB"
HELLO_FMT = ">B"
ACK_FMT = ">II"

# STATUS reasons.
R_HEARTBEAT = 0
R_HELLO = 1
R_SNAPSHOT = 2
R_BOOT = 3

# STATUS flags.
F_BEAM_BLOCKED = 1
F_COLOUR_SENSOR = 2
F_OVERFLOW = 4

# DROP flags.
D_RETRANSMIT = 1
D_RESTORED = 2


def _make_table():
    table = []
    for byte in range(256):
        crc = byte << 8
        for _ in range(8):
            crc = ((crc << 1) ^ 0x1021) if crc & 0x8000 else (crc << 1)
        table.append(crc & 0xFFFF)
    return table


_TABLE = _make_table()


def crc16(data, crc=0xFFFF):
    for byte in data:
        crc = ((crc << 8) & 0xFFFF) ^ _TABLE[((crc >> 8) ^ byte) & 0xFF]
    return crc


def cobs_encode(data):
    out = bytearray()
    block = bytearray()
    full = False  # the last block was a full 254-byte run (code 255, no implied zero)
    for byte in data:
        full = False
        if byte == 0:
            out.append(len(block) + 1)
            out.extend(block)
            block = bytearray()
        else:
            block.append(byte)
            if len(block) == 254:
                out.append(255)
                out.extend(block)
                block = bytearray()
                full = True
    if not full:
        out.append(len(block) + 1)
        out.extend(block)
    return bytes(out)


def cobs_decode(data):
    """Decode one COBS block (without its zero delimiter); ValueError when it is not valid COBS."""
    out = bytearray()
    i = 0
    n = len(data)
    while i < n:
        code = data[i]
        if code == 0:
            raise ValueError("zero byte inside a COBS block")
        i += 1
        end = i + code - 1
        if end > n:
            raise ValueError("COBS block runs past the end of the frame")
        chunk = data[i:end]
        if chunk.find(b"\x00") >= 0:
            raise ValueError("zero byte inside a COBS block")
        out.extend(chunk)
        i = end
        if code != 255 and i < n:
            out.append(0)
    return bytes(out)


def pack(kind, payload=b""):
    """One complete frame (delimiter included) of message type ``kind``."""
    body = bytes((VERSION, kind)) + payload
    return cobs_encode(body + struct.pack(">H", crc16(body))) + b"\x00"


def unpack(block):
    """(version, kind, payload) of one encoded block; ValueError naming what is wrong."""
    body = cobs_decode(block)
    if len(body) < 4:
        raise ValueError("frame too short")
    if crc16(body[:-2]) != struct.unpack(">H", body[-2:])[0]:
        raise ValueError("bad CRC")
    return body[0], body[1], body[2:-2]


class Deframer:
    """Cuts a byte stream into encoded blocks at zero bytes; oversized runs are dropped whole."""

    def __init__(self, max_block=MAX_FRAME + 4):
        self.max_block = max_block
        self._buf = bytearray()
        self._overflowing = False
        self.overflows = 0

    def feed(self, data):
        blocks = []
        for byte in data:
            if byte == 0:
                if self._buf and not self._overflowing:
                    blocks.append(bytes(self._buf))
                self._buf = bytearray()
                self._overflowing = False
            elif not self._overflowing:
                self._buf.append(byte)
                if len(self._buf) > self.max_block:
                    self._overflowing = True
                    self.overflows += 1
                    self._buf = bytearray()
        return blocks
