"""``companion demo``: the companion on the simulated table.

Until the live session and the tablet UI exist, the demo drives the real parts end to end in the
terminal: an El Grande game played by random legal moves, every caballero dropped into the
Castillo falling through the simulated tower (the real firmware logic behind a pseudo-terminal,
read back by the real serial link), the synthetic camera rendering the table and the vision
pipeline reading it back, each checked against the rules engine; then a Carolus Magnus analysis.
"""

from __future__ import annotations

import argparse
import queue
import random
import time
from pathlib import Path
from typing import Any

from companion.devices.tower_events import Drop, LinkStatus
from companion.devices.tower_link import TowerLink
from companion.devices.tower_sim import TowerSimulator
from companion.games import jsonio
from companion.games.api import game_api
from companion.games.elgrande.analysis import analyze, format_text
from companion.games.elgrande.board import CASTILLO
from companion.games.elgrande.game import Game
from companion.games.elgrande.moves import Done, Move, Place, Secret
from companion.games.elgrande.position import position_to_json

CAROLUS_EXAMPLE = Path(__file__).parent / "games/carolus/data/worked_example.json"


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser("demo", help="run the companion on the simulated table")
    p.add_argument("--seed", type=int, default=7, help="seed of the simulated game (default 7)")
    p.add_argument("--players", type=int, default=4, choices=range(2, 6), metavar="2..5")
    p.add_argument("--rounds", type=int, default=3, choices=range(1, 10), metavar="1..9")
    p.add_argument("--no-camera", action="store_true", help="skip the simulated camera")
    p.add_argument("--no-tower", action="store_true", help="skip the simulated tower")
    p.set_defaults(func=run)


def say(text: str = "") -> None:
    print(text, flush=True)


def run(args: argparse.Namespace) -> int:
    say("companion demo — the simulated table")
    say("=" * 72)
    players = ["red", "yellow", "blue", "green", "black"][: args.players]
    game = Game.new(players, seed=args.seed)
    setup = position_to_json(game.to_position())
    rng = random.Random(args.seed)
    problems: list[str] = []
    if args.no_tower:
        play_rounds(game, rng, args.rounds, lambda move: None)
    else:
        problems += play_with_tower(game, rng, args.rounds)
    position = game.to_position()
    say()
    scores = ", ".join(f"{c} {n}" for c, n in position.scores.items())
    say(f"El Grande after the moves above — round {game.round}; score track: {scores}")
    say("What a scoring now would give:")
    say(format_text(analyze(position)))
    if not args.no_camera:
        problems += camera_check(setup, position_to_json(position), args.seed)
    say()
    say("Carolus Magnus — the rule sheet's worked example (section 6):")
    api = game_api("carolus-magnus")
    data = jsonio.loads(CAROLUS_EXAMPLE.read_text(encoding="utf-8"))
    say(api.format_analysis(api.analyze_position(data)))
    say("=" * 72)
    if problems:
        for problem in problems:
            say(f"PROBLEM: {problem}")
        return 1
    say("demo finished: every simulated device agreed with the rules engine")
    return 0


def play_rounds(game: Game, rng: random.Random, rounds: int, on_move: Any) -> None:
    """Random legal moves until ``rounds`` rounds are played (the general scoring included)."""
    shown_round = 0
    while game.outcome() is None and game.round <= rounds:
        if game.round != shown_round:
            shown_round = game.round
            say(f"-- round {shown_round}")
        move: Move = rng.choice(game.legal_moves())
        game.push(move)
        on_move(move)
        if isinstance(move, Secret):
            # Secret choices stay hidden until the rules reveal them, on every screen.
            say(f"   {move.player} makes a secret choice")
        elif move.player != "table" and not isinstance(move, Done):
            say(f"   {move}")


def play_with_tower(game: Game, rng: random.Random, rounds: int) -> list[str]:
    """Every caballero placed into the Castillo falls through the simulated tower."""
    events: queue.Queue[object] = queue.Queue()
    dropped = 0
    with TowerSimulator(seed=rng.randrange(1 << 30), colour_sensor=True) as sim:
        say(f"simulated tower on {sim.port}")
        with TowerLink(events, port=sim.port):

            def on_move(move: Move) -> None:
                nonlocal dropped
                if isinstance(move, Place) and move.area == CASTILLO:
                    for _ in range(move.count):
                        sim.drop(colour=move.player)
                    dropped += move.count

            play_rounds(game, rng, rounds, on_move)
            drops = collect_drops(events, dropped)
    say(f"tower: {dropped} caballeros dropped, {len(drops)} drops received by the link")
    if len(drops) != dropped:
        return [f"the tower link received {len(drops)} drops, {dropped} were dropped"]
    return []


def collect_drops(events: queue.Queue[object], expected: int, timeout: float = 10.0) -> list[Drop]:
    drops: list[Drop] = []
    deadline = time.monotonic() + timeout
    while len(drops) < expected and time.monotonic() < deadline:
        try:
            event = events.get(timeout=0.1)
        except queue.Empty:
            continue
        if isinstance(event, Drop):
            drops.append(event)
        elif isinstance(event, LinkStatus) and event.state not in ("connected",):
            say(f"tower link: {event.state} {event.detail}".rstrip())
    return drops


def camera_check(setup: dict[str, Any], position: dict[str, Any], seed: int) -> list[str]:
    """The synthetic camera renders the table, the vision pipeline reads it back.

    Calibrated once on the set-up table (two caballeros of each colour in each home region), as a
    real table is; then a frame of the current table must give the engine's counts, and a frame
    with a hand over the board must give none.
    """
    from companion.vision.calibration import calibrate
    from companion.vision.layout import load_layout
    from companion.vision.pipeline import read_frame
    from companion.vision.synth import render

    layout = load_layout("el-grande")
    setup_frame, _ = render(setup, layout, seed=seed)
    calibration = calibrate(setup_frame, layout, setup)
    # The same seed keeps the simulated camera where it was at set-up, as a real rig does.
    frame, _ = render(position, layout, seed=seed)
    started = time.perf_counter()
    seen = read_frame(frame, calibration, layout)
    took = time.perf_counter() - started
    problems = []
    for region, counts in position["regions"].items():
        for colour, n in counts.items():
            if seen.count(region, colour) != n:
                problems.append(
                    f"camera saw {seen.count(region, colour)} {colour} in {region}, engine has {n}"
                )
    if seen.figures.get("king") != position["king"]:
        problems.append(f"camera saw the king in {seen.figures.get('king')}")
    for colour, region in position["grandes"].items():
        if seen.figures.get(f"grande:{colour}") != region:
            problems.append(
                f"camera saw {colour}'s grande in {seen.figures.get('grande:' + colour)}"
            )
    cubes = sum(sum(c.values()) for c in position["regions"].values())
    verdict = "agrees with the engine" if not problems else f"{len(problems)} differences"
    say(
        f"camera: {frame.shape[1]}x{frame.shape[0]} frame, {cubes} caballeros in "
        f"the regions, king and {len(position['grandes'])} grandes read in {took * 1000:.0f} ms: "
        f"{verdict}"
    )
    hand_frame, _ = render(position, layout, seed=seed, hand=True)
    hand = read_frame(hand_frame, calibration, layout)
    if hand.occluded and not hand.counts:
        say(f"camera: a hand over the board gives no counts ({hand.unread.get('board', '')})")
    else:
        problems.append("a frame with a hand over the board produced counts")
    return problems
