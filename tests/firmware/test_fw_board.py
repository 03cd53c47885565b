"""The Pico adapter (board.py) under CPython with fake ``machine``, ``micropython`` and tick clock.

The fakes stand in for the hardware, not for the code under test: the real IRQ handler, the real
tick unwrapping and the real Tower run; the bytes they produce are decoded with the frame module.
"""

import struct
import sys
import types
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import fw_cases
import pytest

TICKS_PERIOD = 1 << 30  # the Pico's ticks_us wraps here


class FakeClock:
    def __init__(self, start: int) -> None:
        self.t = start

    def ticks_us(self) -> int:
        return self.t % TICKS_PERIOD

    def ticks_diff(self, a: int, b: int) -> int:
        d = (a - b) % TICKS_PERIOD
        return d - TICKS_PERIOD if d >= TICKS_PERIOD // 2 else d


class FakePin:
    IN, PULL_UP, IRQ_FALLING, IRQ_RISING = 0, 1, 4, 8

    def __init__(self, number: int, *args: object) -> None:
        self.number = number
        self.level = 1
        self.handler: Callable[[FakePin], None] | None = None
        self.hard: bool | None = None

    def value(self) -> int:
        return self.level

    def irq(self, handler: Callable[["FakePin"], None], trigger: int, hard: bool = False) -> None:
        self.handler, self.hard = handler, hard


@pytest.fixture
def board_module(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Iterator[Any]:
    pins: list[FakePin] = []

    def make_pin(number: int, *args: object) -> FakePin:
        pin = FakePin(number, *args)
        pins.append(pin)
        return pin

    bus = fw_cases.FakeI2C()
    machine = types.SimpleNamespace(Pin=make_pin, I2C=lambda *a, **k: bus)
    machine.Pin.IN = FakePin.IN  # type: ignore[attr-defined]
    machine.Pin.PULL_UP = FakePin.PULL_UP  # type: ignore[attr-defined]
    machine.Pin.IRQ_FALLING = FakePin.IRQ_FALLING  # type: ignore[attr-defined]
    machine.Pin.IRQ_RISING = FakePin.IRQ_RISING  # type: ignore[attr-defined]
    micropython = types.SimpleNamespace(
        alloc_emergency_exception_buf=lambda n: None, kbd_intr=lambda c: None
    )
    monkeypatch.setitem(sys.modules, "machine", machine)
    monkeypatch.setitem(sys.modules, "micropython", micropython)
    monkeypatch.delitem(sys.modules, "tower.board", raising=False)
    monkeypatch.chdir(tmp_path)  # the drop log file goes here
    import tower.board as board

    clock = FakeClock(TICKS_PERIOD - 3000)  # the tick counter wraps during the first cube
    monkeypatch.setattr(board, "time", clock)
    board._test = types.SimpleNamespace(pins=pins, bus=bus, clock=clock)
    yield board
    monkeypatch.delitem(sys.modules, "tower.board", raising=False)


def drop_cube(board: Any, b: Any, length_us: int) -> None:
    pin = b.pin
    clock = board._test.clock
    pin.level = 0
    pin.handler(pin)
    clock.t += length_us
    pin.level = 1
    pin.handler(pin)


def test_cube_across_tick_wrap_is_one_drop_with_its_colour(board_module: Any) -> None:
    board, test = board_module, board_module._test
    b = board.Board()
    assert b.pin.hard is True, "the beam IRQ must be hard: soft IRQ latency smears 4 ms pulses"
    assert b.sensor is not None
    clock, bus = test.clock, test.bus
    bus.crgb = (1000, 340, 330, 330)  # the empty ramp
    out = b.step(b"")
    clock.t += 1000
    drop_cube(board, b, 6000)
    clock.t += 5000
    out += b.step(b"")
    assert fw_cases.drops(out) == [], "no colour yet: the drop waits for the sensor"
    bus.crgb = (1000, 560, 230, 210)  # the red cube arrives on the ramp
    clock.t += 20000
    for _ in range(3):  # loop passes within one integration period: one reading, not three
        clock.t += 2000
        out += b.step(b"")
    assert fw_cases.drops(out) == []
    for _ in range(3):
        clock.t += 25000
        out += b.step(b"")
    (drop,) = fw_cases.drops(out)
    boot, seq, t_us, colour, confidence, _ = drop
    assert (seq, colour, confidence) == (1, 4, 100)
    assert t_us == 1000, "device time counts on across the tick wrap"
    assert boot == b.tower.boot_id
    assert Path(board.STORE_FILE).exists()


def test_ack_from_host_empties_the_file_log(board_module: Any) -> None:
    board, test = board_module, board_module._test
    test.bus.regs[0x12] = 0  # no colour sensor fitted
    b = board.Board()
    assert b.sensor is None
    b.step(b"")
    drop_cube(board, b, 7000)
    test.clock.t += 10000
    (drop,) = fw_cases.drops(b.step(b""))
    assert drop[3] == 0
    store = board.FileStore()
    assert len(fw_cases.droplog.load(store.read())) == 1
    ack = fw_cases.frame.pack(fw_cases.frame.T_ACK, struct.pack(">II", drop[0], drop[1]))
    b.step(ack)
    assert fw_cases.droplog.load(store.read()) == []


def test_full_edge_buffer_drops_new_edges_instead_of_overwriting(board_module: Any) -> None:
    board = board_module
    b = board.Board(with_colour=False)
    for i in range(board.EDGE_SLOTS + 10):
        b.pin.level = i % 2
        b.pin.handler(b.pin)
    assert (b._head - b._tail) % board.EDGE_SLOTS == board.EDGE_SLOTS - 1
    assert b._levels[0] == 0


@pytest.mark.parametrize(("beam_level", "safe_file", "runs"), [(1, False, True), (0, False, False),
                                                              (1, True, False)])  # fmt: skip
def test_main_starts_the_firmware_unless_safe_mode(
    board_module: Any,
    monkeypatch: pytest.MonkeyPatch,
    tmp_path: Path,
    beam_level: int,
    safe_file: bool,
    runs: bool,
) -> None:
    import runpy

    started = []
    monkeypatch.setattr(board_module, "run", lambda: started.append(True))
    monkeypatch.setattr(sys.modules["tower"], "board", board_module, raising=False)
    if safe_file:
        (tmp_path / "safe.txt").touch()

    def pin(number: int, *args: object) -> FakePin:
        p = FakePin(number)
        p.level = beam_level
        return p

    pin.IN, pin.PULL_UP = 0, 1  # type: ignore[attr-defined]
    monkeypatch.setattr(sys.modules["machine"], "Pin", pin)
    runpy.run_path(str(Path(__file__).resolve().parents[2] / "firmware" / "main.py"))
    assert started == ([True] if runs else [])
