"""Random self-play with the invariants checked after every move, and checks that the invariant
checker itself notices broken states."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from companion.games.elgrande.game import Game
from companion.games.elgrande.invariants import check_move, check_state
from companion.games.elgrande.moves import EndTurn, MoveKing
from companion.games.elgrande.options import Options
from companion.games.elgrande.rules import SetupError, apply
from companion.games.elgrande.scenario import scenario
from companion.games.elgrande.selfplay import play_random_game, selfplay


@pytest.mark.parametrize("players", [2, 3, 4, 5])
def test_selfplay_report(players: int) -> None:
    report = selfplay(players, 3, seed=players)
    assert report.violations == []
    assert report.game == "el-grande" and report.games == 3 and report.players == players
    assert report.moves > 3 * 100  # a real game is hundreds of moves
    assert report.seconds > 0


def test_selfplay_refuses_a_bad_player_count() -> None:
    with pytest.raises(SetupError, match="2 to 5 players"):
        selfplay(6, 1, seed=0)
    with pytest.raises(SetupError, match="2 to 5 players"):
        selfplay(1, 1, seed=0)


@settings(max_examples=12, deadline=None)
@given(
    players=st.integers(min_value=2, max_value=5),
    seed=st.integers(min_value=0, max_value=2**32),
    veto=st.booleans(),
    printed=st.booleans(),
    short=st.sampled_from(["off", "skip_1_4_7", "stop_after_6"]),
)
def test_random_games_keep_every_invariant(
    players: int, seed: int, veto: bool, printed: bool, short: str
) -> None:
    options = Options(veto=veto, scoring_cards_use_printed_values=printed, short_game=short)  # type: ignore[arg-type]
    game, violations = play_random_game(players, seed, options=options)
    assert violations == []
    assert game.outcome() is not None


def test_the_checker_notices_a_lost_caballero() -> None:
    game = Game.new(["red", "blue"], seed=1)
    assert check_state(game.state) == []
    game.state.courts["red"] -= 1
    assert any("29 caballeros" in p for p in check_state(game.state))


def test_the_checker_notices_a_broken_taboo_and_falling_scores() -> None:
    game = Game.new(["red", "blue"], seed=1)
    before = game.state.copy()
    after = game.state
    after.areas[after.king]["blue"] += 1
    after.provinces["blue"] -= 1
    after.scores["red"] = -1
    problems = check_move(before, after, MoveKing("red", "galicia"))
    assert any("entered or left the king's region" in p for p in problems)
    assert any("red's score went down" in p for p in problems)


def test_the_checker_notices_a_duplicate_power_card_and_a_stray_king() -> None:
    game = Game.new(["red", "blue"], seed=1)
    before = game.state.copy()
    after = game.state
    after.played = {"red": 7, "blue": 7}
    after.king = next(r for r in after.areas if r not in (before.king, "castillo"))
    problems = check_move(before, after, MoveKing("red", after.king))
    assert any("played twice" in p for p in problems)
    problems = check_move(before, after, game.legal_moves()[0])
    assert any("king moved without a king move" in p for p in problems)


def test_the_checker_notices_an_announced_action_left_undone() -> None:
    game = scenario(
        {
            "players": ["red", "blue"],
            "king": "sevilla",
            "grandes": {"red": "galicia", "blue": "aragon"},
            "vetoes": {"blue": [3]},
            "round": 2,
            "turn": {"player": "red", "card": "score-castillo"},
        }
    )
    game.push_text("red announce act")
    game.push_text("blue allow")
    assert "red end" not in {str(m) for m in game.legal_moves()}
    before = game.state.copy()
    apply(game.state, EndTurn("red"))  # forced past the rules
    problems = check_move(before, game.state, EndTurn("red"))
    assert any("without the announced, allowed special action" in p for p in problems)
