"""Random self-play: whole games of random legal moves, with the invariants checked after every
move (``companion selfplay --game el-grande``)."""

from __future__ import annotations

import random
import time

from companion.games.api import SelfplayReport
from companion.games.elgrande.board import COLOURS
from companion.games.elgrande.cards import CARDS
from companion.games.elgrande.game import Game
from companion.games.elgrande.invariants import check_move
from companion.games.elgrande.moves import Move, Reveal
from companion.games.elgrande.options import Options
from companion.games.elgrande.rules import check_players

GAME_ID = "el-grande"
MAX_MOVES = 5000  # far above any real game: a guard against a rules bug that loops


def random_move(game: Game, rng: random.Random) -> Move:
    """A random legal move; turning up an action card draws a physical card, so a kind of card
    with several copies comes up more often."""
    moves = game.legal_moves()
    if isinstance(moves[0], Reveal):
        stack = CARDS[moves[0].card].stack
        copies = game.state.stacks[stack]
        return rng.choices(moves, weights=[copies[m.card] for m in moves])[0]  # type: ignore[attr-defined]
    return rng.choice(moves)


def play_random_game(
    players: int | list[str],
    seed: int,
    *,
    options: Options | None = None,
    check: bool = True,
) -> tuple[Game, list[str]]:
    """One random game to the end; returns the game and the invariant violations found."""
    colours = list(COLOURS[:players]) if isinstance(players, int) else players
    rng = random.Random(seed)
    game = Game.new(colours, seed=rng.randrange(2**32), options=options)
    violations: list[str] = []
    while game.outcome() is None:
        if len(game.move_stack) >= MAX_MOVES:
            violations.append(f"game not over after {MAX_MOVES} moves (phase {game.phase})")
            break
        move = random_move(game, rng)
        game.push(move)
        if check:
            violations.extend(check_move(game.previous_state(), game.state, move))
    return game, violations


def selfplay(players: int, games: int, seed: int) -> SelfplayReport:
    """Play ``games`` random games of ``players`` players from ``seed``; list what broke."""
    check_players(COLOURS[:players] if 2 <= players <= 5 else [""] * players)
    violations: list[str] = []
    moves = 0
    started = time.perf_counter()
    for i in range(games):
        game, found = play_random_game(players, seed * 1_000_003 + i)
        moves += len(game.move_stack)
        violations.extend(f"game {i + 1}: {v}" for v in found)
    seconds = time.perf_counter() - started
    return SelfplayReport(GAME_ID, players, games, moves, seconds, violations)
