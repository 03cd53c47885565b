"""The Carolus Magnus dice on many seeds, every face as often as the others (a check against
tuning the dice reader to the 12 benchmark cases). Renders are cached under
``$TMPDIR/companion-renders``.

    python -m benchmarks.vision_dice [easy|hard] [--seeds 40] [--first 100]

Each case: the benchmark's set-up and game positions of that seed, the game frame with three
chosen dice (faces cycling through all six), calibrated on the set-up frame, read whole. A die
is right, unread (named in the Observation's ``unread``) or wrong (another face read). Frames
whose calibration fails or that are taken for a hand are listed and left out.
"""

from __future__ import annotations

import argparse
import collections

from benchmarks.bench_vision import POSITIONS
from benchmarks.vision_errors import cached_render
from companion.vision.calibration import calibrate
from companion.vision.die_faces import CAROLUS_FACES
from companion.vision.errors import VisionError
from companion.vision.layout import load_layout
from companion.vision.pipeline import Reader
from companion.vision.synth import PRESETS


def faces_for(seed: int) -> list[str]:
    """Three faces; over any six seeds in a row each face comes three times."""
    n = len(CAROLUS_FACES)
    return [CAROLUS_FACES[(seed + k) % n] for k in (0, 1, 3)]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("preset", nargs="?", default="hard", choices=sorted(PRESETS))
    ap.add_argument("--seeds", type=int, default=40)
    ap.add_argument("--first", type=int, default=100)
    args = ap.parse_args()
    cond = PRESETS[args.preset]
    layout = load_layout("carolus-magnus")
    tally: dict[str, collections.Counter[str]] = {f: collections.Counter() for f in CAROLUS_FACES}
    cases = right_cases = 0
    for seed in range(args.first, args.first + args.seeds):
        setup, position = POSITIONS["carolus-magnus"](seed)
        setup_image, _ = cached_render(setup, layout, seed, cond)
        image, truth = cached_render(position, layout, seed, cond, faces_for(seed))
        try:
            obs = Reader(calibrate(setup_image, layout, setup), layout).read(image)
        except VisionError as e:
            print(f"{seed:4d}: not calibrated ({e})")
            continue
        if obs.occluded:  # the frame as a whole was not read (no hand is drawn here)
            print(f"{seed:4d}: occluded ({obs.unread.get('board')})")
            continue
        cases += 1
        want = collections.Counter(truth["dice"])
        got = collections.Counter(obs.dice)
        for face in CAROLUS_FACES:
            ok = min(want[face], got[face])
            tally[face]["right"] += ok
            tally[face]["seen"] += want[face]
        wrong = sum((got - want).values())
        unread = {k: v for k, v in obs.unread.items() if k.startswith("di")}
        right_cases += want == got and not unread
        if want != got or unread:
            print(f"{seed:4d}: {sorted(want.elements())} -> {sorted(got.elements())}", end="")
            print(f" ({wrong} wrong) {unread}" if unread or wrong else f" ({wrong} wrong)")
        for face, n in (got - want).items():
            tally[face]["read in place of another"] += n
    seen = sum(t["seen"] for t in tally.values())
    right = sum(t["right"] for t in tally.values())
    wrong = sum(t["read in place of another"] for t in tally.values())
    print(
        f"{args.preset}, seeds {args.first}-{args.first + args.seeds - 1}: {right_cases}/{cases}"
        f" cases all right; dice {right}/{seen} right, {wrong} wrong, {seen - right - wrong}"
        " not read (in unread or not seen)"
    )
    for face in CAROLUS_FACES:
        t = tally[face]
        print(f"  {face:6s} {t['right']}/{t['seen']} right, {t['read in place of another']} wrong")


if __name__ == "__main__":
    main()
