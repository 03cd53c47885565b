"""The synthetic table renderer: time per image, and how often OpenCV finds the printed markers.

Baseline: JPEG-encoding one 1280x720 rendered frame (quality 95), the cost of merely saving the
picture once (single-threaded in OpenCV, so steadier on a busy machine than a warp).
Marker figures: share of the markers in the truth that ``cv2.aruco`` detects, over several
seeds (how hard the HARD preset is for a reader).
"""

from __future__ import annotations

import json
from pathlib import Path

import cv2
import numpy as np

from benchmarks.timing import fmt, median_seconds
from companion.vision.synth import EASY, HARD, render, render_sequence

POSITIONS = Path(__file__).parents[1] / "tests/data/vision/positions"
SEEDS = 12


def _detected(image: np.ndarray, truth: dict) -> tuple[int, int]:
    dictionary = cv2.aruco.getPredefinedDictionary(cv2.aruco.DICT_4X4_50)
    _, ids, _ = cv2.aruco.ArucoDetector(dictionary).detectMarkers(image)
    found = set() if ids is None else set(ids.ravel().tolist())
    want = {m["id"] for m in truth["markers"]}
    return len(found & want), len(want)


def main() -> None:
    eg = json.loads((POSITIONS / "el_grande_round3.json").read_text())
    cm = json.loads((POSITIONS / "carolus_two_players.json").read_text())
    frame, _ = render(eg, seed=0)
    params = [cv2.IMWRITE_JPEG_QUALITY, 95]
    baseline = median_seconds(lambda: cv2.imencode(".jpg", frame, params), number=20)
    print(f"baseline JPEG encode 1280x720 : {fmt(baseline)}")
    seed = iter(range(10_000))
    cases = [
        ("el-grande   easy 1280x720", eg, EASY, False),
        ("el-grande   hard 1280x720", eg, HARD, False),
        ("el-grande   easy 1280x720 + hand", eg, EASY, True),
        ("el-grande   easy 1920x1080", eg, EASY.with_size(1920, 1080), False),
        ("carolus     easy 1280x720", cm, EASY, False),
        ("carolus     hard 1920x1080", cm, HARD.with_size(1920, 1080), False),
    ]
    for name, pos, cond, hand in cases:
        t = median_seconds(
            lambda p=pos, c=cond, h=hand: render(p, seed=next(seed), conditions=c, hand=h), runs=7
        )
        print(f"render {name:<28}: {fmt(t)} ({t / baseline:.0f}x baseline)")
    t = median_seconds(lambda: render_sequence(eg, seed=next(seed), frames=10), runs=3)
    print(
        f"render_sequence 10 frames 1280x720  : {fmt(t / 10)} per frame ({t / 10 / baseline:.0f}x)"
    )
    for label, pos, cond in (
        ("el-grande easy 1280x720", eg, EASY),
        ("el-grande hard 1280x720", eg, HARD),
        ("carolus   easy 1280x720", cm, EASY),
        ("carolus   easy 1920x1080", cm, EASY.with_size(1920, 1080)),
        ("carolus   hard 1920x1080", cm, HARD.with_size(1920, 1080)),
    ):
        got = total = 0
        for s in range(SEEDS):
            image, truth = render(pos, seed=1000 + s, conditions=cond)
            g, n = _detected(image, truth)
            got, total = got + g, total + n
        print(
            f"markers detected {label:<24}: {got}/{total} ({100 * got / total:.1f} %) "
            f"over {SEEDS} seeds"
        )


if __name__ == "__main__":
    main()
