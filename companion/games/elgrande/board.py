"""The El Grande board: regions, printed values, borders, power cards (from ``data/board.json``).

Data over code: a group can correct ``board.json`` for its edition.
"""

from __future__ import annotations

import json
from importlib import resources
from typing import Any, Final

Values = tuple[int, int, int]

COLOURS: Final = ("yellow", "green", "blue", "red", "black")
CASTILLO: Final = "castillo"
CABALLEROS_PER_PLAYER: Final = 30  # 31 cubes, one of which is the score marker
SETUP_COURT: Final = 7
SETUP_PROVINCE: Final = 21
SETUP_HOME: Final = 2


def _values(raw: list[int]) -> Values:
    a, b, c = raw
    return (a, b, c)


def _load() -> dict[str, Any]:
    text = resources.files(__package__).joinpath("data/board.json").read_text(encoding="utf-8")
    data: dict[str, Any] = json.loads(text)
    return data


_DATA = _load()

REGIONS: Final[tuple[str, ...]] = tuple(_DATA["regions"])
"""The 9 regions, in the order they are scored."""

AREAS: Final[tuple[str, ...]] = (CASTILLO, *REGIONS)
"""What can hold caballeros: the Castillo first (it is scored first), then the regions."""

PRINTED_VALUES: Final[dict[str, Values]] = {
    **{region: _values(raw) for region, raw in _DATA["regions"].items()},
    CASTILLO: _values(_DATA["castillo"]),
}

NEIGHBOURS: Final[dict[str, frozenset[str]]] = {
    r: frozenset(b if a == r else a for a, b in _DATA["borders"] if r in (a, b)) for r in REGIONS
}

POWER_CARD_CABALLEROS: Final[dict[int, int]] = {
    int(card): n for card, n in _DATA["power_cards"].items()
}
"""Power card value -> most caballeros its player moves from province to court."""

NAMES: Final[dict[str, str]] = dict(_DATA["names"])
"""English display names of the areas (the UI translates them)."""

MOBILE_SCOREBOARDS: Final[tuple[Values, ...]] = tuple(
    _values(raw) for raw in _DATA["mobile_scoreboards"]
)


def adjacent(a: str, b: str) -> bool:
    """Whether two regions share a border (the Castillo borders nothing)."""
    return b in NEIGHBOURS.get(a, frozenset())
