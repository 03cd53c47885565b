"""The exactly-once, in-order rule on the host, message by message (no I/O)."""

from __future__ import annotations

from typing import Any

from companion.devices import tower_events as ev
from companion.devices.tower_events import Drop, LinkStatus
from companion.devices.tower_protocol import (
    COLOURS,
    Ack,
    DropFrame,
    FrameError,
    Hello,
    TowerStatus,
    decode,
    encode,
)
from companion.devices.tower_receiver import TowerReceiver
from companion.devices.tower_sim import firmware

BOOT, NEW_BOOT = 0xAAAA0001, 0xBBBB0002


def drop(seq: int, boot: int = BOOT, colour: str | None = None) -> DropFrame:
    return DropFrame(boot, seq, seq * 10_000, colour, 1.0)


def status(boot: int = BOOT, oldest: tuple[int, int] = (0, 0), reason: str = "heartbeat",
           jams: int = 0) -> TowerStatus:  # fmt: skip
    return TowerStatus(reason, boot, 1, 0, 0, oldest[0], oldest[1], jams, 0, False, False, 0)


def replies(out: list[bytes]) -> list[object]:
    return [decode(b[b.rfind(b"\x00", 0, len(b) - 1) + 1 : -1]) for b in out]


def test_in_order_drops_are_delivered_and_acked() -> None:
    r = TowerReceiver()
    delivered = []
    for seq in (1, 2, 3):
        events, out = r.handle(drop(seq, colour="blue"))
        delivered += events
        assert replies(out) == [Ack(BOOT, seq)]
    assert delivered == [Drop(s, BOOT, s * 10_000, "blue", 1.0) for s in (1, 2, 3)]


def test_retransmission_is_not_delivered_twice_but_re_acked() -> None:
    r = TowerReceiver()
    r.handle(drop(1))
    r.handle(drop(2))
    events, out = r.handle(drop(1))
    assert events == []
    assert replies(out) == [Ack(BOOT, 2)]
    assert r.counts["duplicates"] == 1


def test_gap_waits_for_the_missing_drop_and_asks_once() -> None:
    r = TowerReceiver()
    r.handle(drop(1))
    events, out = r.handle(drop(3))  # 2 was corrupted on the wire
    assert events == [] and replies(out) == [Hello()]
    events, out = r.handle(drop(4))
    assert events == [] and out == [], "one HELLO outstanding is enough"
    r.handle(status(reason="hello", oldest=(BOOT, 2)))
    got = [e for s in (2, 3, 4) for e in r.handle(drop(s))[0]]
    assert [d.seq for d in got if isinstance(d, Drop)] == [2, 3, 4]


def test_unknown_boot_starts_at_one_or_at_the_towers_oldest() -> None:
    r = TowerReceiver()
    events, out = r.handle(drop(7))
    assert events == [] and replies(out) == [Hello()]
    r.handle(status(oldest=(BOOT, 7), reason="hello"))
    events, _ = r.handle(drop(7))
    assert [e.seq for e in events if isinstance(e, Drop)] == [7]


def test_device_reset_is_reported_and_old_boot_drops_still_come_first() -> None:
    r = TowerReceiver(port="/dev/x")
    r.handle(status(BOOT))
    r.handle(drop(1))
    events, _ = r.handle(status(NEW_BOOT, oldest=(BOOT, 2), reason="boot"))
    assert events[0] == LinkStatus(ev.DEVICE_RESET, "/dev/x", "boot aaaa0001 -> bbbb0002")
    got = r.handle(drop(2))[0] + r.handle(drop(1, NEW_BOOT))[0]
    assert [(d.boot_id, d.seq) for d in got if isinstance(d, Drop)] == [(BOOT, 2), (NEW_BOOT, 1)]


def test_overflowed_drops_are_reported_lost_not_waited_for() -> None:
    r = TowerReceiver()
    r.handle(drop(1))
    r.handle(drop(2))
    r.handle(status(oldest=(BOOT, 5)))
    events, out = r.handle(drop(5))
    assert isinstance(events[0], LinkStatus) and events[0].state == ev.LOST
    assert "2 drop(s)" in events[0].detail
    assert isinstance(events[1], Drop) and events[1].seq == 5
    assert replies(out) == [Ack(BOOT, 5)]


def test_resuming_receiver_does_not_redeliver() -> None:
    r = TowerReceiver.resuming({BOOT: 4})
    assert r.handle(drop(4))[0] == []
    assert [e.seq for e in r.handle(drop(5))[0] if isinstance(e, Drop)] == [5]


def test_heartbeats_are_quiet_unless_something_changed() -> None:
    r = TowerReceiver()
    assert len(r.handle(status())[0]) == 1  # the first one tells who is there
    assert r.handle(status())[0] == []
    assert len(r.handle(status(jams=1))[0]) == 1
    assert len(r.handle(status(reason="snapshot", jams=1))[0]) == 1


def test_bad_frames_are_counted() -> None:
    r = TowerReceiver()
    assert r.handle(FrameError("crc", "x", 9)) == ([], [])
    assert r.counts["bad_frames"] == 1


def test_connected_starts_with_a_zero_then_hello() -> None:
    (data,) = TowerReceiver().connected()
    assert data[0] == 0 and decode(data[1:-1]) == Hello()
    assert encode(Hello()) == data[1:]


# -- the receiver against the real firmware core, frames passed by hand (no pty, no clock) --------


def test_a_lost_restored_drop_is_not_overtaken_by_the_new_boots_first() -> None:
    """After a reset, the new boot's drop 1 must not be delivered before a restored drop of the
    earlier boot whose frame was lost: the host cannot order two boots, so the tower must not let
    a later boot's drop overtake. (Found as a flaky colour mismatch in test_tower_link.py.)"""
    core, config, droplog = firmware()
    store = droplog.MemoryStore()
    rx = TowerReceiver()
    delivered: list[Drop] = []

    def link(device: Any, now_us: int, lose: tuple[int, int] | None = None) -> None:
        """One poll of the device: its frames to the host (but ``lose``), the replies back."""
        for block in device.poll(now_us).split(b"\x00")[:-1]:
            message = decode(block)
            if isinstance(message, DropFrame) and (message.boot_id, message.seq) == lose:
                continue
            events, out = rx.handle(message)
            delivered.extend(e for e in events if isinstance(e, Drop))
            for data in out:
                device.receive(data)

    def cube(device: Any, t_us: int, colour: str) -> None:
        device.edge(True, t_us)
        device.edge(False, t_us + 6000)
        link(device, t_us + 6000 + config.MERGE_GAP_US)  # the pulse is decided...
        device.colour(COLOURS.index(colour), t_us + 150_000)  # ... the sensor sees the cube

    before = core.Tower(BOOT, store, colour_sensor=True)
    link(before, 0)
    cube(before, 10_000, "yellow")
    link(before, 20_000)
    cube(before, 30_000, "blue")  # recorded in flash, but the tower resets before sending it
    after = core.Tower(NEW_BOOT, store, colour_sensor=True)
    link(after, 0, lose=(BOOT, 2))  # the restored drop goes out first; its frame is corrupted
    cube(after, 10_000, "black")
    link(after, 20_000)
    for step in range(1, 40):  # retransmissions, until everything is acknowledged
        link(after, 20_000 + step * config.RETRANSMIT_US)
    assert [(d.boot_id, d.seq, d.colour) for d in delivered] == [
        (BOOT, 1, "yellow"),
        (BOOT, 2, "blue"),
        (NEW_BOOT, 1, "black"),
    ]
    assert len(after.log) == 0
