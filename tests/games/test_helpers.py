"""The shared majority and bid helpers, on the rules pages' worked examples."""

from companion.games.bids import allowed_bids
from companion.games.majority import sole_leader, takes_over, tie_places


def test_tie_places_first_worked_example() -> None:
    # el-grande.md 5.1: values 5/3/1; red 4, yellow 4, blue 4, green 3.
    places = tie_places({"red": 4, "yellow": 4, "blue": 4, "green": 3})
    assert places == {"red": 2, "yellow": 2, "blue": 2, "green": 3}


def test_tie_places_second_worked_example() -> None:
    # values 6/4/2; red 4, blue 3, yellow 2, green 2 -> yellow and green drop to 4th.
    places = tie_places({"red": 4, "blue": 3, "yellow": 2, "green": 2})
    assert places == {"red": 1, "blue": 2, "yellow": 4, "green": 4}


def test_tie_places_ignores_absent_players() -> None:
    assert tie_places({"red": 0, "blue": 2}) == {"blue": 1}


def test_sole_leader() -> None:
    assert sole_leader({"a": 3, "b": 2}) == "a"
    assert sole_leader({"a": 3, "b": 3}) is None
    assert sole_leader({"a": 0, "b": 0}) is None
    assert sole_leader({}) is None


def test_takes_over_needs_strictly_more() -> None:
    assert takes_over(None, 1)
    assert not takes_over(None, 0)
    assert not takes_over(6, 6)
    assert takes_over(6, 7)


def test_allowed_bids() -> None:
    assert allowed_bids([1, 2, 3], {2}, repeat_when_forced=False) == [1, 3]
    assert allowed_bids([2], {2}, repeat_when_forced=False) == []
    assert allowed_bids([2, 4], {2, 4}, repeat_when_forced=True) == [2, 4]
