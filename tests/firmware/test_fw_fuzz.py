"""The firmware's host-input side under random bytes: nothing escapes, nothing is lost."""

import struct

import fw_cases
from hypothesis import given, settings
from hypothesis import strategies as st
from tower import core, frame


@settings(max_examples=300, deadline=None)
@given(st.lists(st.binary(max_size=120), max_size=8))
def test_random_bytes_from_the_host_never_raise_nor_lose_a_drop(chunks: list[bytes]) -> None:
    t = core.Tower(0x12345678)
    t.poll(0)
    fw_cases.cube(t, 1000)
    t.poll(20000)
    for chunk in chunks:
        t.receive(chunk)
    # Random bytes are vanishingly unlikely to form a valid ACK of this boot's drop 1.
    assert [(r[0], r[1]) for r in t.log.records] == [(0x12345678, 1)]
    t.poll(10**7)


@settings(max_examples=200, deadline=None)
@given(st.binary(max_size=60), st.integers(0, 40))
def test_valid_ack_after_garbage_still_counts(garbage: bytes, cut: int) -> None:
    t = core.Tower(77)
    t.poll(0)
    fw_cases.cube(t, 1000)
    t.poll(20000)
    ack = frame.pack(frame.T_ACK, struct.pack(frame.ACK_FMT, 77, 1))
    stream = garbage + b"\x00" + ack
    t.receive(stream[:cut])
    t.receive(stream[cut:])
    assert len(t.log) == 0
