"""Frames with and without a hand, seed by seed: which hand frames the reader reads as a
position and which hand-free frames it takes for a hand (a tool for working on the hand check;
``bench_vision occlusion`` is the benchmark). Renders are cached as in vision_errors.

    python -m benchmarks.vision_hands [easy|hard] [el-grande|carolus-magnus] [--cases N]
        [--first F]
"""

from __future__ import annotations

import argparse
import hashlib
import json
import pickle
from typing import Any

from benchmarks.bench_vision import POSITIONS
from benchmarks.vision_errors import CACHE, cached_render
from companion.errors import CompanionError
from companion.vision.calibration import calibrate
from companion.vision.layout import Layout, load_layout
from companion.vision.pipeline import Reader
from companion.vision.synth import PRESETS, Conditions, render


def hand_render(
    position: dict[str, Any], layout: Layout, seed: int, cond: Conditions
) -> tuple[Any, dict[str, Any]]:
    key = json.dumps([position, layout.name, seed, cond.to_json(), "hand"], sort_keys=True)
    path = CACHE / (hashlib.sha1(key.encode()).hexdigest() + ".pickle")
    if path.exists():
        image, truth = pickle.loads(path.read_bytes())
        return image, truth
    image, truth = render(position, layout, seed=seed, conditions=cond, hand=True)
    CACHE.mkdir(parents=True, exist_ok=True)
    path.write_bytes(pickle.dumps((image, truth)))
    return image, truth


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("preset", nargs="?", default="hard", choices=sorted(PRESETS))
    ap.add_argument("games", nargs="*", default=list(POSITIONS))
    ap.add_argument("--cases", type=int, default=41)
    ap.add_argument("--first", type=int, default=0, help="first seed")
    args = ap.parse_args()
    cond = PRESETS[args.preset]
    for game in args.games:
        layout = load_layout(game)
        hands = read = free = taken = 0
        for seed in range(args.first, args.first + args.cases):
            setup, position = POSITIONS[game](seed)
            setup_image, _ = cached_render(setup, layout, seed, cond)
            try:
                reader = Reader(calibrate(setup_image, layout, setup), layout)
            except CompanionError as exc:
                print(f"{game} {seed:2d}: not calibrated ({exc})", flush=True)
                continue
            image, _ = cached_render(position, layout, seed, cond)
            free += 1
            obs = reader.read(image)
            if obs.occluded:
                taken += 1
                print(f"{game} {seed:2d}: no hand, taken for one: {obs.unread['board']}")
            image, truth = hand_render(position, layout, seed, cond)
            if not truth["occluded"]:
                continue
            hands += 1
            try:
                if not reader.read(image).occluded:
                    read += 1
                    print(f"{game} {seed:2d}: a hand ({truth['hand']['edge']}) read as a position")
            except CompanionError:
                pass  # no observation: no counts either
        print(
            f"{game}: {hands} frames with a hand, {read} read as a position; "
            f"{free} without, {taken} taken for a hand",
            flush=True,
        )


if __name__ == "__main__":
    main()
