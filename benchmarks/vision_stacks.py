"""How the stacked-cube flag (companion/vision/cube_windows.py) does on hard El Grande frames: false
flags on plain frames, and stacked cubes found on frames rendered with stacks (a tool for
fitting its thresholds, not a benchmark). Renders are cached under ``$TMPDIR/companion-renders``.

    python -m benchmarks.vision_stacks [--first 100] [--cases 120] [--stacked 0.15]
        [--dump bands.json]

Every lone cube measured is kept (``--dump``): its cube's truth (stacked or not) and all its
full-resolution measures (cube_windows.Seen: the band, about 1 for one cube and 2 for a stack,
its parallax in cube sides, the top's sides, the shade beyond it), so the thresholds can be
fitted without reading again.
"""

from __future__ import annotations

import argparse
import json
import math
from dataclasses import replace
from typing import Any

import cv2
import numpy as np

from benchmarks.flag_frames import GAME, frames, seen_row
from companion.vision.config import DEFAULT_CONFIG
from companion.vision.cube_windows import probable_stack
from companion.vision.layout import load_layout
from companion.vision.synth import PRESETS

# (Measured at the default thresholds, whatever the default says of the flag itself.)
CONFIG = replace(DEFAULT_CONFIG, stack_flag=True)
FLAG = "stacked on another?"


def parallax_sides(truth: dict[str, Any], x: float, y: float, cube: float) -> float:
    """One cube's parallax at board point (x, y) in cube sides there, through the truth's
    camera: how far its top shows off its foot."""
    cam = truth["camera"]
    pts = np.array([[x, y, 0.0], [x, y, -cube], [x - cube / 2, y, -cube], [x + cube / 2, y, -cube]])
    img, _ = cv2.projectPoints(
        pts,
        np.array(cam["rvec"]),
        np.array(cam["tvec"]),
        np.array(cam["matrix"]),
        np.array(cam["dist"]),
    )
    p = img.reshape(-1, 2)
    return math.dist(p[0], p[1]) / math.dist(p[2], p[3])


def run(seeds: range, stacked: float) -> tuple[list[dict[str, Any]], dict[str, int]]:
    cube = float(load_layout(GAME).pieces["cube"])
    cond = replace(PRESETS["hard"], stacked=stacked)
    rows: list[dict[str, Any]] = []
    totals = {"frames": 0, "flagged_places": 0, "stacked_cubes": 0, "stacked_tellable": 0}
    for frame in frames(seeds, cond, CONFIG):
        totals["frames"] += 1
        totals["flagged_places"] += frame.flagged_places(FLAG)
        for c in frame.visible:
            if c.get("stacked"):
                totals["stacked_cubes"] += 1
                if parallax_sides(frame.truth, *c["board"], cube) >= CONFIG.stack_min_parallax:
                    totals["stacked_tellable"] += 1
        for seen, near in frame.seen():
            rows.append(
                {
                    **seen_row(frame.seed, seen),
                    "stacked": bool(near and near.get("stacked")),
                    "tilted": bool(near and near.get("tilted")),
                    "matched": near is not None,
                    "flagged": probable_stack(seen, CONFIG),
                }
            )
    return rows, totals


def summary(name: str, rows: list[dict[str, Any]], totals: dict[str, int]) -> None:
    stacks = [r for r in rows if r["stacked"]]
    plain = [r for r in rows if not r["stacked"]]
    tellable = [r for r in stacks if r["parallax"] >= CONFIG.stack_min_parallax and r["measured"]]
    print(
        f"{name}: {totals['frames']} frames, {len(rows)} lone tops measured, "
        f"{totals['flagged_places']} places flagged; "
        f"flags on cubes not stacked {sum(r['flagged'] for r in plain)} of {len(plain)}; "
        f"stacked cubes {totals['stacked_cubes']} ({totals['stacked_tellable']} with parallax "
        f">= {CONFIG.stack_min_parallax} sides), read as a lone top {len(stacks)} "
        f"({len(tellable)} measured where the parallax tells), "
        f"flagged {sum(r['flagged'] for r in stacks)}"
    )


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--first", type=int, default=100)
    ap.add_argument("--cases", type=int, default=120)
    ap.add_argument("--stacked", type=float, default=0.15)
    ap.add_argument("--dump", help="write every lone cube measured to this JSON file")
    args = ap.parse_args()
    seeds = range(args.first, args.first + args.cases)
    out = {}
    for name, p in (("plain", 0.0), (f"stacked {args.stacked:g}", args.stacked)):
        rows, totals = run(seeds, p)
        summary(name, rows, totals)
        out[name] = {"rows": rows, "totals": totals}
    if args.dump:
        with open(args.dump, "w", encoding="utf-8") as f:
            json.dump(out, f)


if __name__ == "__main__":
    main()
