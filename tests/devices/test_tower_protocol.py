"""The host's codec: published vectors, agreement with the firmware's own codec, and fuzzing."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from companion.devices import tower_protocol as tp
from companion.devices.tower_protocol import (
    Ack,
    DropFrame,
    FrameError,
    Hello,
    SnapshotRequest,
    StreamDecoder,
    TowerStatus,
    decode,
    encode,
)

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "firmware"))
from tower import frame as fw_frame  # the firmware's own codec, for agreement

STATUS = TowerStatus("hello", 0xCAFEF00D, 12, 11, 2, 0xCAFEF00D, 10, 1, 0, True, True, 123456)
DROP = DropFrame(0xCAFEF00D, 10, 987654321012, "red", 0.5, retransmit=True, restored=False)
MESSAGES = [STATUS, DROP, Hello(), Ack(0xCAFEF00D, 9), SnapshotRequest()]


def test_crc_check_value_and_cobs_vectors() -> None:
    assert tp.crc16(b"123456789") == 0x29B1
    assert tp.cobs_encode(b"\x11\x22\x00\x33") == b"\x03\x11\x22\x02\x33"
    assert tp.cobs_encode(bytes(range(1, 256))) == b"\xff" + bytes(range(1, 255)) + b"\x02\xff"
    assert tp.cobs_encode(b"") == b"\x01"


@pytest.mark.parametrize("message", MESSAGES, ids=lambda m: type(m).__name__)
def test_roundtrip(message: tp.Message) -> None:
    frame = encode(message)
    assert frame.endswith(b"\x00") and frame.count(0) == 1
    assert decode(frame[:-1]) == message


@pytest.mark.parametrize("message", MESSAGES, ids=lambda m: type(m).__name__)
def test_host_frames_are_the_firmware_frames(message: tp.Message) -> None:
    # Two independent implementations of the same document must produce the same bytes.
    frame = encode(message)
    version, kind, payload = fw_frame.unpack(frame[:-1])
    assert version == fw_frame.VERSION
    assert fw_frame.pack(kind, payload) == frame


def _raw(version: int, kind: int, payload: bytes) -> bytes:
    body = bytes((version, kind)) + payload
    return tp.cobs_encode(body + tp.crc16(body).to_bytes(2, "big"))


@pytest.mark.parametrize(
    ("block", "kind"),
    [
        (_raw(2, tp.T_ACK, bytes(8)), "version"),
        (_raw(1, 0x42, b""), "type"),
        (_raw(1, tp.T_ACK, bytes(7)), "length"),
        (_raw(1, tp.T_DROP, bytes(16) + b"\x09\x64\x00"), "value"),
        (_raw(1, tp.T_DROP, bytes(16) + b"\x01\x65\x00"), "value"),
        (b"\x05\x11\x22", "cobs"),
        (b"\x02\x11", "short"),
    ],
)
def test_bad_blocks_are_values_not_exceptions(block: bytes, kind: str) -> None:
    result = decode(block)
    assert isinstance(result, FrameError)
    assert result.kind == kind


def test_flipped_bit_fails_the_crc() -> None:
    block = bytearray(encode(DROP)[:-1])
    block[5] ^= 0x10
    result = decode(bytes(block))
    assert isinstance(result, FrameError) and result.kind in ("crc", "cobs")


def test_overlong_run_is_skipped_and_the_next_frame_found() -> None:
    d = StreamDecoder()
    out = d.feed(b"\x07" * 500 + b"\x00" + encode(DROP))
    assert out[-1] == DROP
    assert d.errors["overflow"] == 1 and d.frames == 1


@settings(max_examples=300, deadline=None)
@given(st.binary(max_size=400), st.lists(st.integers(1, 64), max_size=20))
def test_random_bytes_never_raise(data: bytes, cuts: list[int]) -> None:
    d = StreamDecoder()
    out: list[tp.Message | FrameError] = []
    pos = 0
    for cut in cuts:
        out += d.feed(data[pos : pos + cut])
        pos += cut
    out += d.feed(data[pos:])
    assert all(isinstance(m, (FrameError, *tp.Message.__args__)) for m in out)
    assert d.frames + sum(d.errors.values()) == len(out)


message_st = st.one_of(
    st.builds(Ack, st.integers(0, 2**32 - 1), st.integers(0, 2**32 - 1)),
    st.builds(
        DropFrame,
        st.integers(0, 2**32 - 1),
        st.integers(0, 2**32 - 1),
        st.integers(0, 2**64 - 1),
        st.sampled_from(tp.COLOURS),
        st.integers(0, 100).map(lambda c: c / 100),
        st.booleans(),
        st.booleans(),
    ),
    st.just(SnapshotRequest()),
)


@settings(max_examples=200, deadline=None)
@given(
    st.lists(st.tuples(st.binary(max_size=80), message_st), min_size=1, max_size=8),
    st.integers(1, 50),
)
def test_valid_frames_inside_garbage_are_found(
    pieces: list[tuple[bytes, tp.Message]], chunk: int
) -> None:
    # Garbage may be anything; a zero before each frame is what any sender does to resync.
    stream = b"".join(garbage + b"\x00" + encode(msg) for garbage, msg in pieces)
    d = StreamDecoder()
    got: list[tp.Message | FrameError] = []
    for i in range(0, len(stream), chunk):
        got += d.feed(stream[i : i + chunk])
    found = iter(m for m in got if not isinstance(m, FrameError))
    for _, msg in pieces:
        assert any(m == msg for m in found), f"{msg} not found in order"


@settings(max_examples=200, deadline=None)
@given(
    st.lists(message_st, min_size=2, max_size=6),
    st.lists(st.tuples(st.integers(0, 10**6), st.integers(0, 255), st.booleans()), max_size=10),
)
def test_mutated_prefix_never_hides_the_intact_frames_after_it(
    messages: list[tp.Message], mutations: list[tuple[int, int, bool]]
) -> None:
    damaged = bytearray(b"".join(encode(m) for m in messages[:-1]))
    for pos, value, insert in mutations:
        i = pos % (len(damaged) + 1)
        if insert:
            damaged.insert(i, value)
        elif i < len(damaged):
            damaged[i] = value
    d = StreamDecoder()
    out = d.feed(bytes(damaged) + b"\x00" + encode(messages[-1]))
    assert out[-1] == messages[-1]
