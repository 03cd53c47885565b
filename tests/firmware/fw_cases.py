"""Checks of the pure firmware modules that run under CPython *and* MicroPython.

pytest imports this file and runs every ``case_*`` function (test_fw_logic.py); the same file
is run by the real MicroPython interpreter (test_fw_micropython.py), which prints one line per
case. Expected values come from the CRC/COBS standards' published vectors
and from the physics of a falling cube (pulse lengths), not from the code under test. Only plain
``assert``, no typing, no pytest: MicroPython must accept every line.
"""

import struct

from tower import colour, config, core, droplog, frame, pulses

# -- helpers --------------------------------------------------------------------------------------


def cfg_with(**changes):
    class Cfg:
        pass

    for name in dir(config):
        if name.isupper():
            setattr(Cfg, name, getattr(config, name))
    for name in changes:
        setattr(Cfg, name, changes[name])
    return Cfg


def messages(data):
    """(kind, fields) of every frame in ``data``, decoded with the frame module."""
    out = []
    for block in frame.Deframer().feed(data):
        version, kind, payload = frame.unpack(block)
        assert version == frame.VERSION
        fmt = frame.STATUS_FMT if kind == frame.T_STATUS else frame.DROP_FMT
        out.append((kind, struct.unpack(fmt, payload)))
    return out


def drops(data):
    return [fields for kind, fields in messages(data) if kind == frame.T_DROP]


def cube(tower, t_us, length_us=6000):
    tower.edge(True, t_us)
    tower.edge(False, t_us + length_us)


class FakeI2C:
    """A TCS34725 on a fake bus: registers written are kept, colour data is set by the test."""

    def __init__(self, chip_id=0x44):
        self.regs = {0x12: chip_id}
        self.writes = []
        self.crgb = (1000, 300, 300, 300)

    def readfrom_mem(self, addr, reg, n):
        assert addr == 0x29
        assert reg & 0x80, "command bit must be set"
        reg &= 0x1F
        if reg == 0x14:
            c, r, g, b = self.crgb
            return struct.pack("<HHHH", c, r, g, b)[:n]
        return bytes([self.regs.get(reg, 0)])[:n]

    def writeto_mem(self, addr, reg, data):
        self.writes.append((reg & 0x1F, data[0]))


# -- framing --------------------------------------------------------------------------------------


def case_crc16_check_value():
    # The published check value of CRC-16/CCITT-FALSE.
    assert frame.crc16(b"123456789") == 0x29B1


def case_cobs_published_vectors():
    vectors = [
        (b"\x00", b"\x01\x01"),
        (b"\x00\x00", b"\x01\x01\x01"),
        (b"\x11\x22\x00\x33", b"\x03\x11\x22\x02\x33"),
        (b"\x11\x22\x33\x44", b"\x05\x11\x22\x33\x44"),
        (b"\x11\x00\x00\x00", b"\x02\x11\x01\x01\x01"),
        (bytes(range(1, 255)), b"\xff" + bytes(range(1, 255))),
        (bytes(range(0, 255)), b"\x01\xff" + bytes(range(1, 255))),
        (bytes(range(1, 256)), b"\xff" + bytes(range(1, 255)) + b"\x02\xff"),
    ]
    for raw, encoded in vectors:
        assert frame.cobs_encode(raw) == encoded, raw
        assert frame.cobs_decode(encoded) == raw, raw


def case_cobs_rejects_truncated_block():
    try:
        frame.cobs_decode(b"\x05\x11\x22")
    except ValueError:
        return
    raise AssertionError("truncated block accepted")


def case_frame_roundtrip_and_bad_crc():
    payload = struct.pack(frame.ACK_FMT, 0xDEADBEEF, 7)
    packed = frame.pack(frame.T_ACK, payload)
    assert packed[-1] == 0 and packed[:-1].find(b"\x00") < 0
    assert frame.unpack(packed[:-1]) == (frame.VERSION, frame.T_ACK, payload)
    broken = bytearray(packed[:-1])
    broken[3] ^= 0x01
    if broken[3] == 0:
        broken[3] = 0x02
    try:
        frame.unpack(bytes(broken))
    except ValueError:
        return
    raise AssertionError("flipped bit not detected")


def case_deframer_finds_frame_after_garbage():
    good = frame.pack(frame.T_SNAPSHOT)
    d = frame.Deframer()
    blocks = d.feed(b"\x37\x99\xfe" + bytes(200) + b"\x13" * 300 + b"\x00" + good[:3])
    blocks += d.feed(good[3:])
    assert d.overflows == 1
    found = []
    for block in blocks:
        try:
            found.append(frame.unpack(block))
        except ValueError:
            found.append("bad")
    found = [f for f in found if f != "bad"]
    assert found == [(frame.VERSION, frame.T_SNAPSHOT, b"")]


# -- beam -----------------------------------------------------------------------------------------


def case_single_cube_is_decided_after_the_merge_gap():
    f = pulses.PulseFilter()
    assert f.edge(True, 1000) == []
    assert f.edge(False, 7000) == []
    assert f.poll(7000 + config.MERGE_GAP_US - 1) == []
    (p,) = f.poll(7000 + config.MERGE_GAP_US)
    assert (p.start_us, p.duration_us, p.cubes, p.confidence) == (1000, 6000, 1, 100)
    assert f.poll(100000) == []


def case_glitch_is_ignored():
    f = pulses.PulseFilter()
    f.edge(True, 50000)
    f.edge(False, 50300)
    assert f.poll(60000) == []
    assert f.glitches == 1


def case_bouncing_cube_counts_once():
    f = pulses.PulseFilter()
    f.edge(True, 0)
    f.edge(False, 3000)
    f.edge(True, 3500)  # light through a tumbling cube for half a millisecond
    f.edge(False, 6500)
    (p,) = f.poll(20000)
    assert (p.cubes, p.duration_us, p.confidence) == (1, 6500, 100)


def case_two_cubes_in_quick_succession_are_two_pulses():
    f = pulses.PulseFilter()
    out = []
    for t in (0, 30000):
        out += f.edge(True, t)
        out += f.edge(False, t + 5000)
    out += f.poll(100000)
    assert [(p.start_us, p.cubes) for p in out] == [(0, 1), (30000, 1)]


def case_long_pulse_is_several_cubes_with_low_confidence():
    f = pulses.PulseFilter()
    f.edge(True, 0)
    f.edge(False, 21000)  # three cubes falling in a clump: three times one cube's shadow
    (p,) = f.poll(40000)
    assert (p.cubes, p.confidence) == (3, config.CONFIDENCE_MANY)
    f.edge(True, 100000)
    f.edge(False, 114000)
    (p,) = f.poll(140000)
    assert (p.cubes, p.confidence) == (2, config.CONFIDENCE_DOUBLE)


def case_short_clip_is_one_cube_with_less_confidence():
    f = pulses.PulseFilter()
    f.edge(True, 0)
    f.edge(False, 1500)  # a corner clipping the beam
    (p,) = f.poll(10000)
    assert (p.cubes, p.confidence) == (1, config.CONFIDENCE_SHORT)


def case_jam_is_reported_once_and_counts_no_cube():
    f = pulses.PulseFilter()
    f.edge(True, 0)
    assert f.poll(config.JAM_US - 1) == []
    (j,) = f.poll(config.JAM_US)
    assert j.cubes == 0 and f.blocked
    assert f.poll(config.JAM_US * 2) == []
    f.edge(False, config.JAM_US * 3)
    assert f.poll(config.JAM_US * 4) == []
    assert f.jams == 1 and not f.blocked


# -- colour ---------------------------------------------------------------------------------------


def case_tcs34725_setup_and_missing_chip():
    bus = FakeI2C()
    sensor = colour.Tcs34725(bus)
    assert bus.writes[-1] == (0x00, 0x03), "power on then enable the ADC last"
    assert (0x00, 0x01) in bus.writes and (0x01, 0xF6) in bus.writes
    bus.crgb = (1234, 500, 400, 300)
    assert sensor.read() == (1234, 500, 400, 300)
    try:
        colour.Tcs34725(FakeI2C(chip_id=0x00))
    except OSError:
        return
    raise AssertionError("a missing chip was accepted")


def case_colour_watcher_one_colour_per_cube():
    w = colour.ColourWatcher()
    seen = []
    empty = (1000, 340, 330, 330)
    red = (1000, 560, 230, 210)  # red cube: red share 0.56, as bright as the ramp
    yellow = (1600, 420, 400, 180)
    for reading in [empty, empty, red, red, red, red, empty, yellow, yellow, empty]:
        code = w.feed(*reading)
        if code is not None:
            seen.append(colour.NAMES[code])
    assert seen == ["red", "yellow"]


def case_colour_far_from_every_reference_is_unknown():
    # Pure white light, much brighter than any cube.
    assert colour.classify(333, 333, 334, 3000, 1000) == colour.UNKNOWN
    assert colour.NAMES[colour.classify(200, 330, 470, 800, 1000)] == "blue"


# -- the device as a whole ------------------------------------------------------------------------


def case_drop_is_sent_then_forgotten_once_acked():
    t = core.Tower(0x01020304)
    out = t.poll(0)
    assert [m[0] for m in messages(out)] == [frame.T_STATUS]
    assert messages(out)[0][1][0] == frame.R_BOOT
    cube(t, 10000)
    (d,) = drops(t.poll(20000))
    assert d == (0x01020304, 1, 10000, 0, 100, 0)
    t.receive(frame.pack(frame.T_ACK, struct.pack(frame.ACK_FMT, 0x01020304, 1)))
    assert len(t.log) == 0
    assert drops(t.poll(20000 + config.RETRANSMIT_US * 3)) == []


def case_unacked_drops_are_resent_oldest_first_with_backoff():
    t = core.Tower(7)
    t.poll(0)
    cube(t, 1000)
    cube(t, 30000)
    first = drops(t.poll(40000))
    assert [d[1] for d in first] == [1, 2]
    assert drops(t.poll(40000 + config.RETRANSMIT_US - 1)) == []
    again = drops(t.poll(40000 + config.RETRANSMIT_US))
    assert [(d[1], d[5] & frame.D_RETRANSMIT) for d in again] == [(1, 1), (2, 1)]
    # The host is silent: the next retransmission waits twice as long.
    t1 = 40000 + config.RETRANSMIT_US
    assert drops(t.poll(t1 + 2 * config.RETRANSMIT_US - 1)) == []
    assert len(drops(t.poll(t1 + 2 * config.RETRANSMIT_US))) == 2


def case_an_ack_that_makes_progress_gives_the_rest_a_fresh_window():
    t = core.Tower(7)
    t.poll(0)
    cube(t, 1000)
    cube(t, 30000)
    assert [d[1] for d in drops(t.poll(40000))] == [1, 2]
    # Drop 1 is acked just before its window runs out: drop 2 waits a whole window from then.
    acked = 40000 + config.RETRANSMIT_US - 1000
    t.poll(acked)
    t.receive(frame.pack(frame.T_ACK, struct.pack(frame.ACK_FMT, 7, 1)))
    assert drops(t.poll(40000 + config.RETRANSMIT_US)) == []
    assert drops(t.poll(acked + config.RETRANSMIT_US - 1)) == []
    assert [d[1] for d in drops(t.poll(acked + config.RETRANSMIT_US))] == [2]


def case_hello_resends_everything_and_answers_status():
    t = core.Tower(9)
    t.poll(0)
    cube(t, 1000)
    t.poll(20000)
    t.receive(frame.pack(frame.T_HELLO, struct.pack(frame.HELLO_FMT, 1)))
    msgs = messages(t.poll(21000))
    assert msgs[0][0] == frame.T_STATUS and msgs[0][1][0] == frame.R_HELLO
    status = msgs[0][1]
    # boot id, next seq, count, pending
    assert (status[1], status[2], status[3], status[4]) == (9, 2, 1, 1)
    assert (status[5], status[6]) == (9, 1)  # the oldest unacknowledged drop
    assert [m[1][1] for m in msgs[1:]] == [1]


def case_reset_restores_unacked_drops_from_the_store():
    store = droplog.MemoryStore()
    before = core.Tower(111, store)
    before.poll(0)
    cube(before, 1000)
    cube(before, 30000)
    before.poll(50000)
    before.receive(frame.pack(frame.T_ACK, struct.pack(frame.ACK_FMT, 111, 1)))
    after = core.Tower(222, store)  # power cycle: RAM gone, flash kept
    out = after.poll(0)
    cube(after, 5000)
    got = drops(out + after.poll(20000))
    # The restored drop first; this boot's own only once the host has it (it could be lost).
    assert [(d[0], d[1]) for d in got] == [(111, 2)]
    assert got[0][5] & frame.D_RESTORED
    after.receive(frame.pack(frame.T_ACK, struct.pack(frame.ACK_FMT, 111, 2)))
    (d,) = drops(after.poll(21000))
    assert (d[0], d[1]) == (222, 1) and not d[5] & frame.D_RESTORED


def case_new_boot_drops_wait_until_every_restored_drop_is_acked():
    store = droplog.MemoryStore()
    first = core.Tower(111, store)
    cube(first, 1000)
    first.poll(20000)
    second = core.Tower(222, store)  # reset with drop 111/1 unacknowledged
    cube(second, 1000)
    second.poll(20000)
    third = core.Tower(333, store)  # and again: 111/1 and 222/1 restored, in that order
    cube(third, 1000)
    out = third.poll(20000)
    assert [(d[0], d[1]) for d in drops(out)] == [(111, 1)]
    # The restored drop is lost on the wire: it alone is sent again, nothing overtakes it.
    again = drops(third.poll(20000 + config.RETRANSMIT_US))
    assert [(d[0], d[1], d[5] & frame.D_RETRANSMIT) for d in again] == [(111, 1, 1)]
    # A HELLO resends what may be sent, still only the oldest boot's drops.
    third.receive(frame.pack(frame.T_HELLO, struct.pack(frame.HELLO_FMT, 1)))
    assert [(d[0], d[1]) for d in drops(third.poll(20000 + config.RETRANSMIT_US + 1))] == [(111, 1)]
    third.receive(frame.pack(frame.T_ACK, struct.pack(frame.ACK_FMT, 111, 1)))
    assert [(d[0], d[1]) for d in drops(third.poll(400000))] == [(222, 1)]
    third.receive(frame.pack(frame.T_ACK, struct.pack(frame.ACK_FMT, 222, 1)))
    assert [(d[0], d[1]) for d in drops(third.poll(400001))] == [(333, 1)]
    # A repeated ACK of an earlier boot changes nothing.
    third.receive(frame.pack(frame.T_ACK, struct.pack(frame.ACK_FMT, 111, 1)))
    assert [(r[0], r[1]) for r in third.log.records] == [(333, 1)]


def case_torn_store_is_ignored():
    assert droplog.load(b"TWR1\x00\x01\x02") == []
    assert droplog.load(None) == []
    good = droplog.dump([[1, 2, 3, 4, 5, 0, None]])
    assert droplog.load(good)[0][:5] == [1, 2, 3, 4, 5]
    assert droplog.load(good[:-1] + bytes([good[-1] ^ 1])) == []


def case_colour_sensor_colours_the_waiting_drop_or_times_out():
    t = core.Tower(5, colour_sensor=True)
    t.poll(0)
    cube(t, 1000)
    assert drops(t.poll(20000)) == []  # waits for the sensor
    t.colour(4, 150000)  # the cube reached the sensor 149 ms after it fell
    (d,) = drops(t.poll(200000))
    assert d[3] == 4
    t.receive(frame.pack(frame.T_ACK, struct.pack(frame.ACK_FMT, 5, 1)))
    cube(t, 300000)
    t.poll(320000)
    assert drops(t.poll(300000 + config.COLOUR_WAIT_US - 1)) == []
    (d,) = drops(t.poll(300000 + config.COLOUR_WAIT_US))
    assert (d[1], d[3]) == (2, colour.UNKNOWN)


def case_a_late_colour_does_not_colour_the_next_drop():
    # Cube 1 sticks on the ramp: its drop goes out as unknown at its deadline. Cube 2 falls
    # 20 ms before cube 1's colour finally comes; cube 2's own colour comes 200 ms after it fell.
    t = core.Tower(6, colour_sensor=True)
    t.poll(0)
    cube(t, 1000)
    t.poll(20000)
    wait = config.COLOUR_WAIT_US
    (d,) = drops(t.poll(1000 + wait))
    assert (d[1], d[3]) == (1, colour.UNKNOWN)
    cube(t, 1000 + wait + 10000)
    t.poll(1000 + wait + 20000)
    t.colour(4, 1000 + wait + 30000)  # cube 1's red, late: cube 2 is still falling
    assert t.stray_colours == 1 and t.awaiting_colour() == 1
    t.colour(2, 1000 + wait + 210000)
    (d,) = drops(t.poll(1000 + wait + 220000))
    assert (d[1], d[3]) == (2, 2)  # cube 2 is green, not red


def case_a_colour_after_the_deadline_finds_the_drop_gone():
    # The sensor loop may see a colour before poll() has sent the drop that waited too long:
    # the drop still goes out as unknown, and the colour colours nothing.
    t = core.Tower(7, colour_sensor=True)
    t.poll(0)
    cube(t, 1000)
    t.poll(20000)
    t.colour(3, 1000 + config.COLOUR_WAIT_US + 5000)
    assert t.stray_colours == 1 and t.awaiting_colour() == 0
    (d,) = drops(t.poll(1000 + config.COLOUR_WAIT_US + 6000))
    assert (d[1], d[3]) == (1, colour.UNKNOWN)


def case_garbage_from_the_host_is_counted_not_fatal():
    t = core.Tower(3)
    t.receive(b"\x01\x02\x00\xff\xfe\x00" + frame.pack(0x99) + frame.pack(frame.T_ACK, b"\x01"))
    assert t.rx_errors == 4
    t.poll(0)


def case_log_overflow_keeps_the_newest_and_says_so():
    cfg = cfg_with(LOG_CAPACITY=3)
    t = core.Tower(4, cfg=cfg)
    for i in range(5):
        cube(t, i * 30000)
    out = t.poll(200000)
    assert [d[1] for d in drops(out)] == [3, 4, 5]
    status = next(m[1] for m in messages(out) if m[0] == frame.T_STATUS)
    assert status[8] == 2 and status[9] & frame.F_OVERFLOW


def case_heartbeat_every_second():
    t = core.Tower(6)
    kinds = []
    for ms in range(0, 3001, 100):
        kinds += [m[1][0] for m in messages(t.poll(ms * 1000)) if m[0] == frame.T_STATUS]
    assert kinds == [frame.R_BOOT, frame.R_HEARTBEAT, frame.R_HEARTBEAT, frame.R_HEARTBEAT]


def all_cases():
    names = sorted(n for n in globals() if n.startswith("case_"))
    return [(n, globals()[n]) for n in names]


def main():
    failed = 0
    cases = all_cases()
    for name, fn in cases:
        try:
            fn()
            print("PASS", name)
        except Exception as exc:
            failed += 1
            print("FAIL", name, repr(exc))
    print("DONE", len(cases), failed)


if __name__ == "__main__":
    main()
