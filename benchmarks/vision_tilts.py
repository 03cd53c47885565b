"""How the tilted-cube flag (companion/vision/cube_windows.py) does on hard El Grande frames: false
flags on plain frames, tilted cubes found on frames rendered with tilts, and the counts tilts
get wrong (a tool for fitting its thresholds, not a benchmark). Renders are cached under
``$TMPDIR/companion-renders``.

    python -m benchmarks.vision_tilts [--first 100] [--cases 120] [--tilted 0.15]
        [--dump tops.json]

Every lone top measured is kept (``--dump``): its cube's truth (tilted or not) and its
full-resolution measures (cube_windows.Seen: its top's longer and shorter sides in board mm,
how far its shade reaches beyond its top away from the nadir or across, in cube sides), so the
thresholds can be fitted without reading again.
"""

from __future__ import annotations

import argparse
import json
from dataclasses import replace
from typing import Any

from benchmarks.flag_frames import GAME, frames, seen_row
from companion.vision.config import DEFAULT_CONFIG
from companion.vision.cube_windows import probable_tilt
from companion.vision.layout import load_layout
from companion.vision.synth import PRESETS

# (The flag is off by default: measured with it on, at the default thresholds, and the stack
# flag off: a cube flagged as a stack is not also judged for a lean.)
CONFIG = replace(DEFAULT_CONFIG, tilt_flag=True, stack_flag=False)
FLAG = "a cube tilted?"


def run(seeds: range, tilted: float) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    cube = float(load_layout(GAME).pieces["cube"])
    cond = replace(PRESETS["hard"], tilted=tilted)
    rows: list[dict[str, Any]] = []
    totals: dict[str, Any] = {
        "frames": 0,
        "flagged_places": 0,
        "tilted_cubes": 0,
        "wrong_counts": 0,
        "cells": 0,
        "wrong": [],
    }
    for frame in frames(seeds, cond, CONFIG):
        obs, truth = frame.obs, frame.truth
        totals["frames"] += 1
        totals["flagged_places"] += frame.flagged_places(FLAG)
        if not obs.occluded:
            for area in sorted(set(obs.counts) | set(truth["counts"])):
                for colour in frame.position["players"]:
                    want = truth["counts"].get(area, {}).get(colour, 0)
                    got = obs.count(area, colour)
                    totals["cells"] += 1
                    if want != got:
                        totals["wrong_counts"] += 1
                        totals["wrong"].append(f"{frame.seed} {area}/{colour} {want}->{got}")
        totals["tilted_cubes"] += sum(1 for c in frame.visible if c.get("tilted"))
        for seen, near in frame.seen():
            rows.append(
                {
                    **seen_row(frame.seed, seen),
                    "tilted": bool(near and near.get("tilted")),
                    "stacked": bool(near and near.get("stacked")),
                    "matched": near is not None,
                    "flagged": probable_tilt(seen, cube, CONFIG),
                }
            )
    return rows, totals


def summary(name: str, rows: list[dict[str, Any]], totals: dict[str, Any]) -> None:
    tilts = [r for r in rows if r["tilted"]]
    plain = [r for r in rows if not r["tilted"]]
    print(
        f"{name}: {totals['frames']} frames, {len(rows)} lone tops measured, "
        f"{totals['flagged_places']} places flagged; "
        f"flags on cubes not tilted {sum(r['flagged'] for r in plain)} of {len(plain)}; "
        f"tilted cubes {totals['tilted_cubes']}, read as a lone top {len(tilts)}, "
        f"flagged {sum(r['flagged'] for r in tilts)}; "
        f"wrong counts {totals['wrong_counts']} of {totals['cells']}"
    )


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--first", type=int, default=100)
    ap.add_argument("--cases", type=int, default=120)
    ap.add_argument("--tilted", type=float, default=0.15)
    ap.add_argument("--dump", help="write every top measured to this JSON file")
    args = ap.parse_args()
    seeds = range(args.first, args.first + args.cases)
    out = {}
    for name, p in (("plain", 0.0), (f"tilted {args.tilted:g}", args.tilted)):
        rows, totals = run(seeds, p)
        summary(name, rows, totals)
        out[name] = {"rows": rows, "totals": totals}
    plain, tilted = (set(v["totals"]["wrong"]) for v in out.values())
    print(
        f"counts wrong on tilted frames, not on the same seeds plain: {len(tilted - plain)} "
        f"(right again: {len(plain - tilted)})"
    )
    for line in sorted(tilted - plain):
        print("  ", line)
    if args.dump:
        with open(args.dump, "w", encoding="utf-8") as f:
            json.dump(out, f)


if __name__ == "__main__":
    main()
