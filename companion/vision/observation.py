"""The Observation: what the camera saw at one still moment (JSON contract: docs/observation.md)."""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any

from companion.vision.errors import VisionError

SCHEMA = 1


class ObservationError(VisionError, ValueError):
    """An observation document that does not follow docs/observation.md."""


def _frozen(m: Mapping[str, Any]) -> Mapping[str, Any]:
    return MappingProxyType(dict(m))


@dataclass(frozen=True)
class Observation:
    """Counts per area and colour, big pieces, dice, and what could not be read.

    An occluded observation carries no counts, pieces or dice at all: a hand over the board
    must never be mistaken for a position.
    """

    game: str
    occluded: bool = False
    counts: Mapping[str, Mapping[str, int]] = field(default_factory=dict)
    figures: Mapping[str, str | None] = field(default_factory=dict)
    castles: Mapping[str, str] = field(default_factory=dict)
    dice: tuple[str, ...] = ()
    confidence: Mapping[str, float] = field(default_factory=dict)
    unread: Mapping[str, str] = field(default_factory=dict)
    flags: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    frames: int = 1

    def __post_init__(self) -> None:
        counts = {
            area: _frozen({c: n for c, n in sorted(per.items()) if n})
            for area, per in self.counts.items()
        }
        object.__setattr__(self, "counts", _frozen(counts))
        for name in ("figures", "castles", "confidence", "unread", "flags"):
            object.__setattr__(self, name, _frozen(getattr(self, name)))
        object.__setattr__(self, "dice", tuple(self.dice))
        if self.occluded and (self.counts or self.figures or self.castles or self.dice):
            raise ObservationError("an occluded observation cannot carry counts, pieces or dice")

    def __repr__(self) -> str:
        if self.occluded:
            return f"<Observation {self.game} occluded: {self.unread.get('board', '')!r}>"
        cubes = sum(sum(per.values()) for per in self.counts.values())
        low = min(self.confidence.values(), default=1.0)
        return (
            f"<Observation {self.game} cubes={cubes} areas={len(self.counts)} "
            f"figures={dict(self.figures)} dice={list(self.dice)} min_conf={low:.2f}>"
        )

    def count(self, area: str, colour: str) -> int:
        return self.counts.get(area, {}).get(colour, 0)

    def to_json(self) -> dict[str, Any]:
        return {
            "schema": SCHEMA,
            "game": self.game,
            "occluded": self.occluded,
            "counts": {a: dict(per) for a, per in self.counts.items()},
            "figures": dict(self.figures),
            "castles": dict(self.castles),
            "dice": list(self.dice),
            "confidence": {a: round(c, 3) for a, c in self.confidence.items()},
            "unread": dict(self.unread),
            "flags": {a: list(f) for a, f in self.flags.items()},
            "frames": self.frames,
        }

    def dumps(self) -> str:
        return json.dumps(self.to_json(), indent=2, sort_keys=False)

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Observation:
        known = {
            "schema",
            "game",
            "occluded",
            "counts",
            "figures",
            "castles",
            "dice",
            "confidence",
            "unread",
            "flags",
            "frames",
        }
        extra = sorted(set(data) - known)
        if extra:
            raise ObservationError(f"observation: unknown key {extra[0]!r}")
        if data.get("schema", SCHEMA) != SCHEMA:
            raise ObservationError(f"observation: schema {data.get('schema')!r} is not {SCHEMA}")
        if not isinstance(data.get("game"), str):
            raise ObservationError("observation: 'game' must be a string")
        counts: dict[str, dict[str, int]] = {}
        for area, per in dict(data.get("counts", {})).items():
            counts[area] = {}
            for colour, n in dict(per).items():
                if not isinstance(n, int) or isinstance(n, bool) or n < 0:
                    raise ObservationError(f"counts.{area}.{colour}: {n!r} is not a count")
                counts[area][colour] = n
        return cls(
            game=data["game"],
            occluded=bool(data.get("occluded", False)),
            counts=counts,
            figures=dict(data.get("figures", {})),
            castles=dict(data.get("castles", {})),
            dice=tuple(data.get("dice", ())),
            confidence={a: float(c) for a, c in dict(data.get("confidence", {})).items()},
            unread=dict(data.get("unread", {})),
            flags={a: tuple(f) for a, f in dict(data.get("flags", {})).items()},
            frames=int(data.get("frames", 1)),
        )
