"""Distinct bids: El Grande's power cards and Carolus Magnus's number discs.

Both games let each player in turn play one value from his hand, and forbid a value that someone
already played this round. Carolus Magnus adds an escape: if every value left in the hand has
already been played, the player may repeat one (and then counts as lower than the earlier player).
"""

from collections.abc import Collection, Iterable


def allowed_bids(
    hand: Iterable[int], played: Collection[int], *, repeat_when_forced: bool
) -> list[int]:
    """The values of ``hand`` a player may play, given the values ``played`` this round."""
    values = sorted(set(hand))
    fresh = [v for v in values if v not in played]
    if fresh or not repeat_when_forced:
        return fresh
    return values
