"""Labelled cube tops of the hard renders: each patch the reader counts, its whole tops and the
cubes the renderer put under it (the data companion/vision/top_model.json is fitted on, see
benchmarks/train_top_model.py). Patches are cached per game and seed under
``$TMPDIR/companion-tops``, keyed by the reader's source (a changed reader measures other
patches: they are collected again).

    python -m benchmarks.top_tops [el-grande|carolus-magnus] [--first 100] [--cases 60]
"""

from __future__ import annotations

import argparse
import pickle
from dataclasses import dataclass, fields
from typing import Any

import numpy as np

from benchmarks.bench_vision import POSITIONS
from benchmarks.vision_errors import CACHE, VISION, hard_case, source_digest
from companion.vision import cubes, pipeline

TOPS = CACHE.parent / "companion-tops"


# (The reader and the renderer: either changes the patches.)
_VERSION = source_digest(VISION)


@dataclass(frozen=True)
class Labelled:
    """One patch as the read counted it (count_colours), and its truth."""

    game: str
    seed: int
    colour: str
    patch: cubes.Patch
    factor: float
    black: bool
    clusters: bool
    ragged: float | None
    truth: int  # cubes (not hidden) whose image centre lies on or next to this patch
    areas: tuple[str, ...] = ()  # the areas those cubes stand in (a court's row, a region...)


def astuple_shallow(item: Labelled) -> tuple[Any, ...]:
    """A labelled patch's fields (not copied deep, as dataclasses.astuple would)."""
    return tuple(getattr(item, f.name) for f in fields(item))


def _owners(patches: list[cubes.Patch], points: list[tuple[float, float]]) -> list[int | None]:
    """The patch each cube's image centre lies on or nearest to (within 0.8 side), or None."""
    out: list[int | None] = []
    for tx, ty in points:
        best, dist = None, 1e9
        for i, p in enumerate(patches):
            x, y, w, h = p.bbox
            if tx < x - 30 or tx > x + w + 30 or ty < y - 30 or ty > y + h + 30:
                continue
            ys, xs = np.nonzero(p.comp)
            if not len(xs):
                continue
            d = float(np.min(np.hypot(xs + x - tx, ys + y - ty)))
            if d < dist:
                best, dist = i, d
        out.append(best if best is not None and dist <= 0.8 * patches[best].side else None)
    return out


def seed_patches(game: str, seed: int) -> list[Labelled]:
    """The labelled patches of one hard seed of a game (cached); none from a frame read as
    occluded."""
    path = TOPS / f"{game}-{seed}-{_VERSION}.pickle"
    if path.exists():
        # (Stored as plain tuples: a dataclass pickled from this module run as a script would
        # load only there.)
        return [Labelled(*row) for row in pickle.loads(path.read_bytes())]
    # (No reader from a setup frame hiding a corner marker, as seed 221's: nothing to label.)
    reader, image, truth = hard_case(game, seed)
    calls: list[tuple[list[cubes.Patch], float, dict[str, Any]]] = []
    original = pipeline.count_colours

    def spy(colours: list[cubes.ColourPatches], config: Any, **kw: Any) -> Any:
        for c in colours:
            calls.append((c.patches, c.factor, {**kw, "black": c.black, "ragged": c.ragged}))
        return original(colours, config, **kw)

    out: list[Labelled] = []
    if reader is None:
        TOPS.mkdir(parents=True, exist_ok=True)
        path.write_bytes(pickle.dumps(out))
        return out
    pipeline.count_colours = spy  # type: ignore[assignment]
    try:
        obs = reader.read(image)
    finally:
        pipeline.count_colours = original
    if not obs.occluded:
        geo = reader._geometry
        assert geo is not None
        x0, y0 = geo.crop[:2]
        for colour, (patches, factor, kw) in zip(list(reader.last_factors), calls, strict=True):
            seen = [c for c in truth["cubes"] if c["colour"] == colour and not c["occluded"]]
            points = [
                ((c["image"][0] - x0) * geo.scale, (c["image"][1] - y0) * geo.scale) for c in seen
            ]
            owners = _owners(patches, points)
            areas = [c["area"] for c in seen]
            for i, p in enumerate(patches):
                out.append(
                    Labelled(
                        game,
                        seed,
                        colour,
                        p.measured(),  # (the fit reads every top's measures)
                        factor,
                        bool(kw.get("black")),
                        bool(kw.get("clusters")),
                        kw.get("ragged"),
                        owners.count(i),
                        tuple(sorted({a for a, o in zip(areas, owners, strict=True) if o == i})),
                    )
                )
    TOPS.mkdir(parents=True, exist_ok=True)
    path.write_bytes(pickle.dumps([astuple_shallow(item) for item in out]))
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("games", nargs="*", default=list(POSITIONS))
    ap.add_argument("--first", type=int, default=100)
    ap.add_argument("--cases", type=int, default=60)
    args = ap.parse_args()
    for game in args.games:
        for seed in range(args.first, args.first + args.cases):
            print(game, seed, len(seed_patches(game, seed)), flush=True)


if __name__ == "__main__":
    main()
