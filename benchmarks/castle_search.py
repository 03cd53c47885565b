"""CPU time of the castles' search per call (castles.castle_blobs) on the speed bench's Carolus
frames (easy camera, seed 3, tile places known; one OpenCV thread), as the reader runs it and
without its reach over the mat (Geometry.castle_reach): what looking for a castle's top beyond
a tile's outer edge costs. Median of 15 rounds of 10 calls each, the two alternating.

    python -m benchmarks.castle_search
"""

from __future__ import annotations

import dataclasses
import functools
import statistics
import time

import cv2

from benchmarks.bench_vision import SpeedCase
from companion.vision import castles
from companion.vision.config import DEFAULT_CONFIG
from companion.vision.geometry import place_of, working_image

ROUNDS, CALLS = 15, 10


def main() -> None:
    cv2.setNumThreads(1)
    for width, height in ((1280, 720), (1920, 1080)):
        case = SpeedCase.of("carolus-magnus", width, height)
        geo = case.reader.geometry(case.tiles, case.courts)
        small = working_image(case.image, geo)
        place_at = functools.partial(place_of, geo)
        views = {
            "as read": castles.TileView.of(geo, case.layout, DEFAULT_CONFIG),
            "without the reach": castles.TileView.of(
                dataclasses.replace(geo, castle_reach=None), case.layout, DEFAULT_CONFIG
            ),
        }
        times: dict[str, list[float]] = {name: [] for name in views}
        for _ in range(ROUNDS):
            for name, view in views.items():
                start = time.process_time()
                for _ in range(CALLS):
                    castles.castle_blobs(small, view, geo, place_at, case.layout, DEFAULT_CONFIG)
                times[name].append((time.process_time() - start) / CALLS * 1000)
        read, bare = (statistics.median(times[name]) for name in views)
        print(
            f"  {width}x{height} castle search: {read:.2f} ms as read, {bare:.2f} ms without "
            f"the reach over the mat ({read / bare:.2f}x)"
        )


if __name__ == "__main__":
    main()
