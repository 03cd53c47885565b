"""Carolus Magnus engine speed: analysis of a position and random self-play throughput.

Each figure is the median of several runs; each has a baseline measured in the same run so the
ratio means something on any machine: analysis against ``json.loads`` of the same position text,
self-play against a bare loop that draws the same number of random choices.
"""

from __future__ import annotations

import json
import random
import statistics
from pathlib import Path

from benchmarks.timing import fmt, median_seconds
from companion.games.carolus.api import analyze_position
from companion.games.carolus.game import Game
from companion.games.carolus.position import to_position
from companion.games.carolus.selfplay import random_move, selfplay

POSITION = Path(__file__).parents[1] / "tests" / "data" / "carolus" / "worked_example.json"
RUNS = 7
GAMES = 10


def bench_analyze() -> None:
    text = POSITION.read_text()
    data = json.loads(text)
    engine = median_seconds(lambda: analyze_position(data), runs=RUNS, number=20)
    baseline = median_seconds(lambda: json.loads(text), runs=RUNS, number=2000)
    print(
        f"analyze worked_example.json: {fmt(engine)} "
        f"(baseline json.loads of the same text: {fmt(baseline)}; ratio {engine / baseline:.0f}x)"
    )


def mid_game(players: int, seed: int, round_: int) -> dict[str, object]:
    """A position from a seeded random game: the first knights of round ``round_``."""
    game = Game.new(players, seed=seed)
    rng = random.Random(seed)
    while not (game.state.round == round_ and game.phase == "knights"):
        game.push(random_move(game, rng))
    return to_position(game)


def bench_analyze_mid_game() -> None:
    for players in (2, 3, 4):
        data = mid_game(players, seed=1, round_=4)
        text = json.dumps(data)
        engine = median_seconds(lambda data=data: analyze_position(data), runs=RUNS, number=3)
        baseline = median_seconds(lambda text=text: json.loads(text), runs=RUNS, number=1000)
        print(
            f"analyze a {players}-player position of round 4 (full reserves, threats searched): "
            f"{fmt(engine)} (json.loads ratio {engine / baseline:.0f}x)"
        )


def bench_selfplay(players: int) -> None:
    seconds = []
    moves = []
    for run in range(RUNS):
        report = selfplay(players, GAMES, seed=run)
        seconds.append(report.seconds)
        moves.append(report.moves)
        assert not report.violations, report.violations[:3]
    engine = statistics.median(seconds)
    n_moves = int(statistics.median(moves))
    # Baseline: as many bare random choices from a 16-element list as the games had moves.
    rng = random.Random(0)
    options = list(range(16))
    baseline = median_seconds(lambda: [rng.choice(options) for _ in range(n_moves)], runs=RUNS)
    print(
        f"selfplay {players} players: {GAMES / engine:.1f} games/s, {n_moves / engine:.0f} "
        f"moves/s with invariants checked (bare choice loop ratio {engine / baseline:.0f}x)"
    )


def main() -> None:
    print(f"Carolus Magnus (median of {RUNS} runs)")
    bench_analyze()
    bench_analyze_mid_game()
    for players in (2, 3, 4):
        bench_selfplay(players)


if __name__ == "__main__":
    main()
