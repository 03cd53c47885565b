"""Where a read's time goes: CPU per stage of the speed bench's frames, on one thread.

    python -m benchmarks.vision_stages [reads]

The speed bench's frames (``bench_vision speed``: easy camera, seed 3, calibration and tile
places known), read with ``read_threads=1`` and one OpenCV thread. First the whole read's CPU
time (``time.process_time``, median over the reads, no profiler); then each stage's cumulative
time per read under cProfile, which adds to the Python-heavy stages (the per-top loops most):
for telling where the time goes, not for ratios. The README's per-stage figures come from here.
"""

from __future__ import annotations

import cProfile
import pstats
import statistics
import sys
import time
from dataclasses import replace

import cv2

from benchmarks.bench_vision import POSITIONS, SpeedCase
from companion.vision.config import DEFAULT_CONFIG

# (module file, function): the stages of a read, as pipeline.py chains them.
STAGES = (
    ("geometry.py", "working_image"),
    ("colour.py", "classify_packed"),
    ("colour.py", "keep_faint"),
    ("hand.py", "hand_check"),
    ("mosaic.py", "cut"),
    ("fringe.py", "drop_fringes"),
    ("cubes.py", "measure_planes"),
    ("cubes.py", "count_colours"),
    ("grey_tops.py", "grey_tops"),
    ("shadows.py", "shadow_pixels"),
    ("figures.py", "find_figure"),
    ("figures.py", "find_grandes"),
    ("court_rows.py", "count_rows"),
    ("castles.py", "read_castles"),
    ("pipeline.py", "_dice"),
)


def stage_times(case: SpeedCase, reads: int) -> dict[str, float]:
    """Cumulative seconds per read of each stage, under the profiler."""
    profile = cProfile.Profile()
    profile.enable()
    for _ in range(reads):
        case.read()
    profile.disable()
    stats = pstats.Stats(profile).stats  # type: ignore[attr-defined]
    out = dict.fromkeys((name for _, name in STAGES), 0.0)
    for (path, _, name), (_, _, _, cumulative, _) in stats.items():
        if (path.rsplit("/", 1)[-1], name) in STAGES:
            out[name] += cumulative / reads
    return out


def main(reads: int = 15) -> None:
    threads = cv2.getNumThreads()
    cv2.setNumThreads(1)
    try:
        for width, height in ((1280, 720), (1920, 1080)):
            for game in POSITIONS:
                case = SpeedCase.of(game, width, height, replace(DEFAULT_CONFIG, read_threads=1))
                for _ in range(3):
                    case.read()  # (the caches a still table keeps: labels, views, the tray)
                cpu = []
                for _ in range(reads):
                    start = time.process_time()
                    case.read()
                    cpu.append(time.process_time() - start)
                per = stage_times(case, reads)
                print(
                    f"{width}x{height} {game:<15} read {statistics.median(cpu) * 1000:5.1f} ms "
                    "CPU; per stage under the profiler, ms:"
                )
                print(
                    "  "
                    + "  ".join(
                        f"{name} {t * 1000:.2f}"
                        for name, t in sorted(per.items(), key=lambda kv: -kv[1])
                        if t > 0
                    )
                )
    finally:
        cv2.setNumThreads(threads)


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 15)
