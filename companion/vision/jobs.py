"""Stages of one read run beside the main chain, on the second core.

A read is a chain of stages, several of them independent of the others (Carolus's dice and
castles, El Grande's dark search); OpenCV and most of NumPy let go of Python's lock while they
work, so such a stage can run on another thread while the chain goes on. Each result is asked
for where the serial read would have made it, so what a read returns does not depend on the
threads' timing; with no pool the stage simply runs there, when first asked for.

Only stages whose time is mostly in OpenCV and NumPy's big-array calls are handed off: a
stage mostly in Python (the cubes' measuring) holds the interpreter's lock as the main chain
does, and the two only take turns.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Generic, Protocol, TypeVar

T = TypeVar("T")
T_co = TypeVar("T_co", covariant=True)


class Pending(Protocol[T_co]):
    """A stage's result being made elsewhere (a thread pool's Future, a side process's reply)."""

    def result(self) -> T_co: ...

    def exception(self) -> BaseException | None: ...


# A read hands off at most two stages at once: more threads would only wait.
_MOST = 3


def pool_size(threads: int) -> int:
    """Helper threads for ``threads`` threads a read may use (0: one per core, at most 3)."""
    if threads <= 0:
        threads = min(os.cpu_count() or 1, _MOST)
    return max(0, threads - 1)


class Later(Generic[T]):
    """A stage's result: made on the pool if it was handed off, else when first asked for."""

    def __init__(self, make: Callable[[], T], future: Pending[T] | None) -> None:
        self._make: Callable[[], T] | None = make
        self._future = future
        self._value: T | None = None

    def result(self) -> T:
        if self._future is not None:
            return self._future.result()
        if self._make is not None:
            self._value, self._make = self._make(), None
        return self._value  # type: ignore[return-value]

    def settle(self) -> None:
        """Wait for a handed-off stage to end (it may read the caller's frame), dropping its
        result or error: the read has ended without it."""
        if self._future is not None:
            self._future.exception()


class Jobs:
    """The stages one read hands off. Every handed-off stage is waited for before the read
    returns (:meth:`settle`), so none outlives the frame it reads."""

    def __init__(self, pool: ThreadPoolExecutor | None) -> None:
        self._pool = pool
        self._started: list[Later[object]] = []

    def later(self, make: Callable[[], T], *, hand_off: bool = True) -> Later[T]:
        """``make`` on the pool now (if there is one and ``hand_off``), else when asked for."""
        future = self._pool.submit(make) if self._pool is not None and hand_off else None
        return self.elsewhere(make, future)

    def elsewhere(self, make: Callable[[], T], pending: Pending[T] | None) -> Later[T]:
        """``make``'s result as ``pending`` gives it (``make`` itself if None)."""
        job = Later(make, pending)
        self._started.append(job)  # type: ignore[arg-type]
        return job

    def settle(self) -> None:
        for job in self._started:
            job.settle()
