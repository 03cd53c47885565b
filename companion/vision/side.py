"""Stages of a stream's reads run on a second process (Carolus's dice and castles).

A helper thread (jobs.py) runs a stage beside the main chain only while both let go of
Python's lock: the castles and dice are NumPy and OpenCV calls in many small steps, and the
two threads took turns so often that on a two-core machine the pair took 20 ms a 720p read
where the main chain alone took 14. A process has a lock of its own.

A stage's arrays (the frame, the labels, ...) go through a shared memory map, written once a
read; its other arguments are pickled. The stages' state between frames (where the dice tray
was found, the tiles' view) lives in the process, which is sent the read's geometry whenever
the tiles move. The replies are what the stages return, or the error they raised, raised
again on the calling side.

The process is a new interpreter (``python -m companion.vision.side``), not a
multiprocessing child: those re-run the caller's main script, which a script without a
``__main__`` guard does not survive. It costs a start (~0.4 s, importing the vision layer): a
Reader starts one at its second read, when it is reading a stream, not for a single photo. If
the process is lost (killed, out of memory) the stage runs on the calling side and the Reader
goes on without it: :class:`SideLost` never reaches a caller of the Reader.
"""

from __future__ import annotations

import contextlib
import mmap
import os
import pickle
import socket
import struct
import subprocess
import sys
import tempfile
import weakref
from collections.abc import Callable
from multiprocessing.connection import Connection
from pathlib import Path
from typing import Any, Generic, Protocol, TypeVar

import numpy as np
import numpy.typing as npt

from companion.vision.errors import VisionError

Image = npt.NDArray[Any]
T = TypeVar("T")

# How long a reply may take before the process is taken for lost (the longest stage reads in
# tens of ms; a geometry after the tiles moved in well under a second), and its start.
_PATIENCE_S = 30.0
_START_S = 60.0


class SideLost(VisionError, RuntimeError):
    """The side process stopped answering; the stage is run on the calling side instead."""


class SideStages(Protocol):
    """What the side process runs: state between frames, set by the geometry, and the
    stages by name."""

    def set_geometry(self, geo: Any) -> None: ...

    def run(self, stage: str, *args: Any) -> Any: ...


def _serve(conn: Connection) -> None:
    """The side process: the stages and the memory map's file first, then each request in
    turn until told to stop or the pipe closes."""
    stages, path, size = conn.recv()
    with open(path, "r+b") as file:
        memory = mmap.mmap(file.fileno(), size)
    conn.send(("ready", str(Path(__file__).resolve())))
    while True:
        try:
            message = conn.recv()
        except (EOFError, OSError):
            return
        kind = message[0]
        if kind == "stop":
            return
        if kind == "geometry":
            try:
                stages.set_geometry(pickle.loads(message[1]))
            except Exception:
                # (No geometry to read by: the process ends, and the caller, told by the
                # closed pipe, reads the stages itself.)
                return
            continue
        try:
            args = [
                np.ndarray(shape, dtype, buffer=memory, offset=at) if shape is not None else at
                for at, shape, dtype in message[1]
            ]
            reply: Any = stages.run(kind, *args)
            del args
        except Exception as exc:  # (raised again on the calling side)
            reply_error: tuple[Any, ...] = (kind, False, _picklable(exc))
            conn.send(reply_error)
        else:
            conn.send((kind, True, reply))


def _picklable(exc: Exception) -> Exception:
    try:
        pickle.loads(pickle.dumps(exc))
    except Exception:  # (any error that cannot cross: its text does)
        return RuntimeError(f"{type(exc).__name__}: {exc}")
    return exc


def _shut(process: subprocess.Popen[bytes], conn: Connection, memory: mmap.mmap) -> None:
    with contextlib.suppress(OSError, ValueError):
        conn.send(("stop",))
    try:
        process.wait(2.0)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait(2.0)
    conn.close()
    # (Arrays made on the map may outlive the process: the map closes when they are gone.)
    with contextlib.suppress(BufferError):
        memory.close()


def _environment() -> dict[str, str]:
    """The caller's environment, its module path the child's (what the stages' pickle names
    is found the same way: a source checkout not installed, a test's module)."""
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(p or os.getcwd() for p in sys.path)
    return env


class SideProcess:
    """A process running ``stages`` for one Reader; a read's arrays up to ``room`` bytes in
    all. Starts at once and waits until the new process is ready (:class:`SideLost` if it
    never is)."""

    def __init__(self, stages: SideStages, room: int) -> None:
        # One map for a read's arrays, one after the other. Its file is removed once both
        # sides have it mapped: nothing is left behind if either dies.
        folder = "/dev/shm" if os.path.isdir("/dev/shm") else None
        fd, path = tempfile.mkstemp(prefix="companion-read-", dir=folder)
        try:
            os.ftruncate(fd, room)
            self._memory = mmap.mmap(fd, room)
        finally:
            os.close(fd)
        self._room = room
        self._used = 0
        ours, theirs = socket.socketpair()
        # A process that hangs must not hang the reads: a send it does not take in time fails.
        seconds = int(_PATIENCE_S)
        ours.setsockopt(socket.SOL_SOCKET, socket.SO_SNDTIMEO, struct.pack("ll", seconds, 0))
        try:
            self._process = subprocess.Popen(
                # (-P: no current folder first on the path; the caller's path is given.)
                [sys.executable, "-P", "-m", "companion.vision.side", str(theirs.fileno())],
                pass_fds=(theirs.fileno(),),
                env=_environment(),
                stdin=subprocess.DEVNULL,
            )
        except (OSError, ValueError):
            os.unlink(path)
            raise
        finally:
            theirs.close()
        self._conn = Connection(ours.detach())
        self._closer = weakref.finalize(self, _shut, self._process, self._conn, self._memory)
        self._geometry: object = None
        self._waiting: dict[str, tuple[bool, Any]] = {}
        self._asked: set[str] = set()
        self.lost = False
        try:
            self._send((stages, path, room))
            started = self._receive("ready", _START_S)
        finally:
            os.unlink(path)
        if started is None:
            raise SideLost("the read's side process did not start")
        if started[1] != str(Path(__file__).resolve()):
            self.close()
            raise SideLost(
                f"the side process imported {started[1]}, not {Path(__file__).resolve()}"
            )

    def close(self) -> None:
        self.lost = True
        self._closer()

    def begin(self, geometry: object, geo_bytes: Callable[[], bytes]) -> None:
        """A new read: the geometry sent if it is not the one the process has (``geometry``
        is compared by identity), the memory map free again (the last read's replies are all
        in: see :meth:`settle`)."""
        if self.lost:
            raise SideLost("the read's side process is closed")
        self._waiting.clear()
        self._asked.clear()
        self._used = 0
        if geometry is not self._geometry:
            self._send(("geometry", geo_bytes()))
            self._geometry = geometry

    def ask(self, stage: str, *args: Any) -> None:
        """Run ``stage`` on ``args``: arrays through the memory map, other values pickled.
        Each stage once a read."""
        if self.lost:
            raise SideLost("the read's side process is closed")
        sent = []
        for arg in args:
            if isinstance(arg, np.ndarray):
                at = -(-self._used // 64) * 64  # (each array on a cache line)
                if at + arg.nbytes > self._room:
                    self.close()
                    raise SideLost(f"{stage}: a read's arrays do not fit the side's memory")
                np.ndarray(arg.shape, arg.dtype, buffer=self._memory, offset=at)[...] = arg
                self._used = at + arg.nbytes
                sent.append((at, arg.shape, arg.dtype.str))
            else:
                sent.append((arg, None, None))
        self._send((stage, sent))
        self._asked.add(stage)

    def reply(self, stage: str) -> Any:
        """What the stage returned (its error raised here); :class:`SideLost` if the process
        is gone."""
        got = self._waiting.pop(stage, None)
        if got is None:
            if stage not in self._asked:
                raise SideLost(f"{stage} was not asked of the side process")
            got = self._receive(stage, _PATIENCE_S)
            if got is None:
                raise SideLost("the read's side process stopped answering")
        self._asked.discard(stage)
        ok, value = got
        if not ok:
            raise value
        return value

    def settle(self) -> None:
        """Wait for every reply asked for (the next read overwrites the memory map)."""
        for stage in list(self._asked):
            with contextlib.suppress(Exception):  # (the read has ended without it)
                self.reply(stage)

    def _send(self, message: tuple[Any, ...]) -> None:
        if self.lost:
            raise SideLost("the read's side process is closed")
        try:
            self._conn.send(message)
        except (OSError, ValueError):
            self.close()
            raise SideLost("the read's side process is gone") from None

    def _receive(self, kind: str, patience: float) -> tuple[bool, Any] | None:
        """Replies until ``kind``'s (the others kept for later); None if the process is lost."""
        while not self.lost:
            try:
                if not self._conn.poll(patience):
                    break
                got = self._conn.recv()
            except (EOFError, OSError):
                break
            if got[0] == kind:
                return (True, got[1]) if kind == "ready" else (got[1], got[2])
            self._waiting[got[0]] = (got[1], got[2])
        self.close()
        return None


class SideReply(Generic[T]):
    """A stage asked of the side process (jobs.Pending): its reply, or ``fallback`` run here
    when the process is lost."""

    def __init__(self, side: SideProcess, kind: str, fallback: Callable[[], T]) -> None:
        self._side = side
        self._kind = kind
        self._fallback = fallback

    def result(self) -> T:
        try:
            value: T = self._side.reply(self._kind)
        except SideLost:
            return self._fallback()
        return value

    def exception(self) -> BaseException | None:
        self._side.settle()
        return None


if __name__ == "__main__":
    # (The package's own module, not this __main__ copy: its errors are the ones the caller
    # can unpickle.)
    from companion.vision import side

    side._serve(Connection(int(sys.argv[1])))
