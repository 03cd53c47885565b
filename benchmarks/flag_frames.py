"""What the flag-fitting tools (vision_stacks, vision_tilts) share: hard El Grande frames read
with a flag on, each measuring stage's results kept, and each measured top matched to the
truth's cube it stands on."""

from __future__ import annotations

import math
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

from benchmarks.bench_vision import POSITIONS
from benchmarks.vision_errors import cached_render, read_with
from companion.vision import pipeline
from companion.vision.calibration import calibrate
from companion.vision.config import VisionConfig
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
    """One frame read: what the measuring stage gave on each call, with the candidates' cube
    sides (working pixels), and the read's geometry."""

    seed: int
    position: dict[str, Any]
    truth: dict[str, Any]
    obs: Observation
    geo: Geometry
    measured: list[tuple[list[Any], list[float]]]

    @property
    def visible(self) -> list[dict[str, Any]]:
        return [c for c in self.truth["cubes"] if not c["occluded"]]

    def flagged_places(self, flag: str) -> int:
        return sum(1 for msgs in self.obs.flags.values() if any(flag in m for m in msgs))

    def cube_at(self, top: tuple[float, float], side: float) -> dict[str, Any] | None:
        """The truth's visible cube whose top shows at the working-image point ``top``
        (within MATCH_SIDES of a cube's ``side``), or None."""
        u = top[0] / self.geo.scale + self.geo.crop[0]
        v = top[1] / self.geo.scale + self.geo.crop[1]
        near = min(self.visible, key=lambda c: math.dist(c["image"], (u, v)), default=None)
        if near is None or math.dist(near["image"], (u, v)) * self.geo.scale / side >= MATCH_SIDES:
            return None
        return near


def frames(
    seeds: range,
    conditions: Conditions,
    config: VisionConfig,
    stage: str,
    measure: Callable[..., list[Any]],
) -> Iterator[Frame]:
    """Each seed's game frame rendered under ``conditions`` (its set-up under the hard preset,
    so plain and changed frames are calibrated alike), read with ``config``, ``pipeline``'s
    ``stage`` (its name there; ``measure``, the function itself) recorded. Seeds whose set-up
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
        measured: list[tuple[list[Any], list[float]]] = []

        def recording(candidates: Any, *args: Any, measured: Any = measured) -> list[Any]:
            out = measure(candidates, *args)
            measured.append((out, [p.side for _, p in candidates]))
            return out

        with reader:
            obs = read_with(reader, image, {(pipeline, stage): recording})
        assert reader._geometry is not None
        yield Frame(seed, position, truth, obs, reader._geometry, measured)
