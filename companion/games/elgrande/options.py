"""El Grande rule options: every point the rules page marks **[open]**, with the page's default.

Options are saved with each game and shown in settings; a position's ``options`` object holds only
the ones that differ from the defaults.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Literal

from companion.games.errors import PositionError

ShortGame = Literal["off", "skip_1_4_7", "stop_after_6"]
TieBreak = Literal["shared", "fewest_power_cards_left"]

_CHOICES: dict[str, tuple[str, ...]] = {
    "short_game": ("off", "skip_1_4_7", "stop_after_6"),
    "tie_break": ("shared", "fewest_power_cards_left"),
}


@dataclass(frozen=True)
class Options:
    veto: bool = True
    """The two Veto cards are played (rules 6, stack 2); off removes them from their stack."""
    scoring_cards_use_printed_values: bool = False
    """Stack-3 cards 'score regions whose first value is 4/5/6-7' read the printed value instead
    of a mobile scoreboard lying there."""
    castillo_open: bool = False
    """The Castillo's content per player is public (some online versions)."""
    power_cards_public: bool = True
    """Played power cards are shown to everyone."""
    short_game: ShortGame = "off"
    """'skip_1_4_7': play rounds 2,3,5,6,8,9 only; 'stop_after_6': end after the second scoring."""
    tie_break: TieBreak = "shared"
    """End-of-game tie: a shared victory, or fewest power cards left in hand wins (house rule)."""

    def changed(self) -> dict[str, Any]:
        """The options that differ from the defaults, as JSON."""
        default = Options()
        return {
            f.name: getattr(self, f.name)
            for f in dataclasses.fields(self)
            if getattr(self, f.name) != getattr(default, f.name)
        }

    @classmethod
    def from_json(cls, data: object, path: str = "options") -> Options:
        """Read options from JSON; unknown names and wrong types are a PositionError."""
        if not isinstance(data, Mapping):
            raise PositionError(path, "must be an object of rule options")
        fields = {f.name: f for f in dataclasses.fields(cls)}
        values: dict[str, Any] = {}
        for name, value in data.items():
            if name not in fields:
                known = ", ".join(fields)
                raise PositionError(f"{path}.{name}", f"unknown rule option (known: {known})")
            default = getattr(cls(), name)
            if isinstance(default, bool):
                if not isinstance(value, bool):
                    raise PositionError(f"{path}.{name}", f"{value!r} is not true or false")
            elif value not in _CHOICES[name]:
                choices = ", ".join(_CHOICES[name])
                raise PositionError(f"{path}.{name}", f"{value!r} is not one of: {choices}")
            values[name] = value
        return cls(**values)
