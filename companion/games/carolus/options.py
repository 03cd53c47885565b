"""Rule options: every **[open]** point of rules/carolus-magnus.md, with the page's default."""

from __future__ import annotations

from dataclasses import asdict, dataclass, fields
from typing import Any

from companion.games.errors import PositionError

# The allowed values of each text option; the first is the default.
CHOICES: dict[str, tuple[str, ...]] = {
    # 3.3: how many knights of an exhausted colour each court gives back.
    "exhausted_colour_return": ("min", "none"),
    # 4: who wins when the most castles on the board are tied.
    "end_tiebreak": ("cylinders", "shared"),
    # 3.2: a take-over with too few castles left: replace as many as possible, or none at all.
    "takeover_shortfall": ("partial", "keep"),
}


@dataclass(frozen=True)
class Options:
    """The table's choices for the unsettled rules, saved with each game."""

    exhausted_colour_return: str = "min"
    end_tiebreak: str = "cylinders"
    takeover_shortfall: str = "partial"
    team_talk: bool = False  # 5: partners may talk; the UI then may show hints to partners
    cubes_per_colour: int = 40  # 1: "about 40" per colour [data]

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_dict(cls, raw: object, path: str = "options") -> Options:
        """Options from JSON; unknown names or bad values are a PositionError naming the path."""
        if raw is None:
            return cls()
        if not isinstance(raw, dict):
            raise PositionError(path, "must be an object of rule options")
        known = {f.name for f in fields(cls)}
        values: dict[str, Any] = {}
        for name, value in raw.items():
            where = f"{path}.{name}"
            if name not in known:
                raise PositionError(
                    where, f"unknown rule option (known: {', '.join(sorted(known))})"
                )
            if name in CHOICES:
                if value not in CHOICES[name]:
                    raise PositionError(where, f"{value!r} is not one of {list(CHOICES[name])}")
            elif name == "team_talk":
                if not isinstance(value, bool):
                    raise PositionError(where, f"{value!r} must be true or false")
            elif name == "cubes_per_colour" and (
                not isinstance(value, int) or isinstance(value, bool) or not 15 <= value <= 99
            ):
                raise PositionError(where, f"{value!r} must be a whole number from 15 to 99")
            values[name] = value
        return cls(**values)
