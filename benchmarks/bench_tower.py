"""The tower link over a real pseudo-terminal: drop-to-event latency and the highest drop rate held.

Baseline, measured in the same run: the round trip of one byte through a raw pty, opened with
pyserial on the slave side exactly as the link opens it (what any event over this path must pay).
The simulator runs the real firmware logic; the link is the real reader thread.
"""

from __future__ import annotations

import os
import queue
import statistics
import time
import tty

import serial

from benchmarks.timing import fmt
from companion.devices.tower_events import Drop
from companion.devices.tower_link import TowerLink
from companion.devices.tower_sim import Action, TowerSimulator

RUNS = 5


def pty_round_trip(samples: int = 300) -> list[float]:
    master, slave = os.openpty()
    tty.setraw(slave)
    conn = serial.Serial(os.ttyname(slave), timeout=1)
    out = []
    try:
        for _ in range(samples):
            start = time.perf_counter()
            os.write(master, b"x")
            conn.read(1)
            conn.write(b"y")
            os.read(master, 1)
            out.append(time.perf_counter() - start)
    finally:
        conn.close()
        os.close(master)
        os.close(slave)
    return out


def drop_latency(samples: int = 100) -> list[float]:
    events: queue.Queue[object] = queue.Queue()
    out = []
    with TowerSimulator() as sim, TowerLink(events, sim.port):
        sim.drop()  # connected and warm
        while not isinstance(events.get(timeout=5), Drop):
            pass
        for _ in range(samples):
            start = time.perf_counter()
            sim.drop()
            while not isinstance(events.get(timeout=5), Drop):
                pass
            out.append(time.perf_counter() - start)
            time.sleep(0.002)  # one drop at a time: latency, not throughput
    return out


def holds(rate: float, drops: int = 1000) -> tuple[bool, float]:
    """Whether ``drops`` cubes at ``rate``/s all arrive, in order, within 0.5 s of the last."""
    events: queue.Queue[object] = queue.Queue()
    with TowerSimulator(config={"LOG_CAPACITY": 256}) as sim, TowerLink(events, sim.port):
        time.sleep(0.05)
        start = time.perf_counter()
        sim.play([Action("rate", rate), Action("drops", drops)])
        achieved = drops / (time.perf_counter() - start)
        seqs = []
        deadline = time.monotonic() + 0.5
        while len(seqs) < drops and time.monotonic() < deadline:
            try:
                event = events.get(timeout=0.05)
            except queue.Empty:
                continue
            if isinstance(event, Drop):
                seqs.append(event.seq)
    return seqs == list(range(1, drops + 1)), achieved


def main() -> None:
    base = [statistics.median(pty_round_trip()) for _ in range(RUNS)]
    lat_runs = [drop_latency() for _ in range(RUNS)]
    medians = [statistics.median(r) for r in lat_runs]
    p95s = [statistics.quantiles(r, n=20)[18] for r in lat_runs]
    b, m, p = statistics.median(base), statistics.median(medians), statistics.median(p95s)
    print(f"pty round trip of 1 byte (baseline): {fmt(b)} median of {RUNS} runs")
    print(f"drop -> Drop event, median         : {fmt(m)} ({m / b:.1f}x baseline)")
    print(f"drop -> Drop event, p95            : {fmt(p)} ({p / b:.1f}x baseline)")
    best = 0.0
    for rate in (250, 1000, 2000, 4000, 8000, 16000):
        results = [holds(rate) for _ in range(3)]
        ok = all(r[0] for r in results)
        achieved = statistics.median(r[1] for r in results)
        print(f"1000 drops at {rate:>5}/s: achieved {achieved:7.0f}/s, {'held' if ok else 'LOST'}")
        if not ok or achieved <= best * 1.05:
            break  # lost drops, or the simulator itself cannot go faster
        best = achieved
    print(f"highest drop rate held without loss: {best:.0f} drops/s (a hand drops ~2/s)")


if __name__ == "__main__":
    main()
