"""The reader thread over real pseudo-terminals, with the simulator running the real firmware."""

from __future__ import annotations

import contextlib
import os
import queue
import threading
import time
import tty
from collections import Counter
from collections.abc import Callable
from pathlib import Path

import pytest

from companion.devices import tower_events as ev
from companion.devices.errors import DeviceError, TowerLinkError, TowerNotFound
from companion.devices.tower_events import Drop, LinkStatus
from companion.devices.tower_link import TowerLink, check_port, find_tower_port
from companion.devices.tower_protocol import TowerStatus
from companion.devices.tower_sim import TowerSimulator, script_from_options
from companion.errors import CompanionError

FAST = {"RETRANSMIT_US": 50_000, "RETRANSMIT_MAX_US": 200_000}


def collect(
    events: queue.Queue[object], until: Callable[[list[object]], bool], timeout: float = 15
) -> list[object]:
    got: list[object] = []
    deadline = time.monotonic() + timeout
    while not until(got) and time.monotonic() < deadline:
        with contextlib.suppress(queue.Empty):
            got.append(events.get(timeout=0.05))
    return got


def drops_of(got: list[object]) -> list[Drop]:
    return [e for e in got if isinstance(e, Drop)]


def states(got: list[object]) -> list[str]:
    return [e.state for e in got if isinstance(e, LinkStatus)]


def test_1000_drops_through_corruption_unplugs_and_a_reset_arrive_exactly_once() -> None:
    events: queue.Queue[object] = queue.Queue()
    # The script drops 800 cubes per second of wall-clock time. On a loaded machine the host (or
    # the script, which then catches up in a burst) falls behind by more than the 256 drops the
    # tower's log holds, and the tower rightly reports the overflow as lost drops. How fast this
    # machine is must not decide the test, so this tower's log holds the whole run; overflow has
    # its own tests (fw_cases.case_log_overflow_..., test_overflowed_drops_are_reported_lost_...).
    config = dict(FAST, LOG_CAPACITY=1000)
    sim = TowerSimulator(seed=5, corrupt=0.05, colour_sensor=True, config=config)
    with sim, TowerLink(events, sim.port, backoff=(0.02, 0.1)):
        script = script_from_options(1000, 800, unplug_every=300, unplug_for=0.1, reset_after=[450])
        # The cable is only pulled once the host has found the port again, so each unplug (and
        # the reset) is a disconnection of its own however slow the host is.
        player = sim.play_in_thread(script, wait_for_host=True)
        got = collect(events, lambda g: len(drops_of(g)) >= 1000, timeout=20)
        player.join()
        got += collect(events, lambda g: False, timeout=0.3)  # nothing more may come
    drops = drops_of(got)
    assert sim.stats["unplugs"] == 3 and sim.stats["resets"] == 1
    assert sim.stats["corrupted"] > 20, "the run really went through corruption"
    assert len(drops) == 1000
    keys = [(d.boot_id, d.seq) for d in drops]
    assert len(set(keys)) == 1000, "no duplicates"
    # In the order they fell: every drop of a boot before any of the next (a restored drop whose
    # frame was corrupted must not be overtaken), each boot numbered 1, 2, 3, ... without a hole.
    per_boot = Counter(d.boot_id for d in drops)
    assert list(per_boot) == sim.boot_ids
    assert keys == [(b, s) for b in sim.boot_ids for s in range(1, per_boot[b] + 1)]
    assert [d.colour for d in drops] == sim.colours
    assert states(got).count(ev.DISCONNECTED) == 4  # three unplugs, and the reset re-enumerates
    assert states(got).count(ev.DEVICE_RESET) == 1


def test_lost_frames_and_garbage_between_frames() -> None:
    events: queue.Queue[object] = queue.Queue()
    sim = TowerSimulator(seed=9, lose=0.1, garbage=0.1, config=FAST)
    with sim, TowerLink(events, sim.port):
        sim.play(script_from_options(200, 1000))
        got = collect(events, lambda g: len(drops_of(g)) >= 200, timeout=10)
        got += collect(events, lambda g: False, timeout=0.2)
    assert sim.stats["lost"] > 5 and sim.stats["garbage"] > 5
    assert [d.seq for d in drops_of(got)] == list(range(1, 201))


def test_link_waits_for_a_port_that_appears_later(tmp_path: Path) -> None:
    events: queue.Queue[object] = queue.Queue()
    sim = TowerSimulator(link_dir=tmp_path, config=FAST)
    with TowerLink(events, sim.port, backoff=(0.02, 0.05)) as link:
        got = collect(events, lambda g: ev.DISCONNECTED in states(g), timeout=2)
        assert link.state == ev.DISCONNECTED
        assert "cannot open" in next(e.detail for e in got if isinstance(e, LinkStatus))
        with sim:
            sim.drop()
            got = collect(events, lambda g: len(drops_of(g)) == 1, timeout=5)
            assert states(got)[0] == ev.CONNECTED and link.state == ev.CONNECTED
            assert drops_of(got)[0].seq == 1
    assert link.state == ev.CLOSED


def test_long_pulse_is_several_drops_and_glitch_none() -> None:
    events: queue.Queue[object] = queue.Queue()
    with TowerSimulator(config=FAST) as sim, TowerLink(events, sim.port):
        sim.pulse(300)  # a glitch
        sim.pulse(21_000)  # three cubes in a clump
        sim.drop()
        got = collect(events, lambda g: len(drops_of(g)) >= 4, timeout=5)
        got += collect(events, lambda g: False, timeout=0.2)
    assert [(d.seq, d.confidence) for d in drops_of(got)] == [(1, 0.3), (2, 0.3), (3, 0.3), (4, 1)]


def snapshot(event: object) -> bool:
    return isinstance(event, TowerStatus) and event.reason == "snapshot"


def test_snapshot_request_is_answered() -> None:
    events: queue.Queue[object] = queue.Queue()
    with TowerSimulator(config=FAST) as sim, TowerLink(events, sim.port) as link:
        sim.drop()
        collect(events, lambda g: len(drops_of(g)) == 1, timeout=5)
        link.request_snapshot()
        got = collect(events, lambda g: any(snapshot(e) for e in g), timeout=5)
    status = next(e for e in got if snapshot(e))
    assert isinstance(status, TowerStatus)
    assert (status.count, status.next_seq, status.pending) == (1, 2, 0)
    assert link.status is not None


def test_garbage_only_device_is_counted_and_reported_silent() -> None:
    master, slave = os.openpty()
    tty.setraw(slave)
    stop = threading.Event()

    def noise() -> None:
        rnd = bytes(range(256)) * 4
        while not stop.is_set():
            os.write(master, rnd)
            stop.wait(0.01)

    writer = threading.Thread(target=noise)
    writer.start()
    events: queue.Queue[object] = queue.Queue()
    try:
        with TowerLink(events, os.ttyname(slave), silence=0.3) as link:
            got = collect(events, lambda g: ev.SILENT in states(g), timeout=5)
    finally:
        stop.set()
        writer.join()
        os.close(master)
        os.close(slave)
    assert states(got)[:2] == [ev.CONNECTED, ev.SILENT]
    assert drops_of(got) == []
    assert sum(link.decoder.errors.values()) > 0


def test_port_lookup(tmp_path: Path) -> None:
    with pytest.raises(TowerNotFound, match="plug the Castillo"):
        find_tower_port(str(tmp_path))
    (tmp_path / "usb-MicroPython_Board_in_FS_mode_e6614c311b7e6f35-if00").touch()
    assert find_tower_port(str(tmp_path)).endswith("e6614c311b7e6f35-if00")
    (tmp_path / "usb-Raspberry_Pi_Pico_E6614C311B-if00").touch()
    with pytest.raises(TowerNotFound, match="several"):
        find_tower_port(str(tmp_path))
    with pytest.raises(FileNotFoundError, match="does not exist"):
        check_port(str(tmp_path / "nope"))
    assert check_port("loop://") == "loop://"


def test_error_hierarchy() -> None:
    assert issubclass(TowerLinkError, ConnectionError) and issubclass(TowerLinkError, DeviceError)
    assert issubclass(DeviceError, CompanionError)
