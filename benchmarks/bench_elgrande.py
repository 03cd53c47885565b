"""El Grande random self-play: whole games of random legal moves (2 and 5 players).

Each game is timed three ways, each as the median of several runs of the same seeded games:
- full: ``legal_moves`` + ``push`` (with the undo copy) + the invariant checks of ``selfplay``;
- engine: ``legal_moves`` + ``push`` alone (what a hint search pays);
- baseline: a bare loop doing ``random.choice`` over lists of the same lengths, the same number
  of times - the floor any random player pays.
"""

from __future__ import annotations

import random

from benchmarks.timing import fmt, median_seconds
from companion.games.elgrande.selfplay import play_random_game

GAMES = 10
SEEDS = range(1000, 1000 + GAMES)


def _lengths(players: int, seed: int) -> list[int]:
    """How many legal moves each position of one game offered."""
    game, _ = play_random_game(players, seed, check=False)
    lengths = []
    while game.move_stack:
        game.pop()
        lengths.append(len(game.legal_moves()))
    return lengths


def main() -> None:
    print(f"{GAMES} seeded random games per run, median of 5 runs, one core")
    for players in (2, 5):
        lengths = [_lengths(players, s) for s in SEEDS]
        moves = sum(len(x) for x in lengths)
        pools = [[list(range(n)) for n in game] for game in lengths]

        def bare(pools: list[list[list[int]]] = pools) -> None:
            rng = random.Random(0)
            for game in pools:
                for pool in game:
                    rng.choice(pool)

        def engine(players: int = players) -> None:
            for s in SEEDS:
                play_random_game(players, s, check=False)

        def full(players: int = players) -> None:
            for s in SEEDS:
                play_random_game(players, s, check=True)

        base = median_seconds(bare, runs=5) / GAMES
        eng = median_seconds(engine, runs=5) / GAMES
        chk = median_seconds(full, runs=5) / GAMES
        per_move = eng / (moves / GAMES)
        print(f"{players} players: {moves / GAMES:.0f} moves per game")
        print(f"  random.choice baseline : {fmt(base)} per game")
        print(
            f"  engine (legal + push)  : {fmt(eng)} per game, {1 / eng:,.0f} games/s, "
            f"{fmt(per_move)} per move ({eng / base:.0f}x baseline)"
        )
        print(
            f"  with invariant checks  : {fmt(chk)} per game, {1 / chk:,.0f} games/s "
            f"({chk / base:.0f}x baseline)"
        )


if __name__ == "__main__":
    main()
