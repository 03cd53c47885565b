"""Majority helpers shared by both games."""

from collections.abc import Hashable, Mapping
from typing import TypeVar

K = TypeVar("K", bound=Hashable)


def sole_leader(counts: Mapping[K, int]) -> K | None:
    """The one key with strictly the highest positive count, or None on a tie or all zero."""
    best: K | None = None
    best_count = 0
    tied = False
    for key, count in counts.items():
        if count > best_count:
            best, best_count, tied = key, count, False
        elif count == best_count and count > 0:
            tied = True
    return None if tied else best


def tie_places(counts: Mapping[K, int]) -> dict[K, int]:
    """El Grande's placing: tied players all drop one place.

    Keys with a count of 0 get no place. Walk the groups of equal counts, highest first, with
    place p = 1: a group of one takes p (then p += 1); a group of k >= 2 takes p + 1 (then p += 2).
    """
    groups: dict[int, list[K]] = {}
    for key, count in counts.items():
        if count > 0:
            groups.setdefault(count, []).append(key)
    places: dict[K, int] = {}
    place = 1
    for count in sorted(groups, reverse=True):
        members = groups[count]
        if len(members) == 1:
            places[members[0]] = place
            place += 1
        else:
            for key in members:
                places[key] = place + 1
            place += 2
    return places


def takes_over(holder_count: int | None, challenger_count: int) -> bool:
    """Carolus Magnus influence: a challenger takes a colour only with strictly more than the
    holder (or, with no holder, with at least one)."""
    if holder_count is None:
        return challenger_count > 0
    return challenger_count > holder_count
