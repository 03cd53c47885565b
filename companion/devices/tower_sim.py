"""A virtual Castillo tower: the real firmware logic behind a pseudo-terminal, faults on demand.

The simulator imports the firmware's pure ``tower.core`` from ``firmware/`` and drives it the way
``board.py`` does on a Pico: beam edges with microsecond timestamps, colour readings, the bytes the
host wrote. What the firmware writes goes to the master side of a pty; the host opens the slave
through a stable symlink (``.port``), exactly like ``/dev/serial/by-id/...`` on a Pi. Unplugging
removes the symlink and closes the pty; replugging makes a new one behind the same name.

Device time is real time, except that each simulated cube moves the device clock past its own pulse
at once (a cube blocks the beam ~6 ms), so scripts can drop hundreds of cubes a second without
sleeping through every pulse.

    with TowerSimulator(seed=1, corrupt=0.05) as sim:
        link = TowerLink(events, sim.port)
        sim.drop(); sim.unplug(0.2); sim.reset()
"""

from __future__ import annotations

import importlib
import os
import queue
import random
import select
import shutil
import sys
import tempfile
import threading
import time
import tty
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType, TracebackType
from typing import Any

from companion.devices.errors import SimulatorError, SimulatorScriptError
from companion.devices.tower_protocol import COLOURS

FIRMWARE_DIR = Path(__file__).resolve().parents[2] / "firmware"
PORT_NAME = "usb-Companion_Castillo_Tower_SIM-if00"
CUBE_US = 6000  # how long a simulated cube blocks the beam
COLOUR_NAMES = tuple(c for c in COLOURS if c is not None)
HOST_WAIT = 10.0  # longest ``play(wait_for_host=True)`` waits for the host to reopen the port


def firmware() -> tuple[ModuleType, ModuleType, ModuleType]:
    """The firmware's ``core``, ``config`` and ``droplog`` modules, imported from the checkout."""
    if not (FIRMWARE_DIR / "tower" / "core.py").is_file():
        raise SimulatorError(
            f"firmware sources not found in {FIRMWARE_DIR}: the simulator runs the real firmware, "
            "so run it from a source checkout (pip install -e .)"
        )
    if str(FIRMWARE_DIR) not in sys.path:
        sys.path.insert(0, str(FIRMWARE_DIR))
    core = importlib.import_module("tower.core")
    if Path(core.__file__ or "").resolve().parent != FIRMWARE_DIR / "tower":
        raise SimulatorError(f"another module called 'tower' shadows {FIRMWARE_DIR / 'tower'}")
    return core, importlib.import_module("tower.config"), importlib.import_module("tower.droplog")


def firmware_config(**overrides: int) -> Any:
    """The firmware's config with some values replaced (e.g. RETRANSMIT_US=50000)."""
    _, config, _ = firmware()
    values = {k: getattr(config, k) for k in dir(config) if k.isupper()}
    unknown = set(overrides) - set(values)
    if unknown:
        raise SimulatorScriptError(f"unknown firmware setting(s): {', '.join(sorted(unknown))}")
    values.update(overrides)
    return type("Config", (), values)


# -- scripts ------------------------------------------------------------------------------------

VERBS = {
    "drops": "drops N [COLOUR|random]  N cubes at the current rate",
    "rate": "rate R                   cubes per second for the drops that follow (default 5)",
    "pulse": "pulse US                 one beam interruption of US microseconds (long = several)",
    "glitch": "glitch US                a short blip the glitch filter must ignore",
    "wait": "wait S                   let S seconds pass",
    "unplug": "unplug S                 pull the USB cable for S seconds",
    "reset": "reset                    reboot the tower (new boot id; USB re-enumerates)",
    "corrupt": "corrupt P                flip a byte in this share of frames, both ways",
    "lose": "lose P                   lose this share of the tower's frames",
    "garbage": "garbage P                put random bytes before this share of frames",
}


@dataclass(frozen=True, slots=True)
class Action:
    verb: str
    number: float = 0.0
    colour: str | None = None

    def __repr__(self) -> str:
        tail = f" {self.colour}" if self.colour else ""
        return f"Action({self.verb} {self.number:g}{tail})"


def parse_script(text: str, source: str = "script") -> list[Action]:
    """Actions of a script (one per line, ``#`` comments); SimulatorScriptError names the line."""
    actions = []
    for lineno, raw in enumerate(text.splitlines(), 1):
        words = raw.split("#", 1)[0].split()
        if not words:
            continue
        where = f"{source} line {lineno}"
        verb, args = words[0].lower(), words[1:]
        if verb not in VERBS:
            raise SimulatorScriptError(
                f"{where}: unknown command {verb!r}; known: {', '.join(VERBS)}"
            )
        wants = 0 if verb == "reset" else 1
        if len(args) < wants or len(args) > wants + (verb == "drops"):
            raise SimulatorScriptError(f"{where}: usage is `{VERBS[verb].split('  ')[0]}`")
        number = 0.0
        if wants:
            try:
                number = float(args[0])
            except ValueError:
                raise SimulatorScriptError(f"{where}: {args[0]!r} is not a number") from None
            if number < 0 or (verb in ("corrupt", "lose", "garbage") and number > 1):
                raise SimulatorScriptError(f"{where}: {args[0]} is out of range")
            if verb == "rate" and number == 0:
                raise SimulatorScriptError(f"{where}: the rate must be above 0")
        colour = None
        if len(args) == 2:
            colour = args[1].lower()
            if colour != "random" and colour not in COLOUR_NAMES:
                raise SimulatorScriptError(
                    f"{where}: colour {args[1]!r} is not one of {', '.join(COLOUR_NAMES)}, random"
                )
        actions.append(Action(verb, number, colour))
    return actions


def script_from_options(
    drops: int,
    rate: float,
    *,
    unplug_every: int = 0,
    unplug_for: float = 0.3,
    reset_after: Iterable[int] = (),
    colour: str | None = None,
) -> list[Action]:
    """The script the ``--drops/--rate/--unplug-every/--reset-after`` options describe."""
    events: dict[int, list[Action]] = {}
    if unplug_every > 0:
        for k in range(unplug_every, drops, unplug_every):
            events.setdefault(k, []).append(Action("unplug", unplug_for))
    for k in reset_after:
        events.setdefault(k, []).append(Action("reset"))
    actions = [Action("rate", rate)]
    done = 0
    for k in sorted(k for k in events if 0 <= k < drops):
        if k > done:
            actions.append(Action("drops", k - done, colour))
            done = k
        actions += events[k]
    if drops > done:
        actions.append(Action("drops", drops - done, colour))
    return actions


# -- the simulator --------------------------------------------------------------------------------


class TowerSimulator:
    """The virtual tower. Start it (or use it as a context manager) and open ``.port``."""

    def __init__(
        self,
        *,
        seed: int = 0,
        colour_sensor: bool = False,
        corrupt: float = 0.0,
        lose: float = 0.0,
        garbage: float = 0.0,
        link_dir: str | os.PathLike[str] | None = None,
        reset_gap: float = 0.05,
        config: dict[str, int] | None = None,
    ) -> None:
        self._core_mod, _, droplog = firmware()
        self.config = firmware_config(**(config or {}))
        self.rng = random.Random(seed)
        self.colour_sensor = colour_sensor
        self.corrupt, self.lose, self.garbage = corrupt, lose, garbage
        self.reset_gap = reset_gap
        self._own_dir = link_dir is None
        self.dir = Path(link_dir) if link_dir is not None else Path(tempfile.mkdtemp("-tower"))
        self.port = str(self.dir / PORT_NAME)
        self.stats: Counter[str] = Counter()
        self.colours: list[str | None] = []  # the colour of every cube dropped, in order
        self.boot_ids: list[int] = []
        self._store = droplog.MemoryStore()  # the Pico's flash: survives resets
        self.core: Any = None
        self._master: int | None = None
        self._slave: int | None = None
        self._replug_at: float | None = None
        self._host_seen = threading.Event()  # the host wrote to the current port
        self._t0 = time.perf_counter_ns()
        self._skew = 0
        self._commands: queue.SimpleQueue[tuple[Callable[[], None], threading.Event]] = (
            queue.SimpleQueue()
        )
        self._wake_r, self._wake_w = os.pipe()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._boot()

    # -- life cycle ---------------------------------------------------------------------------

    def start(self) -> TowerSimulator:
        if self._thread is None:
            self._plug()
            self._thread = threading.Thread(target=self._run, name="tower-sim", daemon=True)
            self._thread.start()
        return self

    def stop(self) -> None:
        self._stop.set()
        os.write(self._wake_w, b"x")
        if self._thread is not None:
            self._thread.join(timeout=5)
            self._thread = None
        self._unplug()
        for fd in (self._wake_r, self._wake_w):
            os.close(fd)
        if self._own_dir:
            shutil.rmtree(self.dir, ignore_errors=True)

    def __enter__(self) -> TowerSimulator:
        return self.start()

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.stop()

    @property
    def plugged(self) -> bool:
        return self._master is not None

    # -- commands (any thread) -----------------------------------------------------------------

    def drop(self, colour: str | None = None, length_us: int = CUBE_US) -> None:
        """One cube falls (``colour`` None or "random": a random colour if the sensor is on)."""
        self._do(lambda: self._pulse(length_us, colour))

    def pulse(self, length_us: int) -> None:
        self._do(lambda: self._pulse(length_us, None))

    def unplug(self, seconds: float) -> None:
        """Pull the cable now; it goes back in after ``seconds``."""
        self._do(lambda: self._unplug_for(seconds), wait=True)

    def reset(self) -> None:
        """Reboot the tower: RAM lost, the drop log in flash kept, USB re-enumerates."""
        self._do(self._reset, wait=True)

    def set_faults(
        self, corrupt: float | None = None, lose: float | None = None, garbage: float | None = None
    ) -> None:
        def apply() -> None:
            if corrupt is not None:
                self.corrupt = corrupt
            if lose is not None:
                self.lose = lose
            if garbage is not None:
                self.garbage = garbage

        self._do(apply, wait=True)

    def play(
        self,
        actions: Sequence[Action],
        stop: threading.Event | None = None,
        *,
        wait_for_host: bool = False,
    ) -> None:
        """Run a script in the calling thread (drops paced in real time at the script's rate).

        ``wait_for_host``: before pulling the cable or resetting, wait (up to HOST_WAIT seconds)
        until the host has written to the current port, so that a host slowed down by a loaded
        machine sees every unplug as a disconnection of its own rather than two merged into one.
        """
        rate = 5.0
        stop = stop or self._stop
        for action in actions:
            if stop.is_set():
                return
            if wait_for_host and action.verb in ("unplug", "reset"):
                self.wait_for_host(HOST_WAIT, stop)
            n = action.number
            if action.verb == "rate":
                rate = n
            elif action.verb == "drops":
                start = time.monotonic()
                for i in range(int(n)):
                    delay = start + i / rate - time.monotonic()
                    if delay > 0 and stop.wait(delay):
                        return
                    self.drop(action.colour)
            elif action.verb in ("pulse", "glitch"):
                self.pulse(int(n))
            elif action.verb == "wait":
                stop.wait(n)
            elif action.verb == "unplug":
                self.unplug(n)
                stop.wait(n)
            elif action.verb == "reset":
                self.reset()
            elif action.verb == "corrupt":
                self.set_faults(corrupt=n)
            elif action.verb == "lose":
                self.set_faults(lose=n)
            elif action.verb == "garbage":
                self.set_faults(garbage=n)
        self._do(lambda: None, wait=True)  # every drop has reached the firmware

    def play_in_thread(
        self, actions: Sequence[Action], *, wait_for_host: bool = False
    ) -> threading.Thread:
        thread = threading.Thread(
            target=self.play,
            args=(actions,),
            kwargs={"wait_for_host": wait_for_host},
            name="tower-script",
        )
        thread.start()
        return thread

    def wait_for_host(self, timeout: float, stop: threading.Event | None = None) -> bool:
        """Wait until the host has written to the port since it was last plugged in."""
        stop = stop or self._stop
        deadline = time.monotonic() + timeout
        while not stop.is_set() and time.monotonic() < deadline:
            if self._host_seen.wait(0.01):
                return True
        return self._host_seen.is_set()

    # -- the device thread -------------------------------------------------------------------

    def _do(self, fn: Callable[[], None], wait: bool = False) -> None:
        done = threading.Event()
        self._commands.put((fn, done))
        os.write(self._wake_w, b"x")
        if wait and self._thread is not None:
            done.wait(5)

    def now_us(self) -> int:
        return (time.perf_counter_ns() - self._t0) // 1000 + self._skew

    def _boot(self) -> None:
        boot_id = self.rng.getrandbits(32) or 1
        self.boot_ids.append(boot_id)
        self.core = self._core_mod.Tower(
            boot_id, self._store, colour_sensor=self.colour_sensor, cfg=self.config
        )

    def _run(self) -> None:
        while not self._stop.is_set():
            fds = [self._wake_r] + ([self._master] if self._master is not None else [])
            ready, _, _ = select.select(fds, [], [], 0.001)
            if self._wake_r in ready:
                os.read(self._wake_r, 4096)
            if self._master is not None and self._master in ready:
                try:
                    data = os.read(self._master, 4096)
                except OSError:
                    data = b""
                if data:
                    self._host_seen.set()
                    self.core.receive(self._mangle_rx(data))
            while not self._commands.empty():
                # The cable goes back in on time even while a backlog of commands is worked off
                # (a script that fell behind catches up in a burst).
                self._replug_if_due()
                fn, done = self._commands.get()
                fn()
                done.set()
            self._replug_if_due()
            self._send(self.core.poll(self.now_us()))

    def _replug_if_due(self) -> None:
        if self._replug_at is not None and time.monotonic() >= self._replug_at:
            self._plug()

    def _pulse(self, length_us: int, colour: str | None) -> None:
        t = self.now_us()
        self.core.edge(True, t)
        self.core.edge(False, t + length_us)
        settled = t + length_us + self.config.MERGE_GAP_US
        self._skew += max(0, settled - self.now_us())
        before = self.core.count
        self._send(self.core.poll(self.now_us()))
        if self.colour_sensor:
            for _ in range(self.core.awaiting_colour()):
                name = colour if colour in COLOUR_NAMES else self.rng.choice(COLOUR_NAMES)
                self.colours.append(name)
                # The cube reaches the sensor while it slides down the ramp (100-300 ms).
                seen_at = t + self.rng.randint(100_000, 300_000)
                self.core.colour(COLOURS.index(name), seen_at)
        else:
            self.colours += [None] * (self.core.count - before)
        self.stats["pulses"] += 1

    def _reset(self) -> None:
        self.stats["resets"] += 1
        self._unplug()
        self._boot()
        self._replug_at = time.monotonic() + self.reset_gap

    def _unplug_for(self, seconds: float) -> None:
        self.stats["unplugs"] += 1
        self._unplug()
        self._replug_at = time.monotonic() + seconds

    def _unplug(self) -> None:
        if self._master is None:
            return
        self._host_seen.clear()
        if os.path.islink(self.port):
            os.unlink(self.port)
        for fd in (self._master, self._slave):
            if fd is not None:
                os.close(fd)
        self._master = self._slave = None

    def _plug(self) -> None:
        self._replug_at = None
        try:
            master, slave = os.openpty()
        except OSError as exc:
            raise SimulatorError(f"cannot open a pseudo-terminal: {exc}") from exc
        tty.setraw(slave)  # bytes pass untouched: no echo, no CR/LF translation
        os.set_blocking(master, False)
        # Keeping the slave open means the master never sees a hang-up when the host closes.
        self._master, self._slave = master, slave
        tmp = self.port + ".new"
        if os.path.lexists(tmp):
            os.unlink(tmp)
        os.symlink(os.ttyname(slave), tmp)
        os.replace(tmp, self.port)
        self.stats["plugs"] += 1

    def _mangle_rx(self, data: bytes) -> bytes:
        if self.corrupt and self.rng.random() < self.corrupt:
            self.stats["corrupted_rx"] += 1
            return self._flip(data)
        return data

    def _flip(self, data: bytes) -> bytes:
        buf = bytearray(data)
        i = self.rng.randrange(len(buf))
        buf[i] ^= self.rng.randrange(1, 256)
        return bytes(buf)

    def _send(self, out: bytes) -> None:
        if not out:
            return
        if self._master is None:
            self.stats["frames_unplugged"] += out.count(0)
            return
        wire = bytearray()
        for piece in out.split(b"\x00")[:-1]:
            frame = piece + b"\x00"
            self.stats["frames"] += 1
            if self.lose and self.rng.random() < self.lose:
                self.stats["lost"] += 1
                continue
            if self.corrupt and self.rng.random() < self.corrupt:
                self.stats["corrupted"] += 1
                frame = self._flip(frame)
            if self.garbage and self.rng.random() < self.garbage:
                self.stats["garbage"] += 1
                frame = self.rng.randbytes(self.rng.randrange(1, 40)) + frame
            wire += frame
        try:
            written = os.write(self._master, wire)
        except BlockingIOError:
            written = 0
        except OSError:
            written = 0
        if written < len(wire):
            # The host is not reading (USB CDC drops what it cannot deliver); resends cover it.
            self.stats["overrun_bytes"] += len(wire) - written
