"""Move notation: every move's text reads back as the same value; bad text is refused clearly."""

from __future__ import annotations

import random

import pytest

from companion.games.elgrande.moves import (
    MOVE_TYPES,
    Announce,
    MoveCaballero,
    MoveScoreboard,
    Place,
    parse_move,
)
from companion.games.elgrande.selfplay import play_random_game
from companion.games.errors import NotationError


def test_every_move_of_random_games_round_trips_through_its_text() -> None:
    seen: set[type] = set()
    for seed in range(6):
        game, _ = play_random_game(2 + seed % 4, seed, check=False)
        for move in game.move_stack:
            assert parse_move(str(move)) == move
            seen.add(type(move))
    # the common kinds of move all occur in a few random games
    assert len(seen) >= 15, sorted(t.__name__ for t in set(MOVE_TYPES) - seen)


def test_text_and_repr() -> None:
    move = parse_move("red place castillo 2")
    assert move == Place("red", "castillo", 2)
    assert str(move) == "red place castillo 2"
    assert repr(move) == "Place(player='red', area='castillo', count=2)"
    assert parse_move("  blue   move red galicia aragon ") == MoveCaballero(
        "blue", "red", "galicia", "aragon"
    )
    assert str(MoveScoreboard("red", (8, 4, 0), "valencia")) == "red scoreboard 8-4-0 valencia"


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("", "a move is"),
        ("red", "a move is"),
        ("red fly galicia", "unknown verb 'fly'"),
        ("red place galicia", "expected <colour> place <area> <n>"),
        ("red place galicia two", "count must be a whole number"),
        ("red power -3", "value must be a whole number"),
        ("red scoreboard 8-4 galicia", "three numbers like 8-4-0"),
        ("red act now", "expected <colour> act"),
        ("red announce", "expected <colour> announce act|skip"),
        ("red announce maybe", "choice must be act or skip, not 'maybe'"),
    ],
)
def test_bad_text_is_refused_with_what_was_expected(text: str, message: str) -> None:
    with pytest.raises(NotationError, match=message):
        parse_move(text)


def test_the_announcement_reads_back() -> None:
    for choice in ("act", "skip"):
        move = parse_move(f"red announce {choice}")
        assert move == Announce("red", choice)
        assert str(move) == f"red announce {choice}"


def test_notation_errors_are_value_errors() -> None:
    with pytest.raises(ValueError):
        parse_move("nonsense")


def test_moves_are_hashable_values() -> None:
    rng = random.Random(3)
    a = Place("red", rng.choice(["galicia", "aragon"]), 1)
    b = Place("red", a.area, 1)
    assert a == b and hash(a) == hash(b) and len({a, b}) == 1
    with pytest.raises(AttributeError):
        a.count = 2  # type: ignore[misc]
