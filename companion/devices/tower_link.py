"""The thin I/O part of the tower link: a pyserial reader thread feeding the session's queue.

``TowerLink`` opens the tower's port (its stable ``/dev/serial/by-id/`` name, a given path, or any
pyserial URL), decodes what arrives with :class:`StreamDecoder`, lets :class:`TowerReceiver` decide
what is new, writes the acknowledgements back and puts :class:`Drop`, :class:`LinkStatus` and
:class:`TowerStatus` events on the queue it was given. When the port fails or vanishes it closes
it, reports ``disconnected`` and reopens with exponential back-off. It never raises on bad bytes.

    with TowerLink(events, port="/dev/serial/by-id/usb-MicroPython_Board_in_FS_mode_e66...-if00"):
        ...  # the session thread takes events from ``events``
"""

from __future__ import annotations

import contextlib
import glob
import logging
import os
import queue
import threading
import time
from collections import Counter
from types import TracebackType
from typing import Any

import serial

from companion.devices import tower_events as ev
from companion.devices.errors import TowerNotFound
from companion.devices.tower_events import LinkStatus
from companion.devices.tower_protocol import (
    FrameError,
    SnapshotRequest,
    StreamDecoder,
    TowerStatus,
    encode,
)
from companion.devices.tower_receiver import TowerReceiver

log = logging.getLogger(__name__)

BY_ID = "/dev/serial/by-id"
# Names a Pico running MicroPython (or our own USB descriptor) shows under /dev/serial/by-id/.
BY_ID_PATTERNS = ("*Castillo*", "*MicroPython*", "*Raspberry_Pi_Pico*")


def find_tower_port(by_id: str = BY_ID) -> str:
    """The tower's stable port name; TowerNotFound when none (or several) fit."""
    found = sorted({p for pat in BY_ID_PATTERNS for p in glob.glob(os.path.join(by_id, pat))})
    if not found:
        raise TowerNotFound(
            f"no tower under {by_id}/: plug the Castillo's USB cable in, or give --port PATH"
        )
    if len(found) > 1:
        raise TowerNotFound(f"several candidates under {by_id}/ ({', '.join(found)}): give --port")
    return found[0]


def check_port(port: str) -> str:
    """The port, if it can be tried: a pyserial URL, or a path that exists."""
    if "://" in port or os.path.exists(port):
        return port
    raise TowerNotFound(f"port {port} does not exist: check the cable and the name (ls {BY_ID}/)")


class TowerLink:
    """Reader thread for the tower. A context manager; ``state`` and ``status`` are readable."""

    def __init__(
        self,
        events: queue.Queue[Any],
        port: str | None = None,
        *,
        baudrate: int = 115200,
        backoff: tuple[float, float] = (0.05, 2.0),
        silence: float = 3.0,
        receiver: TowerReceiver | None = None,
    ) -> None:
        self.port = port if port is not None else find_tower_port()
        self.events = events
        self.baudrate = baudrate
        self.backoff = backoff
        self.silence = silence
        self.receiver = receiver if receiver is not None else TowerReceiver(port=self.port)
        self.receiver.port = self.port
        self.decoder = StreamDecoder()
        self.counts: Counter[str] = Counter()
        self._state = ev.CLOSED
        self._stop = threading.Event()
        self._outbox: queue.SimpleQueue[bytes] = queue.SimpleQueue()
        self._thread: threading.Thread | None = None
        self._lock = threading.Lock()

    # -- the owner's side -------------------------------------------------------------------------

    @property
    def state(self) -> str:
        return self._state

    @property
    def status(self) -> TowerStatus | None:
        """The tower's latest STATUS (heartbeats included), or None before the first."""
        return self.receiver.status

    def start(self) -> TowerLink:
        if self._thread is None:
            self._stop.clear()
            self._thread = threading.Thread(target=self._run, name="tower-link", daemon=True)
            self._thread.start()
        return self

    def close(self) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout=5)
            self._thread = None
            self._set_state(ev.CLOSED)

    def request_snapshot(self) -> None:
        """Ask the tower for a STATUS now; it arrives on the queue."""
        self._outbox.put(encode(SnapshotRequest()))

    def __enter__(self) -> TowerLink:
        return self.start()

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()

    # -- the thread --------------------------------------------------------------------------------

    def _set_state(self, state: str, detail: str = "") -> None:
        with self._lock:
            if state == self._state and state != ev.CONNECTED:
                return
            self._state = state
        self.events.put(LinkStatus(state, self.port, detail))

    def _run(self) -> None:
        delay = self.backoff[0]
        while not self._stop.is_set():
            try:
                conn: serial.Serial = serial.serial_for_url(
                    self.port, baudrate=self.baudrate, timeout=0.02
                )
            except (serial.SerialException, OSError, ValueError) as exc:
                self._set_state(ev.DISCONNECTED, f"cannot open: {exc}")
                self._stop.wait(delay)
                delay = min(delay * 2, self.backoff[1])
                continue
            delay = self.backoff[0]
            self.counts["connects"] += 1
            try:
                self._serve(conn)
            except (serial.SerialException, OSError) as exc:
                self._set_state(ev.DISCONNECTED, str(exc))
            finally:
                with contextlib.suppress(serial.SerialException, OSError):
                    conn.close()
                self.decoder = StreamDecoder(errors=self.decoder.errors)

    def _serve(self, conn: serial.Serial) -> None:
        self._set_state(ev.CONNECTED)
        for data in self.receiver.connected():
            conn.write(data)
        last_frame = time.monotonic()
        while not self._stop.is_set():
            while not self._outbox.empty():
                conn.write(self._outbox.get())
            data = conn.read(conn.in_waiting or 1)
            if time.monotonic() - last_frame > self.silence and self._state != ev.SILENT:
                # Noise counts as silence too: only a frame with a good CRC proves a tower.
                self._set_state(ev.SILENT, f"no valid frame for {self.silence:g} s")
                for hello in self.receiver.connected():
                    conn.write(hello)
            if not data:
                continue
            replies = bytearray()
            for message in self.decoder.feed(data):
                if isinstance(message, FrameError):
                    log.debug("tower: dropped %s frame (%s)", message.kind, message.detail)
                else:
                    last_frame = time.monotonic()
                    if self._state == ev.SILENT:
                        self._set_state(ev.CONNECTED, "frames again")
                events, out = self.receiver.handle(message)
                for event in events:
                    self.events.put(event)
                for chunk in out:
                    replies += chunk
            if replies:
                conn.write(bytes(replies))
