"""Random legal games (hypothesis): invariants after every move, undo restores exactly."""

from __future__ import annotations

import contextlib
import json
import random

from hypothesis import given, settings
from hypothesis import strategies as st

from companion.games.carolus.analysis import analyze
from companion.games.carolus.game import Game
from companion.games.carolus.moves import Charlemagne, Move
from companion.games.carolus.position import from_state, to_position, to_state
from companion.games.carolus.selfplay import (
    invariant_violations,
    random_move,
    selfplay,
)
from companion.games.errors import IllegalMove


@settings(max_examples=25, deadline=None)
@given(
    players=st.sampled_from([2, 3, 4]),
    seed=st.integers(0, 2**31 - 1),
    undo=st.integers(1, 40),
)
def test_random_game_keeps_invariants_and_undoes(players: int, seed: int, undo: int) -> None:
    rng = random.Random(seed)
    game = Game.new(players, seed=seed)
    states = [to_state(game)]
    while not game.is_game_over() and not game.is_stalled() and len(states) < 3000:
        legal = list(game.legal_moves())
        move = random_move(game, rng)
        assert game.is_legal(move)
        if not game.dice_to_roll():
            assert move in legal
        game.push(move)
        assert invariant_violations(game.state) == []
        states.append(to_state(game))
    assert game.is_game_over() or game.is_stalled()
    if game.is_game_over():
        outcome = game.outcome()
        assert outcome is not None and outcome.winners
        assert list(game.legal_moves()) == []
    # The whole state reads back from its JSON; undo walks back through the same states.
    assert to_state(from_state(json.loads(json.dumps(states[-1])))) == states[-1]
    for k in range(1, min(undo, len(states) - 1) + 1):
        game.pop()
        assert to_state(game) == states[-1 - k]


@settings(max_examples=20, deadline=None)
@given(players=st.sampled_from([2, 3, 4]), seed=st.integers(0, 10**6), moves=st.integers(0, 80))
def test_every_listed_move_is_legal_and_illegal_ones_change_nothing(
    players: int, seed: int, moves: int
) -> None:
    rng = random.Random(seed)
    game = Game.new(players, seed=seed)
    for _ in range(moves):
        if game.is_game_over():
            break
        game.push(random_move(game, rng))
    for move in game.legal_moves():
        assert game.why_illegal(move) is None
    before = to_state(game)
    other = next(p for p in game.state.players if p != game.turn)
    for text in (f"{other} charlemagne 1", f"{other} disc 1", f"{other} knight red court"):
        move = Move.parse(text)
        assert game.why_illegal(move) is not None
        with contextlib.suppress(IllegalMove):
            game.push(move)
        assert to_state(game) == before


def test_selfplay_reports_games_and_no_violations() -> None:
    report = selfplay(3, 4, seed=9)
    assert report.games == 4 and report.players == 3
    # A game that neither ends nor stalls within the move limit is a violation too.
    assert report.violations == []
    assert 0 <= report.stalled <= 4
    assert report.moves > 4 * 50


@settings(max_examples=15, deadline=None)
@given(players=st.sampled_from([2, 3, 4]), seed=st.integers(0, 10**6))
def test_the_analysis_predicts_what_each_stop_really_does(players: int, seed: int) -> None:
    rng = random.Random(seed)
    game = Game.new(players, seed=seed)
    checked = 0
    while not game.is_game_over() and not game.is_stalled() and checked < 12:
        if game.phase == "charlemagne":
            analysis = analyze(game)
            mover = game.turn
            assert mover is not None and analysis["to_move"]["player"] == mover
            for choice in analysis["choices"]:
                trial = game.copy()
                region = choice["region"]
                before = {t["id"]: t["castle"] for t in to_position(trial)["ring"]}
                trial.push(Charlemagne(mover, choice["steps"]))
                after = {t["id"]: t["castle"] for t in to_position(trial)["ring"]}
                changed = {t for t in before if before[t] != after[t]}
                if choice["outcome"] in ("keep", "none"):
                    assert changed == set()
                elif choice["outcome"] == "build":
                    assert len(changed) == 1 and changed <= set(region)
                    assert after[changed.pop()] == choice["by"]
                else:
                    assert changed and changed <= set(region)
                    assert {after[t] for t in changed} - {None} == {choice["by"]}
                groups = to_position(trial)["regions"]
                if choice["merged"] is not None:
                    assert choice["merged"] in groups
                assert len(trial.state.regions) == choice["regions_left"]
                assert (trial.outcome() is not None) == (choice["ends_game"] is not None)
            checked += 1
        game.push(random_move(game, rng))
