"""Placing caballeros from the court (rules 2.4.3 and 3): next to the king or the Castillo, up to
the card's stack number, never into the king's region; placing and the special action do not
interleave."""

from __future__ import annotations

import pytest

from companion.games.elgrande.game import Game
from companion.games.elgrande.moves import Act, EndTurn, Place, parse_move
from companion.games.elgrande.scenario import scenario

BOARD = {
    "players": ["red", "blue", "green"],
    "king": "galicia",
    "grandes": {"red": "aragon", "blue": "sevilla", "green": "valencia"},
    "areas": {"aragon": {"red": 2}, "sevilla": {"blue": 2}, "valencia": {"green": 2}},
}


def at_turn(card: str, **extra: object) -> Game:
    return scenario({**BOARD, **extra, "turn": {"player": "red", "card": card}})


def test_targets_are_the_kings_neighbours_and_the_castillo() -> None:
    game = at_turn("move3-any")  # stack 1: one caballero
    places = {m.area for m in game.legal_moves() if isinstance(m, Place)}
    assert places == {"pais_vasco", "castilla_la_vieja", "castillo"}
    assert "king's region (galicia)" in (game.why_illegal(parse_move("red place aragon 1")) or "")
    assert "taboo" in (game.why_illegal(parse_move("red place galicia 1")) or "")


def test_the_stack_number_limits_the_caballeros_placed() -> None:
    game = at_turn("court-2")  # stack 4
    counts = {m.count for m in game.legal_moves() if isinstance(m, Place)}
    assert counts == {1, 2, 3, 4}
    game.push(parse_move("red place castillo 3"))
    assert "1 more" in (game.why_illegal(parse_move("red place pais_vasco 2")) or "")
    game.push(parse_move("red place pais_vasco 1"))
    assert not any(isinstance(m, Place) for m in game.legal_moves())
    assert game.state.areas["castillo"]["red"] == 3
    assert game.state.courts["red"] == 3


def test_the_court_limits_the_caballeros_placed() -> None:
    game = at_turn("king", courts={"red": 2})
    assert max(m.count for m in game.legal_moves() if isinstance(m, Place)) == 2
    assert "only 2 caballeros in his court" in (
        game.why_illegal(parse_move("red place castillo 3")) or ""
    )


def test_placing_is_finished_once_the_special_action_starts() -> None:
    game = at_turn("court-2")
    game.push(parse_move("red place castillo 1"))
    game.push(Act("red"))  # The Court: 2 more into the court, at once
    assert game.state.courts["red"] == 8
    # the turn is over: placement may not resume after the special action
    assert game.to_act == ("blue",)


def test_special_action_first_then_placing() -> None:
    game = at_turn("court-2")
    game.push(Act("red"))
    assert game.phase == "action" and game.to_act == ("red",)
    assert "act" not in {m.VERB for m in game.legal_moves()}
    game.push(parse_move("red place castilla_la_vieja 4"))
    assert game.to_act == ("blue",)  # all placed and the action used: the turn ends
    assert game.state.areas["castilla_la_vieja"]["red"] == 4


def test_ending_the_turn_forfeits_what_is_left() -> None:
    game = at_turn("king")
    game.push(parse_move("red place castillo 1"))
    game.push(EndTurn("red"))
    assert game.to_act == ("blue",)
    assert game.state.courts["red"] == 6


@pytest.mark.parametrize("card", ["move3-any", "veto", "score-4", "court-2", "king"])
def test_each_stack_allows_its_number(card: str) -> None:
    game = at_turn(card)
    most = max(m.count for m in game.legal_moves() if isinstance(m, Place))
    assert most == game.state.step["limit"] and most in (1, 2, 3, 4, 5)
