"""An El Grande position: what stands on the table (spec/positions.md), read and written as JSON."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from companion.games.elgrande.board import Values
from companion.games.elgrande.options import Options


@dataclass(frozen=True)
class Position:
    """What stands on the table at one moment.

    ``areas`` maps every area id (the 9 regions and ``castillo``) to the caballeros per colour
    there (colours with 0 omitted). ``grandes`` maps colour -> region. ``scoreboards`` maps an
    area -> the mobile scoreboard's values lying there.
    """

    players: tuple[str, ...]
    king: str
    grandes: Mapping[str, str]
    areas: Mapping[str, Mapping[str, int]]
    scoreboards: Mapping[str, Values] = field(default_factory=dict)
    courts: Mapping[str, int] = field(default_factory=dict)
    provinces: Mapping[str, int] = field(default_factory=dict)
    scores: Mapping[str, int] = field(default_factory=dict)
    round: int = 1
    options: Options = field(default_factory=Options)
