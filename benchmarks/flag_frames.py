"""What the flag-fitting tools (vision_stacks, vision_tilts) share: hard El Grande frames read
with a flag on, each measuring stage's results kept, and each measured top matched to the
truth's cube it stands on."""

from __future__ import annotations

import math
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from benchmarks.bench_vision import POSITIONS
from benchmarks.vision_errors import cached_render, read_with
from companion.vision import pipeline
from companion.vision.calibration import calibrate
from companion.vision.config import VisionConfig
from companion.vision.cube_windows import Seen
from companion.vision.cube_windows import measure as measure_windows
from companion.vision.errors import VisionError
from companion.vision.geometry import Geometry
from companion.vision.layout import load_layout
from companion.vision.observation import Observation
from companion.vision.synth import PRESETS, Conditions

GAME = "el-grande"
# A measured top this far (in cube sides) from a truth cube's top is that cube's.
MATCH_SIDES = 0.6


@dataclass
class Frame:
    """One frame read: what the measuring stage gave on each call, with the views it was given
    (cube_windows.View: their sides in frame pixels), and the read's geometry."""

    seed: int
    position: dict[str, Any]
    truth: dict[str, Any]
    obs: Observation
    geo: Geometry
    measured: list[tuple[list[Any], list[Any]]]

    @property
    def visible(self) -> list[dict[str, Any]]:
        return [c for c in self.truth["cubes"] if not c["occluded"]]

    def flagged_places(self, flag: str) -> int:
        return sum(1 for msgs in self.obs.flags.values() if any(flag in m for m in msgs))

    def cube_at(self, at: tuple[float, float], side: float) -> dict[str, Any] | None:
        """The truth's visible cube whose top shows at the frame point ``at`` (within
        MATCH_SIDES of a cube's ``side``, frame pixels), or None."""
        near = min(self.visible, key=lambda c: math.dist(c["image"], at), default=None)
        if near is None or math.dist(near["image"], at) / side >= MATCH_SIDES:
            return None
        return near

    def seen(self) -> Iterator[tuple[Any, dict[str, Any] | None]]:
        """Each lone cube measured (cube_windows.Seen) and the truth's cube it is, if any."""
        for found, views in self.measured:
            for one, view in zip(found, views, strict=True):
                yield one, self.cube_at(view.at, view.side)


def frames(
    seeds: range,
    conditions: Conditions,
    config: VisionConfig,
) -> Iterator[Frame]:
    """Each seed's game frame rendered under ``conditions`` (its set-up under the hard preset,
    so plain and changed frames are calibrated alike), read with ``config``, what the lone
    cubes' full-resolution measure (cube_windows.measure) gave recorded. Seeds whose set-up
    cannot be calibrated are left out."""
    layout = load_layout(GAME)
    hard = PRESETS["hard"]
    for seed in seeds:
        setup, position = POSITIONS[GAME](seed)
        setup_image, _ = cached_render(setup, layout, seed, hard)
        image, truth = cached_render(position, layout, seed, conditions)
        try:
            reader = pipeline.Reader(calibrate(setup_image, layout, setup), layout, config)
        except VisionError:
            continue
        measured: list[tuple[list[Any], list[Any]]] = []

        def recording(views: Any, *args: Any, measured: Any = measured, **kw: Any) -> list[Any]:
            out = measure_windows(views, *args, **kw)
            measured.append((out, list(views)))
            return out

        # (Every lone cube measured, not only those a flag can be told for: what was not
        # measured, the tools cannot count; the flags are judged as the reader judges them.)
        swaps = {(pipeline, "measure_windows"): recording, (pipeline, "worth_measuring"): _every}
        with reader:
            obs = read_with(reader, image, swaps)
        assert reader._geometry is not None
        yield Frame(seed, position, truth, obs, reader._geometry, measured)


def _every(view: Any, config: VisionConfig) -> bool:
    return True


def seen_row(seed: int, seen: Seen) -> dict[str, Any]:
    """One lone cube's measures, for a tool's dump."""
    return {
        "seed": seed,
        "colour": seen.colour,
        "measured": seen.told,
        "parallax": round(seen.parallax, 3),
        "band": round(seen.band, 3),
        "towards": round(seen.towards, 3),
        "away": round(seen.away, 3),
        "across": round(seen.across, 3),
        "major": round(seen.major, 2),
        "minor": round(seen.minor, 2),
    }
