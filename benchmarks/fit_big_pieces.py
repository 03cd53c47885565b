"""What a big piece's candidate measures against those that beat it or nearly do: for every
grande on hard renders, its own top's measures (figures.big_tops: inscribed radius over the
big-piece threshold, area over a grande top's, cells each way, why it is refused) and the best
other top of its colour where it was looked for; for every pawn (the king, Charlemagne), its
own foot's (figures.PawnMeasures: fit, thickness, spread) and the best other candidate's.
Renders are cached as vision_errors caches them; each seed's candidates are written as JSON
lines (``--out``) for trying other rules on them.

    python -m benchmarks.fit_big_pieces [el-grande|carolus-magnus] [--first 100] [--cases 200]
        [--out FILE]
"""

from __future__ import annotations

import argparse
import json
import math
from typing import Any

from benchmarks.vision_errors import hard_case, read_with
from companion.vision import figures, pipeline
from companion.vision.config import DEFAULT_CONFIG


def seed_candidates(game: str, seed: int) -> dict[str, Any] | None:
    """Every top measured as a grande's and every foot as a pawn's in one hard seed's read,
    search by search (None for a frame not read: a corner marker hidden, or taken for a
    hand), with the truth's big pieces (where they show in the working image) and the read's."""
    reader, image, truth = hard_case(game, seed)
    if reader is None:
        return None
    searches: list[dict[str, Any]] = []
    big_tops, find_figure = figures.big_tops, figures.find_figure
    cfg = DEFAULT_CONFIG

    def tops_recorded(
        patches: Any, fig: Any, layout: Any, config: Any, stands: Any = None, **_: Any
    ) -> Any:
        # (Every top, the refused ones too, whatever the read asks for.)
        out = big_tops(patches, fig, layout, config, stands)
        tops = []
        for t in out:
            patch = patches[t.patch]
            top = patch.tops[t.top]
            tops.append(
                {
                    **t._asdict(),
                    "along": top.length / (cfg.top_length_sides * patch.side),
                    "across": top.width / (cfg.top_width_sides * patch.side),
                    "cells": top.cells,
                    "side": patch.side,
                }
            )
        searches.append({"figure": fig.name, "tops": tops})
        return out

    def pawns_recorded(*args: Any, **kwargs: Any) -> Any:
        measures: list[figures.PawnMeasures] = []
        out = find_figure(*args, **kwargs, measures=measures)
        fig = args[1]
        searches.append({"figure": fig.name, "feet": [m._asdict() for m in measures]})
        return out

    obs = read_with(
        reader,
        image,
        {
            (figures, "big_tops"): tops_recorded,
            (figures, "find_figure"): pawns_recorded,
            (pipeline, "find_figure"): pawns_recorded,
        },
    )
    if obs.occluded:
        return None
    geo = reader.geometry()
    x0, y0, _, _ = geo.crop
    pieces = {}
    for p in truth["pieces"]:
        name = f"grande:{p['colour']}" if p["kind"] == "grande" else p["kind"]
        if p["kind"] in ("grande", "king", "charlemagne"):
            pieces[name] = {
                "area": p["area"],
                "x": (p["image"][0] - x0) * geo.scale,
                "y": (p["image"][1] - y0) * geo.scale,
                "read": obs.figures.get(name),
                "reach": 2 * float(reader.layout.pieces["cube"]) * geo.mm_px,
            }
    return {"seed": seed, "pieces": pieces, "searches": searches}


def own_and_rival(record: dict[str, Any], name: str) -> tuple[Any, Any]:
    """The piece's own candidate (the nearest within two cube sides of where the truth has
    it, in the search where it is most like one) and the best other candidate (not refused)
    of that search."""
    g = record["pieces"][name]
    best: tuple[Any, Any] = (None, None)
    for search in record["searches"]:
        if search["figure"] != name:
            continue
        found = search.get("tops", search.get("feet", []))
        own = min(found, key=lambda t: math.hypot(t["x"] - g["x"], t["y"] - g["y"]), default=None)
        if own is not None and math.hypot(own["x"] - g["x"], own["y"] - g["y"]) > g["reach"]:
            own = None
        rival = max(
            (t for t in found if t is not own and not t.get("refused")),
            key=lambda t: t["like"],
            default=None,
        )
        first = best[0] is None and best[1] is None
        if first or (own is not None and (best[0] is None or own["like"] > best[0]["like"])):
            best = (own, rival)
    return best


def _row(c: Any) -> str:
    if c is None:
        return "-"
    if "fit" in c:
        return (
            f"fit {c['fit']:.2f} thick {c['thick']:.2f} spread {c['spread']:.2f} "
            f"like {c['like']:.2f}"
        )
    return (
        f"thick {c['thick']:.2f} size {c['size']:.2f} like {c['like']:.2f} cells "
        f"{c['along']:.2f}x{c['across']:.2f}/{c['cells']} {c['refused'] or 'ok'}"
    )


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("game", nargs="?", default="el-grande")
    ap.add_argument("--first", type=int, default=100)
    ap.add_argument("--cases", type=int, default=200)
    ap.add_argument("--out", help="JSON lines of every seed's candidates")
    args = ap.parse_args()
    sink = open(args.out, "w") if args.out else None  # noqa: SIM115 (closed below)
    try:
        for seed in range(args.first, args.first + args.cases):
            record = seed_candidates(args.game, seed)
            if record is None:
                print(f"{seed}: not read", flush=True)
                continue
            if sink is not None:
                sink.write(json.dumps(record) + "\n")
                sink.flush()
            for name, g in sorted(record["pieces"].items()):
                own, rival = own_and_rival(record, name)
                mark = "ok" if g["read"] == g["area"] else f"WRONG ({g['read']})"
                print(f"{seed} {name} {g['area']} {mark}: own {_row(own)}; rival {_row(rival)}")
    finally:
        if sink is not None:
            sink.close()


if __name__ == "__main__":
    main()
