"""What the castles' thresholds (VisionConfig.castle_thickness, black_castle_share,
white_castle_share) stand on: every hueless blob the castle search measures on a tile of hard
Carolus renders (castles.castle_blobs), by the castle that stands on that tile (the truth), and
the castles the read gets wrong. Renders are cached as vision_errors caches them.

    python -m benchmarks.fit_castles [--first 100] [--cases 200]
"""

from __future__ import annotations

import argparse
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from benchmarks.vision_errors import hard_case, read_with
from companion.vision import castles
from companion.vision.config import DEFAULT_CONFIG
from companion.vision.layout import load_layout

GAME = "carolus-magnus"


@dataclass(frozen=True)
class Seen:
    """One tile's castle (None: no castle there) and the blobs measured there."""

    seed: int
    tile: str
    castle: str | None
    blobs: tuple[castles.CastleBlob, ...]
    read: str | None


def seed_castles(seed: int) -> list[Seen]:
    """Every tile of one hard seed with a castle or a blob on it (none from a frame not read:
    a corner marker hidden, or taken for a hand)."""
    reader, image, truth = hard_case(GAME, seed)
    if reader is None:
        return []
    measured: list[castles.CastleBlob] = []
    original = castles.castle_blobs

    def kept(*args: Any, **kwargs: Any) -> list[castles.CastleBlob]:
        out = original(*args, **kwargs)
        measured.extend(out)
        return out

    obs = read_with(reader, image, {(castles, "castle_blobs"): kept})
    if obs.occluded:
        return []
    tiles = {t.id for t in load_layout(GAME).tiles}
    standing = {
        p["area"]: p["colour"]
        for p in truth["pieces"]
        if p["kind"] == "castle" and p["area"] in tiles
    }
    read = dict(obs.castles)
    out = []
    for tile in sorted(tiles):
        blobs = tuple(b for b in measured if b.place == tile)
        if blobs or tile in standing:
            out.append(Seen(seed, tile, standing.get(tile), blobs, read.get(tile)))
    return out


def _span(values: Iterable[float]) -> str:
    v = sorted(values)
    return f"{v[0]:.3f}-{v[-1]:.3f}" if v else "-"


def report(seen: list[Seen], thickness: float = DEFAULT_CONFIG.castle_thickness) -> list[str]:
    """Per castle colour: how thick its thickest blob is and how light the thick blobs are;
    then every castle read wrong and every thick blob where no castle stands."""
    lines = []
    for colour in ("black", "grey", "white", None):
        of = [s for s in seen if s.castle == colour]
        thickest = [max((b.thickness for b in s.blobs), default=0.0) for s in of]
        light = [b.lightness for s in of for b in s.blobs if b.thickness >= thickness]
        name = colour or "no castle"
        lines.append(
            f"  {name}: {len(of)} tiles; thickest blob {_span(thickest)}; "
            f"lightness of blobs from {thickness} thick {_span(light)}"
        )
    for s in seen:
        if s.read != s.castle:
            blobs = ", ".join(
                f"thick {b.thickness:.3f} light {b.lightness:.3f} whole {b.whole_lightness:.3f} "
                f"area {b.area:.2f}"
                for b in s.blobs
            )
            lines.append(
                f"  seed {s.seed} {s.tile}: {s.castle} read {s.read} ({blobs or 'no blob'})"
            )
    return lines


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--first", type=int, default=100)
    ap.add_argument("--cases", type=int, default=200)
    args = ap.parse_args()
    seen = [s for seed in range(args.first, args.first + args.cases) for s in seed_castles(seed)]
    print(
        f"{len(seen)} tiles with a castle or a blob, hard seeds {args.first}-"
        f"{args.first + args.cases - 1}"
    )
    print("\n".join(report(seen)))


if __name__ == "__main__":
    main()
