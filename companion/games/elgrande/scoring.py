"""Scoring one area (rules/el-grande.md 5.1): places after the tie rule, values in force, bonuses.

Pure functions of plain mappings, so the game engine, position analysis and the special scoring
cards all score through the same code.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from companion.games.elgrande.board import CASTILLO, PRINTED_VALUES, Values
from companion.games.majority import sole_leader, tie_places

KING_BONUS = 2
GRANDE_BONUS = 2


@dataclass(frozen=True)
class AreaScore:
    """What scoring one area gives, and why."""

    area: str
    values: Values
    counts: Mapping[str, int]
    places: Mapping[str, int]
    points: Mapping[str, int]
    king_bonus: str | None
    grande_bonus: str | None
    total: Mapping[str, int]

    def as_json(self) -> dict[str, object]:
        return {
            "values": list(self.values),
            "counts": dict(self.counts),
            "places": dict(self.places),
            "points": dict(self.points),
            "king_bonus": self.king_bonus,
            "grande_bonus": self.grande_bonus,
            "total": dict(self.total),
        }


def values_in_force(
    area: str,
    scoreboards: Mapping[str, Values],
    players: int,
    *,
    printed: Mapping[str, Values] = PRINTED_VALUES,
) -> Values:
    """A mobile scoreboard's values if one lies on ``area``, else the printed ones; then the
    player-count rule: 2 players score only the first value, 3 players the first two."""
    first, second, third = scoreboards.get(area, printed[area])
    if players <= 2:
        return (first, 0, 0)
    if players == 3:
        return (first, second, 0)
    return (first, second, third)


def score_area(
    area: str,
    counts: Mapping[str, int],
    values: Values,
    *,
    king_region: str,
    grandes: Mapping[str, str],
    first_only: bool = False,
) -> AreaScore:
    """Score one area. ``counts`` are caballeros per colour there (grandes, king, courts never
    count); ``grandes`` maps colour -> the region his grande stands in. ``first_only`` is the card
    that scores first places only (a tie for first scores nothing)."""
    present = {colour: n for colour, n in counts.items() if n > 0}
    places = tie_places(present)
    points: dict[str, int] = {}
    for colour, place in places.items():
        value = values[place - 1] if place <= 3 else 0
        if first_only and place != 1:
            value = 0
        points[colour] = value
    leader = sole_leader(present)
    king_bonus = leader if area == king_region and area != CASTILLO else None
    grande_bonus = leader if leader is not None and grandes.get(leader) == area else None
    total = dict(points)
    for bonus_holder, bonus in ((king_bonus, KING_BONUS), (grande_bonus, GRANDE_BONUS)):
        if bonus_holder is not None:
            total[bonus_holder] = total.get(bonus_holder, 0) + bonus
    return AreaScore(area, values, present, places, points, king_bonus, grande_bonus, total)


def add_totals(scores: Iterable[AreaScore], players: Iterable[str]) -> dict[str, int]:
    """Sum the totals of several scored areas, with every player present (0 if nothing)."""
    result = dict.fromkeys(players, 0)
    for score in scores:
        for colour, points in score.total.items():
            result[colour] = result.get(colour, 0) + points
    return result
