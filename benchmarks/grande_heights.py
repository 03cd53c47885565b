"""How far a grande-sized top's colour runs on towards the point under the camera, against
how far a grande's lit side would show there: the height cue for tops refused as thin.

Seen from the camera a standing piece's top lies off its foot, away from the point under
the camera, and the side facing the camera shows between them: a band as long as the piece
is tall times how far the view leans there (``standing.foot_of``). Along the line from a
top's thickest point towards its foot, the colour's pixels run on ``near`` px to the patch's
edge; away from it ``far`` px (the top's far edge: the far side is hidden). ``near - far``
is the side's band; ``ratio`` is that over the band a grande (16 mm) would show there, ~1
for a grande, ~0.6 for a cube (10 mm). Every top of a grande search of about a grande top's
size is written (JSON lines, a seed a line), with whether it lies within two cube sides of
that grande (``own``); a top is written once per search that measures it. Session 14 (NOTES):
the view leans a grande's top ~5.6 px off its foot on the working image, 16 mm against 10 mm
is ~2 px there, and grandes' own tops and other tops read the same spread of ``ratio``.

    python -m benchmarks.grande_heights [--first 100] [--cases 120] [--out FILE]
"""

from __future__ import annotations

import argparse
import json
import math
from typing import Any

import numpy as np

from benchmarks.vision_errors import hard_case, read_with
from companion.vision import figures
from companion.vision.standing import foot_of


def run_length(mask: Any, x: float, y: float, ux: float, uy: float) -> float:
    """How far (px) the mask runs on from (x, y) along (ux, uy) before its first pixel out."""
    h, w = mask.shape
    t = 0.0
    while True:
        xi, yi = round(x + (t + 0.25) * ux), round(y + (t + 0.25) * uy)
        if not (0 <= xi < w and 0 <= yi < h) or not mask[yi, xi]:
            return t
        t += 0.25


def band(mask: Any, x: float, y: float, ux: float, uy: float, width: float) -> tuple[float, float]:
    """The median, over three lines across the top (its middle and a quarter of its width
    either side), of how far the mask runs on towards (ux, uy) and away from it."""
    nears, fars = [], []
    for k in (-0.25, 0.0, 0.25):
        ox, oy = x - uy * k * width, y + ux * k * width
        nears.append(run_length(mask, ox, oy, ux, uy))
        fars.append(run_length(mask, ox, oy, -ux, -uy))
    return float(np.median(nears)), float(np.median(fars))


def seed_tops(seed: int, least: float, most: float) -> dict[str, Any] | None:
    """One hard seed's read with every top of a grande search from ``least`` to ``most`` of a
    grande top's size measured as above (None for a frame not read)."""
    reader, image, truth = hard_case("el-grande", seed)
    if reader is None:
        return None
    geo = reader.geometry()
    x0, y0, _, _ = geo.crop
    own: dict[str, tuple[float, float]] = {}
    for p in truth["pieces"]:
        if p["kind"] == "grande":
            own[f"grande:{p['colour']}"] = (
                (p["image"][0] - x0) * geo.scale,
                (p["image"][1] - y0) * geo.scale,
            )
    reach = 2 * float(reader.layout.pieces["cube"]) * geo.mm_px
    rows: list[dict[str, Any]] = []
    big_tops = figures.big_tops

    def recorded(
        patches: Any, fig: Any, layout: Any, config: Any, stands: Any = None, **kw: Any
    ) -> Any:
        out = big_tops(patches, fig, layout, config, stands, **kw)
        for t in big_tops(patches, fig, layout, config, stands):
            if not least <= t.size <= most:
                continue
            patch = patches[t.patch]
            top = patch.tops[t.top]
            fx, fy = foot_of(reader.calibration, geo, (t.x, t.y), fig.diameter)
            lean = math.hypot(fx - t.x, fy - t.y)
            ux, uy = (fx - t.x) / max(lean, 1e-6), (fy - t.y) / max(lean, 1e-6)
            bx, by = patch.bbox[:2]
            near, far = band(patch.comp, t.x - bx, t.y - by, ux, uy, top.width)
            g = own.get(fig.name)
            mine = g is not None and math.hypot(t.x - g[0], t.y - g[1]) <= reach
            rows.append(
                {
                    **t._asdict(),
                    "seed": seed,
                    "figure": fig.name,
                    "own": mine,
                    "near": near,
                    "far": far,
                    "lean": lean,
                    "ratio": (near - far) / max(lean, 1e-6),
                    "along": top.length / (config.top_length_sides * patch.side),
                    "across": top.width / (config.top_width_sides * patch.side),
                    "cells": top.cells,
                    "patch_area": patch.area / patch.footprint,
                }
            )
        return out

    obs = read_with(reader, image, {(figures, "big_tops"): recorded})
    if obs.occluded:
        return None
    return {
        "seed": seed,
        "read": {k: v for k, v in obs.figures.items()},
        "truth": {
            f"grande:{p['colour']}": p["area"] for p in truth["pieces"] if p["kind"] == "grande"
        },
        "tops": rows,
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--first", type=int, default=100)
    ap.add_argument("--cases", type=int, default=120)
    ap.add_argument("--least", type=float, default=0.7, help="least size (of a grande top's)")
    ap.add_argument("--most", type=float, default=1.4)
    ap.add_argument("--out", required=True)
    args = ap.parse_args()
    with open(args.out, "w") as sink:
        for seed in range(args.first, args.first + args.cases):
            record = seed_tops(seed, args.least, args.most)
            if record is not None:
                sink.write(json.dumps(record) + "\n")
                sink.flush()


if __name__ == "__main__":
    main()
